"""The zoo's buggy twins, each named after its bug.

Each twin subclasses its correct Function and overrides only ``backward``: the forward is
inherited, so a twin differs from the right rule in exactly one place (the random forward is the
one standalone exception). Each class carries its zoo metadata in its ``zoo_entry`` decorator.
"""

from __future__ import annotations

import torch

from .catalogue import complex_input, random_pair, vector, zoo_entry
from .correct import (
    SMOOTH,
    BroadcastAddFn,
    ComplexSquareFn,
    CubeFn,
    ExpFn,
    MatmulFn,
    SigmoidFn,
    SquareFn,
    TanhFn,
)

__all__ = [
    "ForgotGradOutputSigmoidFn",
    "InplaceSavedExpFn",
    "MissingConjComplexSquareFn",
    "NoisyBackwardTanhFn",
    "OneEntryWrongSquareFn",
    "RandomForwardFn",
    "SignErrorTanhFn",
    "TransposedMatmulFn",
    "UnreducedBroadcastAddFn",
    "WrongConstantCubeFn",
    "WrongSquareFn",
]


def _sixteen_entries() -> tuple[torch.Tensor, ...]:
    return (torch.linspace(0.25, 2.0, 16, dtype=torch.float64).requires_grad_(True),)


@zoo_entry(
    description="x * x whose backward returns 3x.",
    formula="x²",
    inputs=vector(0.5, 1.5),
    bug="Wrong constant: the backward multiplies by 3x instead of 2x.",
    float64="bug",
    float32="bug",
    scalar=lambda v: v * v,
)
class WrongSquareFn(SquareFn):
    """x * x with the wrong constant in backward: 3 x instead of 2 x (gradkit's first example)."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x


@zoo_entry(
    description="x³ whose backward returns 2x².",
    formula="x³",
    inputs=SMOOTH,
    bug="Wrong constant: the power rule gives 3x², the backward returns 2x².",
    float64="bug",
    float32="bug",
    scalar=lambda v: v**3,
)
class WrongConstantCubeFn(CubeFn):
    """x ** 3 with backward 2 x^2: the power rule's constant forgotten."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x**2


@zoo_entry(
    description="sigmoid whose backward ignores grad_output.",
    formula="sigmoid(x)",
    inputs=SMOOTH,
    bug="Forgot grad_output: the backward returns the local derivative without multiplying by "
    "the incoming gradient.",
    float64="bug",
    float32="bug",
    scalar=torch.sigmoid,
)
class ForgotGradOutputSigmoidFn(SigmoidFn):
    """sigmoid whose backward returns y (1 - y) without multiplying by grad_output."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return y * (1 - y)


@zoo_entry(
    description="tanh whose backward has the wrong sign.",
    formula="tanh(x)",
    inputs=SMOOTH,
    bug="Sign error: the backward returns -(1 - y²) instead of 1 - y².",
    float64="bug",
    float32="bug",
    scalar=torch.tanh,
)
class SignErrorTanhFn(TanhFn):
    """tanh whose backward has a sign error: -(1 - y^2)."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return -grad_output * (1 - y * y)


@zoo_entry(
    description="A @ B whose backward for A forgets a transpose.",
    formula="A @ B",
    inputs=random_pair((2, 3), (3, 3), 0),
    bug="Transposed matmul backward: grad @ B instead of grad @ Bᵀ, hidden by a square B.",
    float64="bug",
    float32="bug",
)
class TransposedMatmulFn(MatmulFn):
    """A @ B whose backward for A uses grad @ B instead of grad @ B^T (square B hides the shape)."""

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output @ b, a.transpose(-2, -1) @ grad_output


@zoo_entry(
    description="x + b whose backward forgets to reduce b's gradient.",
    formula="x + b[:, None]",
    inputs=random_pair((3, 4), (3,), 1),
    bug="Missing broadcast reduction: b's gradient keeps x's shape instead of being summed "
    "over the broadcast rows.",
    float64="error",
    float32="error",
)
class UnreducedBroadcastAddFn(BroadcastAddFn):
    """x + b[:, None] whose backward returns b's gradient unreduced, with x's shape."""

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


@zoo_entry(
    description="complex z * z whose backward forgets conj.",
    formula="z²",
    inputs=complex_input,
    bug="Missing conj: complex backward rules return grad * conj(df/dz); this one drops conj.",
    float64="bug",
    float32="bug",
)
class MissingConjComplexSquareFn(ComplexSquareFn):
    """Complex z * z whose backward forgets the conj: grad_output * 2 z."""

    @staticmethod
    def backward(ctx, grad_output):
        (z,) = ctx.saved_tensors
        return grad_output * 2 * z


@zoo_entry(
    description="exp whose backward changes its saved tensor in place.",
    formula="exp(x)",
    inputs=SMOOTH,
    bug="In-place change of a saved tensor: backward multiplies the saved output in place, so "
    "the next backward reads corrupted values.",
    float64="error",
    float32="error",
)
class InplaceSavedExpFn(ExpFn):
    """exp whose backward multiplies the saved output in place (``y.mul_``), corrupting it."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return y.mul_(grad_output)


@zoo_entry(
    description="a dropout-like forward with a fresh random mask.",
    formula="x · mask",
    inputs=vector(0.5, 1.5, -0.75, 2.0, -1.25, 0.25),
    bug="Random forward: every call draws a new mask, so nudged outputs differ by more "
    "than the nudge.",
    float64="nondeterministic",
    float32="nondeterministic",
)
class RandomForwardFn(torch.autograd.Function):
    """A dropout-like forward: x times a fresh random mask on every call, so no slope is stable."""

    @staticmethod
    def forward(ctx, x):
        mask = (torch.rand_like(x) > 0.5).to(x.dtype) * 2
        ctx.save_for_backward(mask)
        return x * mask

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return grad_output * mask


@zoo_entry(
    description="tanh whose backward carries 1e-10 relative random noise.",
    formula="tanh(x)",
    inputs=SMOOTH,
    bug="Non-deterministic backward: two backward passes on the same input differ (pass "
    "nondet_tol to accept it).",
    float64="nondeterministic",
    float32="nondeterministic",
)
class NoisyBackwardTanhFn(TanhFn):
    """tanh whose backward is off by a random 1e-10 relative, like a non-deterministic atomicAdd."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y) * (1 + 1e-10 * torch.randn_like(y))


@zoo_entry(
    description="x * x whose backward is off by 0.1 in one entry (output entry 0, input entry 0).",
    formula="x²",
    inputs=_sixteen_entries,
    bug="One wrong Jacobian entry: the first gradient is 2x + 0.1, every other entry is right.",
    float64="bug",
    float32="bug",
)
class OneEntryWrongSquareFn(SquareFn):
    """x * x whose backward is off by 0.1 in a single Jacobian entry (the first one)."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = grad_output * 2 * x
        offset = torch.zeros_like(grad)
        offset.view(-1)[0] = 0.1 * grad_output.reshape(-1)[0]
        return grad + offset
