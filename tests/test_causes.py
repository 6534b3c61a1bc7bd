"""The cause check() names for a failure: rounding before the rule, fast mode's blind spot, an
input the function changes, memory that overlaps. Written as users hit them."""

from __future__ import annotations

import warnings

import pytest
import torch

from gradkit import CAUSES, check
from gradkit.zoo import OneEntryWrongSquareFn, SquareFn, WrongSquareFn

ENGINES = ("torch", "batched")


def _x(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


def _torch_says(fn, inputs, **settings) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=False, **settings))
        except Exception:  # noqa: BLE001 - torch raised: its verdict is "fail"
            return False


# ------------------------------------------------------------------ rounding, not the rule


@pytest.mark.parametrize("engine", ENGINES)
def test_torchs_own_sin_at_a_tiny_eps_is_precision_not_a_bug(engine):
    report = check(torch.sin, (_x(0.5, 1.5, 2.5),), eps=1e-13, engine=engine)
    assert not report.passed and not _torch_says(torch.sin, (_x(0.5, 1.5, 2.5),), eps=1e-13)
    assert report.cause == "precision"
    assert "passes at eps=" in report.explanation and "not the rule" in report.explanation
    assert "use eps=" in report.suggestion


@pytest.mark.parametrize("engine", ENGINES)
def test_an_eps_that_rounds_away_is_precision(engine):
    report = check(torch.sin, (_x(0.5, 1.5),), eps=1e-300, engine=engine)
    assert not report.passed
    assert report.cause == "precision"
    assert "rounds back to x" in report.explanation
    assert "1e-300" in report.explanation
    assert report.explanation.startswith("input entry 0 is 0.5,")  # one wording for entries


@pytest.mark.parametrize("engine", ENGINES)
def test_huge_x_where_the_nudge_vanishes_is_precision(engine):
    report = check(torch.sin, (_x(1e300, -1e300),), engine=engine)
    assert not report.passed
    assert report.cause == "precision"
    assert "1e+300" in report.explanation and "apart" in report.explanation


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_where_x_plus_eps_is_x_says_the_nudge_vanished(engine, dtype):
    """In float16 and bfloat16 at gradcheck's eps, x ± eps round back to x: the card says the
    nudge was 0 (the shelf of lesson 4), not that x ± eps land near x; float32, where they land
    near, keeps that story. Both name the two roundings lessons 3 and 4 teach."""
    from gradkit.zoo import SquareFn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        half = torch.tensor([0.5, 1.5], dtype=dtype, requires_grad=True)
        report = check(SquareFn.apply, (half,), engine=engine)
        single = check(SquareFn.apply, (half.detach().float().requires_grad_(),), engine=engine)
    assert (report.cause, single.cause) == ("precision", "precision")
    assert "land back on x itself" in report.explanation
    assert "near, not at" not in report.explanation
    assert "near, not at" in single.explanation and "back on x" not in single.explanation
    for said in (report.explanation, single.explanation):
        assert "x ± eps land" in said and "f(x ± eps) is rounded" in said


