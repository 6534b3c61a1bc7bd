"""Python handles onto what the page draws: controls and the error area.

A handle holds no state of its own: ``.value`` reads and writes the widget's synced value
trait (:meth:`Control.value_trait` types it) through the widget's public interface
(:meth:`~GradkitWidget.current`, :meth:`~GradkitWidget.update_state`,
:meth:`~GradkitWidget.press`, ...), so Python and the page always agree on what is shown. The
eps handles go through the one eps rule (:mod:`.eps`).

The slider grid is written once here (:func:`grid_value`, :func:`grid_position`, :func:`on_grid`):
a slider's values are ``origin + k * step`` for whole k in lo … hi, and a value's position is
the nearest whole k, a tie going to the even k (Python's ``round``; JavaScript's ``Math.round``
would take the larger one). Python sends the grid: a slider's spec carries the value of each
position (:func:`grid_values`), a scene its ``x_grid``; ``controls.js`` finds the same positions,
ties included, against a fixture of these functions (``tests/js/fixtures/grid.json``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import traitlets

from ..._args import check_x
from .eps import eps_state, parse_eps, step_eps

if TYPE_CHECKING:
    from .host import GradkitWidget

__all__ = [
    "Control",
    "EpsSlider",
    "EpsStep",
    "EpsText",
    "ErrorArea",
    "SliderStep",
    "grid_position",
    "grid_value",
    "grid_values",
    "on_grid",
]


def grid_value(grid: Mapping[str, float], k: int) -> float:
    """The value at whole position ``k``: ``origin + k * step``, the very sum the page makes."""
    return grid["origin"] + k * grid["step"]


def grid_position(grid: Mapping[str, float], value: float) -> int:
    """The whole position nearest ``value`` (a tie goes to the even one).

    Raises
    ------
    OverflowError
        When ``(value - origin) / step`` is infinite (clamp such a value to the slider first).
    ValueError
        When it is NaN.
    """
    return round((value - grid["origin"]) / grid["step"])


def grid_values(grid: Mapping[str, float], lo: int, hi: int) -> list[float]:
    """The values of positions lo … hi, as a slider's spec sends them: the page takes a
    position's value from this list and never makes the sum itself."""
    return [grid_value(grid, k) for k in range(lo, hi + 1)]


def on_grid(grid: Mapping[str, float], value: float) -> bool:
    """Whether ``value`` is exactly the value of its nearest position (what a slider sends)."""
    return value == grid_value(grid, grid_position(grid, value))


