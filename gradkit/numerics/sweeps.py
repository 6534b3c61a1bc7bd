"""Sweeps: measured error versus eps for several dtypes, beside the theory's curves.

Depends on torch only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .._args import (
    GRADCHECK_DEFAULTS,
    SCHEMES,
    allowance,
    as_dtype,
    check_eps_values,
    check_function,
    check_points,
    check_scheme,
    check_tolerance,
    dtype_name,
)
from .slopes import call_elementwise
from .theory import derivatives, optimal_eps, rounding_error, truncation_error

__all__ = ["DtypeSweep", "SweepResult", "sweep"]

#: The default eps grid: 61 points log-spaced from 1e-12 to 1.
_SWEEP_GRID = (1e-12, 1.0, 61)


@dataclass(frozen=True)
class DtypeSweep:
    """Error versus eps for one dtype.

    Attributes
    ----------
    dtype : torch.dtype
    numeric : torch.Tensor
        Numeric slopes (worst entry for a vector input), NaN where ``underflow``.
    error : torch.Tensor
        |numeric - analytic|, NaN where ``underflow``.
    underflow : torch.Tensor
        bool mask: eps rounds to 0 in this dtype, so no slope can be measured.
    collapsed : torch.Tensor
        bool mask: x +- eps round back to x, so the numeric slope is exactly 0.
    truncation, rounding, theory : torch.Tensor
        The theoretical error curves and their sum.
    optimal_eps, optimal_error : float
        Theory's best eps and its predicted error (``inf``/``nan`` if the truncation vanishes).
    best_eps, best_error : float
        The measured minimum on the grid.
    passes : torch.Tensor
        bool mask: error within gradcheck's tolerance at that eps.
    """

    dtype: torch.dtype
    numeric: torch.Tensor
    error: torch.Tensor
    underflow: torch.Tensor
    collapsed: torch.Tensor
    truncation: torch.Tensor
    rounding: torch.Tensor
    theory: torch.Tensor
    optimal_eps: float
    optimal_error: float
    best_eps: float
    best_error: float
    passes: torch.Tensor

    @property
    def name(self) -> str:
        """The dtype's short name."""
        return dtype_name(self.dtype)

    def error_at(self, eps: float) -> float:
        """Measured error at the grid point nearest ``eps`` (log scale)."""
        return float(self.error[_nearest(self._grid, eps)])

    _grid: torch.Tensor = field(default=None, repr=False)  # type: ignore[assignment]


def _nearest(grid: torch.Tensor, eps: float) -> int:
    return int(torch.argmin((grid.log10() - math.log10(eps)).abs()))


@dataclass(frozen=True)
class SweepResult:
    """The result of :func:`sweep`: error versus eps for several dtypes.

    Attributes
    ----------
    eps : torch.Tensor
        The float64 eps grid (log-spaced).
    x : torch.Tensor
        The point (float64).
    analytic : torch.Tensor
        The exact slope(s) from autograd in float64, one per entry of x.
    scheme : str
    tolerance : float
        gradcheck's allowance atol + rtol * |analytic| for the strictest entry.
    dtypes : dict[str, DtypeSweep]
        One curve per dtype, by name.
    """

    eps: torch.Tensor
    x: torch.Tensor
    analytic: torch.Tensor
    scheme: str
    atol: float
    rtol: float
    tolerance: float
    dtypes: dict[str, DtypeSweep]

    def __getitem__(self, name: str | torch.dtype) -> DtypeSweep:
        return self.dtypes[name if isinstance(name, str) else dtype_name(name)]

    def nearest(self, eps: float) -> int:
        """Index of the grid point nearest ``eps`` on a log scale."""
        return _nearest(self.eps, eps)


