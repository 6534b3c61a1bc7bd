"""f evaluated in a dtype, entry by entry when it does not broadcast (what a picture needs
besides the slopes of :mod:`gradkit.numerics`, rounded as ``numeric_slopes`` rounds).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

__all__ = ["evaluate", "sample"]


def evaluate(f: Callable, points: torch.Tensor) -> torch.Tensor:
    """``f`` on every entry of ``points``, in their dtype (one call; entry by entry as fallback).

    Raises
    ------
    ValueError
        When f returns more than one number for one input number.
    """
    with torch.no_grad():
        try:
            out = f(points)
            if isinstance(out, torch.Tensor) and out.shape == points.shape:
                return out.to(points.dtype)
        except Exception:  # noqa: BLE001 - a non-broadcasting f is evaluated entry by entry
            pass
        values = []
        for p in points.reshape(-1):
            v = f(p)
            v = v if isinstance(v, torch.Tensor) else torch.tensor(float(v))
            if v.numel() != 1:
                raise ValueError(
                    f"f must return one number for one input number, got shape {tuple(v.shape)}"
                )
            values.append(v.reshape(()).to(points.dtype))
        return torch.stack(values).reshape(points.shape)


def sample(f: Callable, lo: float, hi: float, n: int = 200) -> tuple[torch.Tensor, torch.Tensor]:
    """``f`` on ``n`` evenly spaced float64 points of [lo, hi] (a smooth curve to draw)."""
    t = torch.linspace(lo, hi, n, dtype=torch.float64)
    return t, evaluate(f, t).to(torch.float64)
