"""Advice that fits the code in front of it: custom Functions as public projects write them.

Gradient reversal, straight-through estimators, sparsemax, a memory-efficient Swish, an in-place
ReLU: none of them is one of the zoo's Functions, so no zoo formula (the power rule, sin's
derivative) may reach their reports; each report names what the numbers show (a surrogate
gradient, a jump, a missing jvp, the line an error was raised at) and never gives another
verdict than torch's. The default engine ("torch") runs them: some take plain numbers too.
"""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path

import pytest
import torch
from realworld.functions import GradReverse, InplaceReLU
from realworld.functions import MemoryEfficientSwish as Swish
from realworld.functions import StraightThroughRound as RoundSTE

from gradkit import CAUSES, check
from gradkit.zoo import CHECK_SPECIMENS

#: Phrases of the zoo's own Functions that must never reach a report on anybody else's.
ZOO_FORMULAS = ("power rule", "n·x^(n-1)", "torch.cos", "sin:", "abs or relu")


def _x(*values: float, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def _torch_says(fn, inputs, **settings) -> bool:
    """torch's own verdict, on copies (an in-place Function changes what it is given)."""
    inputs = tuple(
        t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
        for t in inputs
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=False, **settings))
        except Exception:  # noqa: BLE001 - torch raised: its verdict is "fail"
            return False


def _report(fn, inputs, **settings):
    """check()'s report, its verdict held to torch's, with no zoo formula in its advice."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = check(fn, inputs, **settings)
    assert report.passed == _torch_says(fn, inputs, **settings)
    said = report.explanation + " " + report.suggestion
    assert not [phrase for phrase in ZOO_FORMULAS if phrase in said], said
    return report


class SignSTE(torch.autograd.Function):
    """Straight-through sign (binarised networks): sign forward, identity back."""

    @staticmethod
    def forward(ctx, x):
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class ClampSTE(torch.autograd.Function):
    """A clamp to [-1, 1] whose backward passes every gradient straight through."""

    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class Sparsemax(torch.autograd.Function):
    """Sparsemax (Martins & Astudillo, 2016) over the last dimension."""

    @staticmethod
    def forward(ctx, z):
        zs, _ = torch.sort(z, dim=-1, descending=True)
        k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype)
        cumulative = zs.cumsum(-1)
        support = (1 + k * zs > cumulative).sum(-1, keepdim=True)
        tau = (cumulative.gather(-1, support - 1) - 1) / support.to(z.dtype)
        out = torch.clamp(z - tau, min=0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        kept = (out > 0).to(grad_output.dtype)
        mean = (grad_output * kept).sum(-1, keepdim=True) / kept.sum(-1, keepdim=True)
        return kept * (grad_output - mean)


class HalfJvpSwish(Swish):
    """Swish with a jvp that forgets the product rule's second term."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        return Swish.forward(ctx, x)

    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return x_tangent * torch.sigmoid(x)


class LoopSwish(Swish):
    """Swish whose backward fills a fresh buffer entry by entry: vmap cannot batch it."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = torch.empty_like(x)
        for i in range(x.numel()):
            s = torch.sigmoid(x[i])
            grad[i] = grad_output[i] * s * (1 + x[i] * (1 - s))
        return grad


class Scale(torch.autograd.Function):
    """2x, with materialized gradients off (no zeros allocated) and no guard for None."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return 2 * x

    @staticmethod
    def backward(ctx, grad_output):
        return 2 * grad_output


class MatmulTypo(torch.autograd.Function):
    """x² whose backward calls mm on a vector."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.mm(x)


class ForwardTypo(torch.autograd.Function):
    """A forward that indexes past its input's end."""

    @staticmethod
    def forward(ctx, x):
        return x * x[5]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def _line_of(method, text: str) -> int:
    """The line number, in this file, of ``method``'s line holding ``text``."""
    lines, start = inspect.getsourcelines(method)
    return start + next(k for k, line in enumerate(lines) if text in line)


# ------------------------------------------------------------------ surrogate gradients


@pytest.mark.parametrize("lambd", [1.0, 0.3])
def test_gradient_reversal_is_named_with_its_scale_and_how_to_check_it(lambd):
    x = _x(0.5, -1.0, 2.0)
    report = _report(GradReverse.apply, (x, lambd))
    assert report.cause == "bug"
    assert f"(analytic = {-lambd:g} · numeric)" in report.explanation
    assert "gradient reversal layer" in report.explanation and "by design" in report.explanation
    assert "λ = -1" in report.suggestion
    assert _report(GradReverse.apply, (x, -1.0)).passed  # the suggested check passes


