"""check(): torch's verdict plus cause, worst entry and explanation; planted bugs are caught."""

from __future__ import annotations

import math

import pytest
import torch
from torch.autograd.gradcheck import GradcheckError

import gradkit
from gradkit import check
from gradkit.zoo import CATALOGUE, AbsFn, InplaceSavedExpFn, ReluFn, SquareFn, WrongSquareFn

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
        (
            (torch.zeros(0, dtype=torch.float64, requires_grad=True),),
            ValueError,
            r"inputs\[0\] is empty",
        ),
        (
            (torch.zeros(3000, dtype=torch.float64, requires_grad=True),),
            ValueError,
            r"3000 x 3000 = 9,000,000 entries.*fast_mode=True",
        ),
    ],
)
def test_bad_inputs_are_named(inputs, error, match):
    with pytest.raises(error, match=match):
        check(SquareFn.apply, inputs)


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
        ({"atol": -1e-5}, "atol must be a finite number >= 0"),
        ({"rtol": -1e-3}, "rtol must be a finite number >= 0"),
        ({"nondet_tol": -1.0}, "nondet_tol must be a finite number >= 0"),
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
    with pytest.raises(ValueError, match=r"NaN or inf.*log needs x > 0"):
        check(gradkit.zoo.LogFn.apply, (_x(-1.0),))


def test_a_smooth_function_with_tight_tolerances_is_a_bug_not_a_kink():
    # one-sided slopes of x^2 differ by 2 eps, which a tiny tolerance notices; the gap halves with
    # the step, so it is curvature, not a kink
    report = check(SquareFn.apply, (_x(0.5, 1.5),), atol=1e-12, rtol=1e-12)
    assert not report.passed
    assert report.cause == "bug"
    entry = CATALOGUE["OneEntryWrongSquareFn"]
    assert check(entry.apply, entry.inputs(), eps=1e-3).cause == "bug"


def test_a_random_forward_is_blamed_whatever_the_seed():
    entry = CATALOGUE["RandomForwardFn"]
    for seed in range(20):
        torch.manual_seed(seed)
        report = check(entry.apply, entry.inputs())
        assert report.cause == "nondeterministic"
        assert "forward runs on the same input differ" in report.explanation
