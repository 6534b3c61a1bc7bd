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

from .numerics import _AnalyticRows, _as_output_tuple, _numeric_jacobian

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
        except Exception as error:  # noqa: BLE001 - torch's exception is the verdict
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

    The checks mirror torch's slow mode, in torch's order: one forward with autograd, the
    central-difference Jacobian (all nudged inputs in a few stacked calls), then for each
    differentiable output the analytic Jacobian twice from the same graph (reentrancy, within
    ``nondet_tol``) and ``|a - n| <= atol + rtol |n|`` entry by entry; then a zero grad_output
    (the backward must return zeros) and undefined grad_outputs (torch's
    ``check_undefined_grad``). A function that cannot be batched is nudged one entry per call,
    with a note in ``Verdict.notes``.

    Parameters
    ----------
    fn : callable
        A Function's ``apply`` or any function of tensors.
    inputs : tuple
        The inputs; tensors that require grad are checked. The result lives on their device.
    eps, atol, rtol, nondet_tol
        As in ``torch.autograd.gradcheck``.
    fast_mode : bool
        Must be False: this engine always compares every Jacobian entry.

    Returns
    -------
    Verdict
        ``passed`` as torch's slow mode would decide; ``jacobians`` is ``(numeric, analytic)``
        whenever both were computed.
    """
    if fast_mode:
        raise ValueError("the batched engine computes full Jacobians; use fast_mode=False")
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    notes: list[str] = []
    numeric = None
    analytic: list[tuple[torch.Tensor, ...]] = []
    outputs: tuple[torch.Tensor, ...] = ()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _check_inputs(inputs)
            with torch.enable_grad():
                outputs = _as_output_tuple(fn(*inputs))
            numeric, modes, reasons = _numeric_jacobian(fn, inputs, eps=eps, reference=outputs)
            notes.extend(_loop_notes(modes, reasons))
            if not any(o.requires_grad for o in outputs):
                _check_zero_numeric(numeric)
            rows = _AnalyticRows(inputs, batched=True)
            for o, out in enumerate(outputs):
                first, *again = rows.jacobians(out, 2 if out.requires_grad else 1)
                analytic.append(first)
                if again:
                    _check_reentrant(first, again[0], nondet_tol)
                if out.requires_grad:
                    _compare(_differentiable_index(outputs, o), numeric[o], first, atol, rtol)
            _check_grad_output_used(outputs, inputs)
            _check_undefined_grad(fn, inputs)
            verdict = Verdict(True)
        except Exception as error:  # noqa: BLE001 - a verdict, as torch_verdict gives
            verdict = _failure(error)
    if numeric is not None and outputs and len(analytic) == len(outputs):
        verdict.jacobians = (numeric, tuple(analytic))
    verdict.warnings = tuple(dict.fromkeys(str(w.message) for w in caught))
    verdict.notes = tuple(notes)
    return verdict


def _check_inputs(inputs: tuple) -> None:
    """torch's own input checks: a precision warning, stride-0 inputs, nothing to check."""
    any_grad = False
    for idx, t in enumerate(inputs):
        if not (isinstance(t, torch.Tensor) and t.requires_grad):
            continue
        any_grad = True
        if t.dtype not in (torch.float64, torch.complex128):
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                stacklevel=3,
            )
        if t.layout == torch.strided and not all(
            st > 0 or sz <= 1 for st, sz in zip(t.stride(), t.size(), strict=True)
        ):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
    if not any_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )


def _loop_notes(modes: dict[int, str], reasons: dict[int, list[str]]) -> list[str]:
    notes = []
    for i, mode in sorted(modes.items()):
        if mode == "loop":
            why = "; ".join(reasons.get(i, [])) or "batched calls failed"
            notes.append(
                f"input {i}: fn could not be batched ({why}), so the batched engine nudged it "
                "one entry per call, as torch's gradcheck does"
            )
    return notes


def _differentiable_index(outputs: tuple[torch.Tensor, ...], o: int) -> int:
    """torch numbers outputs among those that require grad."""
    return sum(1 for out in outputs[:o] if out.requires_grad)


def _check_zero_numeric(numeric) -> None:
    for row in numeric:
        for n in row:
            if n.numel() and bool((n != 0).any()):
                raise GradcheckError("Numerical gradient for function expected to be zero")


def _check_reentrant(first, second, nondet_tol: float) -> None:
    for a, b in zip(first, second, strict=True):
        if a.numel() and float(torch.sub(a, b).abs_().max()) > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient. The tolerance for nondeterminism was "
                f"{nondet_tol}."
            )


def _check_grad_output_used(outputs: tuple[torch.Tensor, ...], inputs: tuple) -> None:
    """A zero grad_output must give zero gradients (on the graph already built)."""
    used = [o for o in outputs if o.requires_grad]
    diff = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    if not used:
        return
    grads = torch.autograd.grad(
        used, diff, [torch.zeros_like(o) for o in used], retain_graph=True, allow_unused=True
    )
    for g in grads:
        if g is not None and not bool(g.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")


def _check_undefined_grad(fn: Callable, inputs: tuple) -> None:
    """torch's ``check_undefined_grad``: undefined grad_outputs must give zero (or no) grads."""
    undefined = getattr(torch._C._functions, "UndefinedGrad", None)
    if undefined is None:  # pragma: no cover - present in every supported torch
        return
    diff = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]

    def outputs() -> list[torch.Tensor]:
        with torch.enable_grad():
            return [o for o in _as_output_tuple(fn(*inputs)) if o.requires_grad]

    first = outputs()
    cases = [[undefined()(o) for o in first]]
    if len(first) > 1:
        for k in range(len(first)):
            cases.append([undefined()(o) if j == k else o for j, o in enumerate(outputs())])
    for case in cases:
        if not case:
            continue
        try:
            grads = torch.autograd.grad(
                case, diff, [torch.zeros_like(o) for o in case], allow_unused=True
            )
        except RuntimeError as error:
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from error
        if any(g is not None and not bool(g.eq(0).all()) for g in grads):
            raise GradcheckError(
                "Expected all input grads to be undefined or zero when all output grads are "
                'undefined or zero. Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"'
            )


def _compare(o: int, numeric_row, analytic_row, atol: float, rtol: float) -> None:
    for i, (n, a) in enumerate(zip(numeric_row, analytic_row, strict=True)):
        if n.numel() and not torch.allclose(a, n.to(a.dtype), rtol=rtol, atol=atol):
            raise GradcheckError(
                f"Jacobian mismatch for output {o} with respect to input {i},\n"
                f"numerical:{n.T}\nanalytical:{a.T}\n"
            )
