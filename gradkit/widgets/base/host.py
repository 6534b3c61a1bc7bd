"""GradkitWidget: the anywidget every gradkit widget is (``host.js`` is its browser half).

Its synced traits: ``gradkit/widgets/README.md`` ("What a widget is made of"). What the page
sends is checked in :mod:`.page`; what a page with no kernel plays from is saved by :mod:`.standin`.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import anywidget
import traitlets

from .bundle import bundle
from .controls import Control
from .guard import error_html, register_for_cell
from .page import PageState
from .schedule import run_later
from .standin import RecordedAnswers, packed_scene

__all__ = ["GradkitWidget"]

#: The trait a control of each kind holds, for the TypeError's advice (the last: a label).
KIND_TRAITS = {
    "slider": "Int(",
    "grid": "Int(",
    "count": "Int(",
    "checkbox": "Bool(",
    "text": "Unicode(",
    "": "Unicode(None, allow_none=True, ",
}

THEME_CSS = (Path(__file__).parent / "theme.css").read_text(encoding="utf-8")


class GradkitWidget(PageState, RecordedAnswers, anywidget.AnyWidget):
    """The base of every gradkit widget: controls, state, scene, error area, busy mark.

    Subclasses set ``css`` (the root CSS hook), ``view`` (the JS object that draws), ``scripts``
    (their ES files, relative to ``gradkit/widgets``) and ``PANELS`` (parts a lesson may leave
    out).
    """

    css: ClassVar[str] = "gradkit-panel"
    view: ClassVar[str] = ""
    scripts: ClassVar[tuple[str, ...]] = ()
    PANELS: ClassVar[tuple[str, ...]] = ()
    _css = THEME_CSS

    spec = traitlets.Dict().tag(sync=True)
    control_state = traitlets.Dict().tag(sync=True)
    scene = traitlets.Dict().tag(sync=True)
    tables = traitlets.Bytes(b"").tag(sync=True)
    error = traitlets.Unicode(
        "", help="The error area's HTML (empty when all is well): what went wrong and the fix."
    ).tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    panels = traitlets.List(
        traitlets.Unicode(),
        help="The panels shown, of PANELS in its order; set it to show more or fewer (a later "
        "cell may show more).",
    ).tag(sync=True, state=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("view"):
            cls._esm = bundle(cls.view, *cls.scripts)

    def __init__(self, panels: Sequence[str] | None = None) -> None:
        chosen = self.check_panels(panels)
        self._clicks: dict[str, list[Callable]] = {}
        self._controls: dict[str, Control] = {}
        self._depth = 0
        self._scene_count = 0
        self._closed = False
        self.last_error: BaseException | None = None
        super().__init__(panels=chosen)
        with self.hold_sync():  # one message to the page
            self.spec = {
                "css": self.css,
                "panels": list(self.PANELS),
                "state": list(self.state_names()),
                "controls": [],
                "readouts": [],
                "off_grid_of": list(self.OFF_GRID_OF),
            }
            self.add_class("gradkit-widget")
            self.add_class(self.css)
        register_for_cell(self)

    # --------------------------------------------------------------------------- panels
    @classmethod
    def check_panels(cls, panels: Sequence[str] | None) -> list[str]:
        """The panels to open: all by default, else a non-empty subset of ``PANELS``."""
        if panels is None:
            return list(cls.PANELS)
        if isinstance(panels, str):
            panels = [panels]
        chosen = list(panels)
        unknown = [p for p in chosen if p not in cls.PANELS]
        if unknown or (cls.PANELS and not chosen):
            raise ValueError(
                f"panels={chosen!r}: pick one or more of {list(cls.PANELS)} (default: all)"
            )
        return [p for p in cls.PANELS if p in chosen]

    @traitlets.validate("panels")
    def _valid_panels(self, proposal: dict) -> list[str]:
        return self.check_panels(proposal["value"])

    # ------------------------------------------------------------------------- building
    @classmethod
    def state_names(cls) -> tuple[str, ...]:
        """The values the page shows: the traits tagged ``state=True``."""
        names = cls.__dict__.get("_state_names")
        if names is None:  # once per class: every value read asks
            names = cls._state_names = tuple(sorted(cls.class_traits(state=True)))
        return names

    def start_value(self, name: str, value: Any, kind: str = "") -> None:
        """Set the first value of the state trait ``name`` (TypeError: the class has none)."""
        if name not in self.state_names():
            line = KIND_TRAITS.get(kind, KIND_TRAITS[""])
            raise TypeError(
                f"{type(self).__name__} has no state trait {name!r} for the page's value: "
                f'declare it on the class, e.g. {name} = traitlets.{line}help="...")'
                ".tag(sync=True, state=True)"
            )
        setattr(self, name, value)

    def add_control(
        self, control: Control, value: Any = None, *, has_value: bool = True
    ) -> Control:
        """Register a control; with ``has_value`` its state trait starts at ``value``."""
        if has_value:
            self.start_value(control.name, value, control.kind)
        self._controls[control.name] = control
        return control

    def layout(
        self,
        title: str,
        hint: str,
        controls: Sequence[Control],
        readouts: Sequence[str | tuple[str, str]] = (),
        alt: str = "",
    ) -> None:
        """Send the controls (in this order) and the readout slots: ``(name, css)``, or a name
        alone, its css ``gradkit-`` and the name with ``-`` for ``_``."""
        pairs = [
            (r, f"gradkit-{r.replace('_', '-')}") if isinstance(r, str) else r for r in readouts
        ]
        self.spec = {
            **self.spec,
            "title": title,
            "hint": hint,
            "alt": alt,
            "controls": [c.spec for c in controls],
            "readouts": [{"name": n, "css": c} for n, c in pairs],
        }

    @contextlib.contextmanager
    def building(self) -> Iterator[None]:
        """A constructor's work, sent in one message; a failing constructor closes the widget."""
        try:
            with self.hold_sync():
                yield
        except BaseException:
            self.close()
            raise

    # --------------------------------------------------------------------------- values
    @property
    def state(self) -> dict:
        """Every value the page shows, by name (a copy: change them with :meth:`update_state`)."""
        return {name: getattr(self, name) for name in self.state_names()}

    def current(self, name: str) -> Any:
        """One value (None for a name the widget does not have)."""
        return getattr(self, name) if name in self.state_names() else None

    def update_state(self, changes: dict) -> None:
        """Change values from Python in one message (drawn as a click is); observers run once
        all of them changed, each trait's once."""
        unknown = [name for name in changes if name not in self.state_names()]
        if unknown:
            raise KeyError(
                f"{type(self).__name__} has no value {unknown} (declare a trait tagged "
                "state=True on the class)"
            )
        with self.one_change(), self.hold_trait_notifications(), self.hold_sync():
            for name, value in changes.items():
                setattr(self, name, value)

    def notify_change(self, change: Any) -> None:
        """A state trait's observers run in one change (:meth:`one_change`)."""
        if change.get("type") == "change" and change["name"] in self.state_names():
            with self.one_change():
                super().notify_change(change)
        else:
            super().notify_change(change)

    def set_control_state(self, name: str, **flags: Any) -> None:
        """Disable, hide or relabel a control in the page (``disabled``, ``hidden``, ``text``)."""
        current = dict(self.control_state.get(name, {}))
        current.update(flags)
        self.control_state = {**self.control_state, name: current}

    def on_click(self, name: str, fn: Callable[[], None]) -> None:
        """Call ``fn()`` when button ``name`` is pressed (in the page or by :meth:`press`)."""
        self._clicks.setdefault(name, []).append(fn)

    def press(self, name: str) -> None:
        """Press button ``name`` as the page does."""
        with self.one_change():
            for fn in self._clicks.get(name, []):
                self.guard(fn)()

    @contextlib.contextmanager
    def one_change(self) -> Iterator[None]:
        """One change, one outcome: the outermost change clears the error area once."""
        if self._depth == 0 and self.error:
            self.error = ""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    # ------------------------------------------------------------------------ errors
    def guard(self, fn: Callable) -> Callable:
        """``fn`` with its errors shown in the error area instead of raised or lost."""

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            if self._closed:
                return None
            with self.one_change():
                try:
                    return fn(*args, **kwargs)
                except Exception as error:  # noqa: BLE001 - shown to the learner, never lost
                    self.show_error(error)
                    return None

        return run

    def show_error(self, error: BaseException) -> None:
        """Show a short message for ``error`` in the error area (``last_error`` keeps it)."""
        self.last_error = error
        self.error = self.error + error_html(error)

    # ------------------------------------------------------------------------- scenes
    def send_scene(self, scene: dict, arrays: dict | None = None, *, key: object = None) -> None:
        """Send a scene: its JSON and its arrays (one buffer) in one message.

        ``key`` names what the scene is of (function, x, ...): the page repaints a state it
        already shows only when the key changes, so a refill repaints nothing.
        """
        self._scene_count += 1
        made_for = self.made_for(self.state)
        payload, buffer = packed_scene(
            scene, arrays, key=key, scene_id=self._scene_count, made_for=made_for
        )
        with self.hold_sync():
            self.tables = buffer
            self.scene = payload

    def made_for(self, state: dict) -> dict:
        """The values of the controls made with ``scene=True``: what the page compares
        (``sceneFits``)."""
        return {
            name: state[name]
            for name, control in self._controls.items()
            if control.spec.get("scene") and name in self.state_names()
        }

    def later(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` after the current cell (busy meanwhile): the first picture comes first."""
        self.busy = True

        def run() -> None:
            try:
                self.guard(fn)()
            finally:
                if not self._closed:
                    self.busy = False

        run_later(run)

    # ---------------------------------------------------------------------- lifecycle
    def close(self) -> None:
        """Close the widget (its comm) once."""
        if self.__dict__.get("_closed", True):
            return
        self._closed = True
        super().close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._closed
