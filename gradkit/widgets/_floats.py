"""Where numbers land in a floating dtype: small torch-only helpers for the widgets' pictures.

Slopes, sweeps and verdicts come from :mod:`gradkit.numerics` and :mod:`gradkit.diagnosis`. What the
widgets draw besides those numbers (a function sampled in the learner's dtype, where x - eps and
x + eps land, the representable numbers around x) is computed here, in the dtype, exactly the way
``gradkit.numerics.numeric_slopes`` rounds its inputs: x is cast to the dtype, eps is cast to the
dtype, and x +- eps is computed in the dtype.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..numerics import SCHEMES

__all__ = [
    "Landing",
    "Ruler",
    "evaluate",
    "landing",
    "ruler",
    "rulers",
    "sample",
    "zoom_sample",
]


def evaluate(f: Callable, points: torch.Tensor) -> torch.Tensor:
    """``f`` on every entry of ``points``, in their dtype (one call, entry by entry as fallback)."""
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
    """``f`` on ``n`` evenly spaced float64 points of [lo, hi]: the smooth curve for an overview."""
    t = torch.linspace(lo, hi, n, dtype=torch.float64)
    return t, evaluate(f, t).to(torch.float64)


@dataclass(frozen=True)
class Landing:
    """Where a finite difference's evaluation points land in a dtype.

    Attributes
    ----------
    x : float
        x as stored in the dtype.
    h : float
        eps as stored in the dtype (0 if it underflows).
    points : tuple[float, float]
        The two evaluation points (x + a h, x + b h) computed in the dtype, for the scheme's
        offsets a, b (central: +1, -1; forward: +1, 0).
    values : tuple[float, float]
        f at those points, computed in the dtype.
    fx : float
        f(x) computed in the dtype.
    underflow : bool
        eps rounds to 0 in the dtype.
    collapsed : bool
        Both evaluation points are the same number: the numeric slope is exactly 0.
    """

    x: float
    h: float
    points: tuple[float, float]
    values: tuple[float, float]
    fx: float
    underflow: bool
    collapsed: bool


def landing(f: Callable, x: float, eps: float, dtype: torch.dtype, scheme: str) -> Landing:
    """The evaluation points of ``scheme`` at ``x`` with step ``eps``, rounded in ``dtype``."""
    plus, minus, _, _ = SCHEMES[scheme]
    h = torch.tensor(float(eps), dtype=torch.float64).to(dtype)
    x_t = torch.tensor(float(x), dtype=dtype)
    points = torch.stack([x_t + plus * h, x_t + minus * h, x_t])
    values = evaluate(f, points).to(torch.float64)
    p = points.to(torch.float64)
    return Landing(
        x=float(p[2]),
        h=float(h),
        points=(float(p[0]), float(p[1])),
        values=(float(values[0]), float(values[1])),
        fx=float(values[2]),
        underflow=bool(h == 0),
        collapsed=bool(points[0] == points[1]),
    )


def zoom_sample(
    f: Callable, x: float, eps: float, dtype: torch.dtype, half_width: float = 2.5, n: int = 241
) -> tuple[torch.Tensor, torch.Tensor]:
    """f near x in units of eps, computed in ``dtype``: (u, (f(t) - f(x)) / eps), t = x + u eps.

    u is the requested offset; t = x + u eps is computed in ``dtype`` (so it rounds) and f is
    evaluated in ``dtype``: at a tiny eps the curve is the staircase a learner's tensor sees.
    NaN everywhere if eps underflows.
    """
    h = torch.tensor(float(eps), dtype=torch.float64).to(dtype)
    x_t = torch.tensor(float(x), dtype=dtype)
    u = torch.linspace(-half_width, half_width, n, dtype=torch.float64)
    t = x_t + (u * float(eps)).to(dtype)
    values = evaluate(f, torch.cat([t, x_t.reshape(1)])).to(torch.float64)
    fx = values[-1]
    if float(h) == 0.0:
        nan = torch.full_like(u, math.nan)
        return nan, nan
    return u, (values[:-1] - fx) / eps


@dataclass(frozen=True)
class Ruler:
    """The representable numbers of a dtype around x, and where x - eps and x + eps land.

    Offsets are measured from x as stored in the dtype.

    Attributes
    ----------
    x : float
        x as stored in the dtype.
    h : float
        eps as stored in the dtype (0 if it underflows).
    ulp : float
        Spacing from x to the next representable number above it.
    ulp_below : float
        Spacing from x to the next representable number below it (half of ``ulp`` just above a
        power of two).
    lower, upper : float
        x - eps and x + eps computed in the dtype.
    lower_collapsed, upper_collapsed : bool
        The rounded point is x itself.
    underflow : bool
        eps rounds to 0 in the dtype.
    zoom_ticks : torch.Tensor
        Offsets of the representable numbers within ``zoom_ulps`` ulps of x, in units of ``ulp``.
    view_ticks : torch.Tensor or None
        Offsets of the representable numbers within ``view`` * eps of x, in units of eps; None when
        there are more than ``max_ticks`` of them (see ``view_count``).
    view_count : float
        About how many representable numbers lie within ``view`` * eps of x.
    """

    x: float
    h: float
    ulp: float
    ulp_below: float
    lower: float
    upper: float
    lower_collapsed: bool
    upper_collapsed: bool
    underflow: bool
    zoom_ticks: torch.Tensor
    view_ticks: torch.Tensor | None
    view_count: float

    @property
    def collapsed(self) -> bool:
        """x - eps and x + eps both land on x: the central difference is exactly 0."""
        return self.lower_collapsed and self.upper_collapsed

    @property
    def step_up(self) -> float:
        """The nudge that really happened upwards: (x + eps) - x, both as stored."""
        return self.upper - self.x

    @property
    def step_down(self) -> float:
        """The nudge that really happened downwards: x - (x - eps), both as stored."""
        return self.x - self.lower


_INT_VIEW = {64: torch.int64, 32: torch.int32, 16: torch.int16}


def _order_keys(values: torch.Tensor) -> torch.Tensor:
    """Integers (int64) that count representable numbers: consecutive floats, consecutive keys.

    IEEE bit patterns are sign and magnitude, so positive floats already count upwards; negative
    ones get the negated magnitude. +0 and -0 share the key 0.
    """
    bits = torch.finfo(values.dtype).bits
    raw = values.view(_INT_VIEW[bits]).to(torch.int64)
    magnitude = raw & ((1 << (bits - 1)) - 1)
    return torch.where(raw < 0, -magnitude, magnitude)


def _from_keys(keys: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Inverse of :func:`_order_keys`."""
    bits = torch.finfo(dtype).bits
    sign = -(1 << (bits - 1))  # the sign bit, as a signed integer of that width
    # two's complement: a negative float's pattern is sign bit | magnitude = sign + magnitude
    raw = torch.where(keys < 0, sign - keys, keys)
    return raw.to(_INT_VIEW[bits]).view(dtype)


