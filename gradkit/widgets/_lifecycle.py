"""What every widget does over its life: close last run's copies, and show errors, never lose them.

- :func:`register_for_cell`: re-running a notebook cell closes the widgets its previous run made
  (and deleting a cell closes its widgets), so a class that runs a lesson twice leaks nothing.
- :class:`ErrorGuard`: a callback that raises shows its message in the widget's error area;
  the widget keeps working.
"""

from __future__ import annotations

import functools
import html
import traceback
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ._format import InputError
from ._theme import THEME

__all__ = ["ErrorGuard", "register_for_cell"]

_BY_CELL: dict[str, tuple[str, list[weakref.ref]]] = {}


def _cell_context() -> tuple[str, str, Sequence[str]] | None:
    """(cell id, execution message id, deleted cell ids) of the running notebook cell, if any."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return None
    ip = get_ipython()
    kernel = getattr(ip, "kernel", None)
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


def register_for_cell(panel: Any) -> None:
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
    _BY_CELL[cell][1].append(weakref.ref(panel))


def _close_refs(refs: list[weakref.ref]) -> None:
    for ref in refs:
        panel = ref()
        if panel is not None:
            panel.close()


# ------------------------------------------------------------------------------ error area


class ErrorGuard:
    """guard / show_error / clear_error (the error area of every widget)."""

    _depth = 0
    _closed = False

    def _set_error_html(self, value: str) -> None:
        raise NotImplementedError

    def _error_html(self) -> str:
        raise NotImplementedError

    def _after_outermost(self) -> None:
        """Hook run when the outermost guarded callback ends."""

    def guard(self, fn: Callable) -> Callable:
        """Wrap a callback: its errors go to the error area instead of being lost.

        The outermost callback of a change clears the area first; callbacks it triggers only add
        errors, so an inner error is never wiped by an outer success.
        """

        @functools.wraps(fn)
        def run(*args, **kwargs):
            if self._closed:
                return None
            if self._depth == 0:
                self.clear_error()
            self._depth += 1
            try:
                return fn(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - shown to the learner, never lost
                self.show_error(error)
                return None
            finally:
                self._depth -= 1
                if self._depth == 0 and not self._closed:
                    self._after_outermost()

        return run

    def show_error(self, error: BaseException) -> None:
        """Show a short message for ``error`` in the error area."""
        self.last_error = error
        self.last_traceback = "".join(
            traceback.format_exception(type(error), error, error.__traceback__)
        )
        lines = str(error).strip().splitlines()
        first = lines[0] if lines else ""
        if len(first) > 300:
            first = first[:297] + "…"
        if isinstance(error, InputError):  # a typing slip or a domain message: it says it all
            message, details = first, ""
        else:
            message = f"{type(error).__name__}: {html.escape(first)}"
            details = (
                "<details><summary>traceback</summary>"
                f"<pre>{html.escape(self.last_traceback)}</pre></details>"
            )
        self._set_error_html(
            f"<div role='alert' class='gk-alert' style='color:{THEME['error']};border-left:4px "
            f"solid {THEME['error']};padding:2px 8px;margin:4px 0'>"
            f"<b>Could not update:</b> {message}"
            "<br><span class='gk-r-detail'>The widget still works: change a control to go on."
            f"</span>{details}</div>"
        )

    def clear_error(self) -> None:
        """Empty the error area."""
        if self._error_html():
            self._set_error_html("")
