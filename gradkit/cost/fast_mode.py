"""What fast_mode misses: a one-entry bug hidden in its one number (part of
:mod:`gradkit.cost`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch

from .._args import GRADCHECK_DEFAULTS, check_count
from ..zoo import OneEntryWrongSquareFn
from .calls import sample_input

__all__ = ["FastModeMiss", "fast_mode_miss", "fast_mode_misses"]

#: The offset OneEntryWrongSquareFn adds to the first Jacobian entry.
_ONE_ENTRY_ERROR = 0.1


@dataclass(frozen=True)
class FastModeMiss:
    """Fast and slow gradcheck on OneEntryWrongSquareFn with ``n`` inputs.

    ``p0`` and ``q0`` are the first entries of fast mode's random vectors (input-sized ``p``,
    output-sized ``q``); the wrong entry shifts fast mode's one number by
    ``bug_term = 0.1 * p0 * q0``, and fast mode lets it through when that is at most
    ``allowed = atol * sum(p) * sum(q) + rtol * |qᵀ J p|``.
    """

    n: int
    fast_passed: bool
    slow_passed: bool
    p0: float
    q0: float
    bug_term: float
    allowed: float

    @property
    def missed(self) -> bool:
        """True when fast mode passed a bug that slow mode caught."""
        return self.fast_passed and not self.slow_passed


def _fast_mode_vectors(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The p and q (torch: u and v) fast mode draws for one real input and one output of ``n``
    entries."""
    generator = torch.Generator()  # what torch does: a fresh generator in its default state
    p = torch.rand(n, generator=generator).to(torch.float64)
    p /= p.norm()
    q = torch.rand(n, generator=generator).to(torch.float64)
    q /= q.norm()
    return p, q


def fast_mode_miss(
    n: int = 10,
    *,
    atol: float = GRADCHECK_DEFAULTS["atol"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
) -> FastModeMiss:
    """Check OneEntryWrongSquareFn on ``n`` inputs (0.25..2.0) in fast and in slow mode.

    Parameters
    ----------
    n : int
        Number of input entries. Fast mode misses the bug at n = 6, 10, 12, 13, ... and catches
        it at n = 16 (the zoo's own sample size); see :func:`fast_mode_misses`.
    atol, rtol : float
        gradcheck's tolerances.

    Returns
    -------
    FastModeMiss
        Both verdicts (torch's own) and fast mode's arithmetic for the one wrong entry.
    """
    n = check_count(n, "n")
    settings = {"atol": atol, "rtol": rtol, "raise_exception": False}
    fast = torch.autograd.gradcheck(
        OneEntryWrongSquareFn.apply, (sample_input(n),), fast_mode=True, **settings
    )
    slow = torch.autograd.gradcheck(OneEntryWrongSquareFn.apply, (sample_input(n),), **settings)
    p, q = _fast_mode_vectors(n)
    x = sample_input(n).detach()
    projection = float((q * 2 * x * p).sum())
    bug_term = _ONE_ENTRY_ERROR * float(p[0]) * float(q[0])
    allowed = atol * float(p.sum()) * float(q.sum()) + rtol * abs(projection)
    return FastModeMiss(n, bool(fast), bool(slow), float(p[0]), float(q[0]), bug_term, allowed)


def fast_mode_misses(sizes: Iterable[int] = range(1, 41)) -> list[int]:
    """The sizes at which fast mode passes OneEntryWrongSquareFn while slow mode fails it."""
    return [n for n in sizes if fast_mode_miss(check_count(n, "sizes")).missed]