def _walk(start: torch.Tensor, steps: int) -> torch.Tensor:
    """``start`` and the next ``steps`` representable numbers above it (finite ones only)."""
    keys = _order_keys(start.reshape(1)) + torch.arange(steps + 1, dtype=torch.int64)
    values = _from_keys(keys, start.dtype)
    return values[torch.isfinite(values)]


def ruler(
    x: float,
    eps: float,
    dtype: torch.dtype,
    *,
    zoom_ulps: int = 8,
    view: float = 1.6,
    max_ticks: int = 160,
) -> Ruler:
    """Representable numbers around ``x`` in ``dtype`` and where ``x -+ eps`` land."""
    x_t = torch.tensor(float(x), dtype=dtype)
    h = torch.tensor(float(eps), dtype=torch.float64).to(dtype)
    finfo = torch.finfo(dtype)
    up = torch.nextafter(x_t, torch.tensor(math.inf, dtype=dtype))
    down = torch.nextafter(x_t, torch.tensor(-math.inf, dtype=dtype))
    x64 = float(x_t)
    ulp = float(up.double() - x64) if math.isfinite(float(up)) else float(finfo.eps) * abs(x64)
    ulp_below = float(x64 - down.double()) if math.isfinite(float(down)) else ulp
    lower, upper = x_t - h, x_t + h

    # zoom: zoom_ulps ulps of x either side (the spacing below x can be half of ulp)
    below_steps = int(zoom_ulps * max(1.0, ulp / ulp_below))
    start = _from_keys(_order_keys(x_t.reshape(1)) - below_steps, dtype)[0]
    numbers = _walk(start, below_steps + zoom_ulps).to(torch.float64)
    zoom = (numbers - x64) / ulp
    zoom = zoom[zoom.abs() <= zoom_ulps + 1e-9]

    # the view x +- view*eps, in units of eps
    count = 2 * view * float(eps) / min(ulp, ulp_below)
    ticks: torch.Tensor | None = None
    if count <= max_ticks:
        lo = torch.tensor(x64 - view * float(eps), dtype=torch.float64).to(dtype)
        offsets = (_walk(lo, int(count) + 4).to(torch.float64) - x64) / float(eps)
        ticks = offsets[offsets.abs() <= view]
    return Ruler(
        x=x64,
        h=float(h),
        ulp=ulp,
        ulp_below=ulp_below,
        lower=float(lower),
        upper=float(upper),
        lower_collapsed=bool(lower == x_t),
        upper_collapsed=bool(upper == x_t),
        underflow=bool(h == 0),
        zoom_ticks=zoom,
        view_ticks=ticks,
        view_count=count,
    )


