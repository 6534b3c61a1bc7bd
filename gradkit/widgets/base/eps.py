"""The eps rule of the widgets, written once (``eps.js`` beside this file is its browser twin).

A state holds eps as ``eps`` (the grid index of :data:`gradkit._args.EPS_GRID`) and ``eps_exact``
(the value itself when it is off the grid, else None); every way of setting eps goes through
:func:`eps_state`. ÷10 and ×10 move :data:`EPS_DECADE` grid positions.
"""

from __future__ import annotations

import math

from ..._args import EPS_GRID, check_control_eps, snap_eps
from .guard import InputError

__all__ = [
    "EPS_DECADE",
    "EPS_GRID",
    "eps_label",
    "eps_of",
    "eps_state",
    "page_eps",
    "parse_eps",
    "parse_number",
    "state_eps",
    "step_eps",
]

#: Grid positions per factor of ten (1, 2, 5).
EPS_DECADE = 3


def eps_label(eps: float) -> str:
    """eps as the controls print it: ``1e-06``, ``0.001``, ``3.16e-07``."""
    return f"{eps:.3g}"


def eps_state(eps: object, argument: str = "eps") -> dict:
    """The state for an eps: ``{"eps": grid index, "eps_exact": value or None}``.

    Raises the ValueError/TypeError of :func:`gradkit._args.check_control_eps`.
    """
    value = check_control_eps(eps, argument)
    k = snap_eps(value)
    return {"eps": k, "eps_exact": None if EPS_GRID[k] == value else value}


def eps_of(state: dict) -> float:
    """The eps a state shows (its exact value, or its grid value)."""
    exact = state.get("eps_exact")
    return float(exact) if exact is not None else EPS_GRID[int(state["eps"])]


def step_eps(state: dict, direction: int) -> int:
    """The grid index after ÷10 (``direction`` -1) or ×10 (+1), clamped to the grid."""
    k = snap_eps(eps_of(state)) + direction * EPS_DECADE
    return min(len(EPS_GRID) - 1, max(0, k))


def parse_number(text: object, name: str = "eps", example: str = "1e-6") -> tuple[float, str]:
    """A typed number (``" 1e-6 "``, ``"−0"``) and its text cleaned; an :class:`InputError`
    in the browser's words for what is no finite number (``"abc"``, ``"nan"``, ``"inf"``)."""
    cleaned = str(text).strip().replace("−", "-").replace(" ", "")
    try:
        value = float(cleaned)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # not a number a learner can nudge by
        raise InputError(
            f"{name} must be a number written like {example} or 0.001; “{text}” is not one"
        )
    return value, cleaned


def parse_eps(text: object) -> float:
    """A typed eps (``"1e-6"``, ``" 0.001 "``) as a float; an :class:`InputError` with the
    words the browser shows for the same slip."""
    value, cleaned = parse_number(text)
    if value <= 0:
        raise InputError(f"eps must be a number > 0 (e.g. 1e-6), got {cleaned}")
    try:
        return check_control_eps(value)  # the controls' range: gradkit's one rule, its words
    except ValueError as error:
        raise InputError(str(error)) from None


def state_eps(state: dict) -> dict:
    """The eps keys of a state from the page, checked (:class:`InputError` for a position off
    the grid or an exact value outside the limits)."""
    k = state.get("eps")
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(EPS_GRID):
        raise InputError(f"the page sent eps position {k!r}; it must be 0 … {len(EPS_GRID) - 1}")
    exact = state.get("eps_exact")
    return {"eps": k, "eps_exact": None} if exact is None else eps_state(page_eps(exact))


def page_eps(value: object) -> float:
    """An eps value the page sent, checked as a typed one is (:class:`InputError`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"the page sent eps {value!r}; it must be a number")
    return parse_eps(repr(float(value)))
