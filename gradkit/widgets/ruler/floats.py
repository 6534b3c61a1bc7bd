"""Where numbers land in a floating dtype, computed by torch in that dtype.

x is cast to the dtype, eps is cast to the dtype, and x ± eps is computed in the dtype, exactly
as :func:`gradkit.numerics.numeric_slopes` rounds its inputs. :func:`neighbours` walks the
representable numbers either side of x (through their bit patterns, so every one is found, also
across a power of two where the spacing halves); :func:`landings` gives x − eps and x + eps for
many eps at once; :func:`landing_flags` says what happened to them (the one rule: the page is
sent its answers); :func:`ruler` gathers one (x, eps, dtype) into a :class:`Ruler`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["FLAGS", "Ruler", "landing_flags", "landings", "neighbours", "ruler"]

#: What can happen to x − eps and x + eps, in the order :func:`landing_flags` stacks them (the
#: scene names them so, and ``ruler.js`` reads each by its name).
FLAGS = ("underflow", "overflow", "lower_collapsed", "upper_collapsed", "collapsed")

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
    """eps as stored, x − eps and x + eps, computed in ``dtype`` for every eps at once.

    Returns
    -------
    torch.Tensor
        float64, shape (len(eps), 3): h (0 where eps rounds to 0), lower, upper.
    """
    x_t = torch.tensor(float(x), dtype=dtype)
    h = torch.tensor([float(e) for e in eps], dtype=torch.float64).to(dtype)
    return torch.stack([h, x_t - h, x_t + h], dim=1).to(torch.float64)


def landing_flags(x: np.ndarray | float, landing: np.ndarray) -> np.ndarray:
    """The :data:`FLAGS` of landings, as booleans stacked on a last axis of length 5.

    Parameters
    ----------
    x : float or numpy.ndarray
        x as stored in the dtype, broadcasting against ``landing[..., 0]``.
    landing : numpy.ndarray
        ``[..., 3]``: eps as stored, x − eps and x + eps (:func:`landings`).

    Returns
    -------
    numpy.ndarray
        bool, ``[..., 5]``: eps rounds to 0 (``underflow``); x − eps or x + eps is not finite
        (``overflow``); x − eps, x + eps, or both land on x itself, for finite landings.
    """
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
    x : float
        x as stored in the dtype (±inf when it overflows).
    h : float
        eps as stored in the dtype (0 if it underflows).
    ulp, ulp_below : float
        The spacing from x to the next representable number above it, and below it (half of
        ``ulp`` just above a power of two); NaN when x overflows.
    lower, upper : float
        x − eps and x + eps computed in the dtype.
    """

    x: float
    h: float
    ulp: float
    ulp_below: float
    lower: float
    upper: float

    def _flag(self, name: str) -> bool:
        landing = np.array([self.h, self.lower, self.upper])
        return bool(landing_flags(self.x, landing)[FLAGS.index(name)])

    @property
    def underflow(self) -> bool:
        """eps rounds to 0 in the dtype: there is no nudge."""
        return self._flag("underflow")

    @property
    def overflow(self) -> bool:
        """x − eps or x + eps is not a finite number of the dtype (x itself overflows)."""
        return self._flag("overflow")

    @property
    def lower_collapsed(self) -> bool:
        """x − eps lands on x itself (a finite x)."""
        return self._flag("lower_collapsed")

    @property
    def upper_collapsed(self) -> bool:
        """x + eps lands on x itself (a finite x)."""
        return self._flag("upper_collapsed")

    @property
    def collapsed(self) -> bool:
        """x − eps and x + eps both land on x: the central difference is exactly 0."""
        return self._flag("collapsed")


def ruler(x: float, eps: float, dtype: torch.dtype) -> Ruler:
    """Where ``x ± eps`` land in ``dtype``, and the spacing of its numbers at x."""
    x64, ulp, ulp_below, _ = neighbours(x, dtype, 1)
    h, lower, upper = landings(x, [eps], dtype)[0].tolist()
    return Ruler(x=x64, h=h, ulp=ulp, ulp_below=ulp_below, lower=lower, upper=upper)
