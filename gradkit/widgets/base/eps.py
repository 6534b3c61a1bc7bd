"""The eps state of the widgets: Python's half (``eps.js`` beside this file is the page's).

A state holds eps as ``eps`` (the grid index of :data:`gradkit._args.EPS_GRID`) and ``eps_exact``
(the value itself when it is off the grid, else None); every way Python sets eps goes through
:func:`eps_state`, and what the page sends is checked by :func:`state_eps`. The page alone steps
(÷10, ×10) and reads typed text (``stepEps``, ``parseEps``); a fixture written from this module
holds the grid, the snapping and the labels equal on both sides.
"""

from __future__ import annotations

from ..._args import EPS_GRID, check_control_eps, snap_eps
from .guard import InputError

__all__ = [
    "EPS_GRID",
    "eps_label",
    "eps_of",
    "eps_state",
    "page_eps",
    "state_eps",
]


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


def state_eps(state: dict) -> dict:
    """The eps keys of a state from the page, checked (:class:`InputError` for a position off
    the grid or an exact value outside the limits)."""
    k = state.get("eps")
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(EPS_GRID):
        raise InputError(f"the page sent eps position {k!r}; it must be 0 … {len(EPS_GRID) - 1}")
    exact = state.get("eps_exact")
    return {"eps": k, "eps_exact": None} if exact is None else eps_state(page_eps(exact))


def page_eps(value: object) -> float:
    """An eps value the page sent, checked against the controls' range (:class:`InputError`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"the page sent eps {value!r}; it must be a number")
    try:
        return check_control_eps(value)  # gradkit's one rule, its words
    except ValueError as error:
        raise InputError(str(error)) from None