def _linear_and_input() -> tuple[torch.nn.Linear, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    return torch.nn.Linear(3, 2), torch.rand(4, 3, generator=gen, requires_grad=True)


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("engine", ENGINES)
def test_a_float32_module_is_rechecked_with_float64_weights_of_a_copy(engine):
    module, x = _linear_and_input()
    weight = module.weight.detach().clone()
    for fn in (module, module.forward):
        report = check(fn, (x,), engine=engine)
        assert not report.passed and not _torch_says(fn, (x,))
        assert report.cause == "precision"
        # batched float32 kernels round differently on some CPUs (not on others): then the
        # batched engine says it recomputed one entry per call, and says nothing else
        rounding = "batched calls round differently from single calls"
        assert all(note.startswith(rounding) for note in report.notes), report.notes
        assert "passes with float64 inputs" in report.explanation
        assert "module.double()" in report.suggestion
    assert module.weight.dtype == torch.float32 and torch.equal(module.weight, weight)


@pytest.mark.usefixtures("quiet_gradcheck")
@pytest.mark.parametrize("engine", ENGINES)
def test_a_float64_recheck_that_cannot_run_leaves_precision_unconfirmed_never_error(engine):
    module, x = _linear_and_input()
    report = check(lambda v: module(v), (x,), engine=engine)  # no module for gradkit to copy
    assert not report.passed and report.cause == "precision"
    assert "could not run" in report.explanation and "fails with float64" not in report.explanation
    assert any("float64 recheck raised RuntimeError" in note for note in report.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_float64_function_computing_in_float32_inside_is_precision(engine):
    def sin_in_float32(x):
        return torch.sin(x.float()).double()

    report = check(sin_in_float32, (_x(0.5, 1.5, 2.5),), engine=engine)
    assert not report.passed
    assert report.cause == "precision"
    assert "computes in float32" in report.explanation
    assert "compute in float64 inside" in report.suggestion


def test_a_real_bug_is_still_a_bug_at_a_tiny_eps():
    # the safer eps does not rescue a wrong rule: rounding is tested, then the rule is blamed
    report = check(WrongSquareFn.apply, (_x(0.5, 1.5),), eps=1e-13)
    assert report.cause == "bug"


# ----------------------------------------------------------------------- fast mode's blind spot


def test_a_passing_fast_check_never_claims_every_entry_agrees():
    x = torch.linspace(0.25, 2.0, 10, dtype=torch.float64, requires_grad=True)
    report = check(OneEntryWrongSquareFn.apply, (x,), fast_mode=True)
    assert report.passed  # torch's fast-mode verdict
    assert "every Jacobian entry agrees" not in report.explanation
    assert "fast mode passed, but 1 of 100 Jacobian entries are outside tolerance" in (
        report.explanation
    )
    assert "blind spot" in report.explanation and "qᵀJp" in report.explanation
    assert "fast_mode=False" in report.suggestion


def test_a_clean_fast_pass_still_reads_as_agreement():
    x = torch.linspace(0.25, 2.0, 10, dtype=torch.float64, requires_grad=True)
    report = check(torch.sin, (x,), fast_mode=True)
    assert report.passed and "they all agree within tolerance too" in report.explanation


# --------------------------------------------------------------------------- input mutation


def _scales_its_input(x):
    x.data.mul_(1.01)  # changes the caller's tensor behind autograd's back
    return x * 2


@pytest.mark.parametrize("engine", ENGINES)
def test_a_function_that_changes_its_input_is_named_and_the_input_survives(engine):
    x = _x(0.5, 1.5, 2.5)
    before = x.detach().clone()
    report = check(_scales_its_input, (x,), engine=engine)
    assert not report.passed
    assert report.cause == "mutation" and "mutation" in CAUSES
    assert "changed input 0 in place" in report.explanation
    assert "x.clone()" in report.suggestion
    assert torch.equal(x.detach(), before), "check() must leave the caller's tensor untouched"
    assert x.grad is None


# ---------------------------------------------------------------------------- memory layout


@pytest.mark.parametrize("engine", ENGINES)
def test_an_overlapping_view_fails_like_torch_and_is_named(engine):
    def overlapping():
        base = torch.arange(4, dtype=torch.float64)
        return base.as_strided((2, 2), (1, 1)).requires_grad_()

    report = check(torch.sin, (overlapping(),), engine=engine)
    assert report.passed == _torch_says(torch.sin, (overlapping(),)) is False
    assert report.cause == "layout" and "layout" in CAUSES
    assert "share memory" in report.explanation and ".contiguous()" in report.suggestion


@pytest.mark.parametrize("engine", ENGINES)
def test_an_expanded_input_fails_like_torch_with_advice(engine):
    x = torch.tensor([0.5, 1.5], dtype=torch.float64).expand(3, 2).requires_grad_()
    report = check(torch.sin, (x,), engine=engine)
    assert report.passed == _torch_says(torch.sin, (x,)) is False
    assert report.cause == "error" and "stride 0" in report.explanation
    assert "x.contiguous()" in report.suggestion


def test_a_fast_mode_pass_says_what_was_compared_before_what_gradkit_adds():
    """fast_mode compares one projection: its pass never reads as if every entry were compared by
    gradcheck (the lab says "not every entry" beside it)."""
    x = torch.tensor([0.5, 1.5, -0.7], dtype=torch.float64, requires_grad=True)
    report = check(SquareFn.apply, (x,), fast_mode=True)
    assert report.passed
    assert report.explanation.startswith("fast mode compared one random projection, qᵀJp")
    assert not report.explanation.startswith("every Jacobian entry agrees")
