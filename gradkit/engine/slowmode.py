"""torch's slow-mode checks besides the numeric Jacobian, as the batched engine runs them.

Each function raises torch's own ``GradcheckError`` (same message) where torch's slow gradcheck
would: the comparison ``|a - n| <= atol + rtol |n|`` (on the Jacobians as torch forms them for
complex tensors, :func:`torch_passes`), a numeric Jacobian that must be zero, reentrancy, a zero
grad_output, undefined grad_outputs. Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.autograd.gradcheck import GradcheckError

from ..plan import differentiable_inputs
from ..realview import as_output_tuple

__all__ = [
    "check_grad_output_used",
    "check_reentrant",
    "check_undefined_grad",
    "check_zero_numeric",
    "compare",
    "torch_passes",
]


def check_zero_numeric(numeric, floating: tuple[int, ...]) -> None:
    """No output requires grad: then every numeric Jacobian must be zero (torch's rule)."""
    for o in floating:
        for n in numeric[o]:
            if n.numel() and bool((n != 0).any()):
                raise GradcheckError("Numerical gradient for function expected to be zero")


def check_reentrant(first, second, nondet_tol: float) -> None:
    """Two analytic Jacobians from the same graph must agree within nondet_tol."""
    for a, b in zip(first, second, strict=True):
        if a.numel() and float(torch.sub(a, b).abs().max()) > nondet_tol:  # |complex| too
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and "
                "grad_output multiple times gives different values, although analytical "
                "gradient matches numerical gradient. The tolerance for nondeterminism was "
                f"{nondet_tol}."
            )


def _differentiable(inputs: tuple) -> list[torch.Tensor]:
    """The input tensors torch differentiates (:func:`gradkit.plan.differentiable_inputs`)."""
    return [inputs[i] for i in differentiable_inputs(inputs)]


def check_grad_output_used(outputs: tuple[torch.Tensor, ...], inputs: tuple) -> None:
    """A zero grad_output must give zero gradients (on the graph already built)."""
    used = [o for o in outputs if o.requires_grad]
    diff = _differentiable(inputs)
    if not used:
        return
    grads = torch.autograd.grad(
        used, diff, [torch.zeros_like(o) for o in used], retain_graph=True, allow_unused=True
    )
    for g in grads:
        if g is not None and not bool(g.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")


def check_undefined_grad(fn: Callable, inputs: tuple) -> None:
    """torch's ``check_undefined_grad``: undefined grad_outputs must give zero (or no) grads."""
    undefined = getattr(torch._C._functions, "UndefinedGrad", None)
    if undefined is None:  # pragma: no cover - present in every supported torch
        return
    diff = _differentiable(inputs)

    def outputs() -> list[torch.Tensor]:
        with torch.enable_grad():
            return [o for o in as_output_tuple(fn(*inputs)) if o.requires_grad]

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


def torch_passes(inputs: tuple, outputs: tuple, checked: tuple[int, ...], numeric, analytic):
    """What torch's slow mode compares, in its order: ``(prefix, position, n, a, a_again)``.

    ``numeric[o]`` and ``analytic[o]`` (a pair of runs) hold real-view blocks. torch checks a
    function with a complex output twice, its imaginary parts first, then its real parts (the
    message of a complex output then starts with ``prefix``); it turns a complex input's two
    columns, nudging x and nudging y, into one complex column ``ds/dx + i ds/dy`` (the conjugate
    Wirtinger derivative) and compares complex numbers: ``|a - n| <= atol + rtol |n|``.
    """
    complex_outputs = any(o.is_complex() for o in outputs)
    for part in ("imaginary", "real") if complex_outputs else ("",):
        for position, o in enumerate(checked):
            prefix = (
                f"While considering the {part} part of complex outputs only, "
                if outputs[o].is_complex()
                else ""
            )
            rows = [numeric[o], *analytic[o]]
            views = [
                _torch_view(row, inputs, part if outputs[o].is_complex() else "") for row in rows
            ]
            yield prefix, position, *views


def _torch_view(row, inputs: tuple, part: str) -> list[torch.Tensor]:
    """One output's real-view blocks as torch compares them (see :func:`torch_passes`)."""
    out = []
    for block, x in zip(row, inputs, strict=True):
        if part:  # rows alternate real and imaginary parts of the output's entries
            block = block[1::2] if part == "imaginary" else block[0::2]
        if isinstance(x, torch.Tensor) and x.is_complex() and block.shape[1]:
            block = torch.complex(block[:, 0::2], block[:, 1::2])  # ds/dx + i ds/dy
        out.append(block)
    return out


def compare(o: int, numeric_row, analytic_row, atol: float, rtol: float, prefix: str = "") -> None:
    """torch.allclose entry by entry: |a - n| <= atol + rtol |n|, else torch's mismatch error."""
    for i, (n, a) in enumerate(zip(numeric_row, analytic_row, strict=True)):
        if n.numel() and not torch.allclose(a, n.to(a.dtype), rtol=rtol, atol=atol):
            raise GradcheckError(
                f"{prefix}Jacobian mismatch for output {o} with respect to input {i},\n"
                f"numerical:{n.T}\nanalytical:{a.T}\n"
            )
