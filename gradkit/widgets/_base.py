"""The gradkit widget base: one anywidget whose browser side draws what moves.

A gradkit widget is an :class:`anywidget.AnyWidget` (so an ipywidgets ``DOMWidget``: it composes
in ``VBox``, works in Voila) whose ES module is the base scripts (:data:`BASE_SCRIPTS`) followed
by one view file ``static/<view>.js``; the theme is ``static/gradkit.css`` (and ``THEME`` in
``_theme.py`` for matplotlib). ``README.md`` beside this file is the guide for a new widget.

This module holds the widget itself: its synced traits, the state flow between Python and the
browser (the ``__seq`` / ``ack`` handshake) and its life (building, closing). Where the rest lives:

- ``_builders.py``: making controls and readouts, the shared dtype / eps / x rows;
- ``_controls.py``: the Python handles onto controls, readouts and the error area;
- ``_stage.py``: the matplotlib static layer sent as a PNG;
- ``_lifecycle.py``: re-run bookkeeping and the error guard;
- ``_format.py``, ``_functions.py``, ``_theme.py``: readout text, the function menu, the look.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets
from matplotlib.figure import Figure

from .._args import EPS_GRID, check_control_eps, snap_eps
from ._builders import ControlBuilder
from ._controls import Control, ErrorArea
from ._lifecycle import ErrorGuard, register_for_cell
from ._stage import Stage
from ._theme import STATIC

__all__ = ["GradkitWidget"]

#: The JavaScript every view file builds on, in this order (concatenated: no build step).
BASE_SCRIPTS = ("base.js", "draw.js", "controls.js", "render.js")


def _module_source(view: str) -> str:
    parts = [(STATIC / name).read_text(encoding="utf-8") for name in (*BASE_SCRIPTS, f"{view}.js")]
    parts.append("export default { render };\n")
    return "\n".join(parts)


class GradkitWidget(ErrorGuard, ControlBuilder, anywidget.AnyWidget):
    """Base of the gradkit widgets: controls, readouts, error area, picture, busy mark.

    See ``README.md`` beside this file for the guide. Subclasses set ``css`` (the root CSS hook) and
    ``view`` (the file ``static/<view>.js``).
    """

    css = "gradkit-panel"
    view = "generic"
    _css = (STATIC / "gradkit.css").read_text(encoding="utf-8")

    view_name = traitlets.Unicode("generic").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    hint = traitlets.Unicode("").tag(sync=True)
    alt = traitlets.Unicode("").tag(sync=True)
    controls = traitlets.List().tag(sync=True)
    control_state = traitlets.Dict().tag(sync=True)
    values = traitlets.Dict().tag(sync=True)
    readouts = traitlets.List().tag(sync=True)
    readout_html = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    ack = traitlets.Int(0).tag(sync=True)
    png = traitlets.Bytes(b"").tag(sync=True)
    axes = traitlets.List().tag(sync=True)
    size = traitlets.List([0, 0]).tag(sync=True)
    table = traitlets.Bytes(b"").tag(sync=True)
    scene = traitlets.Dict().tag(sync=True)
    scene_id = traitlets.Int(0).tag(sync=True)
    render_count = traitlets.Int(0).tag(sync=True)
    exact = traitlets.Dict().tag(sync=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # only classes that name their view (anywidget's add_traits also subclasses)
        wanted = "view" in cls.__dict__ or "_esm" not in cls.__dict__
        if wanted and not isinstance(cls.__dict__.get("_esm"), traitlets.TraitType):
            cls._esm = _module_source(cls.view)

    def __init__(self) -> None:
        self._listeners: dict[str, list[Callable]] = {}
        self._click_listeners: dict[str, list[Callable]] = {}
        self._handles: dict[str, Control] = {}
        self.last_error: BaseException | None = None
        self.last_traceback = ""
        self._closed = False
        self._depth = 0
        self._stage: Stage | None = None
        super().__init__(view_name=self.view)
        self.add_class("gradkit-widget")
        self.add_class(self.css)
        self.error_area = ErrorArea(self)
        self.on_msg(self._on_message)
        register_for_cell(self)

    # ----------------------------------------------------------------------- error area
    def _set_error_html(self, value: str) -> None:
        self.error = value

    def _error_html(self) -> str:
        return self.error

    def _after_outermost(self) -> None:
        if self._stage is not None:
            self._stage.flush()

    # ------------------------------------------------------------------------ state flow
    @property
    def eps(self) -> float:
        """eps exactly as shown (a grid value or the typed one)."""
        exact = self.values.get("eps_exact")
        return float(exact) if exact is not None else EPS_GRID[int(self.values["eps"])]

    @eps.setter
    def eps(self, value: float) -> None:
        value = check_control_eps(value)
        k = snap_eps(value)
        exact = None if EPS_GRID[k] == value else value
        self._set_values({"eps": k, "eps_exact": exact})

    def _set_values(self, changes: dict) -> None:
        self.values = {**self.values, **changes}

    def _listen(self, name: str, fn: Callable[[dict], None], owner: Any = None) -> None:
        self._listeners.setdefault(name, []).append((fn, owner))

    def _listen_click(self, name: str, fn: Callable[[], None]) -> None:
        self._click_listeners.setdefault(name, []).append(fn)

    @traitlets.observe("values")
    def _values_changed(self, change: dict) -> None:
        old, new = change["old"] or {}, change["new"] or {}
        names = []
        for key, value in new.items():
            if key == "__seq" or (key in old and old[key] == value):
                continue
            name = "eps" if key == "eps_exact" else key
            if name not in names:
                names.append(name)
        with self._one_change() as outermost:
            for name in names:
                for fn, owner in self._listeners.get(name, []):
                    handle = self._handles.get(name)
                    event = {
                        "name": "value",
                        "old": old.get(name),
                        "new": handle.value if handle is not None else new.get(name),
                        "owner": owner,
                    }
                    self.guard(fn)(event)
        seq = new.get("__seq")
        if outermost and not self._closed and isinstance(seq, int) and seq > self.ack:
            self.ack = seq  # only now is the browser's change acknowledged (busy mark off)

    @contextlib.contextmanager
    def _one_change(self) -> Iterator[bool]:
        """One change, one outcome: the error area is cleared once, the picture rendered once.

        Yields whether this is the outermost change (callbacks it triggers are inner ones).
        """
        outermost = self._depth == 0
        if outermost:
            self.clear_error()
        self._depth += 1
        try:
            yield outermost
        finally:
            self._depth -= 1
            if outermost and not self._closed:
                self._after_outermost()

    def set_state(self, sync_data: dict) -> None:
        """A state update from the browser; ``values`` is merged so the latest user action wins.

        The browser sends its whole control state with ``__seq`` (its change counter) and
        ``__changed`` (the keys it changed that Python has not handled yet). Only those keys are
        applied onto Python's current values: a stale copy of any other key (built before a
        newer Python or browser change reached that browser) can never undo a newer change. A
        message without ``__changed`` (an older front end) is applied whole, unless its
        ``__seq`` is not newer than the last one handled (``ack``): then it is stale and dropped.
        """
        values = sync_data.get("values") if isinstance(sync_data, dict) else None
        if isinstance(values, dict) and "__seq" in values:
            sync_data = {**sync_data, "values": self._merge_browser_values(values)}
        super().set_state(sync_data)

    def _merge_browser_values(self, incoming: dict) -> dict:
        """Python's values with the browser's changed keys applied (see :meth:`set_state`)."""
        seq = incoming.get("__seq")
        changed = incoming.get("__changed")
        current = dict(self.values)
        if not isinstance(seq, int):
            return current
        if isinstance(changed, list):
            keys = [k for k in changed if isinstance(k, str) and k in incoming]
        elif seq > self.ack:
            keys = [k for k in incoming if k not in ("__seq", "__changed")]
        else:  # an older whole state: every key in it is stale
            keys = []
        merged = {**current, **{k: incoming[k] for k in keys}}
        merged["__seq"] = max(seq, int(current.get("__seq") or 0))
        return merged

    def _dispatch_click(self, name: str) -> None:
        with self._one_change():
            for fn in self._click_listeners.get(name, []):
                self.guard(fn)()

    def _on_message(self, _widget: Any, content: dict, _buffers: list) -> None:
        if not isinstance(content, dict) or content.get("type") != "click":
            return
        try:
            self._dispatch_click(str(content.get("name")))
        finally:
            seq = content.get("seq")
            if isinstance(seq, int) and seq > self.ack:
                self.ack = seq

    # ------------------------------------------------------------------------- lifecycle
    @property
    def figure(self) -> Figure | None:
        """The matplotlib Figure of the static layer (None for widgets without one)."""
        return self._stage.figure if self._stage is not None else None

    @contextlib.contextmanager
    def _building(self) -> Iterator[None]:
        """A constructor that fails closes what it opened, then raises."""
        try:
            self._depth += 1  # renders wait until the constructor is done
            yield
        except BaseException:
            self.close()
            raise
        finally:
            self._depth -= 1
        if self._stage is not None:
            self._stage.flush()

    def close(self) -> None:
        """Close the widget and free its figure; plt.get_fignums() is never touched."""
        if self.__dict__.get("_closed", True):
            return
        self._closed = True
        if self._stage is not None:
            self._stage.close()
        layout = getattr(self, "layout", None)
        super().close()
        if isinstance(layout, widgets.Widget):
            layout.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._closed
