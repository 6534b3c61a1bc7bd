"""Verdict engines: torch's own gradcheck, and a batched engine that reaches the same verdict.

The batched engine computes the same central-difference numeric Jacobian as torch's slow mode,
but evaluates all perturbed inputs in a few stacked calls, and computes the analytic Jacobian with
``torch.autograd.grad(..., is_grads_batched=True)`` instead of one backward per output entry.
Where it cannot prove that it reaches torch's verdict (a function that changes its inputs or
Python state it can reach, uses autograd inside or returns a non-floating output; batched
numbers that round differently near the tolerance), it computes torch's way instead, and says
so in ``Verdict.notes``; so it does for what torch answers in its own way (fast mode, sparse
inputs, ``masked``), and the checks beyond the backward Jacobian run through torch's own code
(:mod:`gradkit.engine.beyond`).
The engines decide verdicts; the numbers a learner reads are torch's own, from
:func:`torch_jacobians` (:mod:`gradkit.engine.torchpath`). Depends on torch only.
"""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.autograd.gradcheck import GradcheckError

from .._args import as_input_tuple
from ..analytic import AnalyticRows
from ..batching import short_reason
from ..jacobian import numeric_jacobian_details, too_large
from ..plan import mirror_inputs, plan_check, preserved, torch_input_checks
from ..realview import as_output_tuple
from .beyond import SWITCHES, check_grad_dtypes, check_switches, handover_reason, torch_extras
from .proof import (
    UnprovenError,
    near_the_line,
    prove_batchable,
    snapshot,
    what_changed,
)
from .slowmode import (
    check_grad_output_used,
    check_reentrant,
    check_undefined_grad,
    check_zero_numeric,
    compare,
    torch_passes,
)
from .state import python_state
from .torchpath import torch_jacobians

__all__ = ["Verdict", "batched_verdict", "torch_jacobians", "torch_verdict"]


@dataclass
class Verdict:
    """A pass/fail verdict with torch's message (or the exception torch raised)."""

    passed: bool
    message: str = ""
    error_type: str = ""
    traceback: str = ""
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    exception: BaseException | None = None


def _failure(error: Exception) -> Verdict:
    """A failing verdict carrying torch's message, or the exception's name and traceback."""
    if isinstance(error, GradcheckError):
        return Verdict(False, str(error), "GradcheckError", exception=error)
    return Verdict(
        False,
        f"{type(error).__name__}: {error}",
        type(error).__name__,
        traceback.format_exc(),
        exception=error,
    )


def torch_verdict(fn: Callable, inputs: tuple, **settings) -> Verdict:
    """``torch.autograd.gradcheck`` itself, with its warnings and any exception captured.

    ``inputs`` go to torch as they are (the caller's own tensors, with their layout); torch
    nudges them in place, and :func:`gradkit.plan.preserved` puts their values, ``.grad`` and
    ``requires_grad`` back whatever ``fn`` does to them.
    """
    with preserved(inputs), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.autograd.gradcheck(fn, inputs, raise_exception=True, **settings)
            verdict = Verdict(True)
        except Exception as error:  # noqa: BLE001 - torch's exception is the verdict
            verdict = _failure(error)
    verdict.warnings = tuple(dict.fromkeys(str(w.message) for w in caught))
    return verdict


def batched_verdict(  # long: the numpy docstring; the body is 30 lines
    fn: Callable,
    inputs: tuple,
    *,
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
    **switches,
) -> Verdict:
    """gradcheck's verdict, its slow-mode Jacobians computed with batched calls.

    The checks mirror torch's slow mode, in torch's order: torch's input checks, one forward
    with autograd, the central-difference Jacobian of every output (all nudged inputs in a few
    stacked calls, made as torch makes its calls: grad mode on, nudged inputs that require
    grad), then for each output that requires grad the analytic Jacobian twice from the
    same graph (reentrancy, within ``nondet_tol``) and ``|a - n| <= atol + rtol |n|`` entry by
    entry; then a zero grad_output (the backward must return zeros) and undefined grad_outputs
    (torch's ``check_undefined_grad``). The checks beyond these (forward mode, ``vmap``) run
    through torch's own code (:func:`~gradkit.engine.beyond.torch_extras`). A function that
    cannot be batched is nudged one entry per call; where a batched number could sit on the
    other side of the tolerance than torch's own, both Jacobians are recomputed one entry per
    call. Where the engine cannot prove that it reaches torch's verdict (``fn`` changes its
    inputs or its own Python state, uses autograd inside, returns a non-floating output, or
    fails in the engine's own calls), and for what torch's gradcheck answers in its own way
    (fast mode, sparse inputs, ``masked``, no backward check), torch's gradcheck decides.
    Each of these leaves a note in ``Verdict.notes``.

    Parameters
    ----------
    fn : callable
        A Function's ``apply`` or any function of tensors.
    inputs : tuple
        The inputs; tensors that require grad are checked. The result lives on their device.
        Give copies (:func:`gradkit.plan.mirror_inputs`): overlapping inputs are nudged in place.
    eps, atol, rtol, nondet_tol, fast_mode
        As in ``torch.autograd.gradcheck``.
    **switches
        gradcheck's other arguments (:data:`~gradkit.engine.beyond.SWITCHES`), torch's
        defaults where left out.

    Returns
    -------
    Verdict
        ``passed`` as torch's gradcheck would decide. The engine's Jacobians are not kept: the
        numbers a report shows are torch's own (:func:`torch_jacobians`).
    """
    inputs = as_input_tuple(inputs)
    settings = {
        "eps": eps,
        "atol": atol,
        "rtol": rtol,
        "nondet_tol": nondet_tol,
        "fast_mode": fast_mode,
        **check_switches(switches),
    }
    given = {k: v for k, v in settings.items() if k not in SWITCHES or v != SWITCHES[k]}
    reason = handover_reason(inputs, settings)
    if reason is not None:  # nothing has touched the inputs yet
        verdict = torch_verdict(fn, inputs, **given)
        verdict.notes = (f"{reason}, so torch's own gradcheck decided",)
        return verdict
    pristine = mirror_inputs(inputs)  # for torch, should the engine hand the check over
    state: dict = {"notes": []}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _run_batched(fn, inputs, settings, state)
            verdict = Verdict(True)
        except UnprovenError as why:
            verdict = torch_verdict(fn, pristine, **given)
            state["notes"] = [
                f"the batched engine could not prove that it reaches torch's verdict ({why}), "
                "so torch's own gradcheck decided, nudging one entry per call"
            ]
        except Exception as error:  # noqa: BLE001 - a verdict, as torch_verdict gives
            verdict = _failure(error)
    found = [str(w.message) for w in caught]
    verdict.warnings = tuple(dict.fromkeys([*found, *verdict.warnings]))
    verdict.notes = tuple(state["notes"])
    return verdict