def rulers(
    x: float,
    eps_values: list[float] | tuple[float, ...],
    dtype: torch.dtype,
    *,
    zoom_ulps: int = 8,
    view: float = 1.6,
    max_ticks: int = 160,
) -> list[Ruler]:
    """:func:`ruler` for every eps in ``eps_values`` at once (one batched pass per dtype).

    Equal, field for field, to ``[ruler(x, eps, dtype) for eps in eps_values]``: x, its
    neighbours and the zoom ticks do not depend on eps and are computed once; x -+ eps is one
    batched subtraction and addition in ``dtype``; the view ticks are walked only for the eps
    whose view holds at most ``max_ticks`` numbers.
    """
    x_t = torch.tensor(float(x), dtype=dtype)
    eps64 = torch.tensor([float(e) for e in eps_values], dtype=torch.float64)
    h = eps64.to(dtype)  # eps as stored in the dtype
    finfo = torch.finfo(dtype)
    up = torch.nextafter(x_t, torch.tensor(math.inf, dtype=dtype))
    down = torch.nextafter(x_t, torch.tensor(-math.inf, dtype=dtype))
    x64 = float(x_t)
    ulp = float(up.double() - x64) if math.isfinite(float(up)) else float(finfo.eps) * abs(x64)
    ulp_below = float(x64 - down.double()) if math.isfinite(float(down)) else ulp
    lower, upper = x_t - h, x_t + h  # computed in the dtype, all eps at once
    lower_collapsed, upper_collapsed = (lower == x_t).tolist(), (upper == x_t).tolist()
    below_steps = int(zoom_ulps * max(1.0, ulp / ulp_below))
    start = _from_keys(_order_keys(x_t.reshape(1)) - below_steps, dtype)[0]
    numbers = _walk(start, below_steps + zoom_ulps).to(torch.float64)
    zoom = (numbers - x64) / ulp
    zoom = zoom[zoom.abs() <= zoom_ulps + 1e-9]
    out = []
    for k, eps in enumerate(eps_values):
        count = 2 * view * float(eps) / min(ulp, ulp_below)
        ticks: torch.Tensor | None = None
        if count <= max_ticks:
            lo = torch.tensor(x64 - view * float(eps), dtype=torch.float64).to(dtype)
            offsets = (_walk(lo, int(count) + 4).to(torch.float64) - x64) / float(eps)
            ticks = offsets[offsets.abs() <= view]
        out.append(
            Ruler(
                x=x64,
                h=float(h[k]),
                ulp=ulp,
                ulp_below=ulp_below,
                lower=float(lower[k]),
                upper=float(upper[k]),
                lower_collapsed=bool(lower_collapsed[k]),
                upper_collapsed=bool(upper_collapsed[k]),
                underflow=bool(h[k] == 0),
                zoom_ticks=zoom,
                view_ticks=ticks,
                view_count=count,
            )
        )
    return out
