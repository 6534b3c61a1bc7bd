"""What gradcheck costs, and what fast_mode saves and misses (torch only).

- :func:`call_plan` is the one statement of how many calls one passing gradcheck makes (torch 2.x,
  real inputs and outputs, default checks), part by part. For one input of ``n`` entries and one
  output of ``m`` entries, slow mode makes ``2n + 2`` forward calls (one plain run, ``2n`` nudged
  runs, one more for the undefined-gradient check) and ``2m + 2`` backward passes (the analytic
  Jacobian, one pass per output entry, built twice to test that backward answers the same twice,
  then a zero ``grad_output`` and an undefined gradient); fast mode makes 4 and 4 whatever ``n``.
  The lessons print it, and the Jacobian builder shows it.
- :func:`count_calls` measures the same numbers the way a learner could: it wraps the function in
  a counter, and hooks the outputs to count the backward passes. ``tests/test_cost.py`` holds the
  two together, against torch itself.
- :func:`time_gradcheck` times slow mode against fast mode for growing inputs.
- :func:`fast_mode_miss` shows fast mode passing a backward rule with one wrong Jacobian entry
  (:class:`gradkit.zoo.OneEntryWrongSquareFn`) that slow mode rejects. Fast mode compares one
  number, ``qᵀ J p``, for random vectors ``p`` (input-sized) and ``q`` (output-sized; torch's own
  source calls them u and v) that torch draws from a fresh ``torch.Generator()`` with its default
  state on every call: the verdict depends on the input size and values only, never on
  ``torch.manual_seed``. So a miss at a given size repeats exactly, and :func:`fast_mode_miss`
  recomputes the same ``p`` and ``q`` to show the bug's share of that one number next to the
  tolerance it hides in.

>>> call_plan(10).forward, call_plan(10).backward
(22, 22)
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
from torch.autograd.graph import register_multi_grad_hook

from ._args import GRADCHECK_DEFAULTS, as_input_tuple, check_count, check_function
from .zoo import OneEntryWrongSquareFn

__all__ = [
    "CallCount",
    "CallPart",
    "CallPlan",
    "FastModeMiss",
    "Timing",
    "call_plan",
    "call_table",
    "count_calls",
    "fast_mode_miss",
    "fast_mode_misses",
    "time_gradcheck",
]

#: The offset OneEntryWrongSquareFn adds to the first Jacobian entry.
_ONE_ENTRY_ERROR = 0.1


@dataclass(frozen=True)
class CallPart:
    """One job gradcheck does, and the forward calls and backward passes it takes."""

    name: str
    what: str
    forward: int
    backward: int


@dataclass(frozen=True)
class CallPlan:
    """How many calls one passing ``torch.autograd.gradcheck`` makes, part by part.

    Real (not complex) inputs and outputs, gradcheck's default checks (``check_undefined_grad``
    may be switched off). A check that fails stops at the first mismatch, so it makes fewer.

    Attributes
    ----------
    n : int
        Entries of the inputs that require grad, all inputs together.
    m : int
        Entries of the outputs that require grad, all outputs together.
    inputs, outputs : int
        How many inputs require grad, and how many outputs do.
    fast_mode : bool
    check_undefined_grad : bool
    """

    n: int
    m: int
    inputs: int = 1
    outputs: int = 1
    fast_mode: bool = False
    check_undefined_grad: bool = True

    @property
    def plain(self) -> int:
        """Forward calls of the plain run at x: 1."""
        return 1

    @property
    def nudged(self) -> int:
        """Forward calls at x ± eps: 2 per input entry (slow), 2 per input (fast: one random
        direction per input)."""
        return 2 * (self.inputs if self.fast_mode else self.n)

    @property
    def analytic(self) -> int:
        """Backward passes for the analytic side, done twice (to see backward answer the same
        twice): one per output entry (slow), one per output (fast)."""
        return 2 * (self.outputs if self.fast_mode else self.m)

    @property
    def zero_grad(self) -> int:
        """Backward passes with a zero ``grad_output`` (backward must return zeros): 1."""
        return 1

    @property
    def undefined(self) -> int:
        """Forward calls, and backward passes, of the undefined-gradient check: 1, plus one per
        output when there are several (each output's gradient undefined in turn); 0 when off."""
        if not self.check_undefined_grad:
            return 0
        return 1 + (self.outputs if self.outputs > 1 else 0)

    @property
    def forward(self) -> int:
        """All forward calls: plain + nudged + undefined."""
        return self.plain + self.nudged + self.undefined

    @property
    def backward(self) -> int:
        """All backward passes: analytic + zero_grad + undefined."""
        return self.analytic + self.zero_grad + self.undefined

    def parts(self) -> tuple[CallPart, ...]:
        """The jobs in gradcheck's order, with their calls (empty parts left out)."""
        nudge = (
            "f at x + eps·p and x − eps·p, one random direction p per input"
            if self.fast_mode
            else "f at x + eps and x − eps for every input entry, one entry at a time"
        )
        rows = "one backward per output" if self.fast_mode else "one backward per output entry"
        parts = (
            CallPart("plain run", "f at x, the values to compare against", self.plain, 0),
            CallPart("nudged runs", nudge, self.nudged, 0),
            CallPart("analytic side", f"{rows}, done twice: same answer twice?", 0, self.analytic),
            CallPart("zero grad_output", "backward of a zero gradient must be zero", 0, 1),
            CallPart(
                "undefined gradient",
                "f again; backward copes when no gradient arrives",
                self.undefined,
                self.undefined,
            ),
        )
        return tuple(p for p in parts if p.forward or p.backward)


def call_plan(
    n: int,
    m: int | None = None,
    *,
    inputs: int = 1,
    outputs: int = 1,
    fast_mode: bool = False,
    check_undefined_grad: bool = True,
) -> CallPlan:
    """How many calls one passing gradcheck makes (torch 2.x; see :class:`CallPlan`).

    Parameters
    ----------
    n : int
        Input entries that require grad (all inputs together).
    m : int, optional
        Output entries (all outputs together); default ``n``, as for an entrywise function.
    inputs, outputs : int
        How many inputs require grad (at most ``n``), how many outputs (at most ``m``).
    fast_mode, check_undefined_grad : bool
        gradcheck's settings of those names.

    >>> plan = call_plan(4)
    >>> plan.forward, plan.backward, [p.forward for p in plan.parts()]
    (10, 10, [1, 8, 0, 0, 1])
    """
    n = check_count(n, "n")
    m = n if m is None else check_count(m, "m")
    inputs, outputs = check_count(inputs, "inputs"), check_count(outputs, "outputs")
    if inputs > n or outputs > m:
        raise ValueError(
            f"{inputs} input(s) and {outputs} output(s) need at least one entry each, but "
            f"n = {n} and m = {m}: pass the entries of all inputs (n) and outputs (m) together"
        )
    return CallPlan(n, m, inputs, outputs, bool(fast_mode), bool(check_undefined_grad))


@dataclass(frozen=True)
class CallCount:
    """How many times one gradcheck ran the function (forward) and backward from its outputs.

    ``plan`` is :func:`call_plan` for the same inputs and outputs (None for complex ones, where
    gradcheck checks the real and imaginary parts separately); a passing check makes exactly
    ``plan.forward`` and ``plan.backward`` calls.
    """

    n: int
    fast_mode: bool
    forward: int
    backward: int
    passed: bool
    m: int = 0
    plan: CallPlan | None = None


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


def _as_output_tuple(value: object) -> tuple:
    """What ``fn`` returned, as a tuple (torch's own ``_as_tuple``, for the call counter)."""
    return value if isinstance(value, tuple) else (value,)


def _grad_tensors(values: Iterable[object]) -> list[torch.Tensor]:
    return [t for t in values if isinstance(t, torch.Tensor) and t.requires_grad]


def _plan_of(
    inputs: tuple, outputs: list[torch.Tensor], fast_mode: bool, settings: dict
) -> CallPlan | None:
    """:func:`call_plan` for these inputs and outputs (None if complex, or nothing to check)."""
    checked = _grad_tensors(inputs)
    if not checked or not outputs or any(t.is_complex() for t in [*checked, *outputs]):
        return None
    n, m = sum(t.numel() for t in checked), sum(o.numel() for o in outputs)
    if n == 0 or m == 0:
        return None
    return call_plan(
        n,
        m,
        inputs=len(checked),
        outputs=len(outputs),
        fast_mode=fast_mode,
        check_undefined_grad=settings.get("check_undefined_grad", True),
    )


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
        Further gradcheck keywords (eps, atol, rtol, check_undefined_grad, ...).

    Returns
    -------
    CallCount
        Forward calls counted on entry to ``fn`` (a wrapper, as a learner would write one);
        backward passes counted by one hook on the outputs that require grad, which fires once
        per backward pass that reaches any of them (for a Function with one output, exactly the
        times its ``backward`` runs). ``plan`` is what :func:`call_plan` says for the same shapes.
    """
    check_function(fn)
    inputs = as_input_tuple(inputs)
    counts = {"forward": 0, "backward": 0}
    first: list[list[torch.Tensor]] = []

    def bump(_grads: object) -> None:
        counts["backward"] += 1

    def counted(*args):
        counts["forward"] += 1
        out = fn(*args)
        outputs = _grad_tensors(_as_output_tuple(out))
        if not first:
            first.append(outputs)
        if outputs:
            register_multi_grad_hook(outputs, bump, mode="any")
        return out

    passed = torch.autograd.gradcheck(
        counted, inputs, fast_mode=fast_mode, raise_exception=False, **settings
    )
    n = sum(t.numel() for t in _grad_tensors(inputs))
    outputs = first[0] if first else []
    return CallCount(
        n,
        bool(fast_mode),
        counts["forward"],
        counts["backward"],
        bool(passed),
        sum(o.numel() for o in outputs),
        _plan_of(inputs, outputs, bool(fast_mode), settings),
    )


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
        OneEntryWrongSquareFn.apply, (_sample(n),), fast_mode=True, **settings
    )
    slow = torch.autograd.gradcheck(OneEntryWrongSquareFn.apply, (_sample(n),), **settings)
    p, q = _fast_mode_vectors(n)
    x = _sample(n).detach()
    projection = float((q * 2 * x * p).sum())
    bug_term = _ONE_ENTRY_ERROR * float(p[0]) * float(q[0])
    allowed = atol * float(p.sum()) * float(q.sum()) + rtol * abs(projection)
    return FastModeMiss(n, bool(fast), bool(slow), float(p[0]), float(q[0]), bug_term, allowed)


def fast_mode_misses(sizes: Iterable[int] = range(1, 41)) -> list[int]:
    """The sizes at which fast mode passes OneEntryWrongSquareFn while slow mode fails it."""
    return [n for n in sizes if fast_mode_miss(check_count(n, "sizes")).missed]
