"""GradkitWidget: the anywidget every gradkit widget is (``host.js`` is its browser half).

Python computes, the page draws. A widget is a few synced traits:

- ``spec``: the layout (title, hint, the controls and readouts in order, the panels) and
  ``values``, which trait holds which value;
- one typed trait per value the page shows (``x_value``, ``eps_value``, ``dtype_value``, ...:
  :meth:`add_value`): ipywidgets sends only the value that changed, and its echo handling keeps
  a newer click from being undone by the answer to an older one. A value from the page is
  checked before it lands (:mod:`.page`);
- ``scene`` + ``tables``: what torch computed for every place a control can reach (JSON, and one
  binary buffer of float64 arrays, float32 for what is only drawn, :mod:`.tables`);
- ``error`` (the error area's HTML), ``busy`` (work after the first picture), ``control_state``
  (controls disabled, hidden or relabelled from Python);
- ``offline``: what a page with no kernel (a static export) plays beyond the scene
  (:mod:`.offline`: scenes of other menu choices, hints, verdicts).

Requests are anywidget commands (:mod:`.page`) that name what they are for: a button that needs
the kernel, and the numbers at a typed eps off the grid. The family's ES module draws everything
and formats every readout from the scene. Every callback runs through :meth:`guard`: an error
shows in the error area, never lost. Heavy tables are computed after the first picture
(:meth:`later`), the widget marked busy meanwhile.
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
from .controls import Control, ErrorArea
from .eps import eps_of, eps_state
from .guard import error_html, register_for_cell
from .offline import OfflinePlay, packed_scene
from .page import PageState
from .schedule import run_later

__all__ = ["GradkitWidget"]

THEME_CSS = (Path(__file__).parent / "theme.css").read_text(encoding="utf-8")


class GradkitWidget(PageState, OfflinePlay, anywidget.AnyWidget):
    """The base of every gradkit widget: controls, state, scene, error area, busy mark.

    Subclasses set ``css`` (the root CSS hook), ``view`` (the JS object that draws) and
    ``scripts`` (their ES files, relative to ``gradkit/widgets``), and ``PANELS`` when their
    picture has parts a lesson may leave out. ``README.md`` in ``gradkit/widgets`` is the guide.
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
    error = traitlets.Unicode("").tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    offline = traitlets.Dict().tag(sync=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("view"):
            cls._esm = bundle(cls.view, *cls.scripts)

    def __init__(self, panels: Sequence[str] | None = None) -> None:
        chosen = self.check_panels(panels)
        self._listeners: dict[str, list[Callable]] = {}
        self._clicks: dict[str, list[Callable]] = {}
        self._controls: dict[str, Control] = {}
        self._values: dict[str, str] = {}  # a value's key -> the trait that holds it
        self._keys: dict[str, str] = {}  # a trait -> the value's key
        self._changing: dict[str, Any] | None = None  # key -> old value, while values change
        self._depth = 0
        self._scene_count = 0
        self._closed = False
        self.last_error: BaseException | None = None
        super().__init__()
        self.spec = {
            "css": self.css,
            "panels": list(self.PANELS),
            "controls": [],
            "readouts": [],
            "off_grid_of": list(self.OFF_GRID_OF),
        }
        if self.PANELS:
            self.add_value("panels", traitlets.List(traitlets.Unicode(), default_value=chosen))
        self.add_class("gradkit-widget")
        self.add_class(self.css)
        self.error_area = ErrorArea(self)
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
        if unknown or not chosen:
            raise ValueError(
                f"panels={chosen!r}: pick one or more of {list(cls.PANELS)} (default: all)"
            )
        return [p for p in cls.PANELS if p in chosen]

    @property
    def panels(self) -> list[str]:
        """The panels shown; set it to show more or fewer (a later cell may show more)."""
        return list(self.current("panels") or self.PANELS)

    @panels.setter
    def panels(self, value: Sequence[str]) -> None:
        self.update_state({"panels": self.check_panels(value)})

    # ------------------------------------------------------------------------- building
    def add_value(self, key: str, trait: traitlets.TraitType) -> None:
        """Sync the value ``key`` (the page's ``ctx.state[key]``) as its own typed trait.

        The trait is named ``{key}_value`` (``w.x``, ``w.eps`` and ``w.dtype`` stay Python's
        readings of the values) and holds its default until changed; :meth:`on_change`
        listeners run when it changes, from Python or from the page.
        """
        name = f"{key}_value"
        if key in self._values or hasattr(self, name):
            raise ValueError(f"{type(self).__name__}: the value {key!r} is declared twice")
        self.add_traits(**{name: trait.tag(sync=True)})  # ipywidgets sends it at once
        self._values[key], self._keys[name] = name, key
        self.observe(self._value_changed, names=[name])
        self.spec = {**self.spec, "values": dict(self._values)}

    def add_control(
        self, control: Control, value: Any = None, *, has_value: bool = True
    ) -> Control:
        """Register a control (its spec goes to the page with :meth:`layout`); with
        ``has_value`` its value is synced as the trait :meth:`Control.value_trait` types."""
        self._controls[control.name] = control
        if has_value and control.name in self._values:  # another handle onto a value kept
            self.update_state({control.name: value})
        elif has_value:
            self.add_value(control.name, control.value_trait(value))
        return control

    def layout(
        self,
        title: str,
        hint: str,
        controls: Sequence[Control],
        readouts: Sequence[tuple[str, str]] = (),
        alt: str = "",
    ) -> None:
        """Send the controls (in this order) and the readout slots ``(name, css)``."""
        self.spec = {
            **self.spec,
            "title": title,
            "hint": hint,
            "alt": alt,
            "controls": [c.spec for c in controls],
            "readouts": [{"name": n, "css": c} for n, c in readouts],
        }

    @contextlib.contextmanager
    def building(self) -> Iterator[None]:
        """A constructor that fails closes what it opened, then raises."""
        try:
            yield
        except BaseException:
            self.close()
            raise

    # --------------------------------------------------------------------------- values
    @property
    def state(self) -> dict:
        """Every value the page shows, by key (a copy: change them with :meth:`update_state`)."""
        return {key: getattr(self, name) for key, name in self._values.items()}

    def current(self, name: str) -> Any:
        """One value (None for a key the widget does not have)."""
        trait = self._values.get(name)
        return None if trait is None else getattr(self, trait)

    def update_state(self, changes: dict) -> None:
        """Change values from Python, in one message: the page draws them as it draws a click;
        listeners run once, after all of them changed."""
        unknown = [key for key in changes if key not in self._values]
        if unknown:
            raise KeyError(f"{type(self).__name__} has no value {unknown} (add_value declares one)")
        with self.values_changing(), self.hold_sync():
            for key, value in changes.items():
                setattr(self, self._values[key], value)

    @contextlib.contextmanager
    def values_changing(self) -> Iterator[None]:
        """Values that change together (from Python, or one message from the page): each
        listener runs once, after the last of them (eps and its exact value are one)."""
        if self._changing is not None:
            yield
            return
        self._changing = {}
        try:
            yield
        finally:
            old, self._changing = self._changing, None
            self._run_listeners(old)

    def _value_changed(self, change: dict) -> None:
        key = self._keys[change["name"]]
        if self._changing is None:
            self._run_listeners({key: change["old"]})
        else:
            self._changing.setdefault(key, change["old"])

    def _run_listeners(self, old: dict[str, Any]) -> None:
        names = list(dict.fromkeys("eps" if key == "eps_exact" else key for key in old))
        if not names:
            return
        with self.one_change():
            for name in names:
                control = self._controls.get(name)
                event = {
                    "name": "value",
                    "old": old.get(name, self.current(name)),
                    "new": control.value if control is not None else self.current(name),
                    "owner": control,
                }
                for fn in self._listeners.get(name, []):
                    self.guard(fn)(event)

    def set_control_state(self, name: str, **flags: Any) -> None:
        """Disable, hide or relabel a control in the page (``disabled``, ``hidden``, ``text``)."""
        current = dict(self.control_state.get(name, {}))
        current.update(flags)
        self.control_state = {**self.control_state, name: current}

    def on_change(self, name: str, fn: Callable[[dict], None]) -> None:
        """Call ``fn(change)`` after state ``name`` changes (``change["new"]`` its value)."""
        self._listeners.setdefault(name, []).append(fn)

    def on_click(self, name: str, fn: Callable[[], None]) -> None:
        """Call ``fn()`` when button ``name`` is pressed (in the page or by :meth:`press`)."""
        self._clicks.setdefault(name, []).append(fn)

    def press(self, name: str) -> None:
        """Press button ``name`` as the page does."""
        with self.one_change():
            for fn in self._clicks.get(name, []):
                self.guard(fn)()

    @property
    def eps(self) -> float:
        """eps exactly as shown (a grid value or the typed one)."""
        return eps_of(self.state)

    @eps.setter
    def eps(self, value: float) -> None:
        self.update_state(eps_state(value))

    @contextlib.contextmanager
    def one_change(self) -> Iterator[bool]:
        """One change, one outcome: the error area is cleared once, by the outermost change.

        Yields whether this is the outermost change (callbacks it triggers are inner ones).
        """
        outermost = self._depth == 0
        if outermost and self.error:
            self.error = ""
        self._depth += 1
        try:
            yield outermost
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
        already shows only when the key changes, so a refill with more of the same (new x
        positions around the current one) repaints nothing. The scene names the values of the
        controls that need a new scene (``for``): until one made for its values comes, the page
        keeps its picture under the busy mark.
        """
        self._scene_count += 1
        made_for = {
            name: self.current(name)
            for name, control in self._controls.items()
            if control.spec.get("scene") and name in self._values
        }
        payload, buffer = packed_scene(
            {**scene, "for": made_for}, arrays, key=key, scene_id=self._scene_count
        )
        with self.hold_sync():
            self.tables = buffer
            self.scene = payload

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
