"""FloatRuler's numbers: where x ± eps land in each dtype, computed by torch in that dtype.

x is cast to the dtype, eps is cast to the dtype, and x ± eps is computed in the dtype, exactly
as :func:`gradkit.numerics.numeric_slopes` rounds its inputs. :func:`neighbours` walks the
representable numbers either side of x through their bit patterns, so every one is found, also
across a power of two where the spacing halves. :func:`ruler_point` is what the page is sent per
x position: it scales and words those numbers and flags, it never rounds or decides one itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..._args import DTYPES, EPS_GRID

__all__ = [
    "FLAGS",
    "NEIGHBOURS",
    "VIEW",
    "ZOOM_ULPS",
    "Ruler",
    "landing_flags",
    "landings",
    "neighbours",
    "ruler_point",
]

#: What can happen to x − eps and x + eps, in the order :func:`landing_flags` stacks them (the
#: scene names them so, and ``ruler.js`` reads each by its name).
FLAGS = ("underflow", "overflow", "lower_collapsed", "upper_collapsed", "collapsed")
#: Representable numbers walked either side of x. The landing panel draws them one by one while
#: they reach past x ± VIEW·eps on both sides (else a grey band: too many to draw).
NEIGHBOURS = 80
#: The landing panel spans x ± VIEW·eps (units of eps); the spacing panel x ± ZOOM_ULPS ulps.
VIEW, ZOOM_ULPS = 1.6, 8

_INT_VIEW = {64: torch.int64, 32: torch.int32, 16: torch.int16}


def _order_keys(values: torch.Tensor) -> torch.Tensor:
    """int64 keys that count representable numbers: consecutive floats, consecutive keys.

    IEEE bit patterns are sign and magnitude, so positive floats already count upwards; negative
    ones get the negated magnitude. +0 and -0 share the key 0.
    """
    bits = torch.finfo(values.dtype).bits
    raw = values.view(_INT_VIEW[bits]).to(torch.int64)
    magnitude = raw & ((1 << (bits - 1)) - 1)
    return torch.where(raw < 0, -magnitude, magnitude)


def _from_keys(keys: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    bits = torch.finfo(dtype).bits
    sign = -(1 << (bits - 1))  # the sign bit, as a signed integer of that width
    # two's complement: a negative float's pattern is sign bit | magnitude = sign + magnitude
    raw = torch.where(keys < 0, sign - keys, keys)
    return raw.to(_INT_VIEW[bits]).view(dtype)


def neighbours(
    x: float, dtype: torch.dtype, steps: int
) -> tuple[float, float, float, torch.Tensor]:
    """x as stored in ``dtype``, the spacing above and below it, and its neighbours.

    Returns
    -------
    (x_stored, ulp, ulp_below, offsets)
        ``offsets`` (float64, length ``2 * steps + 1``): the representable numbers from
        ``steps`` below x to ``steps`` above it, minus x, in units of ``ulp`` (the spacing
        above x); NaN past the largest finite number. Just above a power of two the spacing
        below is half of ``ulp``. When x itself overflows to ±inf there are no neighbours:
        ``ulp``, ``ulp_below`` and every offset are NaN.
    """
    x_t = torch.tensor(float(x), dtype=dtype)
    x64 = float(x_t)
    if not math.isfinite(x64):
        return x64, math.nan, math.nan, torch.full((2 * steps + 1,), math.nan, dtype=torch.float64)
    keys = _order_keys(x_t.reshape(1)) + torch.arange(-steps, steps + 1, dtype=torch.int64)
    values = _from_keys(keys, dtype).to(torch.float64)
    values = torch.where(torch.isfinite(values), values, math.nan)
    above, below = float(values[steps + 1]), float(values[steps - 1])
    # the largest finite number has no finite number above it: its spacing is then eps·|x|
    ulp = above - x64 if math.isfinite(above) else torch.finfo(dtype).eps * abs(x64)
    ulp_below = x64 - below if math.isfinite(below) else ulp
    return x64, ulp, ulp_below, (values - x64) / ulp


def landings(x: float, eps: Sequence[float], dtype: torch.dtype) -> torch.Tensor:
    """eps as stored (0 where it rounds to 0), x − eps and x + eps, computed in ``dtype``:
    float64, shape (len(eps), 3)."""
    x_t = torch.tensor(float(x), dtype=dtype)
    h = torch.tensor([float(e) for e in eps], dtype=torch.float64).to(dtype)
    return torch.stack([h, x_t - h, x_t + h], dim=1).to(torch.float64)


def landing_flags(x: np.ndarray | float, landing: np.ndarray) -> np.ndarray:
    """The :data:`FLAGS` (bool, a last axis of 5) of ``landing`` (``[..., 3]``,
    :func:`landings`) around ``x`` as stored in the dtype (broadcasting against
    ``landing[..., 0]``): eps rounds to 0; x − eps or x + eps is not finite; x − eps, x + eps,
    or both land on x itself (a finite landing)."""
    h, lower, upper = np.moveaxis(np.asarray(landing, dtype=np.float64), -1, 0)
    overflow = ~(np.isfinite(lower) & np.isfinite(upper))
    lower_collapsed = ~overflow & (lower == x)
    upper_collapsed = ~overflow & (upper == x)
    collapsed = lower_collapsed & upper_collapsed
    return np.stack([h == 0, overflow, lower_collapsed, upper_collapsed, collapsed], axis=-1)


@dataclass(frozen=True)
class Ruler:
    """The representable numbers of a dtype around x, and where x − eps and x + eps land.

    Attributes
    ----------
    x, h : float
        x and eps as stored in the dtype (x ±inf when it overflows, h 0 when eps underflows).
    ulp, ulp_below : float
        The spacing from x to the next representable number above it, and below it (half of
        ``ulp`` just above a power of two); NaN when x overflows.
    lower, upper : float
        x − eps and x + eps computed in the dtype.
    underflow, overflow, lower_collapsed, upper_collapsed, collapsed : bool
        :data:`FLAGS`: eps rounds to 0 (no nudge); x − eps or x + eps is not a finite number;
        x − eps, x + eps, or both land on x (both: the central difference is exactly 0).
    """

    x: float
    ulp: float
    ulp_below: float
    h: float
    lower: float
    upper: float
    underflow: bool
    overflow: bool
    lower_collapsed: bool
    upper_collapsed: bool
    collapsed: bool

    @classmethod
    def of(cls, point: Sequence[float], landing: Sequence[float]) -> Ruler:
        """From x as stored and its spacings (``point``), and one eps's ``landing``."""
        flags = landing_flags(float(point[0]), np.asarray(landing))
        return cls(*map(float, point), *map(float, landing), *map(bool, flags))


