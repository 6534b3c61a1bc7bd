"""GradcheckLab on a page with no kernel: what such a page gets beyond the states one click away.

A static page (``gradkit export``) cannot ask torch for a state it was not given. When the lab's
state is saved for one (:meth:`~gradkit.widgets.base.standin.RecordedAnswers.answers_ahead`), the
lab adds, within :data:`OFFLINE_BUDGET_S`: fast_mode flipped for every state it sends
(:func:`fast_twins`), and every other Function of its menu at the settings shown, with fast_mode
flipped and ÷10 / ×10 (:func:`menu_states`), so picking a Function works there too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

from ..._args import DTYPES, EPS_GRID
from ...zoo import ZooEntry
from .states import LabStates

__all__ = ["OFFLINE_BUDGET_S", "about", "fast_twins", "menu_states"]

#: Seconds one lab may spend on what a page with no kernel gets beyond its window.
OFFLINE_BUDGET_S = 10.0
#: Grid steps computed for another Function of the menu: here, ÷10 and ×10.
MENU_STEPS = (0, -3, 3)


def about(label: str, entry: ZooEntry | None) -> dict:
    """What the page says about the Function: its name, whose it is, and the zoo's words."""
    out = {"name": label, "yours": entry is None}
    if entry is not None:
        out.update(correct=entry.correct, description=entry.description, bug=entry.bug)
    return out


def _compute(states: LabStates, wanted: Iterable[tuple[bool, str, int]], deadline: float) -> None:
    """The wanted states (fast_mode, dtype, grid index) computed by torch, until ``deadline``."""
    for fast_mode, dtype, g in wanted:
        if time.perf_counter() > deadline or not states.ahead:
            return
        try:
            states.get(fast_mode, dtype, EPS_GRID[g])
        except Exception:  # noqa: BLE001 - kept as unavailable, with the error's words
            continue


def fast_twins(
    states: LabStates, sent: Iterable[tuple[bool, str, int]], deadline: float
) -> list[tuple[bool, str, int]]:
    """fast_mode flipped for each state sent, computed (until ``deadline``); the ones now kept."""
    twins = [(not fast_mode, dtype, g) for fast_mode, dtype, g in sent]
    _compute(states, twins, deadline)
    return [t for t in twins if states.kept(t[0], t[1], EPS_GRID[t[2]]) is not None]


def menu_states(
    labels: Iterable[str],
    target: Callable,
    tolerance: tuple[float, float],
    checks: dict[str, bool],
    here: tuple[bool, str, int],
    deadline: float,
) -> Iterator[tuple[str, dict, LabStates, list[tuple[bool, str, int]]]]:
    """Each Function of ``labels`` at the settings ``here``, fast_mode flipped, ÷10 and ×10.

    ``target(label, dtype)`` gives ``(callable, inputs, entry)``. Yields ``(label, about,
    states, keys)`` for each Function reached before ``deadline``; ``keys`` lists the states
    computed (fast_mode, dtype, grid index).
    """
    fast_mode, dtype, g = here
    for label in labels:
        if time.perf_counter() > deadline:
            return
        fn, _inputs, entry = target(label, DTYPES["float64"])
        states = LabStates(lambda dt, label=label: target(label, dt)[1], fn, *tolerance)
        states.checks = checks
        wanted = [(fast_mode, dtype, g), (not fast_mode, dtype, g)]
        wanted += [(fast_mode, dtype, g + d) for d in MENU_STEPS[1:] if 0 <= g + d < len(EPS_GRID)]
        _compute(states, wanted, deadline)
        keys = [w for w in wanted if states.kept(w[0], w[1], EPS_GRID[w[2]]) is not None]
        if keys:
            yield label, about(label, entry), states, keys
