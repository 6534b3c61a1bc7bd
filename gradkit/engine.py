"""Verdict engines: torch's own gradcheck, and a batched engine that reaches the same verdict.

The batched engine computes the same central-difference numeric Jacobian as torch's slow mode,
but evaluates all perturbed inputs in a few stacked calls, and computes the analytic Jacobian with
``torch.autograd.grad(..., is_grads_batched=True)`` instead of one backward per output entry.
Depends on torch only.
"""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.autograd.gradcheck import GradcheckError

from .numerics import _as_output_tuple, _numeric_jacobian, analytic_jacobian

__all__ = ["Verdict", "batched_verdict", "torch_verdict"]


@dataclass
class Verdict:
    """A pass/fail verdict with torch's message (or the exception torch raised)."""

    passed: bool
    message: str = ""
    error_type: str = ""
    traceback: str = ""
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    jacobians: tuple | None = None
    exception: BaseException | None = None


def _failure(error: Exception) -> Verdict:
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
    """``torch.autograd.gradcheck`` itself, with its warnings and any exception captured."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.autograd.gradcheck(fn, inputs, raise_exception=True, **settings)
            verdict = Verdict(True)
        except Exception as error:
            verdict = _failure(error)
    verdict.warnings = tuple(dict.fromkeys(str(w.message) for w in caught))
    return verdict


def batched_verdict(
    fn: Callable,
    inputs: tuple,
    *,
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
) -> Verdict:
    """Slow-mode gradcheck's verdict, computed with batched forward and backward calls.

    The checks mirror torch's slow mode: the backward is run twice (reentrancy, within
    ``nondet_tol``), with a zero grad_output (it must return zeros), and each analytic Jacobian
    must satisfy ``|a - n| <= atol + rtol |n|`` entry by entry.
    """
    if fast_mode:
        raise ValueError("the batched engine computes full Jacobians; use fast_mode=False")
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            numeric, modes = _numeric_jacobian(fn, inputs, eps=eps)
            looped = sorted(i for i, m in modes.items() if m == "loop")
            if looped:
                notes.append(
                    f"input(s) {looped}: fn could not be batched (vmap failed and a leading batch "
                    "dimension changed its results), so the nudges ran one call per entry"
                )
            analytic = analytic_jacobian(fn, inputs)
            again = analytic_jacobian(fn, inputs)
            _check_reentrant(analytic, again, nondet_tol)
            _check_grad_output_used(fn, inputs)
            _compare(numeric, analytic, atol, rtol)
            verdict = Verdict(True, jacobians=(numeric, analytic))
        except Exception as error:
            verdict = _failure(error)
            if isinstance(error, GradcheckError) and "mismatch" in str(error):
                verdict.jacobians = (numeric, analytic)
    verdict.warnings = tuple(dict.fromkeys(str(w.message) for w in caught))
    verdict.notes = tuple(notes)
    return verdict


def _check_reentrant(first, second, nondet_tol: float) -> None:
    for row_a, row_b in zip(first, second, strict=True):
        for a, b in zip(row_a, row_b, strict=True):
            if a.numel() and float((a - b).abs().max()) > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    "gradient matches numerical gradient. The tolerance for nondeterminism was "
                    f"{nondet_tol}."
                )


def _check_grad_output_used(fn: Callable, inputs: tuple) -> None:
    outputs = [o for o in _as_output_tuple(fn(*inputs)) if o.requires_grad]
    diff = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    if not outputs:
        return
    grads = torch.autograd.grad(
        outputs, diff, [torch.zeros_like(o) for o in outputs], allow_unused=True
    )
    for g in grads:
        if g is not None and bool((g != 0).any()):
            raise GradcheckError("backward not multiplied by grad_output")


def _compare(numeric, analytic, atol: float, rtol: float) -> None:
    for o, (row_n, row_a) in enumerate(zip(numeric, analytic, strict=True)):
        for i, (n, a) in enumerate(zip(row_n, row_a, strict=True)):
            if n.numel() and not torch.allclose(a, n.to(a.dtype), rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{n.T}\nanalytical:{a.T}\n"
                )
