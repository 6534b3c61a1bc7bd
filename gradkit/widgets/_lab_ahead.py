"""GradcheckLab's states computed ahead: the grid eps near the current one, in every dtype.

A scene (one Function and tolerance) sends the browser the states one click away, so that
÷10, ×10 and a dtype switch are drawn at once; they come from the batched engine, which is
tested to decide as torch's slow gradcheck does. The other moves round-trip to the kernel.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import torch

from .._args import DTYPES, EPS_GRID
from ..diagnosis import check
from ._format import InputError
from ._lab_readouts import report_state
from ._lab_target import cast_inputs

__all__ = ["AHEAD_BUDGET_S", "AHEAD_GRID_STEPS", "AHEAD_MAX_ENTRIES", "compute_ahead"]

#: Inputs with at most this many entries get verdicts computed ahead (batched engine).
AHEAD_MAX_ENTRIES = 16
#: Grid positions either side of the current eps computed ahead: 6 = two decades (÷10 is 3).
AHEAD_GRID_STEPS = 6
#: Seconds a scene may spend computing ahead (nearest states first); the rest round-trips.
AHEAD_BUDGET_S = 0.25


def compute_ahead(
    label: str,
    fn: Callable,
    inputs: Sequence,
    settings: dict,
    index: int,
    current: str,
) -> tuple[dict, list[int]]:
    """States for the grid eps within two decades of ``index``, for every dtype.

    Small inputs only (at most AHEAD_MAX_ENTRIES entries), never in fast_mode; nearest states
    first, for at most AHEAD_BUDGET_S seconds.

    Parameters
    ----------
    label : str
        The Function's name as the lab's menu shows it.
    fn : callable
        The function checked.
    inputs : sequence
        Its inputs in float64 (complex128), cast to each dtype here.
    settings : dict
        ``"atol"``, ``"rtol"`` and ``"fast_mode"`` of the scene (its ``"eps"`` is not used).
    index : int
        The current eps's position in :data:`~gradkit._args.EPS_GRID`.
    current : str
        The current dtype's name: its states come before the other dtypes' at equal distance.

    Returns
    -------
    tuple
        ``(states, window)``: :func:`report_state`'s states by ``"dtype:grid index"``, and the
        window ``[first, last]`` grid index (``[]`` when nothing is computed ahead).
    """
    entries = sum(t.numel() for t in inputs if isinstance(t, torch.Tensor))
    if settings["fast_mode"] or entries > AHEAD_MAX_ENTRIES:
        return {}, []
    lo = max(0, index - AHEAD_GRID_STEPS)
    hi = min(len(EPS_GRID) - 1, index + AHEAD_GRID_STEPS)
    cast = {}
    for name, dtype in DTYPES.items():
        try:
            cast[name] = cast_inputs(inputs, dtype)
        except InputError:  # e.g. complex inputs in float16: the kernel says why
            continue
    ahead = {}
    start = time.perf_counter()
    for g, name in _nearest_first(range(lo, hi + 1), list(cast), index, current):
        if time.perf_counter() - start > AHEAD_BUDGET_S:
            break  # the rest takes the round trip
        eps = EPS_GRID[g]
        report = check(
            fn, cast[name], eps=eps, atol=settings["atol"], rtol=settings["rtol"], engine="batched"
        )
        ahead[f"{name}:{g}"] = report_state(label, report, eps, name)
    return ahead, [lo, hi]


def _nearest_first(
    grid: Sequence[int], names: Sequence[str], index: int, current: str
) -> list[tuple[int, str]]:
    """Every (grid index, dtype name), in the order one click reaches them.

    ÷10 / ×10 first (they land on multiples of 3 steps), then the rest, nearest first; at equal
    distance the current dtype before the dtype switches. A slow Function still gets those
    within the time budget.
    """
    return sorted(
        ((g, name) for name in names for g in grid),
        key=lambda item: (
            abs(item[0] - index) % 3 != 0,  # ÷10 / ×10 land on multiples of 3 steps
            abs(item[0] - index),
            item[1] != current,
        ),
    )
