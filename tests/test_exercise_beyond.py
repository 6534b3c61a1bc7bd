"""Lesson 10's exercise, "tanh_all_checks": a Function whose Jacobian is right, made to pass
gradcheck's other checks (vmap, forward mode, None gradients).

The grader switches those checks on in gradkit's own check, so the verdict is torch's; each fix
of the starter brings the next check's failure, named in the learner's words; a forward-mode
mismatch names output entry i and input entry j, as the backward's does.
"""

from __future__ import annotations

import pytest
import torch

from gradkit.exercises import EXERCISES, Exercise, grade, grader
from gradkit.exercises.data import BEYOND_THE_JACOBIAN
from gradkit.exercises.entries import forward_entry, forward_mode_jacobian
from gradkit.exercises.solutions.tanh_all_checks import MyTanh as Solved
from gradkit.exercises.starters.tanh_all_checks import MyTanh as Started

KEY = "tanh_all_checks"
EX = EXERCISES[KEY]
NO_OTHER_CHECKS = dict.fromkeys(BEYOND_THE_JACOBIAN, False)


class WholeTensorBackward(Started):
    """The starter with vmap fixed: forward mode (no jvp) fails next."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y**2)


class WithJvp(WholeTensorBackward):
    """vmap and forward mode fixed: the backward without its None guard fails last."""

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def jvp(ctx, x_tangent):
        (y,) = ctx.saved_tensors
        return x_tangent * (1 - y**2)


class ForgotTangent(Solved):
    """Everything right but the jvp, which drops the tangent: a forward-mode mismatch."""

    @staticmethod
    def jvp(ctx, x_tangent):
        (y,) = ctx.saved_tensors
        return 1 - y**2


def _torch_passes(function, **switches) -> bool:
    """torch's own gradcheck (a failing check raises GradcheckError, or the learner's error)."""
    try:
        return torch.autograd.gradcheck(function.apply, EX.make_inputs(), **switches)
    except (RuntimeError, TypeError):  # GradcheckError and NotImplementedError are RuntimeErrors
        return False


def test_every_step_passes_the_jacobian_comparison():
    """Each Function here has a right Jacobian: only the other checks tell them apart."""
    for function in (Started, WholeTensorBackward, WithJvp, ForgotTangent, Solved):
        assert _torch_passes(function, **NO_OTHER_CHECKS), function.__name__


@pytest.mark.parametrize(
    ("function", "cause", "headline", "why"),
    [
        (Started, "batched_grad", "cannot run under vmap (check_batched_grad", "out= or view ops"),
        (WholeTensorBackward, "forward_ad", "forward mode fails (check_forward_ad)", "no jvp"),
        (WithJvp, "undefined_grad", "None gradient (check_undefined_grad", "NoneType"),
    ],
    ids=["starter: vmap", "then: forward mode", "then: None gradients"],
)
def test_each_fix_brings_the_next_check_named_in_the_learners_words(function, cause, headline, why):
    feedback = grade(KEY, function)
    assert not feedback.passed and feedback.report.cause == cause
    assert headline in feedback.headline, feedback.headline
    assert feedback.details[0].startswith(f"gradcheck: {feedback.report.verdict}, cause {cause}")
    text = " ".join(feedback.details)
    assert why in text, text
    assert "Try: " in text and "Checked at input(s) [0.5, -1.25, 2]." in text
    switch = f"check_{cause}"
    assert not _torch_passes(function, **{**NO_OTHER_CHECKS, switch: True})  # torch agrees


def test_the_solution_passes_every_check_and_says_which_ran():
    feedback = grade(KEY, Solved)
    assert feedback.passed, str(feedback)
    assert _torch_passes(Solved, **dict.fromkeys(BEYOND_THE_JACOBIAN, True))
    assert (
        "With check_batched_grad, check_forward_ad and check_undefined_grad on: vmap, forward "
        "mode and None gradients pass." in feedback.details
    )


def test_the_grader_runs_gradkits_check_with_the_exercises_switches(monkeypatch):
    seen = []

    def recording(fn, inputs, **switches):
        seen.append(switches)
        return check(fn, inputs, **switches)

    check = grader.check
    monkeypatch.setattr(grader, "check", recording)
    from gradkit.exercises.solutions.cube import MyCube

    grade(KEY, Solved)
    grade("cube", MyCube)  # any other exercise: torch's defaults
    assert seen == [dict.fromkeys(BEYOND_THE_JACOBIAN, True), {}]


def test_a_forward_mode_mismatch_names_output_entry_i_and_input_entry_j():
    """Off the diagonal the nudges measure a slope of 0; a jvp that drops the tangent returns
    1 − y² of output entry 0 there, y = tanh(0.5)."""
    feedback = grade(KEY, ForgotTangent)
    assert feedback.report.cause == "forward_ad" and feedback.report.verdict == "GradcheckError"
    slope = 1 - torch.tanh(torch.tensor(0.5, dtype=torch.float64)) ** 2
    assert feedback.details[1] == (
        "At output entry 0, input entry 1 (input entry 1 is -1.25): nudging input entry 1 moves "
        "output entry 0 at a slope of 0, but your jvp, given the tangent 1 at input entry 1 and 0 "
        f"elsewhere, returns {float(slope):.6g} at output entry 0."
    )


def test_the_forward_mode_jacobian_is_torchs_column_by_column():
    a = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([1.5, 0.25], dtype=torch.float64, requires_grad=True)
    scale = torch.tensor(3.0, dtype=torch.float64)  # no gradient wanted: no columns

    def two_outputs(a, b, scale):
        return torch.outer(a, b) * scale, a.sin()

    found = forward_mode_jacobian(two_outputs, (a, b, scale))
    expected = torch.func.jacfwd(two_outputs, argnums=(0, 1))(a.detach(), b.detach(), scale)
    for o in range(2):
        for k in range(2):
            wanted = expected[o][k].reshape(found[o][k].shape[0], -1)
            torch.testing.assert_close(found[o][k], wanted)
        assert found[o][2].shape == (found[o][0].shape[0], 0)


def test_no_entry_is_named_where_forward_mode_did_not_compare_numbers():
    """No jvp at all (NotImplementedError), or a pass: torch's words stand alone."""
    for function in (WholeTensorBackward, Solved):
        report = grade(KEY, function).report
        assert forward_entry(report, function.apply, EX.make_inputs()) == ""


def test_an_exercise_names_only_gradchecks_other_checks():
    with pytest.raises(ValueError, match="checks names gradcheck's switches"):
        Exercise(**{**EX.__dict__, "checks": ("check_everything",)})
    assert EX.checks == BEYOND_THE_JACOBIAN
    assert all(not e.checks for key, e in EXERCISES.items() if key != KEY)
