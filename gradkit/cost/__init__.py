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
  tolerance it hides in; :func:`fast_mode_by_hand` computes that one number both ways, step
  by step (J·p from two nudged calls, qᵀJ from one backward pass).

>>> import torch
>>> call_plan(10).forward, call_plan(10).backward
(22, 22)
>>> count_calls(torch.sin, (torch.rand(10, dtype=torch.float64, requires_grad=True),)).forward
22
>>> miss = fast_mode_miss(10)
>>> miss.fast_passed, miss.slow_passed
(True, False)
"""

from .calls import CallCount, CallPart, CallPlan, call_plan, call_table, count_calls
from .fast_mode import (
    FastModeByHand,
    FastModeMiss,
    fast_mode_by_hand,
    fast_mode_miss,
    fast_mode_misses,
)
from .timing import Timing, time_gradcheck

__all__ = [
    "CallCount",
    "CallPart",
    "CallPlan",
    "FastModeByHand",
    "FastModeMiss",
    "Timing",
    "call_plan",
    "call_table",
    "count_calls",
    "fast_mode_by_hand",
    "fast_mode_miss",
    "fast_mode_misses",
    "time_gradcheck",
]
