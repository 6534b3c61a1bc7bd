"""gradcheck's other checks: each specimen fails exactly the check it is named for."""

from __future__ import annotations

import pytest
import torch
from torch.autograd.gradcheck import GradcheckError

from gradkit import CAUSES, check
from gradkit.zoo import (
    CHECK_SPECIMENS,
    OTHER_CHECKS,
    CheckSpecimen,
    SinFn,
    SquareFn,
    WrongSquareFn,
)
from gradkit.zoo.checks import check_specimen

#: The three checks a twin can fail (check_backward_ad switches the Jacobian comparison off).
SWITCHES = ("check_batched_grad", "check_forward_ad", "check_undefined_grad")
TWINS = sorted(n for n, s in CHECK_SPECIMENS.items() if not s.correct)
CORRECT = sorted(n for n, s in CHECK_SPECIMENS.items() if s.correct)


def _torch_passes(specimen: CheckSpecimen, **switches: bool) -> bool:
    """torch's gradcheck with every other check off but ``switches``."""
    settings = dict.fromkeys(SWITCHES, False) | switches
    try:
        torch.autograd.gradcheck(specimen.apply, specimen.make_input(), **settings)
    except (GradcheckError, RuntimeError, TypeError):
        return False
    return True


def test_one_twin_for_each_check_and_a_correct_sin():
    assert {s.fails for s in CHECK_SPECIMENS.values() if not s.correct} == set(SWITCHES)
    assert {"SinFn", "SinCosFn"} <= set(CORRECT)
    assert set(OTHER_CHECKS) == {*SWITCHES, "check_backward_ad"}


@pytest.mark.parametrize("name", TWINS)
def test_each_twin_overrides_one_rule_of_sin(name):
    twin = CHECK_SPECIMENS[name].function
    assert twin.__bases__ == (SinFn,)
    own = {k for k in vars(twin) if not k.startswith("_")}
    assert own in ({"backward"}, {"jvp"}), own
    assert CHECK_SPECIMENS[name].bug.endswith(".") and ":" in CHECK_SPECIMENS[name].bug


@pytest.mark.parametrize("name", TWINS)
def test_twin_passes_the_jacobian_comparison_and_fails_exactly_its_check(name):
    specimen = CHECK_SPECIMENS[name]
    assert _torch_passes(specimen)
    verdicts = {switch: _torch_passes(specimen, **{switch: True}) for switch in SWITCHES}
    assert verdicts == {switch: switch != specimen.fails for switch in SWITCHES}


@pytest.mark.parametrize("name", CORRECT)
def test_correct_specimens_pass_every_check(name):
    assert _torch_passes(CHECK_SPECIMENS[name], **dict.fromkeys(SWITCHES, True))


def test_specimens_compute_sin():
    for specimen in CHECK_SPECIMENS.values():
        (x,) = specimen.make_input()
        out = specimen.apply(x)
        first = out[0] if isinstance(out, tuple) else out
        assert torch.allclose(first, torch.sin(x)), specimen.name


def test_check_specimen_refuses_half_described_twins():
    with pytest.raises(ValueError, match="bug= and the check it fails="):
        check_specimen(description="d.", bug="Bug: b.")
    with pytest.raises(ValueError, match="is not one of"):
        check_specimen(description="d.", bug="Bug: b.", fails="check_everything")


# ------------------------------------------------------------------ gradkit.check names the cause

#: The cause gradkit.check reports for a failure of each check.
CAUSE_OF = {
    "check_batched_grad": "batched_grad",
    "check_forward_ad": "forward_ad",
    "check_undefined_grad": "undefined_grad",
}


@pytest.mark.parametrize("switch", SWITCHES)
@pytest.mark.parametrize("name", sorted(CHECK_SPECIMENS))
def test_check_gives_torchs_verdict_and_names_the_check(name, switch):
    specimen = CHECK_SPECIMENS[name]
    settings = dict.fromkeys(SWITCHES, False) | {switch: True}
    report = check(specimen.apply, specimen.make_input(), **settings)
    assert report.passed == _torch_passes(specimen, **{switch: True})
    assert report.passed == (specimen.fails != switch)
    if not report.passed:
        assert report.cause == CAUSE_OF[switch]
        assert report.explanation and report.suggestion
        assert "torch says: " in report.explanation


@pytest.mark.parametrize("name", TWINS)
def test_check_with_every_switch_on_names_the_twins_own_check(name):
    specimen = CHECK_SPECIMENS[name]
    report = check(specimen.apply, specimen.make_input(), **dict.fromkeys(SWITCHES, True))
    assert not report.passed and report.cause == CAUSE_OF[specimen.fails]


def test_check_keeps_torchs_defaults():
    """check_undefined_grad is on by default, as in torch; the other two are off."""
    defaults = {n: check(s.apply, s.make_input()).cause for n, s in CHECK_SPECIMENS.items()}
    assert defaults == {
        n: ("undefined_grad" if s.fails == "check_undefined_grad" else "pass")
        for n, s in CHECK_SPECIMENS.items()
    }


def test_a_wrong_jacobian_stays_a_bug_with_the_other_checks_on():
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    report = check(WrongSquareFn.apply, (x,), check_batched_grad=True, check_forward_ad=False)
    assert report.cause == "bug"


def test_forward_mode_alone_names_a_wrong_jvp_and_a_missing_one():
    twin = CHECK_SPECIMENS["ForgotTangentSinFn"]
    alone = {"check_forward_ad": True, "check_backward_ad": False, "check_undefined_grad": False}
    assert check(twin.apply, twin.make_input(), **alone).cause == "forward_ad"
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    no_jvp = check(SquareFn.apply, (x,), check_forward_ad=True)
    assert no_jvp.cause == "forward_ad" and "jvp" in no_jvp.suggestion


def test_new_causes_are_listed_with_their_check():
    for switch, cause in CAUSE_OF.items():
        assert switch in CAUSES[cause]


def test_bad_switches_say_what_to_do():
    (x,) = CHECK_SPECIMENS["SinFn"].make_input()
    with pytest.raises(TypeError, match="check_forward_ad must be True or False"):
        check(SinFn.apply, (x,), check_forward_ad="yes")
    with pytest.raises(TypeError, match="masked must be True, False or None"):
        check(SinFn.apply, (x,), masked="yes")
    # the batched engine answers every switch (no longer refused)
    twin = CHECK_SPECIMENS["EntryLoopSinFn"]
    report = check(
        twin.function.apply, twin.make_input(), engine="batched", check_batched_grad=True
    )
    assert not report.passed and report.cause == "batched_grad"


def test_gradcheck_lab_switches_the_checks_on():
    pytest.importorskip("anywidget")
    from gradkit.widgets import GradcheckLab
    from gradkit.widgets.lab.lab import parse_checks

    twin = CHECK_SPECIMENS["EntryLoopSinFn"]
    assert GradcheckLab(twin.function, twin.make_input()).report.cause == "pass"
    lab = GradcheckLab(twin.function, twin.make_input(), checks=["check_batched_grad"])
    assert lab.report.cause == "batched_grad" and not lab.report.passed
    assert parse_checks({"check_undefined_grad": False}) == {"check_undefined_grad": False}
    with pytest.raises(ValueError, match="'vmap' is not one of"):
        parse_checks(["vmap"])
    with pytest.raises(TypeError, match="a list of check names"):
        parse_checks("check_forward_ad")
