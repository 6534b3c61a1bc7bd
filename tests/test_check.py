"""check(): torch's verdict plus cause, worst entry and explanation; planted bugs are caught."""

from __future__ import annotations

import math
import re

import pytest
import torch
from torch.autograd.gradcheck import GradcheckError

import gradkit
from gradkit import check
from gradkit.report import WorstEntry, format_difference, jacobian_position
from gradkit.zoo import (
    CATALOGUE,
    AbsFn,
    InplaceSavedExpFn,
    OneEntryWrongSquareFn,
    ReluFn,
    SquareFn,
    WrongSquareFn,
)

DTYPES = [torch.float64, torch.float32]


def _torch_says(fn, inputs, **kwargs) -> bool:
    try:
        return torch.autograd.gradcheck(fn, inputs, raise_exception=False, **kwargs)
    except Exception:  # noqa: BLE001 - torch raised something other than a Jacobian mismatch
        return False


def _x(*values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_verdict_is_always_torchs(name, dtype, fast_mode):
    entry = CATALOGUE[name]
    torch.manual_seed(0)
    report = check(entry.apply, entry.inputs(dtype), fast_mode=fast_mode)
    torch.manual_seed(0)
    assert report.passed == _torch_says(entry.apply, entry.inputs(dtype), fast_mode=fast_mode)
    if not fast_mode:
        assert (
            report.cause == entry.expected_cause["float64" if dtype == torch.float64 else "float32"]
        )


def test_correct_entries_pass_in_float64_and_buggy_ones_fail():
    for entry in CATALOGUE.values():
        report = check(entry.apply, entry.inputs())
        assert report.passed == entry.correct, entry.name
        assert (report.cause == "pass") == entry.correct, entry.name


@pytest.mark.usefixtures("quiet_gradcheck")
def test_square_in_float32_fails_for_precision_with_torchs_warning():
    report = check(SquareFn.apply, (torch.tensor([0.5], dtype=torch.float32, requires_grad=True),))
    assert not report.passed
    assert report.verdict == "GradcheckError"
    assert report.cause == "precision"
    assert "float64" in report.suggestion
    assert any("not a double precision" in w for w in report.warnings)
    assert "Jacobian mismatch" in report.torch_message
    # numbers in the explanation: numeric 1.01328 vs analytic 1
    assert "1.01328" in report.explanation
    assert report.worst.numeric == pytest.approx(1.0132789611816406)


def test_wrong_constant_is_explained_with_both_numbers():
    report = check(WrongSquareFn.apply, (_x(0.5, 1.5),))
    assert report.cause == "bug"
    assert "analytic is 1.5x numeric on every entry" in report.explanation
    assert "wrong constant" in report.explanation
    assert report.worst.numeric == pytest.approx(3.0)
    assert report.worst.analytic == pytest.approx(4.5)
    assert report.max_abs_error == pytest.approx(1.5, rel=1e-6)
    assert report.worst.tolerance == pytest.approx(1e-5 + 1e-3 * 3.0, rel=1e-6)


@pytest.mark.parametrize(
    "name",
    [
        "SignErrorTanhFn",
        "TransposedMatmulFn",
        "MissingConjComplexSquareFn",
        "ForgotGradOutputSigmoidFn",
        "OneEntryWrongSquareFn",
    ],
)
def test_each_planted_bug_gets_its_own_explanation(name):
    expected = {
        "SignErrorTanhFn": "sign error",
        "TransposedMatmulFn": "transposed",
        "MissingConjComplexSquareFn": "conj",
        "ForgotGradOutputSigmoidFn": "grad_output",
        "OneEntryWrongSquareFn": "only 1 of 256",
    }[name]
    entry = CATALOGUE[name]
    report = check(entry.apply, entry.inputs())
    assert report.cause == "bug"
    assert expected in report.explanation


def test_kinks_are_recognised():
    relu = check(ReluFn.apply, (_x(0.0, 1.0),))
    assert not relu.passed and relu.cause == "kink"
    assert "from the left is 0" in relu.explanation and "from the right 1" in relu.explanation
    assert relu.explanation.startswith("at input entry 0 (x = 0)")
    # |x| at exactly 0 passes (numeric 0 == sign(0)), but within eps of 0 it is a kink
    assert check(AbsFn.apply, (_x(0.0, 1.0),)).passed
    near = check(AbsFn.apply, (_x(1e-7, 1.0),))
    assert near.cause == "kink"


def test_nondet_tol_accepts_a_noisy_backward():
    entry = CATALOGUE["NoisyBackwardTanhFn"]
    failing = check(entry.apply, entry.inputs())
    assert failing.cause == "nondeterministic" and "nondet_tol=" in failing.suggestion
    assert check(entry.apply, entry.inputs(), nondet_tol=1e-8).passed


def test_error_cause_keeps_the_traceback():
    def broken(x):
        raise ZeroDivisionError("planted failure")

    report = check(broken, (_x(1.0),))
    assert not report.passed
    assert report.cause == "error"
    assert report.verdict == "ZeroDivisionError"
    assert "planted failure" in report.traceback
    assert "Traceback" in report.traceback


def test_inplace_saved_tensor_is_an_error_with_advice():
    entry = CATALOGUE["InplaceSavedExpFn"]
    report = check(InplaceSavedExpFn.apply, entry.inputs())
    assert report.cause == "error" and "in place" in report.suggestion


def test_raise_for_failure_raises_torchs_error():
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        check(WrongSquareFn.apply, (_x(0.5, 1.5),)).raise_for_failure()
    check(SquareFn.apply, (_x(0.5, 1.5),)).raise_for_failure()


def test_text_and_html_renderings():
    good = check(SquareFn.apply, (_x(0.5, 1.5),))
    bad = check(WrongSquareFn.apply, (_x(0.5, 1.5),))
    assert str(good).startswith("gradcheck PASS")
    assert str(bad).startswith("gradcheck FAIL (GradcheckError, cause: bug)")
    assert "✔ pass" in good._repr_html_()
    html = bad._repr_html_()
    assert "✘ GradcheckError" in html and "<b>bug</b>" in html and "Jacobian mismatch" in html


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("engine", ["torch", "batched"])
def test_the_report_shows_torchs_warnings_in_its_own_words(engine):
    # issue 17: where a lesson says "torch warns", the learner sees the warning on the card
    x = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
    report = check(SquareFn.apply, (x,), engine=engine)
    (warning,) = (w.strip() for w in report.warnings)
    assert warning.startswith("Input #0 requires gradient and is not a double precision")
    assert f"  torch warns: {warning}" in str(report).splitlines()
    html = report._repr_html_()
    assert "⚠ torch warns" in html and f"<li>{warning}</li>" in html
    assert "torch warns" not in check(SquareFn.apply, (_x(0.5),), engine=engine)._repr_html_()


def test_check_never_changes_the_callers_tensors():
    def mutating(x):
        x.data.mul_(2)  # a forward that tramples its input
        return x * 1.0

    x = _x(0.5, 1.5)
    before = x.detach().clone()
    check(mutating, (x,))
    check(InplaceSavedExpFn.apply, (x,))
    assert torch.equal(x.detach(), before)
    assert x.grad is None and x.requires_grad
    frozen = torch.tensor([1.0, 2.0], dtype=torch.float64)
    check(torch.mul, (x, frozen))
    assert not frozen.requires_grad


# ------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("inputs", "error", "match"),
    [
        ([1.0], TypeError, r"inputs\[0\] is a float, not a tensor"),
        ("x", TypeError, "inputs must be a tensor or a tuple of tensors"),
        ((torch.tensor([1.0], dtype=torch.float64),), ValueError, "no input requires grad"),
        ((torch.tensor([1, 2]),), TypeError, r"inputs\[0\] is an integer tensor"),
    ],
)
def test_bad_inputs_are_named(inputs, error, match):
    with pytest.raises(error, match=match):
        check(SquareFn.apply, inputs)