def ruler_point(x: float, eps: Sequence[float] = EPS_GRID) -> dict[str, np.ndarray]:
    """Everything FloatRuler draws at one x, for every dtype (DTYPES order) and each eps.

    Returns
    -------
    dict
        ``point`` (dtype, 3): x as stored, the spacing (ulp) above x and below it (NaN when x
        overflows); ``near`` (dtype, 2·NEIGHBOURS + 1), float32: the representable numbers
        around x minus x, in ulps (small whole or half numbers, exact in float32); ``landing``
        (dtype, eps, 3): eps as stored (0: it rounds to 0), x − eps and x + eps in the dtype;
        ``flags`` (dtype, eps, 5), float32 0 / 1: the :data:`FLAGS` of each landing.
    """
    point = np.empty((len(DTYPES), 3))
    near = np.empty((len(DTYPES), 2 * NEIGHBOURS + 1), dtype=np.float32)
    landing = np.empty((len(DTYPES), len(eps), 3))
    for d, dtype in enumerate(DTYPES.values()):
        x64, ulp, ulp_below, offsets = neighbours(x, dtype, NEIGHBOURS)
        point[d] = (x64, ulp, ulp_below)
        near[d] = offsets.numpy()
        landing[d] = landings(x, eps, dtype).numpy()
    flags = landing_flags(point[:, :1], landing).astype(np.float32)
    return {"point": point, "near": near, "landing": landing, "flags": flags}