def sweep(
    f: Callable,
    x: float | torch.Tensor,
    *,
    eps: Sequence[float] | torch.Tensor | None = None,
    dtypes: Sequence[torch.dtype | str] = (
        torch.float64,
        torch.float32,
        torch.float16,
        torch.bfloat16,
    ),
    scheme: str = "central",
    atol: float = GRADCHECK_DEFAULTS["atol"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
) -> SweepResult:
    """Measure |numeric - analytic| over a grid of eps for several dtypes.

    One batched evaluation per dtype: every (eps, entry, side) point is stacked into a single
    tensor and ``f`` is called once on it (entry by entry only if ``f`` does not broadcast).

    Parameters
    ----------
    f : callable
        An elementwise function of a tensor, e.g. ``torch.sin`` or ``lambda v: v**3``.
    x : float or tensor
        The point(s), finite and real. For a tensor, the error is the worst over its entries.
    eps : sequence of float, optional
        The grid; default 61 points log-spaced from 1e-12 to 1.
    dtypes : sequence of dtype
        Which precisions to sweep.
    scheme : {"central", "forward", "backward"}
    atol, rtol : float
        gradcheck's tolerances, for the tolerance line and the ``passes`` masks.

    Returns
    -------
    SweepResult
    """
    f = check_function(f, "f")
    _, _, _, order = SCHEMES[check_scheme(scheme)]
    atol, rtol = check_tolerance(atol, "atol"), check_tolerance(rtol, "rtol")
    x64 = check_points(x)  # finite and real: the imaginary part is never dropped silently
    if eps is None:
        lo, hi, n = _SWEEP_GRID
        grid = torch.logspace(math.log10(lo), math.log10(hi), n, dtype=torch.float64)
    else:
        grid = check_eps_values(eps)
    grid = grid.to(x64.device)
    analytic = _analytic_slopes(f, x64)
    allowed = allowance(analytic, atol, rtol)  # gradcheck's allowance, per entry
    deriv = _worst_derivatives(f, x64, order)
    curves = {}
    for dt in dtypes:
        dt = as_dtype(dt, "dtypes")
        curves[dtype_name(dt)] = _sweep_one(f, x64, grid, dt, scheme, analytic, allowed, deriv)
    return SweepResult(
        eps=grid,
        x=x64,
        analytic=analytic,
        scheme=scheme,
        atol=float(atol),
        rtol=float(rtol),
        tolerance=float(allowed.min()),
        dtypes=curves,
    )


def _analytic_slopes(f: Callable, x64: torch.Tensor) -> torch.Tensor:
    """f'(x) per entry from autograd in float64; ValueError unless f is elementwise and finite."""
    x_req = x64.clone().requires_grad_(True)
    y = f(x_req)
    if not isinstance(y, torch.Tensor) or y.shape != x_req.shape:
        raise ValueError("sweep needs an elementwise f: f(x) must have the shape of x")
    if not bool(torch.isfinite(y).all()):
        bad = float(x64[~torch.isfinite(y.detach())][0])
        raise ValueError(
            f"f(x) is not finite at x = {bad:g} (e.g. log at 0, exp at 800), so there is no "
            "slope to measure; pick x inside the function's domain and range"
        )
    analytic = (
        torch.autograd.grad(y.sum(), x_req, allow_unused=True)[0]
        if y.requires_grad
        else torch.zeros_like(x64)
    )
    return torch.zeros_like(x64) if analytic is None else analytic.detach()


def _worst_derivatives(f: Callable, x64: torch.Tensor, order: int) -> tuple[float, ...]:
    """(f, f', f'', f''') for the theory lines at the worst of x's first 8 entries: the one with
    the largest f''' for a central difference (order 2), the largest f'' for a one-sided one."""
    derivs = [derivatives(f, float(v)) for v in x64[: min(8, x64.numel())]]
    return max(derivs, key=lambda d: abs(d[3] if order == 2 else d[2]))


def _theory_optimum(
    deriv: tuple[float, ...], dtype: torch.dtype, scheme: str
) -> tuple[float, float]:
    """theory's best eps and its predicted error (truncation + rounding there); nan if none."""
    h_star = optimal_eps(deriv, dtype, scheme)
    if not math.isfinite(h_star):
        return h_star, math.nan
    h_t = torch.tensor([h_star], dtype=torch.float64)
    error = (
        truncation_error(h_t, deriv, scheme)[0] + rounding_error(h_t, deriv[0], dtype, scheme)[0]
    )
    return h_star, float(error)


def _sweep_one(
    f: Callable,
    x64: torch.Tensor,
    grid: torch.Tensor,
    dtype: torch.dtype,
    scheme: str,
    analytic: torch.Tensor,
    allowed: torch.Tensor,
    deriv: tuple[float, float, float, float],
) -> DtypeSweep:
    """One dtype's curve: every (eps, entry, side) point in one call of ``f``; theory beside it."""
    plus, minus, divisor, _ = SCHEMES[scheme]
    h = grid.to(dtype)[:, None]  # (E, 1)
    x = x64.to(dtype)[None, :]  # (1, n)
    points = torch.stack([x + plus * h, x + minus * h])  # (2, E, n), all in dtype
    with torch.no_grad():
        values = call_elementwise(f, points).to(dtype)
    # (f(x + a eps) - f(x + b eps)) / (d eps), in dtype
    slopes = ((values[0] - values[1]) / (divisor * h)).to(torch.float64)  # (E, n)
    underflow = (h == 0).reshape(-1)
    errors = (slopes - analytic[None, :]).abs()
    # per eps, the worst entry: the largest |error| / allowed
    worst = torch.argmax(torch.nan_to_num(errors / allowed[None, :], nan=math.inf), dim=1)
    rows = torch.arange(grid.numel(), device=grid.device)
    error = torch.where(underflow, math.nan, errors[rows, worst])
    best = int(torch.argmin(torch.nan_to_num(error, nan=math.inf)))
    return DtypeSweep(
        dtype=dtype,
        numeric=torch.where(underflow, math.nan, slopes[rows, worst]),
        error=error,
        underflow=underflow,
        collapsed=(points[0] == points[1]).all(dim=1) & ~underflow,
        best_eps=float(grid[best]),
        best_error=float(error[best]),
        passes=~underflow & (errors <= allowed[None, :]).all(dim=1),
        _grid=grid,
        **_theory(grid, deriv, dtype, scheme),
    )


def _theory(
    grid: torch.Tensor, deriv: tuple[float, ...], dtype: torch.dtype, scheme: str
) -> dict[str, Any]:
    """Theory's curves on the grid (truncation, rounding, their sum), its best eps and error."""
    truncation = truncation_error(grid, deriv, scheme)
    rounding = rounding_error(grid, deriv[0], dtype, scheme)
    optimal_eps, optimal_error = _theory_optimum(deriv, dtype, scheme)
    return {
        "truncation": truncation,
        "rounding": rounding,
        "theory": truncation + rounding,
        "optimal_eps": optimal_eps,
        "optimal_error": optimal_error,
    }