class Control:
    """One control: ``.value``, ``.observe(fn)``, ``.click()``, ``.disabled``, ``.hidden``.

    Toggle and drop-down options are ``(label, value)`` pairs: the state holds the label, and
    ``.value`` gives the value (e.g. the dtype buttons: label ``"float32"``, value
    ``torch.float32``).
    """

    def __init__(self, owner: GradkitWidget, spec: dict, pairs: Sequence[tuple] = ()) -> None:
        self._owner = owner
        self.spec = spec
        self.name: str = spec["name"]
        self.kind: str = spec["kind"]
        self._pairs = list(pairs)

    # ---------------------------------------------------------------------------- value
    def value_trait(self, value: Any) -> traitlets.TraitType:
        """The typed trait this control's value syncs as, holding ``value`` first: a float for
        a slider, a grid position for eps, true/false for a check box, a label (or none yet)
        for toggles, drop-downs and option buttons, text for a box. The page's rules beyond the
        type (a slider's grid, an option that is one) are checked by :mod:`.page`."""
        if self.kind == "slider":
            return traitlets.Float(value)
        if self.kind == "grid":
            return traitlets.Int(value)
        if self.kind == "checkbox":
            return traitlets.Bool(value)
        if self.kind == "text":
            return traitlets.Unicode(value)
        return traitlets.Unicode(value, allow_none=True)

    def to_state(self, value: Any) -> Any:
        """The state's form of a value: an option's label for toggles and drop-downs; for a
        slider the nearest position of its grid ``origin + k * step`` (as the page snaps)."""
        if self.kind == "slider":
            s = self.spec
            # position q = (value - origin) / step, clamped to lo … hi before rounding: a huge
            # value (1e308: q overflows to inf) is the slider's end, as the page's slider does
            value = check_x(value, self.name)
            q = (value - s["origin"]) / s["step"]
            k = s["hi"] if q >= s["hi"] else s["lo"] if q <= s["lo"] else grid_position(s, value)
            return grid_value(s, k)
        if not self._pairs:
            return value
        for label, v in self._pairs:
            if v is value or v == value or label == value:
                return label
        raise ValueError(
            f"{self.name}={value!r} is not one of {[label for label, _ in self._pairs]}"
        )

    @property
    def value(self) -> Any:
        raw = self._owner.current(self.name)
        for label, v in self._pairs:
            if label == raw:
                return v
        return raw

    @value.setter
    def value(self, value: Any) -> None:
        self._owner.update_state({self.name: self.to_state(value)})

    @property
    def options(self) -> list:
        """The option labels (toggles, drop-downs)."""
        return [label for label, _ in self._pairs]

    def observe(self, fn: Callable[[dict], None]) -> None:
        """Call ``fn(change)`` after the value changes (from Python or the page): ``change`` has
        ``new`` (as ``.value`` gives it), ``old`` (the state's entry before: a label, an eps grid
        index), ``name`` (``"value"``) and ``owner`` (this control)."""
        self._owner.on_change(self.name, fn)

    # --------------------------------------------------------------------------- buttons
    def click(self) -> None:
        """Press the button, as a click in the page does."""
        self._owner.press(self.name)

    # -------------------------------------------------------------------------- display
    def _flag(self, key: str) -> Any:
        return self._owner.control_state.get(self.name, {}).get(key)

    @property
    def disabled(self) -> bool:
        return bool(self._flag("disabled"))

    @disabled.setter
    def disabled(self, value: bool) -> None:
        self._owner.set_control_state(self.name, disabled=bool(value))

    @property
    def hidden(self) -> bool:
        return bool(self._flag("hidden"))

    @hidden.setter
    def hidden(self, value: bool) -> None:
        self._owner.set_control_state(self.name, hidden=bool(value))


class EpsSlider(Control):
    """The eps slider: ``.value`` is the widget's eps; setting it follows the one eps rule."""

    @property
    def value(self) -> float:
        return self._owner.eps

    @value.setter
    def value(self, value: float) -> None:
        self._owner.eps = value


class EpsText(Control):
    """The typed eps box: ``.value`` is the text; setting it parses it as the page does."""

    @property
    def value(self) -> str:
        return f"{self._owner.eps:.3g}"

    @value.setter
    def value(self, text: str) -> None:
        with self._owner.one_change():
            try:
                self._owner.update_state(eps_state(parse_eps(text)))
            except ValueError as error:
                self._owner.show_error(error)


class EpsStep(Control):
    """÷10 (direction -1) or ×10 (+1): three grid positions, as the page's buttons do."""

    def __init__(self, owner: GradkitWidget, spec: dict, direction: int) -> None:
        super().__init__(owner, spec)
        self.direction = direction

    def click(self) -> None:
        k = step_eps(self._owner.state, self.direction)
        self._owner.update_state({"eps": k, "eps_exact": None})


class SliderStep(Control):
    """− / + beside a slider: one step along the slider's grid, as the page's buttons do."""

    def __init__(self, owner: GradkitWidget, spec: dict, slider: dict, direction: int) -> None:
        super().__init__(owner, spec)
        self.slider = slider
        self.direction = direction

    def click(self) -> None:
        s = self.slider
        k = grid_position(s, self._owner.current(s["name"])) + self.direction
        k = min(s["hi"], max(s["lo"], k))
        self._owner.update_state({s["name"]: grid_value(s, k)})


class ErrorArea:
    """The error area: ``.value`` is its HTML (empty when all is well)."""

    def __init__(self, owner: GradkitWidget) -> None:
        self._owner = owner

    @property
    def value(self) -> str:
        return self._owner.error