@pytest.mark.parametrize("engine", ["torch", "batched"])
def test_a_jacobian_too_large_to_hold_still_gets_torchs_verdict(engine, monkeypatch):
    """torch's gradcheck accepts any size; the report then holds no numbers and says why."""
    monkeypatch.setattr(gradkit.jacobian, "MAX_JACOBIAN_ENTRIES", 100)
    x = torch.linspace(0.1, 1, 12, dtype=torch.float64, requires_grad=True)
    for fn, expected in ((SquareFn.apply, True), (WrongSquareFn.apply, False)):
        report = check(fn, (x,), engine=engine)
        assert report.passed is expected and report.numeric is None
        assert "144 entries, too many to hold" in report.notes[0] and "fast_mode" in report.notes[0]
        if engine == "batched":
            assert "so torch's own gradcheck decided" in report.notes[1]


def test_large_inputs_work_in_fast_mode():
    x = torch.linspace(0.1, 1, 3000, dtype=torch.float64, requires_grad=True)
    report = check(SquareFn.apply, (x,), fast_mode=True)
    assert report.passed and report.numeric is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"eps": 0}, "eps must be a finite number > 0"),
        ({"eps": math.nan}, "eps must be a finite number > 0"),
        ({"eps": math.inf}, "eps must be a finite number > 0"),
        ({"atol": -1e-5}, "atol must be a number >= 0"),
        ({"rtol": -1e-3}, "rtol must be a number >= 0"),
        ({"nondet_tol": -1.0}, "nondet_tol must be a number >= 0"),
        ({"engine": "fast"}, "engine='fast'"),
    ],
)
def test_bad_settings_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        check(SquareFn.apply, (_x(0.5),), **kwargs)


