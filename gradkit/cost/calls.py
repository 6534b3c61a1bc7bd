"""gradcheck's calls: :func:`call_plan`, the one statement of them, and :func:`count_calls`,
which measures them on torch's own gradcheck (part of :mod:`gradkit.cost`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import torch
from torch.autograd.graph import register_multi_grad_hook

from .._args import as_input_tuple, check_count, check_function

__all__ = [
    "CallCount",
    "CallPart",
    "CallPlan",
    "call_plan",
    "call_table",
    "count_calls",
    "sample_input",
]


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


def sample_input(n: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """``n`` evenly spaced inputs from 0.25 to 2.0 that require grad (the lessons' sample)."""
    return torch.linspace(0.25, 2.0, n, dtype=dtype).requires_grad_(True)


def call_table(
    sizes: Iterable[int] = (1, 10, 100), fn: Callable = torch.sin
) -> list[tuple[CallCount, CallCount]]:
    """(slow, fast) call counts of gradcheck on ``fn`` for each input size in ``sizes``."""
    rows = []
    for n in sizes:
        n = check_count(n, "sizes")
        slow = count_calls(fn, (sample_input(n),))
        fast = count_calls(fn, (sample_input(n),), fast_mode=True)
        rows.append((slow, fast))
    return rows
