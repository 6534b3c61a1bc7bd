"""Numbers per x position, measured once and sent as a window around the current x.

:class:`XWindow` keeps what was measured at each position of an x slider (a learner walking
along x reuses it) and says when x nears the edge of the window sent; :func:`stack_points`
stacks a window of measurements that are dicts of arrays.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import numpy as np

from .controls import grid_value

__all__ = ["XWindow", "stack_points"]

T = TypeVar("T")


def stack_points(points: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The measurements of a window of x positions (dicts of arrays), stacked on a leading axis."""
    return {name: np.stack([p[name] for p in points]) for name in points[0]}


class XWindow(Generic[T]):
    """``measure(x)`` for the positions of an x slider, kept, and the window last sent.

    Parameters
    ----------
    measure : callable
        x (float64) -> whatever the family needs at that x (arrays, sweeps).
    slider : dict
        The x slider's spec: ``origin``, ``step``, ``lo``, ``hi`` (whole positions).
    radius : int
        Positions sent either side of the current one once the first picture is out.
    """

    #: Positions kept in memory.
    KEEP = 64

    def __init__(self, measure: Callable[[float], T], slider: dict, radius: int) -> None:
        self.measure = measure
        self.origin = float(slider["origin"])
        self.grid = {"origin": self.origin, "step": float(slider["step"])}
        self.x_range = (int(slider["lo"]), int(slider["hi"]))
        self.radius = radius
        self.sent: tuple[int, int] = (0, -1)
        self._kept: OrderedDict[int, T] = OrderedDict()

    def x_at(self, k: int) -> float:
        """The x of position k (what the x slider shows there)."""
        return grid_value(self.grid, k)

    def at(self, k: int) -> T:
        """The measurement at position k (measured once, then kept)."""
        if k not in self._kept:
            self._kept[k] = self.measure(self.x_at(k))
        self._kept.move_to_end(k)
        while len(self._kept) > self.KEEP:
            self._kept.popitem(last=False)
        return self._kept[k]

    def window(self, center: int, radius: int) -> tuple[list[int], list[T]]:
        """Positions center ± radius inside the slider's range, and their measurements,
        remembered as sent."""
        lo, hi = self.x_range
        ks = list(range(max(lo, center - radius), min(hi, center + radius) + 1))
        measured = [self.at(k) for k in ks]
        self.sent = (ks[0], ks[-1])
        return ks, measured

    def needs_refill(self, k: int) -> bool:
        """Whether position k is within ``radius // 2`` of the edge of the window sent (or
        outside it); the slider's own ends never count as an edge."""
        lo, hi = self.sent
        margin = self.radius // 2
        low_edge = lo > self.x_range[0] and k < lo + margin
        high_edge = hi < self.x_range[1] and k > hi - margin
        return not lo <= k <= hi or low_edge or high_edge

    def clear(self) -> None:
        """Forget every measurement (a new function)."""
        self._kept.clear()
        self.sent = (0, -1)
