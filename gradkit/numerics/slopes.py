"""Slopes of a scalar function: the nudge a learner makes by hand, and autograd's answer.

Everything is done in the dtype the learner chose, so that rounding behaves exactly as it does
inside gradcheck. Depends on torch only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from .._args import (
    SCHEMES,
    as_dtype,
    check_eps,
    check_eps_values,
    check_function,
    check_scheme,
    check_x,
    dtype_name,
)

__all__ = ["analytic_slope", "call_elementwise", "numeric_slope", "numeric_slopes", "scalar_output"]


def call_elementwise(f: Callable, points: torch.Tensor) -> torch.Tensor:
    """Evaluate ``f`` on every entry of ``points``: one batched call, entry by entry as fallback."""
    try:
        out = f(points)
        if isinstance(out, torch.Tensor) and out.shape == points.shape:
            probe = f(points.reshape(-1)[:1].reshape(()))
            if isinstance(probe, torch.Tensor) and torch.equal(
                probe.reshape(()).to(out.dtype), out.reshape(-1)[0]
            ):
                return out
    except Exception:  # noqa: BLE001 - f does not broadcast: evaluate one point at a time
        pass
    flat = [scalar_output(f(p), "f") for p in points.reshape(-1)]
    return torch.stack(flat).reshape(points.shape)


def scalar_output(value: object, argument: str) -> torch.Tensor:
    """``value`` (what ``argument`` returned for one number) as a 0-d tensor, or a clear error."""
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(
                f"{argument} must return one number for one input number, got shape "
                f"{tuple(value.shape)}"
            )
        return value.reshape(())
    if isinstance(value, (int, float)):
        return torch.tensor(float(value), dtype=torch.float64)
    raise TypeError(f"{argument} must return a number or a tensor, got {type(value).__name__}")


def numeric_slopes(
    f: Callable,
    x: float,
    eps: Sequence[float] | torch.Tensor,
    *,
    dtype: torch.dtype | str = torch.float64,
    scheme: str = "central",
) -> torch.Tensor:
    """Numeric slopes of a scalar function at ``x`` for many step sizes in one batched call.

    Parameters
    ----------
    f : callable
        A function of one tensor (evaluated entry by entry if it does not broadcast).
    x : float
        The point (a finite real number), cast to ``dtype`` first.
    eps : sequence of float or tensor
        Step sizes, each a finite number > 0 (as for :func:`numeric_slope`), cast to ``dtype``.
    dtype : torch.dtype or str
        Precision of every step of the computation.
    scheme : {"central", "forward", "backward"}
        The difference formula.

    Returns
    -------
    torch.Tensor
        float64 slopes, one per eps; NaN where eps rounds to 0 in ``dtype`` (marked, not computed).
    """
    steps = check_eps_values(eps)  # the rule of numeric_slope's eps, for every value
    f = check_function(f, "f")
    return _slopes(f, check_x(x), steps, as_dtype(dtype), check_scheme(scheme))


def _slopes(f: Callable, x: float, steps: torch.Tensor, dtype: torch.dtype, scheme: str):
    """:func:`numeric_slopes` on arguments already checked (float64 ``steps``)."""
    plus, minus, divisor, _ = SCHEMES[scheme]
    h = steps.to(dtype)
    x_t = torch.tensor(x, dtype=dtype, device=steps.device)
    points = torch.stack([x_t + plus * h, x_t + minus * h])
    with torch.no_grad():
        values = call_elementwise(f, points).to(dtype)
    # (f(x + a eps) - f(x + b eps)) / (d eps), computed in dtype as a learner's tensor would be
    slopes = ((values[0] - values[1]) / (divisor * h)).to(torch.float64)
    return torch.where(h == 0, torch.full_like(slopes, math.nan), slopes)


def numeric_slope(  # long for its numpy docstring; the body is 10 lines
    f: Callable,
    x: float,
    eps: float,
    *,
    dtype: torch.dtype | str = torch.float64,
    scheme: str = "central",
) -> float:
    """Slope of ``f`` at ``x`` measured by nudging ``x`` by ``eps``.

    ``x`` and ``eps`` are cast to ``dtype`` first, as a learner's tensor would be.

    Parameters
    ----------
    f : callable
        A scalar function, e.g. ``lambda v: v * v``.
    x : float
        Where to measure.
    eps : float
        The nudge, > 0.
    dtype : torch.dtype or str
        float64, float32, float16 or bfloat16.
    scheme : {"central", "forward", "backward"}
        ``central``: (f(x+eps) - f(x-eps)) / (2 eps), error O(eps^2);
        ``forward``: (f(x+eps) - f(x)) / eps, error O(eps); ``backward`` the mirror image.

    Returns
    -------
    float
        The numeric slope.

    Raises
    ------
    ValueError
        If eps is not a finite positive number, or rounds to 0 in ``dtype``.

    Examples
    --------
    >>> round(numeric_slope(lambda v: v * v, 2.0, 1e-3), 3)
    4.0
    """
    f, eps, dtype, x = check_function(f, "f"), check_eps(eps), as_dtype(dtype), check_x(x)
    steps = torch.tensor([eps], dtype=torch.float64)
    slope = _slopes(f, x, steps, dtype, check_scheme(scheme))[0].item()
    if math.isnan(slope) and torch.tensor(eps, dtype=dtype).item() == 0:
        tiny = torch.finfo(dtype).smallest_normal
        raise ValueError(
            f"eps={eps:g} rounds to 0 in {dtype_name(dtype)} (smallest normal number {tiny:.3g}); "
            f"use a larger eps"
        )
    return slope


def analytic_slope(f: Callable, x: float) -> float:
    """Exact slope of a scalar function at ``x`` from autograd in float64 (the referee).

    ``f`` and ``x`` follow the rules of :func:`numeric_slope` (a callable; one finite number).
    """
    f, x = check_function(f, "f"), check_x(x)
    x_t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = scalar_output(f(x_t), "f")
    if not y.requires_grad:
        raise ValueError(
            "f's result does not depend on its input through torch operations, so autograd "
            "cannot differentiate it; build f from torch functions (torch.sin(v), not math.sin(v))"
        )
    (g,) = torch.autograd.grad(y, x_t, allow_unused=True)
    return 0.0 if g is None else float(g)
