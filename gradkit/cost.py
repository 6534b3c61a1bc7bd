"""What gradcheck costs, and what fast_mode saves and misses (torch only).

- :func:`count_calls` counts the forward and backward calls one gradcheck makes: slow mode
  makes ``2n + 2`` forward calls for ``n`` input entries (one plain run, ``2n`` nudged runs,
  one more for the undefined-gradient check), fast mode makes 4 whatever ``n``. Backward runs
  ``2m + 2`` times for ``m`` output entries (the analytic Jacobian, one backward per output
  entry, built twice to test reentrancy, plus a zero ``grad_output`` and an undefined gradient).
- :func:`time_gradcheck` times slow mode against fast mode for growing inputs.
- :func:`fast_mode_miss` shows fast mode passing a backward rule with one wrong Jacobian entry
  (:class:`gradkit.zoo.OneEntryWrongSquareFn`) that slow mode rejects. Fast mode compares one
  number, ``vᵀ J u``, for random vectors ``u`` and ``v`` that torch draws from a fresh
  ``torch.Generator()`` with its default seed on every call: the verdict depends on the input
  size and values only, never on ``torch.manual_seed``. So a miss at a given size repeats
  exactly, and :func:`fast_mode_miss` recomputes the same ``u`` and ``v`` to show the bug's
  share of that one number next to the tolerance it hides in.

>>> count_calls(torch.sin, (torch.rand(10, dtype=torch.float64, requires_grad=True),)).forward
22
>>> miss = fast_mode_miss(10)
>>> miss.fast_passed, miss.slow_passed
(True, False)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import torch

from ._args import GRADCHECK_DEFAULTS, as_input_tuple, check_count, check_function
from .zoo import OneEntryWrongSquareFn

__all__ = [
    "CallCount",
    "FastModeMiss",
    "Timing",
    "call_table",
    "count_calls",
    "fast_mode_miss",
    "fast_mode_misses",
    "time_gradcheck",
]

#: The offset OneEntryWrongSquareFn adds to the first Jacobian entry.
_ONE_ENTRY_ERROR = 0.1


@dataclass(frozen=True)
class CallCount:
    """How many times one gradcheck ran the function and its backward."""

    n: int
    fast_mode: bool
    forward: int
    backward: int
    passed: bool


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


@dataclass(frozen=True)
class FastModeMiss:
    """Fast and slow gradcheck on OneEntryWrongSquareFn with ``n`` inputs.

    ``u0`` and ``v0`` are the first entries of fast mode's random vectors; the wrong entry
    shifts fast mode's one number by ``bug_term = 0.1 * u0 * v0``, and fast mode lets it through
    when that is at most ``allowed = atol * sum(u) * sum(v) + rtol * |vᵀ J u|``.
    """

    n: int
    fast_passed: bool
    slow_passed: bool
    u0: float
    v0: float
    bug_term: float
    allowed: float

    @property
    def missed(self) -> bool:
        """True when fast mode passed a bug that slow mode caught."""
        return self.fast_passed and not self.slow_passed


def _as_output_tuple(value: object) -> tuple:
    """What ``fn`` returned, as a tuple (torch's own ``_as_tuple``, for the call counter)."""
    return value if isinstance(value, tuple) else (value,)


def count_calls(
    fn: Callable,
    inputs: torch.Tensor | Sequence[torch.Tensor],
    *,
    fast_mode: bool = False,
    **settings: float,
) -> CallCount:
    """Run ``torch.autograd.gradcheck`` once and count the calls it makes.

    Parameters
    ----------
    fn : callable
        A function of tensors or a Function's ``apply``.
    inputs : tensor or sequence of tensors
        As for gradcheck; ``n`` in the result is the number of entries that require grad.
    fast_mode : bool
        gradcheck's ``fast_mode``.
    **settings
        Further gradcheck keywords (eps, atol, rtol, ...).

    Returns
    -------
    CallCount
        Forward calls counted on entry to ``fn``; backward calls counted by a hook on each
        output that requires grad.
    """
    check_function(fn)
    inputs = as_input_tuple(inputs)
    counts = {"forward": 0, "backward": 0}

    def bump(_grad: torch.Tensor) -> None:
        counts["backward"] += 1

    def counted(*args):
        counts["forward"] += 1
        out = fn(*args)
        for o in _as_output_tuple(out):
            if isinstance(o, torch.Tensor) and o.requires_grad:
                o.register_hook(bump)
        return out

    passed = torch.autograd.gradcheck(
        counted, inputs, fast_mode=fast_mode, raise_exception=False, **settings
    )
    n = sum(t.numel() for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad)
    return CallCount(n, bool(fast_mode), counts["forward"], counts["backward"], bool(passed))


def _sample(n: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.linspace(0.25, 2.0, n, dtype=dtype).requires_grad_(True)


def call_table(
    sizes: Iterable[int] = (1, 10, 100), fn: Callable = torch.sin
) -> list[tuple[CallCount, CallCount]]:
    """(slow, fast) call counts of gradcheck on ``fn`` for each input size in ``sizes``."""
    rows = []
    for n in sizes:
        n = check_count(n, "sizes")
        slow = count_calls(fn, (_sample(n),))
        fast = count_calls(fn, (_sample(n),), fast_mode=True)
        rows.append((slow, fast))
    return rows


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
    torch.autograd.gradcheck(fn, (_sample(2),))
    torch.autograd.gradcheck(fn, (_sample(2),), fast_mode=True)
    return [
        Timing(
            n, _best_time(fn, _sample(n), False, repeats), _best_time(fn, _sample(n), True, repeats)
        )
        for n in sizes
    ]


def _fast_mode_vectors(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The u and v torch's fast mode draws for one real input and one output of ``n`` entries."""
    generator = torch.Generator()  # what torch does: a fresh generator, default seed
    u = torch.rand(n, generator=generator).to(torch.float64)
    u /= u.norm()
    v = torch.rand(n, generator=generator).to(torch.float64)
    v /= v.norm()
    return u, v


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
        OneEntryWrongSquareFn.apply, (_sample(n),), fast_mode=True, **settings
    )
    slow = torch.autograd.gradcheck(OneEntryWrongSquareFn.apply, (_sample(n),), **settings)
    u, v = _fast_mode_vectors(n)
    x = _sample(n).detach()
    projection = float((v * 2 * x * u).sum())
    bug_term = _ONE_ENTRY_ERROR * float(u[0]) * float(v[0])
    allowed = atol * float(u.sum()) * float(v.sum()) + rtol * abs(projection)
    return FastModeMiss(n, bool(fast), bool(slow), float(u[0]), float(v[0]), bug_term, allowed)


def fast_mode_misses(sizes: Iterable[int] = range(1, 41)) -> list[int]:
    """The sizes at which fast mode passes OneEntryWrongSquareFn while slow mode fails it."""
    return [n for n in sizes if fast_mode_miss(check_count(n, "sizes")).missed]
