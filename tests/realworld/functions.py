"""Custom autograd Functions in the shapes real projects give them.

Each takes the arguments its project passes (a float λ, an int ``dim``, float bounds), and some
are deliberately not differentiable in gradcheck's sense (a reversed or straight-through
gradient): gradcheck fails them, and check() must say exactly what torch says.
"""

from __future__ import annotations

import torch
from torch.autograd import Function


class GradReverse(Function):
    """Gradient reversal (domain-adversarial training): identity forward, -λ·grad backward."""

    @staticmethod
    def forward(ctx, x, lambd: float):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


class Sparsemax(Function):
    """Sparsemax along ``dim`` (Martins & Astudillo), with its closed-form backward."""

    @staticmethod
    def forward(ctx, x, dim: int = -1):
        z = x.transpose(dim, -1)
        sorted_z, _ = torch.sort(z, dim=-1, descending=True)
        k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype, device=z.device)
        cumulative = sorted_z.cumsum(-1)
        support = (1 + k * sorted_z) > cumulative
        k_z = support.sum(dim=-1, keepdim=True)
        tau = (cumulative.gather(-1, k_z - 1) - 1) / k_z.to(z.dtype)
        out = torch.clamp(z - tau, min=0).transpose(dim, -1)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        nonzero = (out > 0).to(grad_output.dtype)
        mean = (grad_output * nonzero).sum(ctx.dim, keepdim=True) / nonzero.sum(
            ctx.dim, keepdim=True
        )
        return nonzero * (grad_output - mean), None


class ClampFn(Function):
    """clamp(x, low, high) with float bounds and a pass-through gradient inside them."""

    @staticmethod
    def forward(ctx, x, low: float, high: float):
        ctx.save_for_backward(x)
        ctx.bounds = (low, high)
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        low, high = ctx.bounds
        inside = (x >= low) & (x <= high)
        return grad_output * inside.to(grad_output.dtype), None, None


class StraightThroughRound(Function):
    """round() forward, identity backward (quantisation-aware training)."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class StraightThroughSign(Function):
    """sign() forward, hardtanh's gradient backward (binarised networks)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1).to(grad_output.dtype)


class MemoryEfficientSwish(Function):
    """x·sigmoid(x), saving only x and recomputing the sigmoid in backward (EfficientNet)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * (s * (1 + x * (1 - s)))


class LinearFunction(Function):
    """The custom Linear of torch's "Extending torch.autograd" tutorial (bias optional)."""

    @staticmethod
    def forward(ctx, x, weight, bias=None):
        ctx.save_for_backward(x, weight, bias)
        out = x.mm(weight.t())
        return out + bias.unsqueeze(0).expand_as(out) if bias is not None else out

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        grad_bias = grad_output.sum(0) if bias is not None else None
        return grad_output.mm(weight), grad_output.t().mm(x), grad_bias


class ComplexMultiply(Function):
    """a·b for complex tensors; the backward holds the conjugates (torch's convention)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b.conj(), grad_output * a.conj()


class InplaceReLU(Function):
    """ReLU written into its input (``mark_dirty``), as memory-saving layers do."""

    @staticmethod
    def forward(ctx, x):
        x.clamp_(min=0)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * (out > 0).to(grad_output.dtype)


def inplace_relu(x):
    """InplaceReLU on a copy, as a layer applies it to an activation (never to a leaf)."""
    return InplaceReLU.apply(x.clone())


class EverySeventhCall:
    """A forward that drifts every 7th call (a cache refreshed on a schedule): not a function
    of its input alone, so torch's one call per nudge sees the drift and fails it."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return x.sin() + (1e-3 if self.calls % 7 == 0 else 0.0)
