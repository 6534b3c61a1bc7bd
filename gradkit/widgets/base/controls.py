"""Python handles onto the page's controls.

A handle holds no state of its own: ``.value`` reads and writes the widget's state trait of the
control's name, so Python and the page always agree on what is shown (a slider's state is its
whole position: ``gradkit/widgets/README.md``, "How a slider travels").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..._args import check_x

if TYPE_CHECKING:
    from .host import GradkitWidget

__all__ = ["Control", "Slider", "grid_position", "grid_value"]


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


class Control:
    """One control: ``.value``, ``.click()``, ``.disabled``, ``.hidden``.

    Toggle and drop-down options are ``(label, value)`` pairs: the state holds the label, and
    ``.value`` gives the value (the dtype buttons: label ``"float32"``, value
    ``torch.float32``). Where ``.value`` or ``.click()`` is not the state itself, the maker
    passes ``read()``, ``write(value)`` or ``click()`` (the eps row, a slider's − / +, a button
    the page presses itself, whose ``.click()`` raises a TypeError naming the value to set); a
    button without ``click`` runs the widget's ``on_click`` callbacks
    (:meth:`~.host.GradkitWidget.press`).
    """

    #: Whether the page may send None for it (nothing picked: a ``Choice`` of the practice
    #: widgets); :meth:`~.page.PageState.check_page_value` reads it.
    accepts_none: ClassVar[bool] = False

    def __init__(
        self,
        owner: GradkitWidget,
        spec: dict,
        pairs: Sequence[tuple] = (),
        *,
        read: Callable[[], Any] | None = None,
        write: Callable[[Any], None] | None = None,
        click: Callable[[], None] | None = None,
    ) -> None:
        self._owner = owner
        self.spec = spec
        self.name: str = spec["name"]
        self.kind: str = spec["kind"]
        self._pairs = list(pairs)
        self._read, self._write, self._click = read, write, click

    def to_state(self, value: Any) -> Any:
        """The state's form of a value: an option's label for toggles and drop-downs."""
        if not self._pairs:
            return value
        for label, v in self._pairs:
            if v is value or v == value or label == value:
                return label
        raise ValueError(f"{self.name}={value!r} is not one of {self.options}")

    @property
    def value(self) -> Any:
        if self._read is not None:
            return self._read()
        raw = self._owner.current(self.name)
        return next((v for label, v in self._pairs if label == raw), raw)

    @value.setter
    def value(self, value: Any) -> None:
        if self._write is not None:
            self._write(value)
        else:
            self._owner.update_state({self.name: self.to_state(value)})

    @property
    def options(self) -> list:
        """The option labels (toggles, drop-downs)."""
        return [label for label, _ in self._pairs]

    def click(self) -> None:
        """Press the button, as a click in the page does."""
        if self._click is not None:
            self._click()
        else:
            self._owner.press(self.name)

    def _flag(self, key: str) -> bool:
        return bool(self._owner.control_state.get(self.name, {}).get(key))

    disabled = property(
        lambda self: self._flag("disabled"),
        lambda self, value: self._owner.set_control_state(self.name, disabled=bool(value)),
        doc="Whether the page shows it greyed out (set it to change that).",
    )
    hidden = property(
        lambda self: self._flag("hidden"),
        lambda self, value: self._owner.set_control_state(self.name, hidden=bool(value)),
        doc="Whether the page leaves it out (set it to change that).",
    )


class Slider(Control):
    """A slider over ``origin + k * step``: the state is the whole position k in lo … hi;
    ``.value`` is the float value there, and setting it snaps to the nearest position."""

    def to_state(self, value: Any) -> int:
        """The position nearest ``value`` (:func:`grid_position`), clamped to lo … hi."""
        s = self.spec
        # clamped before rounding: a huge value (1e308: q overflows to inf) is the slider's end
        value = check_x(value, self.name)
        q = (value - s["origin"]) / s["step"]
        return s["hi"] if q >= s["hi"] else s["lo"] if q <= s["lo"] else grid_position(s, value)

    def check_position(self, k: Any) -> int:
        """``k`` if it is a whole position lo … hi of this slider, else a ValueError naming it
        and the range (a float, a bool, a k outside lo … hi)."""
        s = self.spec
        if isinstance(k, bool) or not isinstance(k, int) or not s["lo"] <= k <= s["hi"]:
            shown = "a number past 2**53" if isinstance(k, int) and abs(k) > 2**53 else repr(k)
            raise ValueError(
                f"{self.name}={shown}: no position of the {self.name} slider, which takes a "
                f"whole number {s['lo']} … {s['hi']} ({self.name} = "
                f"{grid_value(s, s['lo']):g} … {grid_value(s, s['hi']):g})"
            )
        return k

    @Control.value.getter
    def value(self) -> float:
        """The value at the state's position (set, it snaps: :meth:`to_state`)."""
        return grid_value(self.spec, self._owner.current(self.name))