def test_straight_through_rounding_names_the_zero_numeric_jacobian():
    report = _report(RoundSTE.apply, (_x(0.3, 1.2, -0.7),))
    assert report.cause == "bug"
    said = report.explanation
    assert "numeric Jacobian is 0 on every failing entry (3 of the 9 compared)" in said
    assert "straight-through estimator" in said
    assert "derive the derivative by hand" not in report.suggestion
    assert "stand-in" in report.suggestion


def test_a_straight_through_clamp_fails_only_past_its_edges_and_says_why():
    report = _report(ClampSTE.apply, (_x(0.5, 2.0, -0.25, -3.0),))
    assert report.cause == "bug"
    assert "(2 of the 16 compared)" in report.explanation
    assert report.worst.index in ((1, 1), (3, 3)) and report.worst.numeric == 0


# ------------------------------------------------------------------ jumps and kinks


@pytest.mark.parametrize(
    ("fn", "x", "jump", "numeric"),
    [(RoundSTE.apply, (0.3, 0.5, 1.2), 1, 5e5), (SignSTE.apply, (0.3, 0.0, -1.2), 2, 1e6)],
)
def test_a_straight_through_estimator_at_its_jump_shows_the_jump(fn, x, jump, numeric):
    report = _report(fn, (_x(*x),))
    assert report.cause == "kink"
    w = report.worst  # the entry that decides: the jump's, not the largest |diff|/allowed
    assert (w.index, w.numeric, w.analytic) == ((1, 1), pytest.approx(numeric), 1.0)
    assert f"x = {x[1]:.3g}) the function jumps" in report.explanation
    assert f"stays about {jump}" in report.explanation
    assert f"= {numeric:.3g}" in report.explanation
    assert "The other 2 failing entries read numeric 0" in report.explanation
    assert "straight-through" in report.explanation and "stand-in" in report.suggestion


def test_a_jump_beside_a_wrong_rule_is_said_not_blamed():
    class RoundPlusTwoX(RoundSTE):
        """round(x) + 2x, whose backward forgets the 2x: off the jump, numeric 2 vs analytic 1."""

        @staticmethod
        def forward(ctx, x):
            return torch.round(x) + 2 * x

    report = _report(RoundPlusTwoX.apply, (_x(0.3, 0.5, 1.2),))
    assert report.cause == "bug"
    assert report.worst.index != (1, 1)  # a wrong entry decides, not the jump
    assert "input entry 1 sits within eps of a jump" in report.explanation


def test_kinks_are_tried_on_every_failing_entry_up_to_a_limit_said_aloud():
    from gradkit.zoo import ReluFn

    few = _report(ReluFn.apply, (_x(0.0, 0.0, 0.0, 1.0),))
    assert few.cause == "kink" and "too: input entry 1, input entry 2." in few.explanation
    many = _report(ReluFn.apply, (_x(*[0.0] * 20, 1.0),))
    assert many.cause == "kink"
    assert "and 12 more." in many.explanation
    assert "4 more input entries with failing entries were not tried (gradkit tries at most 16" in (
        many.explanation
    )


def test_failing_entries_are_counted_whole_and_kept_few():
    from gradkit.report import read_failures
    from gradkit.zoo import WrongSquareFn

    x = torch.linspace(0.1, 2.0, 200, dtype=torch.float64, requires_grad=True)
    report = check(WrongSquareFn.apply, (x,))  # the zoo's own: its formulas may be quoted
    failures = read_failures(report, (0,))
    assert (failures.count, failures.n_flat, int(failures.columns[0].sum())) == (200, 0, 200)
    assert len(failures.rest) == 64 and failures.flat == ()
    assert failures.rest[0].error >= failures.rest[-1].error  # worst first
    assert failures.others({(0, 5)}) == 199


# ------------------------------------------------------------------ the other checks


def test_a_function_without_jvp_under_check_forward_ad_says_forward_mode_is_missing():
    report = _report(Swish.apply, (_x(0.5, -1.0),), check_forward_ad=True)
    assert report.cause == "forward_ad"
    assert report.explanation.startswith("forward mode is not implemented: the Function has no jvp")
    assert "NotImplementedError" in report.explanation
    assert "torch says: NotImplementedError: You must implement the jvp function" in (
        report.explanation
    )
    assert "disagree" not in report.explanation and "write a jvp staticmethod" in report.suggestion


