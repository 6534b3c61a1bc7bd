"""torch's own Jacobians: the numbers ``torch.autograd.gradcheck``'s slow mode computes.

Every Jacobian entry a learner reads (a report's Jacobians and worst entry, GradcheckLab's
heatmaps, the explanation's numbers) comes from here: torch's own private functions, called as
its slow mode calls them, so the numbers are torch's bit for bit on every CPU, whatever a
batched kernel would round. The numeric Jacobian is ``_get_numerical_jacobian`` (one nudge of
one entry per call, ``(f(x + eps) - f(x - eps)) / (2 eps)``, with grad mode on, as gradcheck
calls the function); the analytic one is ``_compute_analytical_jacobian_rows`` (one backward per
output entry, ``grad_output = e_i``) stacked by ``_stack_and_check_tensors``.

Complex inputs and outputs are read through their real views (rows: real and imaginary part of
each output entry; columns: of each input entry): torch nudges exactly those real numbers, then
combines them into Wirtinger derivatives for its own comparison. Depends on torch only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import torch

from ..jacobian import check_size
from ..plan import differentiable_inputs, mirror_inputs
from ..realview import (
    as_output_tuple,
    difference_dtype,
    is_floating,
    real_dtype,
    real_view,
    resolved,
)

__all__ = ["torch_jacobians"]

_gradcheck = importlib.import_module("torch.autograd.gradcheck")  # the module, not the function


def torch_jacobians(fn: Callable, inputs: tuple, eps: float) -> tuple[tuple | None, tuple | None]:
    """torch's slow-mode numeric and analytic Jacobians, as ``J[o][i]`` blocks.

    Parameters
    ----------
    fn : callable
        The function checked.
    inputs : tuple
        Its inputs; they are copied (:func:`gradkit.plan.mirror_inputs`), never nudged.
    eps : float
        The nudge.

    Returns
    -------
    tuple
        ``(numeric, analytic)``: ``J[o][i]`` of shape (output o real numel, input i real
        numel), zeros for integer outputs and outputs that need no grad, (m, 0) for inputs
        torch does not nudge. ``numeric`` is None where the function fails on torch's path;
        ``analytic`` is None where the backward fails or returns gradients of the wrong size.
    """
    fn, args = _real_views(fn, mirror_inputs(inputs))
    try:
        with torch.enable_grad():  # gradcheck calls fn with grad mode on
            outputs = fn(*args)
            check_size(args, outputs)  # a fast-mode check of a huge Jacobian shows no numbers
            numeric = _numeric(fn, args, outputs, eps)
    except Exception:  # noqa: BLE001 - a function that fails on torch's path shows no numbers
        return None, None
    try:
        analytic = tuple(_analytic(args, o) for o in outputs)
    except Exception:  # noqa: BLE001 - a backward that fails shows no analytic numbers
        analytic = None
    return numeric, analytic


def _numeric(fn: Callable, args: tuple, outputs: tuple, eps: float) -> tuple:
    """``_get_numerical_jacobian`` as gradcheck's slow mode calls it, as ``J[o][i]`` blocks."""
    if not any(is_floating(o) for o in outputs):
        per_input = []  # torch nudges nothing: no output has a numeric Jacobian
    else:
        per_input = _gradcheck._get_numerical_jacobian(fn, args, outputs, eps=eps)
    diff = differentiable_inputs(args)
    floating = [k for k, o in enumerate(outputs) if is_floating(o)]
    blocks = []
    for k, out in enumerate(outputs):
        row = []
        for i, x in enumerate(args):
            if i in diff and k in floating and per_input:
                row.append(per_input[diff.index(i)][floating.index(k)].T)
            else:
                width = real_view(x).numel() if i in diff else 0
                dtype = difference_dtype(out)
                row.append(out.new_zeros((real_view(out).numel(), width), dtype=dtype))
        blocks.append(tuple(row))
    return tuple(blocks)


def _analytic(args: tuple, out: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """torch's analytic rows of one output (one backward per entry), as ``J[i]`` blocks."""
    diff = differentiable_inputs(args)
    diff_inputs = [args[i] for i in diff]
    m = out.numel()
    if out.requires_grad and is_floating(out) and m:

        def vjp(grad_output: torch.Tensor) -> tuple:
            return torch.autograd.grad(
                out, diff_inputs, grad_output, retain_graph=True, allow_unused=True
            )

        rows = _gradcheck._compute_analytical_jacobian_rows(vjp, out.clone())
        stacked, _, sizes_ok = _gradcheck._stack_and_check_tensors(rows, args, m)
        if not sizes_ok:
            raise ValueError("the backward returns gradients of the wrong size")
    else:
        stacked = None
    row = []
    for i, x in enumerate(args):
        if stacked is not None and i in diff:
            row.append(stacked[diff.index(i)].T)
        else:
            width = real_view(x).numel() if i in diff else 0
            row.append(out.new_zeros((m, width), dtype=real_dtype(out)))
    return tuple(row)


def _real_output(o: object) -> object:
    """A complex output as its real view (torch nudges and seeds exactly those numbers)."""
    if isinstance(o, torch.Tensor) and o.is_complex():
        return torch.view_as_real(resolved(o))  # x.conj() is read through its values
    return o


def _real_views(fn: Callable, args: tuple) -> tuple[Callable, tuple]:
    """``fn`` on real views: complex inputs become (..., 2) real leaves, outputs real views.

    Real inputs stay as they are (with their memory sharing): only the outputs are wrapped.
    """
    if not any(isinstance(t, torch.Tensor) and t.is_complex() for t in args):
        return (lambda *xs: tuple(_real_output(o) for o in as_output_tuple(fn(*xs)))), args

    def on_real_views(*reals):
        back = [
            torch.view_as_complex(r) if isinstance(t, torch.Tensor) and t.is_complex() else r
            for r, t in zip(reals, args, strict=True)
        ]
        return tuple(_real_output(o) for o in as_output_tuple(fn(*back)))

    reals = tuple(
        torch.view_as_real(resolved(t.detach())).clone().requires_grad_(t.requires_grad)
        if isinstance(t, torch.Tensor) and t.is_complex()
        else t
        for t in args
    )
    return on_real_views, reals