def test_bad_functions_are_named():
    with pytest.raises(TypeError, match=r"pass SquareFn.apply"):
        check(SquareFn, (_x(0.5),))
    with pytest.raises(TypeError, match="fn must be callable"):
        check(3, (_x(0.5),))
    with pytest.raises(TypeError, match="must return a tensor or a tuple of tensors, got float"):
        check(lambda x: 3.0, (_x(0.5),))


def test_a_function_outside_its_domain_gets_torchs_verdict_and_a_note():
    report = check(gradkit.zoo.LogFn.apply, (_x(-1.0),))
    assert report.passed is _torch_says(gradkit.zoo.LogFn.apply, (_x(-1.0),)) is False
    assert report.cause == "nonfinite"
    assert any(re.search(r"NaN or inf.*log needs x > 0", note) for note in report.notes)


def test_a_smooth_function_with_tight_tolerances_is_rounding_not_a_kink_or_a_bug():
    # one-sided slopes of x^2 differ by 2 eps, which a tiny tolerance notices; the gap halves with
    # the step, so it is curvature, not a kink; numeric and analytic differ by rounding only
    report = check(SquareFn.apply, (_x(0.5, 1.5),), atol=1e-12, rtol=1e-12)
    assert not report.passed
    assert report.cause == "precision" and "not the rule" in report.explanation
    entry = CATALOGUE["OneEntryWrongSquareFn"]
    assert check(entry.apply, entry.inputs(), eps=1e-3).cause == "bug"


def test_a_random_forward_is_blamed_whatever_the_seed():
    entry = CATALOGUE["RandomForwardFn"]
    for seed in range(20):
        torch.manual_seed(seed)
        report = check(entry.apply, entry.inputs())
        assert report.cause == "nondeterministic"
        assert "forward runs on the same input differ" in report.explanation


def test_a_random_forward_names_the_output_entry_that_moved_the_way_positions_are_named():
    from gradkit.detectors import find_nondeterminism

    x = _x(1.0, 2.0, 3.0, 4.0)
    calls = iter(range(100))

    def one_entry_moves(t):  # the third entry moves by 2 on every call, the others stay
        return t * torch.tensor([1.0, 1.0, 1.0 + 2 * next(calls) / 3, 1.0], dtype=t.dtype)

    said, _ = find_nondeterminism(one_entry_moves, (x,), 1e-8)
    assert "differ by up to 2 at output entry 2:" in said and "(output" not in said

    def second_output_moves(t):
        return t * 1.0, torch.stack([t[0], t[1] * next(calls)])

    said, _ = find_nondeterminism(second_output_moves, (x,), 1e-8)
    assert "differ by up to 2 at output 1 entry 1:" in said


# ---------------------------------------------------- one wording for positions and numbers


def _differences(text: str) -> tuple[list[str], list[str]]:
    """Every number written after "|diff|" and after "allowed" (HTML <code> tags dropped)."""
    plain = re.sub(r"</?code>", "", text)
    return re.findall(r"\|diff\| ([^\s),;]+)", plain), re.findall(r"allowed ([^\s),;]+)", plain)


def test_jacobian_positions_have_one_wording():
    assert jacobian_position(1, 3) == "output entry 1, input entry 3"
    assert jacobian_position(1, 3, output_tensor=0, input_tensor=2) == (
        "output 0 entry 1, input 2 entry 3"
    )
    assert jacobian_position(1, 3, input_tensor=1) == "output entry 1, input 1 entry 3"
    with pytest.raises(ValueError, match="side must be 'output' or 'input'"):
        gradkit.report.entry_name("row", 1)


def test_the_worst_entry_reads_output_entry_input_entry_everywhere():
    report = check(WrongSquareFn.apply, (_x(0.5, 1.5),))  # worst: numeric 3, analytic 4.5
    assert report.worst.position == "output entry 1, input entry 1"
    line = next(ln for ln in str(report).splitlines() if "worst entry" in ln)
    assert line == (
        "  worst entry: output entry 1, input entry 1: numeric 3 vs analytic 4.5 "
        "(|diff| 1.5, allowed 0.00301)"
    )
    assert "The worst entry (output entry 1, input entry 1)" in report.explanation
    assert "output entry 1, input entry 1: numeric <code>3</code>" in report._repr_html_()
    for text in (str(report), report.explanation, report._repr_html_()):
        for old in ("wrt", "row ", "column ", "at (", " / input"):
            assert old not in text, (old, text)


