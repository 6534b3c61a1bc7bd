"""gradcheck's other checks: each specimen fails exactly the check it is named for."""

from __future__ import annotations

import pytest
import torch
from torch.autograd.gradcheck import GradcheckError

from gradkit.zoo import CHECK_SPECIMENS, OTHER_CHECKS, CheckSpecimen, SinFn
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
