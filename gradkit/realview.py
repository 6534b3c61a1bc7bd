"""Tensors as flat rows of real numbers, the layout every Jacobian in gradkit uses.

A complex entry counts as two real entries (real part, imaginary part), as in torch's slow
gradcheck. Depends on torch only.
"""

from __future__ import annotations

import torch

__all__ = [
    "as_output_tuple",
    "batch_real_view",
    "difference_dtype",
    "from_real_view",
    "is_floating",
    "real_dtype",
    "real_view",
    "resolved",
    "same_values",
    "widened",
]


def is_floating(t: object) -> bool:
    """Whether ``t`` is a floating or complex tensor (the only kind that carries gradients)."""
    return isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex())


def resolved(t: torch.Tensor) -> torch.Tensor:
    """``t``'s values with a lazy conjugate or negation applied (``x.conj()``, ``x.conj().imag``).

    Such views hold the values of their memory conjugated or negated only when read; reading
    them as real numbers needs the values themselves. Other tensors are returned as they are.
    """
    return t.resolve_conj().resolve_neg() if t.is_conj() or t.is_neg() else t


def real_view(t: torch.Tensor) -> torch.Tensor:
    """The tensor's entries as real numbers (complex -> pairs of real and imaginary parts)."""
    t = resolved(t)
    return torch.view_as_real(t).reshape(-1) if t.is_complex() else t.reshape(-1)


def batch_real_view(t: torch.Tensor) -> torch.Tensor:
    """A batch (B, ...) as real numbers, one row per batch entry: (B, numel_real)."""
    t = resolved(t)
    return (torch.view_as_real(t) if t.is_complex() else t).reshape(t.shape[0], -1)


def from_real_view(flat: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`real_view` for a batch: (B, numel_real) -> (B, *like.shape)."""
    batch = flat.shape[0]
    if like.is_complex():
        return torch.view_as_complex(flat.reshape(batch, *like.shape, 2).contiguous())
    return flat.reshape(batch, *like.shape)


def widened(t: torch.Tensor) -> torch.Tensor:
    """``t`` (values resolved) in a dtype every comparison supports: complex32 as complex64.

    torch's CPU kernels for ``equal``, ``isnan`` and ``allclose`` skip complex32; complex64
    holds every complex32 value exactly.
    """
    t = resolved(t)
    return t.to(torch.complex64) if t.dtype == torch.complex32 else t


def real_dtype(t: torch.Tensor) -> torch.dtype:
    """float64 for complex128, float32 for complex64; a real dtype unchanged."""
    return t.real.dtype if t.is_complex() else t.dtype


def difference_dtype(out: torch.Tensor) -> torch.dtype:
    """dtype of ``(b - a) / (2 eps)`` for outputs like ``out`` (integers divide to floats)."""
    return real_dtype(out) if is_floating(out) else torch.get_default_dtype()


def as_output_tuple(out: object) -> tuple[torch.Tensor, ...]:
    """A function's result as a tuple of tensors (one tensor becomes a 1-tuple; () stays ())."""
    if isinstance(out, torch.Tensor):
        return (out,)
    if isinstance(out, (tuple, list)) and all(isinstance(o, torch.Tensor) for o in out):
        return tuple(out)
    raise TypeError(
        f"the function must return a tensor or a tuple of tensors, got {type(out).__name__}; "
        "wrap numbers with torch.as_tensor(...)"
    )


def same_values(batched: torch.Tensor, single: torch.Tensor) -> bool:
    """Whether a batched evaluation reproduces a single call, up to a few dozen roundings.

    Batched kernels (a matrix-matrix product instead of a matrix-vector one) may sum in another
    order, so bitwise equality is too strict; a function that mixes batch rows or draws random
    numbers differs by far more.
    """
    if batched.shape != single.shape or batched.dtype != single.dtype:
        return False
    batched, single = widened(batched), widened(single)
    if torch.equal(batched, single):
        return True
    if not is_floating(single):
        return False
    if not bool((torch.isnan(batched) == torch.isnan(single)).all()):
        return False
    tol = 64 * torch.finfo(single.dtype).eps
    finite = torch.nan_to_num(single.abs(), nan=0.0, posinf=0.0)
    scale = float(finite.max()) if finite.numel() else 0.0
    return torch.allclose(batched, single, rtol=tol, atol=tol * scale, equal_nan=True)