def _run_batched(fn: Callable, inputs: tuple, settings: dict, state: dict) -> None:
    """The checks of :func:`batched_verdict`, raising torch's error at the first failure."""
    torch_input_checks(inputs)
    before, python_before = snapshot(inputs), python_state(fn)
    with torch.enable_grad():
        outputs = as_output_tuple(fn(*inputs))  # fails as torch's first call fails
    entries = too_large(inputs, outputs)
    if entries:
        raise UnprovenError(f"the full Jacobian has {entries:,} entries, too many to hold")
    outcome: Exception | None = None
    try:
        prove_batchable(fn, inputs, outputs, before)
        _compare_jacobians(fn, inputs, outputs, settings, state)
        if settings["check_grad_dtypes"]:
            check_grad_dtypes(outputs, inputs)
        state["notes"].extend(torch_extras(fn, inputs, outputs, settings))
        check_grad_output_used(outputs, inputs)
        if settings["check_undefined_grad"]:
            check_undefined_grad(fn, inputs)
    except (GradcheckError, UnprovenError) as error:
        outcome = error
    except Exception as error:  # noqa: BLE001 - torch may fail elsewhere, or not at all
        outcome = UnprovenError(f"fn failed in the engine's own calls: {short_reason(error)}")
    changed = what_changed(inputs, before)
    if changed:
        raise UnprovenError(changed)
    if python_state(fn) != python_before:
        raise UnprovenError(
            "fn changes Python state it can reach (a counter, a cache, an attribute) between "
            "calls, so torch's calls, one per nudge, may see other values than batched calls"
        )
    if outcome is not None:
        raise outcome


def _compare_jacobians(fn, inputs: tuple, outputs: tuple, settings: dict, state: dict) -> None:
    """Numeric and analytic Jacobians, compared output by output as torch compares them."""
    eps, atol, rtol = settings["eps"], settings["atol"], settings["rtol"]
    plan = plan_check(inputs, outputs)
    # fn runs as torch calls it (grad mode on, nudged inputs that require grad): a function
    # that reads either answers the engine as it answers torch
    details = numeric_jacobian_details(fn, inputs, eps=eps, reference=outputs, like_torch=True)
    state["notes"].extend(_loop_notes(details.modes, details.reasons))
    if not plan.checked:
        check_zero_numeric(details.jacobians, plan.floating)
        return
    rows = AnalyticRows(inputs, batched=True)
    analytic = {o: rows.jacobians(outputs[o], 2) for o in plan.checked}
    passes = list(torch_passes(inputs, outputs, plan.checked, details.jacobians, analytic))
    near = near_the_line(passes, inputs, details.slack, rows.slack, atol, rtol)
    if near is not None:
        state["notes"].append(near)
        exact = numeric_jacobian_details(
            fn, inputs, eps=eps, reference=outputs, exact=True, like_torch=True
        )
        rows = AnalyticRows(inputs, batched=False)
        analytic = {o: rows.jacobians(outputs[o], 2) for o in plan.checked}
        passes = list(torch_passes(inputs, outputs, plan.checked, exact.jacobians, analytic))
    for prefix, position, numeric, first, again in passes:
        check_reentrant(first, again, settings["nondet_tol"])
        compare(position, numeric, first, atol, rtol, prefix)


def _loop_notes(modes: dict[int, str], reasons: dict[int, list[str]]) -> list[str]:
    """One note per input that could not be batched, saying why."""
    notes = []
    for i, mode in sorted(modes.items()):
        if mode == "loop":
            why = "; ".join(reasons.get(i, [])) or "batched calls failed"
            notes.append(
                f"input {i}: fn could not be batched ({why}), so the batched engine nudged it "
                "one entry per call, as torch's gradcheck does"
            )
    return notes
