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

__all__ = [
    "Ruler",
    "evaluate",
    "ruler",
    "rulers",
    "sample",
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


def ruler(x: float, eps: float, dtype: torch.dtype, **options: float) -> Ruler:
    """Representable numbers around ``x`` in ``dtype`` and where ``x -+ eps`` land.

    ``options`` are :func:`rulers`' keywords (``zoom_ulps``, ``view``, ``max_ticks``).
    """
    return rulers(x, [eps], dtype, **options)[0]


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

    x, its neighbours and the zoom ticks do not depend on eps and are computed once; x -+ eps is
    one batched subtraction and addition in ``dtype``; the view ticks are walked only for the eps
    whose view holds at most ``max_ticks`` numbers.
    """
    x_t = torch.tensor(float(x), dtype=dtype)
    x64, ulp, ulp_below = _spacing(x_t)
    h = torch.tensor([float(e) for e in eps_values], dtype=torch.float64).to(dtype)
    lower, upper = x_t - h, x_t + h  # computed in the dtype, all eps at once
    lower_collapsed, upper_collapsed = (lower == x_t).tolist(), (upper == x_t).tolist()
    # zoom: zoom_ulps ulps of x either side (the spacing below x can be half of ulp)
    below_steps = int(zoom_ulps * max(1.0, ulp / ulp_below))
    start = _from_keys(_order_keys(x_t.reshape(1)) - below_steps, dtype)[0]
    zoom = (_walk(start, below_steps + zoom_ulps).to(torch.float64) - x64) / ulp
    zoom = zoom[zoom.abs() <= zoom_ulps + 1e-9]
    out = []
    for k, eps in enumerate(eps_values):
        # the view x +- view*eps, in units of eps: about `count` representable numbers
        count = 2 * view * float(eps) / min(ulp, ulp_below)
        ticks = _view_ticks(x64, float(eps), view, count, dtype) if count <= max_ticks else None
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


def _spacing(x_t: torch.Tensor) -> tuple[float, float, float]:
    """x as stored, and the spacing to the next representable number above and below it."""
    dtype = x_t.dtype
    up = torch.nextafter(x_t, torch.tensor(math.inf, dtype=dtype))
    down = torch.nextafter(x_t, torch.tensor(-math.inf, dtype=dtype))
    x64 = float(x_t)
    finfo = torch.finfo(dtype)
    ulp = float(up.double() - x64) if math.isfinite(float(up)) else float(finfo.eps) * abs(x64)
    ulp_below = float(x64 - down.double()) if math.isfinite(float(down)) else ulp
    return x64, ulp, ulp_below


def _view_ticks(
    x64: float, eps: float, view: float, count: float, dtype: torch.dtype
) -> torch.Tensor:
    """Offsets / eps of the representable numbers within view * eps of x."""
    lo = torch.tensor(x64 - view * eps, dtype=torch.float64).to(dtype)
    offsets = (_walk(lo, int(count) + 4).to(torch.float64) - x64) / eps
    return offsets[offsets.abs() <= view]
