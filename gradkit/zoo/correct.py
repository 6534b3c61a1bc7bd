"""The zoo's correct rules: each Function's backward is the true derivative of its forward.

Each class carries its zoo metadata in its :func:`~gradkit.zoo.catalogue.zoo_entry` decorator.
"""

from __future__ import annotations

import torch

from .catalogue import complex_input, random_pair, vector, zoo_entry

__all__ = [
    "AbsFn",
    "BroadcastAddFn",
    "ComplexSquareFn",
    "CubeFn",
    "ExpFn",
    "LogFn",
    "MatmulFn",
    "ReluFn",
    "SigmoidFn",
    "SoftplusFn",
    "SquareFn",
    "TanhFn",
]

SMOOTH = vector(0.5, 1.5, -0.75)
POSITIVE = vector(0.5, 1.5, 2.25)


@zoo_entry(
    description="x * x with backward 2x.",
    formula="x²",
    inputs=vector(0.5, 1.5),
    scalar=lambda v: v * v,
)
class SquareFn(torch.autograd.Function):
    """x * x, with the correct backward 2 x (gradkit's first example)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


@zoo_entry(
    description="x³ with backward 3x².",
    formula="x³",
    inputs=SMOOTH,
    scalar=lambda v: v**3,
)
class CubeFn(torch.autograd.Function):
    """x ** 3, backward 3 x^2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


@zoo_entry(
    description="sigmoid(x) with backward y(1 - y).",
    formula="sigmoid(x)",
    inputs=SMOOTH,
    scalar=torch.sigmoid,
)
class SigmoidFn(torch.autograd.Function):
    """sigmoid(x), backward y (1 - y) using the saved output."""

    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y * (1 - y)


@zoo_entry(
    description="tanh(x) with backward 1 - y².",
    formula="tanh(x)",
    inputs=SMOOTH,
    scalar=torch.tanh,
)
class TanhFn(torch.autograd.Function):
    """tanh(x), backward 1 - y^2."""

    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)


@zoo_entry(
    description="exp(x) with backward exp(x).",
    formula="exp(x)",
    inputs=SMOOTH,
    scalar=torch.exp,
)
class ExpFn(torch.autograd.Function):
    """exp(x), backward exp(x) (the saved output)."""

    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


@zoo_entry(
    description="log(x) for x > 0 with backward 1/x.",
    formula="log(x)",
    inputs=POSITIVE,
    scalar=torch.log,
)
class LogFn(torch.autograd.Function):
    """log(x) for x > 0, backward 1 / x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / x


@zoo_entry(
    description="softplus(x) with backward sigmoid(x).",
    formula="softplus(x)",
    inputs=SMOOTH,
    scalar=torch.nn.functional.softplus,
)
class SoftplusFn(torch.autograd.Function):
    """softplus(x) = log(1 + exp(x)), backward sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.nn.functional.softplus(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)


@zoo_entry(
    description="A @ B with backward (grad @ Bᵀ, Aᵀ @ grad).",
    formula="A @ B",
    inputs=random_pair((2, 3), (3, 3), 0),
)
class MatmulFn(torch.autograd.Function):
    """A @ B, backward (grad @ B^T, A^T @ grad)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output @ b.transpose(-2, -1), a.transpose(-2, -1) @ grad_output


@zoo_entry(
    description="x + b[:, None], one bias per row; b's gradient sums over the columns.",
    formula="x + b[:, None]",
    inputs=random_pair((3, 4), (3,), 1),
)
class BroadcastAddFn(torch.autograd.Function):
    """x + b[:, None]: one bias per row, broadcast across the columns; b's gradient sums them."""

    @staticmethod
    def forward(ctx, x, b):
        return x + b[:, None]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output.sum(dim=1)


@zoo_entry(
    description="max(x, 0) with backward 1 where x > 0.",
    formula="relu(x)",
    inputs=SMOOTH,
    scalar=torch.relu,
)
class ReluFn(torch.autograd.Function):
    """max(x, 0), backward 1 where x > 0 (a kink at 0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x > 0).to(grad_output.dtype)


@zoo_entry(
    description="|x| with backward sign(x).",
    formula="|x|",
    inputs=SMOOTH,
    scalar=torch.abs,
)
class AbsFn(torch.autograd.Function):
    """|x|, backward sign(x) (a kink at 0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.abs()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sign(x)


@zoo_entry(
    description="complex z * z with backward grad * conj(2z).",
    formula="z²",
    inputs=complex_input,
)
class ComplexSquareFn(torch.autograd.Function):
    """z * z for complex z; torch's convention wants grad_output * conj(2 z)."""

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return z * z

    @staticmethod
    def backward(ctx, grad_output):
        (z,) = ctx.saved_tensors
        return grad_output * (2 * z).conj()
