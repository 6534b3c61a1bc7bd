"""A planted function whose batched calls round differently from its single calls, on any CPU.

``x @ W`` in a single call; given a batch (a leading dimension, or a ``torch.func.vmap`` batch)
it sums the products in reverse order instead, as a matrix-matrix kernel (AVX-512, AMX) may sum
in another order than the matrix-vector one. Each output moves by a few roundings, so a batched
numeric Jacobian differs from torch's one-nudge-at-a-time numbers by about ulp(y) / (2 eps):
what a CPU with those kernels does to ``W @ x``, reproduced on every machine.
"""

from __future__ import annotations

import torch

__all__ = ["PlantedMatmul", "planted_matmul"]


def _batched(x: torch.Tensor) -> bool:
    """Whether ``x`` carries a batch: a leading dimension, or a vmap batch."""
    return x.dim() > 1 or torch._C._functorch.is_batchedtensor(x)


class PlantedMatmul:
    """``y = x @ W`` (x of shape (n,)), summed in reverse order when called on a batch."""

    def __init__(self, w: torch.Tensor) -> None:
        self.w = w

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        w = self.w.to(x.dtype)
        if not _batched(x):
            return x @ w
        total = x[..., -1:] * w[-1]  # y_j = sum_k x_k W_kj, from the last k to the first
        for k in range(w.shape[0] - 2, -1, -1):
            total = total + x[..., k : k + 1] * w[k]
        return total


def planted_matmul(
    n: int = 12, dtype: torch.dtype = torch.float64, seed: int = 0
) -> tuple[PlantedMatmul, torch.Tensor]:
    """The planted function and an input of ``n`` entries that requires grad."""
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn(n, n, generator=gen, dtype=torch.float64)
    x = torch.randn(n, generator=gen, dtype=torch.float64)
    return PlantedMatmul(w.to(dtype)), x.to(dtype).requires_grad_(True)