def test_forward_mode_alone_never_says_the_backward_agrees():
    alone = {"check_forward_ad": True, "check_backward_ad": False, "check_undefined_grad": False}
    report = _report(Swish.apply, (_x(0.5, -1.0),), **alone)
    assert report.cause == "forward_ad" and "the Function has no jvp" in report.explanation
    assert "agrees" not in report.explanation


def test_an_undefined_gradient_error_is_located_in_backward():
    report = _report(Scale.apply, (_x(0.5, -1.0),))
    line = _line_of(Scale.backward, "2 * grad_output")
    assert report.cause == "undefined_grad"
    assert f"(raised in backward ({Path(__file__).name}, line {line}: `" in report.explanation
    assert "torch says: TypeError" in report.explanation


def test_a_wrong_jvp_gets_the_rule_without_the_zoos_sin():
    report = _report(HalfJvpSwish.apply, (_x(0.5, -1.0),), check_forward_ad=True)
    assert report.cause == "forward_ad"
    assert "compared J·p with the nudged columns" in report.explanation
    assert "times the tangent, saving" in report.suggestion
    zoo = CHECK_SPECIMENS["ForgotTangentSinFn"]
    own = check(zoo.apply, zoo.make_input(), check_forward_ad=True)
    assert "tangent * torch.cos(x)" in own.suggestion  # the zoo's sin, for the zoo's sin


def test_float32_with_check_batched_grad_names_both_failures():
    report = _report(
        LoopSwish.apply, (_x(0.5, -1.0, dtype=torch.float32),), check_batched_grad=True
    )
    assert report.cause == "batched_grad"
    assert report.worst.outside
    said = report.explanation
    assert "precision is not the cause" not in said
    assert said.startswith("two failures. In float32, torch says: Jacobian mismatch for output 0")
    assert "that mismatch is rounding" in said
    assert "In float64, torch says: While computing batched gradients" in said
    assert report.suggestion.startswith("re-run with float64 inputs")
    assert "whole-tensor operations" in report.suggestion


def test_sparsemax_passes_in_float64_and_is_rounding_in_float32_with_vmap_on():
    z = _x(0.1, 0.5, 0.3, -1.0)
    assert _report(Sparsemax.apply, (z,), check_batched_grad=True).passed
    single = _report(
        Sparsemax.apply,
        (z.detach().float().requires_grad_(),),
        check_batched_grad=True,
    )
    assert single.cause == "precision" and "passes with float64 inputs" in single.explanation


# ------------------------------------------------------------------ errors, where they happen


def test_an_error_in_backward_is_located_at_the_learners_line():
    report = _report(MatmulTypo.apply, (_x(0.5, -1.0),))
    line = _line_of(MatmulTypo.backward, "x.mm(x)")
    assert report.cause == "error"
    assert f"in backward ({Path(__file__).name}, line {line}: `" in report.explanation
    assert f"line {line} (in backward): the error was raised there" in report.suggestion
    assert "comes from fn itself" not in report.suggestion


def test_an_error_in_forward_is_located_at_the_learners_line():
    report = _report(ForwardTypo.apply, (_x(0.5, -1.0),))
    line = _line_of(ForwardTypo.forward, "x[5]")
    assert report.cause == "error"
    assert f"in forward ({Path(__file__).name}, line {line}: `return x * x[5]`)" in (
        report.explanation
    )


def test_an_in_place_function_on_a_leaf_is_told_to_take_a_non_leaf():
    x = _x(0.5, -1.0)
    report = _report(InplaceReLU.apply, (x,))
    assert report.cause == "error"
    assert "a leaf that requires grad" in report.explanation
    assert "InplaceReLU.apply(x.clone())" in report.suggestion
    assert "saved tensors" not in report.suggestion
    assert _report(lambda v: InplaceReLU.apply(v.clone()), (x,)).passed  # as suggested


# ------------------------------------------------------------------ the README


def test_the_readme_lists_every_cause():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    listed = readme.split("It adds a\n`cause` (", 1)[1].split(")", 1)[0]
    assert set(re.findall(r"`(\w+)`", listed)) == set(CAUSES)
