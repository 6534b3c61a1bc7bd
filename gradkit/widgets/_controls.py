"""Python handles onto what the browser draws: controls, readouts and the error area.

A handle holds no state of its own: ``.value`` reads and writes the widget's synced ``values``
(controls), ``readout_html`` (readouts) or ``error`` (the error area), so Python and the browser
always agree on what is shown. The eps and x step buttons (÷10 / ×10, − / +) move their slider
exactly as the browser does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from .._args import EPS_GRID, EPS_MAX, EPS_MIN, snap_eps

if TYPE_CHECKING:
    from ._base import GradkitWidget

__all__ = ["Control", "EpsSlider", "EpsStep", "ErrorArea", "Readout", "XStep"]


class _Handle:
    """What every Python handle onto a browser-side part has: CSS classes and a description."""

    def __init__(self, owner: GradkitWidget, name: str, css: str, description: str = "") -> None:
        self._owner = owner
        self.name = name
        self.description = description
        self._dom_classes: tuple[str, ...] = (css,) if css else ()

    def add_class(self, css: str) -> None:
        """Add a CSS class (kept for API compatibility; the browser side uses the spec's)."""
        self._dom_classes = (*self._dom_classes, css)


class Readout(_Handle):
    """A readout line (CSS class ``gradkit-readout`` plus its own); ``.value`` is its HTML."""

    def __init__(self, owner: GradkitWidget, name: str, css: str) -> None:
        super().__init__(owner, name, css)
        self._dom_classes = ("gradkit-readout", css)

    @property
    def value(self) -> str:
        """The HTML shown."""
        return self._owner.readout_html.get(self.name, "")

    @value.setter
    def value(self, html_text: str) -> None:
        if self.value != html_text:
            self._owner.readout_html = {**self._owner.readout_html, self.name: html_text}


class ErrorArea(_Handle):
    """The widget's error area (CSS ``gradkit-error``); ``.value`` is its HTML, empty when fine."""

    def __init__(self, owner: GradkitWidget) -> None:
        super().__init__(owner, "error", "gradkit-error")

    @property
    def value(self) -> str:
        """The HTML shown (empty when all is well)."""
        return self._owner.error

    @value.setter
    def value(self, html_text: str) -> None:
        self._owner.error = html_text


class Control(_Handle):
    """A control drawn by the browser; ``.value`` reads and writes the synced state.

    ``options`` is a list of (label, value) pairs for toggles and dropdowns: the browser sees the
    labels, Python the values (e.g. torch dtypes).
    """

    def __init__(
        self,
        owner: GradkitWidget,
        name: str,
        kind: str,
        *,
        css: str,
        description: str = "",
        tooltip: str = "",
        options: Sequence[tuple[str, Any]] = (),
        **spec: Any,
    ) -> None:
        super().__init__(owner, name, css, description)
        self.kind = kind
        self.tooltip = tooltip
        self._options = list(options)
        self.spec: dict[str, Any] = {
            "name": name,
            "kind": kind,
            "css": css,
            "label": description,
            "tooltip": tooltip,
            **spec,
        }
        if options:
            self.spec["options"] = [label for label, _ in self._options]
        for key in ("min", "max", "step"):
            if key in spec:
                setattr(self, key, spec[key])

    # ------------------------------------------------------------------------------- value
    @property
    def options(self) -> tuple:
        """The option labels (toggles and dropdowns)."""
        return tuple(label for label, _ in self._options)

    def _to_python(self, raw: Any) -> Any:
        for label, value in self._options:
            if label == raw:
                return value
        return raw

    def _to_raw(self, value: Any) -> Any:
        if not self._options:
            return value
        for label, option in self._options:
            if option is value or label == value:
                return label
        for label, option in self._options:
            if not isinstance(option, torch.dtype) and option == value:
                return label
        raise ValueError(f"{self.name}: {value!r} is not one of {self.options}")

    @property
    def value(self) -> Any:
        """The current value (a Python value such as a torch dtype for the dtype buttons)."""
        return self._to_python(self._owner.values.get(self.name))

    @value.setter
    def value(self, value: Any) -> None:
        raw = self._to_raw(value)
        if self.kind == "slider":
            raw = float(min(self.max, max(self.min, float(raw))))
        self._owner._set_values({self.name: raw})

    # ------------------------------------------------------------------------ behaviour
    def observe(self, handler: Callable[[dict], None], names: str = "value") -> None:
        """Call ``handler({"name", "old", "new", "owner"})`` when the value changes."""
        self._owner._listen(self.name, handler, owner=self)

    def on_click(self, handler: Callable[[Control], None]) -> None:
        """Call ``handler(self)`` when the button is clicked (in the browser or by ``click()``)."""
        self._owner._listen_click(self.name, lambda: handler(self))

    def click(self) -> None:
        """Click the button, as the browser would."""
        self._owner._dispatch_click(self.name)

    def _state(self) -> dict:
        return self._owner.control_state.get(self.name, {})

    def _set_state(self, **changes: Any) -> None:
        state = {**self._state(), **changes}
        self._owner.control_state = {**self._owner.control_state, self.name: state}

    @property
    def disabled(self) -> bool:
        """Whether the control is greyed out."""
        return bool(self._state().get("disabled", False))

    @disabled.setter
    def disabled(self, value: bool) -> None:
        self._set_state(disabled=bool(value))

    @property
    def hidden(self) -> bool:
        """Whether the control is hidden."""
        return bool(self._state().get("hidden", False))

    @hidden.setter
    def hidden(self, value: bool) -> None:
        self._set_state(hidden=bool(value))


class EpsSlider(Control):
    """The eps control: a position on EPS_GRID, or an exact typed eps off the grid."""

    @property
    def value(self) -> float:
        """eps, exactly as shown (a grid value, or the typed one)."""
        exact = self._owner.values.get("eps_exact")
        return float(exact) if exact is not None else EPS_GRID[self._owner.values["eps"]]

    @value.setter
    def value(self, eps: float) -> None:
        eps = min(EPS_MAX, max(EPS_MIN, float(eps)))
        self._owner._set_values({"eps": snap_eps(eps), "eps_exact": None})

    @property
    def index(self) -> int:
        """The grid position."""
        return int(self._owner.values["eps"])


class EpsStep(Control):
    """÷10 / ×10: three grid positions down or up (a button that moves the eps control)."""

    def __init__(self, owner: GradkitWidget, name: str, css: str, sign: int, **kw: Any) -> None:
        super().__init__(owner, name, "step", css=css, **kw)
        self._sign = sign

    def click(self) -> None:
        """Move eps one decade (three grid positions), as the browser does."""
        w = self._owner
        index = min(len(EPS_GRID) - 1, max(0, int(w.values["eps"]) + 3 * self._sign))
        w._set_values({"eps": index, "eps_exact": None})


class XStep(Control):
    """− / +: move the x slider by one step (a button that moves the x control)."""

    def __init__(self, owner: GradkitWidget, name: str, css: str, sign: int, **kw: Any) -> None:
        super().__init__(owner, name, "step", css=css, **kw)
        self._sign = sign

    def click(self) -> None:
        """Move x one step, as the browser does."""
        s = self._owner.x_slider
        s.value = min(s.max, max(s.min, round(s.value + self._sign * s.step, 10)))
