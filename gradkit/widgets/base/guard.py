"""What every widget does over its life: show errors (never lose them), close last run's copies.

Re-running a notebook cell closes the widgets its previous run made, and deleting a cell closes
its widgets (:func:`register_for_cell`), so a class that runs a lesson twice leaks nothing.
"""

from __future__ import annotations

import html
import traceback
import weakref
from collections.abc import Sequence
from typing import Any

__all__ = ["InputError", "error_html", "register_for_cell"]


class InputError(ValueError):
    """A value typed into a control, or sent by the page, that cannot be used."""


def error_html(error: BaseException) -> str:
    """The error area's HTML for ``error``: one line, and the traceback folded away."""
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else ""
    if len(first) > 300:
        first = first[:297] + "…"
    if isinstance(error, InputError):
        message, details = html.escape(first), ""
    else:
        message = f"{type(error).__name__}: {html.escape(first)}"
        trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        details = f"<details><summary>traceback</summary><pre>{html.escape(trace)}</pre></details>"
    return (
        f"<div class='gk-alert'><b>Could not update:</b> {message}<br>"
        "<span class='gk-r-detail'>The widget still works: change a control to go on.</span>"
        f"{details}</div>"
    )


_BY_CELL: dict[str, tuple[str, list[weakref.ref]]] = {}


def _cell_context() -> tuple[str, str, Sequence[str]] | None:
    """(cell id, execution message id, deleted cell ids) of the running notebook cell, if any."""
    from IPython import get_ipython  # imported by ipywidgets already

    kernel = getattr(get_ipython(), "kernel", None)
    if kernel is None or not hasattr(kernel, "get_parent"):
        return None
    try:
        parent = kernel.get_parent("shell") or {}
    except Exception:  # noqa: BLE001 - an unusual kernel: no bookkeeping
        return None
    metadata = parent.get("metadata") or {}
    cell = metadata.get("cellId")
    run = (parent.get("header") or {}).get("msg_id")
    if not cell or not run:
        return None
    return str(cell), str(run), tuple(metadata.get("deletedCells") or ())


def register_for_cell(widget: Any) -> None:
    """Close what this cell's previous run created (and what deleted cells created)."""
    context = _cell_context()
    if context is None:
        return
    cell, run, deleted = context
    for gone in deleted:
        _close_refs(_BY_CELL.pop(gone, ("", []))[1])
    previous = _BY_CELL.get(cell)
    if previous is None or previous[0] != run:
        if previous is not None:
            _close_refs(previous[1])
        _BY_CELL[cell] = (run, [])
    _BY_CELL[cell][1].append(weakref.ref(widget))


def _close_refs(refs: list[weakref.ref]) -> None:
    for ref in refs:
        widget = ref()
        if widget is not None:
            widget.close()
