"""How long gradcheck takes, slow mode against fast mode (part of :mod:`gradkit.cost`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch

from .._args import check_count
from .calls import sample_input

__all__ = ["Timing", "time_gradcheck"]


@dataclass(frozen=True)
class Timing:
    """Best-of-``repeats`` wall time of one gradcheck, in seconds, for ``n`` input entries."""

    n: int
    slow_s: float
    fast_s: float

    @property
    def ratio(self) -> float:
        """How many times longer slow mode took."""
        return self.slow_s / self.fast_s if self.fast_s > 0 else float("inf")


def _best_time(fn: Callable, x: torch.Tensor, fast_mode: bool, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        torch.autograd.gradcheck(fn, (x,), fast_mode=fast_mode)
        best = min(best, time.perf_counter() - start)
    return best


def time_gradcheck(
    sizes: Iterable[int] = (10, 100, 1000), fn: Callable = torch.sin, repeats: int = 3
) -> list[Timing]:
    """Time slow and fast gradcheck of ``fn`` on float64 inputs of each size (best of repeats).

    One untimed warm-up call runs first, so the first size does not pay for torch's start-up.
    """
    repeats = check_count(repeats, "repeats")
    sizes = [check_count(n, "sizes") for n in sizes]
    torch.autograd.gradcheck(fn, (sample_input(2),))
    torch.autograd.gradcheck(fn, (sample_input(2),), fast_mode=True)
    return [
        Timing(
            n,
            _best_time(fn, sample_input(n), False, repeats),
            _best_time(fn, sample_input(n), True, repeats),
        )
        for n in sizes
    ]