def test_several_tensors_are_named_on_their_own_side_only():
    class SecondInputWrongProductFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            _, b = ctx.saved_tensors
            return grad * b, grad * b  # planted bug: the second should be grad * a

    two_inputs = check(SecondInputWrongProductFn.apply, (_x(1.0, 2.0), _x(3.0, 5.0)))
    assert two_inputs.worst.input == 1
    k = two_inputs.worst.index[0]
    assert two_inputs.worst.position == f"output entry {k}, input 1 entry {k}"
    assert f"output entry {k}, input 1 entry {k}" in str(two_inputs)

    two_outputs = check(lambda x: (2 * x, WrongSquareFn.apply(x)), (_x(0.5, 1.5),))
    assert two_outputs.worst.output == 1
    assert two_outputs.worst.position == "output 1 entry 1, input entry 1"
    assert "output 1 entry 1, input entry 1" in str(two_outputs)


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize(
    ("fn", "inputs", "fast_mode", "diff", "allowed"),
    [
        (SquareFn.apply, (_x(0.5, 1.5),), False, "2.47e-10", "0.00301"),  # a close call
        (WrongSquareFn.apply, (_x(0.5, 1.5),), False, "1.5", "0.00301"),  # a bug
        (  # lesson 03: float32 rounding
            SquareFn.apply,
            (torch.tensor([0.5], dtype=torch.float32, requires_grad=True),),
            False,
            "0.0133",
            "0.00102",
        ),
        (  # fast mode's blind spot: one wrong entry
            OneEntryWrongSquareFn.apply,
            (torch.linspace(0.25, 2.0, 10, dtype=torch.float64, requires_grad=True),),
            True,
            "0.1",
            "0.00051",
        ),
    ],
    ids=["close-call", "bug", "float32", "fast-blind-spot"],
)
def test_diff_and_allowed_are_rounded_alike_in_every_rendering(
    fn, inputs, fast_mode, diff, allowed
):
    report = check(fn, inputs, fast_mode=fast_mode)
    w = report.worst
    assert (format_difference(w.error), format_difference(w.tolerance)) == (diff, allowed)
    assert (w.shown["error"], w.shown["tolerance"]) == (diff, allowed)  # what the lab sends
    for text in (str(report), report.explanation, report._repr_html_()):
        diffs, alloweds = _differences(text)
        assert alloweds, f"no allowed difference in {text!r}"
        # one formatting for both: never "allowed 0.003" beside "0.00301"
        assert set(diffs) <= {diff} and set(alloweds) == {allowed}, (diffs, alloweds, text)


def _spelled_out_allowances(source: str) -> list[int]:
    """Lines where ``source`` writes gradcheck's allowance ``atol + rtol · |n|`` by hand."""
    import ast

    def named(node: ast.AST, name: str) -> bool:
        leaf = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        return leaf == name

    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                product = isinstance(b, ast.BinOp) and isinstance(b.op, ast.Mult)
                rtol = product and (named(b.left, "rtol") or named(b.right, "rtol"))
                if named(a, "atol") and rtol:
                    lines.append(node.lineno)
    return lines


def test_gradchecks_allowance_is_written_once_and_called_everywhere_else():
    """``_args.allowance`` is the one home of ``atol + rtol·|numeric|``: no module writes it out."""
    from pathlib import Path

    package = Path(gradkit.__file__).parent
    found = {
        str(path.relative_to(package)): lines
        for path in sorted(package.rglob("*.py"))
        if path.name != "_args.py"
        and (lines := _spelled_out_allowances(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"call gradkit._args.allowance instead: {found}"
    assert _spelled_out_allowances("x = report.atol + report.rtol * n.abs()") == [1]
    assert _spelled_out_allowances("y = 2 * (atol + rtol * abs(v))") == [1]


@pytest.mark.parametrize(
    ("numeric", "analytic", "allowed", "outside"),
    [(3.0, 3.002, 0.003, False), (3.0, 3.004, 0.003, True), (3.0, math.nan, 0.003, True)],
)
def test_the_worst_entry_fails_by_gradchecks_test(numeric, analytic, allowed, outside):
    """``outside`` is ``not |diff| <= allowed`` (torch.allclose's test: a NaN fails): the one
    pass test of a worst entry, which the lab sends instead of redoing it in the page."""
    w = WorstEntry(0, 0, (0, 0), numeric, analytic, allowed)
    assert w.outside is outside
    texts = (f"{numeric:.6g}", f"{analytic:.6g}", f"{w.error:.3g}", f"{allowed:.3g}")
    assert w.shown == dict(zip(("numeric", "analytic", "error", "tolerance"), texts, strict=True))
