"""Issue 19: torch's verdict on every input torch accepts, the right cause at extreme settings, a
safe CLI. One test per case of the issue (cases 14-19, the widgets, live with the widgets).

Each verdict is compared with ``torch.autograd.gradcheck(..., raise_exception=False)`` on fresh
copies of the same inputs, for both engines.
"""

from __future__ import annotations

import math
import os
import re
import warnings

import numpy as np
import pytest
import torch

import gradkit
from gradkit import check, cli

ENGINES = ("torch", "batched")


def _x(*values: float, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def _torch_says(fn, inputs, **settings) -> bool | str:
    """torch's verdict, or the name of the exception torch raised instead of returning one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=False, **settings))
        except Exception as error:  # noqa: BLE001 - torch raised: no verdict
            return type(error).__name__


def _both_numbers(text: str) -> bool:
    """HIPS/autograd style: the explanation prints the numeric and the analytic number."""
    return re.search(r"numeric \S+ vs analytic \S+", text) is not None


# ------------------------------------------------------------------------- verdicts (cases 1-7)


@pytest.mark.parametrize("engine", ENGINES)
def test_case01_an_output_that_needs_no_gradient_may_hold_inf(engine):
    def with_inf(x):
        return x * 2, torch.full((2,), math.inf, dtype=torch.float64)

    report = check(with_inf, (_x(0.5, 1.5),), engine=engine)
    assert report.passed is _torch_says(with_inf, (_x(0.5, 1.5),)) is True
    assert any("output 1 holds 2 NaN or inf" in note for note in report.notes)


@pytest.mark.parametrize("bad", [math.inf, math.nan])
@pytest.mark.parametrize("engine", ENGINES)
def test_case02_inf_or_nan_among_the_inputs_is_a_failing_report(engine, bad):
    report = check(torch.sin, (_x(0.5, bad),), engine=engine)
    assert report.passed is _torch_says(torch.sin, (_x(0.5, bad),)) is False
    assert report.cause == "nonfinite"
    assert "input entry 1 is" in report.explanation
    assert any("input 0 holds 1 NaN or inf" in note for note in report.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_case03_a_bool_output_beside_a_float_one_fails_as_torch_raises(engine):
    def with_mask(x):
        return x * 2, x > 1

    assert _torch_says(with_mask, (_x(0.5, 1.5),)) == "RuntimeError"
    report = check(with_mask, (_x(0.5, 1.5),), engine=engine)
    assert not report.passed and report.cause == "error" and report.verdict == "RuntimeError"


def _shifts_its_input(x):
    x.data.add_(1e-3)
    return x * 2


@pytest.mark.parametrize("engine", ENGINES)
def test_case04_a_function_that_changes_its_input_fails_on_both_engines(engine):
    report = check(_shifts_its_input, (_x(0.5, 1.5, 2.5),), engine=engine)
    assert report.passed is _torch_says(_shifts_its_input, (_x(0.5, 1.5, 2.5),)) is False
    assert report.cause == "mutation"
    if engine == "batched":
        assert any("torch's own gradcheck decided" in note for note in report.notes)


def _grad_inside(x):
    return torch.autograd.grad((x * x).sum(), x, create_graph=True)[0]


def _backward_inside(x):
    probe = x.detach().requires_grad_()
    (probe * probe).sum().backward()  # a forward that runs a backward of its own
    return x * 2 + 0 * probe.grad


@pytest.mark.parametrize("fn", [_grad_inside, _backward_inside], ids=["grad", "backward"])
@pytest.mark.parametrize("engine", ENGINES)
def test_case05_a_function_using_autograd_inside_passes_on_both_engines(engine, fn):
    report = check(fn, (_x(0.5, 1.5, 2.5),), engine=engine)
    assert report.passed is _torch_says(fn, (_x(0.5, 1.5, 2.5),)) is True
    if engine == "batched":
        assert any("uses autograd inside" in note for note in report.notes)


class _MixRowsFn(torch.autograd.Function):
    """x + 5e-5 * sum(x), with its correct backward: every output depends on every input."""

    @staticmethod
    def forward(ctx, x):
        return x + 5e-5 * x.sum()

    @staticmethod
    def backward(ctx, grad):
        return grad + 5e-5 * grad.sum()


def _pairs() -> torch.Tensor:
    a = torch.tensor([0.3, 1.1, 2.7, 0.9, 1.3, 0.45])
    return torch.stack([a, -a], 1).reshape(-1).requires_grad_()  # a, -a, b, -b, ...: sum 0


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("engine", ENGINES)
def test_case06_rows_mixed_below_the_batch_checks_tolerance_get_torchs_verdict(engine):
    assert _torch_says(_MixRowsFn.apply, (_pairs(),), eps=0.1) is True
    report = check(_MixRowsFn.apply, (_pairs(),), eps=0.1, engine=engine)
    assert report.passed and report.cause == "pass"
    assert report.worst.numeric == pytest.approx(5e-5, rel=0.1)  # torch's off-diagonal, not 0
    if engine == "batched":
        assert any("recomputed the Jacobians one entry per call" in n for n in report.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_case07_what_torch_accepts_check_accepts(engine):
    def empty():
        return (torch.zeros(0, dtype=torch.float64, requires_grad=True),)

    nothing = check(torch.sin, empty(), engine=engine)
    assert nothing.passed is _torch_says(torch.sin, empty()) is True
    assert any(
        note.startswith("nothing was checked: input 0 has no entries") for note in nothing.notes
    )
    assert "nothing to compare" in nothing.explanation

    wrong = gradkit.zoo.WrongSquareFn.apply
    lenient = check(wrong, (_x(0.5, 1.5),), atol=math.inf, engine=engine)
    assert lenient.passed is _torch_says(wrong, (_x(0.5, 1.5),), atol=math.inf) is True
    assert any("atol=inf accepts any difference" in note for note in lenient.notes)

    eps = np.float32(1e-3)
    assert check(torch.sin, (_x(0.5, 1.5),), eps=eps, engine=engine).passed
    assert _torch_says(torch.sin, (_x(0.5, 1.5),), eps=eps) is True


# -------------------------------------------------------------- causes at extremes (cases 8-11)


@pytest.mark.parametrize(
    ("fn", "x", "eps"),
    [
        (lambda v: v**3, (0.5, 1.5), 1.0),
        (torch.exp, (0.5, 1.5), 0.5),
        (torch.reciprocal, (1e-3,), 1e-4),
    ],
    ids=["cube-eps-1", "exp-eps-0.5", "reciprocal-at-1e-3"],
)
def test_case08_truncation_at_a_large_eps_is_not_a_bug(fn, x, eps):
    report = check(fn, (_x(*x),), eps=eps)
    assert report.passed is _torch_says(fn, (_x(*x),), eps=eps) is False
    assert report.cause == "truncation"
    assert "truncation" in report.explanation and _both_numbers(report.explanation)
    smaller = float(re.search(r"eps=(\S+) passes", report.suggestion).group(1))
    assert smaller < eps and check(fn, (_x(*x),), eps=smaller).passed


@pytest.mark.parametrize(
    ("fn", "tolerances"),
    [(lambda v: 2 * v, {"atol": 0, "rtol": 0}), (torch.sin, {"atol": 1e-11, "rtol": 0})],
    ids=["2v-exact", "sin-atol-1e-11"],
)
def test_case09_rounding_under_a_tiny_tolerance_is_precision(fn, tolerances):
    report = check(fn, (_x(0.3, 0.7, 1.1),), **tolerances)
    assert report.passed is _torch_says(fn, (_x(0.3, 0.7, 1.1),), **tolerances) is False
    assert report.cause == "precision"
    assert "not the rule" in report.explanation and _both_numbers(report.explanation)
    assert "loosen the tolerance" in report.suggestion or "use eps=" in report.suggestion


def test_case09_no_eps_meets_a_zero_tolerance_so_the_fix_is_a_looser_one():
    report = check(lambda v: 2 * v, (_x(0.3, 0.7, 1.1),), atol=0, rtol=0)
    assert "no finite difference in float64 can meet it" in report.explanation
    atol = float(re.search(r"atol=(\S+) or more", report.suggestion).group(1))
    assert check(lambda v: 2 * v, (_x(0.3, 0.7, 1.1),), atol=atol, rtol=0).passed


@pytest.mark.parametrize("x", [1e-7, 3e-7, 5e-7, 7e-7, 9e-7])
def test_case10_a_kink_within_eps_of_x_is_a_kink(x):
    report = check(torch.abs, (_x(x, 1.0),))
    assert report.passed is _torch_says(torch.abs, (_x(x, 1.0),)) is False
    assert report.cause == "kink"
    assert "within eps=1e-06 of x" in report.explanation and _both_numbers(report.explanation)
    assert "away from the kink" in report.suggestion


def test_case11_a_large_offset_is_cancellation_not_float32_inside():
    def offset_sin(v):
        return 1e9 + torch.sin(v)

    report = check(offset_sin, (_x(0.3, 0.7),))
    assert report.passed is _torch_says(offset_sin, (_x(0.3, 0.7),)) is False
    assert report.cause == "precision"
    assert "cancellation against a large offset" in report.explanation
    assert "float32" not in report.explanation and _both_numbers(report.explanation)
    assert "without its constant offset" in report.suggestion


# --------------------------------------------------------- inputs and side effects (cases 12-13)


def _runs_backward(v):
    (v * v).sum().backward()
    return v * 2


def _switches_off_grad(v):
    out = v * 2
    v.requires_grad_(False)
    return out


@pytest.mark.parametrize("fn", [_runs_backward, _switches_off_grad], ids=["backward", "flag"])
@pytest.mark.parametrize("engine", ENGINES)
def test_case12_the_callers_grad_and_requires_grad_survive_both_engines(engine, fn):
    x = _x(0.5, 1.5, 2.5)
    check(fn, (x,), engine=engine)
    assert x.grad is None and x.requires_grad
    assert torch.equal(x.detach(), torch.tensor([0.5, 1.5, 2.5], dtype=torch.float64))
    earlier = torch.ones(3, dtype=torch.float64)
    x.grad = earlier
    check(fn, (x,), engine=engine)
    assert x.grad is earlier and torch.equal(earlier, torch.ones(3, dtype=torch.float64))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: gradkit.numeric_slope(None, 2.0, 1e-3), "f must be callable"),
        (lambda: gradkit.numeric_slope(torch.sin, "x", 1e-3), "x must be a single number"),
        (lambda: gradkit.sweep(None, 0.5), "f must be callable"),
        (lambda: gradkit.sweep(torch.sin, "x"), "x must be a number or a tensor"),
        (lambda: gradkit.analytic_slope(None, 1.0), "f must be callable"),
        (lambda: gradkit.analytic_slope(torch.sin, "x"), "x must be a single number"),
        (lambda: gradkit.analytic_jacobian(None, _x(1.0)), "fn must be callable"),
        (lambda: gradkit.analytic_jacobian(torch.sin, "x"), "inputs must be a tensor"),
        (lambda: gradkit.numeric_jacobian(None, _x(1.0)), "fn must be callable"),
        (lambda: check(None, _x(1.0)), "fn must be callable"),
    ],
    ids=[
        "numeric_slope-f",
        "numeric_slope-x",
        "sweep-f",
        "sweep-x",
        "analytic_slope-f",
        "analytic_slope-x",
        "analytic_jacobian-fn",
        "analytic_jacobian-inputs",
        "numeric_jacobian-fn",
        "check-fn",
    ],
)
def test_case13_every_helper_names_a_bad_function_or_point_as_check_does(call, match):
    with pytest.raises(TypeError, match=match):
        call()


# ------------------------------------------------------------------ command line (cases 20-22)


def _run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("port", ["-5", "0", "70000"])
def test_case20_a_port_outside_1_to_65535_exits_2_and_starts_nothing(
    tmp_path, monkeypatch, capsys, port
):
    started = []
    monkeypatch.setattr(os, "execv", lambda path, command: started.append(command))
    status, out, err = _run(capsys, "notebook", str(tmp_path), "--port", port)
    assert status == 2 and not started and "http" not in out
    assert f"--port must be a whole number from 1 to 65535 (e.g. 8888), got {port}" in err


@pytest.mark.parametrize("exit_call", ["sys.exit(0)", "sys.exit(3)", "raise SystemExit"])
def test_case21_an_exit_while_importing_the_learners_file_is_an_error(
    tmp_path, capsys, check_child_in_process, exit_call
):
    """The child's import of the file, run in this process (tests/conftest.py); case 22 below
    loads a learner's file in a real child."""
    module = tmp_path / "exits_early.py"
    module.write_text(f"import sys\n{exit_call}\n\ndef f(x):\n    return x * 2\n")
    status, out, err = _run(capsys, "check", f"{module}:f")
    assert status == 2 and "PASS" not in out
    assert "importing module 'exits_early' called sys.exit(" in err
    assert "if __name__ == '__main__':" in err


def test_case22_a_file_named_like_a_standard_module_is_the_learners_file(tmp_path, capsys):
    module = tmp_path / "random.py"
    module.write_text(
        "import torch\n\n\n"
        "class MyFn(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * x\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        (x,) = ctx.saved_tensors\n"
        "        return 2 * x * grad\n"
    )
    status, out, err = _run(capsys, "check", f"{module}:MyFn")
    assert (status, err) == (0, "") and out.startswith("gradcheck PASS")
    import random

    assert not hasattr(random, "MyFn") and hasattr(random, "choice")  # the stdlib is untouched
