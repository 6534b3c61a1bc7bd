"""What the page sends a widget: its values (checked, never trusted) and its requests.

:class:`PageState` is mixed into :class:`~.host.GradkitWidget`. Each value is a typed trait of
its own (:meth:`~.host.GradkitWidget.add_value`), so the page sends only the values it changed,
and ipywidgets' echo handling keeps the answer to an older change from undoing a newer one (the
lost-click race; ``test_busy_kernel_still_moves_eps_dtype_and_x`` holds it). Each value is
checked before it lands (an eps position of 999 from a tampered page, an x of 0.7123 between
two slider positions, n = 4.5): a refused value shows in the error area, and the page is sent
Python's value back. Every value is bounded first (:func:`check_page_bounds`: a number, a text,
true/false, none, or a short list of those; no whole number past 2**53, no text past
:data:`MAX_PAGE_TEXT` characters, no list past :data:`MAX_PAGE_LIST` entries) and a value that is
a set (``panels``, a family's :attr:`~PageState.PAGE_SETS`) is kept as one: each entry once, in
the widget's order. Nothing the page sends ends as a kernel traceback.

Requests are anywidget commands (``experimental.invoke`` in the page, ``@command`` here): a
button that needs the kernel (:meth:`press_button`), the numbers at a typed eps off the grid
(:meth:`numbers_at_eps`), and :meth:`answered`, which the page asks after a change that needs a
new scene: the kernel handles a widget's messages in order, so its answer comes once the change
asked before it has been handled (the page's busy mark stays until then). Browser tests hold
both (``tests/browser/test_widgets_in_browser.py``, the kernel stopped meanwhile): a typed eps's
request that overtook its held-back change, and the busy mark of a typed atol.
"""

from __future__ import annotations

import math
import reprlib
from typing import Any, ClassVar

import traitlets
from anywidget.experimental import command

from .controls import grid_position, grid_value, on_grid
from .eps import state_eps
from .guard import InputError
from .tables import json_safe

__all__ = ["MAX_PAGE_LIST", "MAX_PAGE_TEXT", "PageState", "check_page_bounds"]

#: The most entries a list from the page may hold (a set of panels or dtypes holds a few).
MAX_PAGE_LIST = 64
#: The longest text a value from the page may be (a typed number is a few characters).
MAX_PAGE_TEXT = 1000
#: Whole numbers past this are no control's (a float holds each one exactly up to 2**53).
MAX_PAGE_INT = 2**53
_SHORT = reprlib.Repr()
_SHORT.maxlist, _SHORT.maxstring, _SHORT.maxother = 8, 60, 60


def shown_value(value: Any) -> str:
    """``value`` as a message shows it: short, whatever its size (a 400-digit number, a list of
    200,000 entries)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_PAGE_INT:
        digits = int(value.bit_length() * math.log10(2)) + 1  # never str(): 4300 digits at most
        return f"a whole number of about {digits} digits"
    return _SHORT.repr(value)


def _scalar_problem(value: Any) -> str | None:
    """Why one value is no control's (None: it could be one)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if abs(value) <= MAX_PAGE_INT else "a whole number past 2**53"
    if isinstance(value, float):
        return None if math.isfinite(value) else "a number that is not finite"
    if isinstance(value, str):
        return None if len(value) <= MAX_PAGE_TEXT else f"a text over {MAX_PAGE_TEXT} characters"
    return f"a {type(value).__name__}, which no control sends"


def check_page_bounds(key: str, value: Any) -> None:
    """InputError unless ``value`` is what some control could send: none, true/false, a finite
    number (a whole one within 2**53), a text of at most :data:`MAX_PAGE_TEXT` characters, or
    a list of at most :data:`MAX_PAGE_LIST` of those."""
    if isinstance(value, list):
        if len(value) > MAX_PAGE_LIST:
            raise InputError(
                f"the page sent {key} as a list of {len(value)} entries; a control sends at "
                f"most {MAX_PAGE_LIST}"
            )
        problem = next((p for p in map(_scalar_problem, value) if p is not None), None)
    else:
        problem = _scalar_problem(value)
    if problem is not None:
        raise InputError(f"the page sent {key}={shown_value(value)}: {problem}")


class PageState:
    """Values and requests from the page, for a :class:`~.host.GradkitWidget`."""

    #: The values the numbers at a typed eps depend on (empty: every value shown).
    OFF_GRID_OF: ClassVar[tuple[str, ...]] = ()
    #: A family's values that are sets (``{"shown": dtype names}``), each entry of its tuple, in
    #: that order; ``panels`` is one too (of ``PANELS``).
    PAGE_SETS: ClassVar[dict[str, tuple[str, ...]]] = {}

    def set_state(self, sync_data: dict) -> None:
        """Values from the page: checked, then applied as one change.

        Only the values' traits are the page's to change: anything else it sends (the scene,
        the tables, the spec, the error area, the module) is Python's alone, never applied, and
        sent back as Python has it. A message with a value no control could have made is refused
        whole, with a message in the error area, and the page is sent Python's values back.
        """
        if not isinstance(sync_data, dict):
            return
        incoming = {self._keys[n]: v for n, v in sync_data.items() if n in self._keys}
        others = [n for n in sync_data if n not in self._keys and n in self.keys]
        refused: list[str] = []
        with self.one_change():  # the error area is cleared first, then shows what is refused
            try:
                checked = self.check_page_values(incoming) if incoming else {}
            except InputError as error:
                self.show_error(error)
                checked, refused = {}, list(incoming)
            except Exception as error:  # noqa: BLE001 - a check that failed: refused, said
                words = f"the page sent values gradkit could not check ({type(error).__name__})"
                self.show_error(InputError(words))
                checked, refused = {}, list(incoming)
            with self.values_changing():
                super().set_state({self._values[k]: v for k, v in checked.items()})
        # a refused value, or one the eps rule wrote otherwise: the page takes Python's
        back = refused + [k for k, v in checked.items() if k not in incoming or incoming[k] != v]
        if (back or others) and not self._closed:
            self.send_state([self._values[k] for k in back] + others)

    def check_page_values(self, incoming: dict) -> dict:
        """The values from the page, checked (InputError for the first refused): eps by the eps
        rule (its position and exact value together), the others by their trait's type and
        :meth:`check_page_value`."""
        for key, value in incoming.items():
            check_page_bounds(key, value)
        updates = {key: self.page_set(key, value) for key, value in incoming.items()}
        if "eps" in updates or "eps_exact" in updates:
            try:
                updates.update(state_eps({**self.state, **updates}))
            except InputError:
                raise
            except (TypeError, ValueError, ArithmeticError) as error:
                raise InputError(f"the page sent an eps gradkit cannot take: {error}") from None
        for key, value in updates.items():
            if key in ("eps", "eps_exact"):
                continue
            try:
                self.check_page_value(key, value)  # the control's own words first
                getattr(type(self), self._values[key])._validate(self, value)
            except InputError:
                raise
            except (traitlets.TraitError, TypeError, ValueError, ArithmeticError):
                words = f"the page sent {key}={shown_value(value)}, not a value it can take"
                raise InputError(words) from None
        return updates

    def page_set(self, key: str, value: Any) -> Any:
        """A value that is a set (``panels``, :attr:`PAGE_SETS`) as one: each entry once, in
        the widget's order (InputError for an entry that is none of its own); others as sent."""
        members = dict(self.PAGE_SETS, **({"panels": tuple(self.PANELS)} if self.PANELS else {}))
        if key not in members:
            return value
        allowed = members[key]
        if not isinstance(value, list) or not value or any(v not in allowed for v in value):
            raise InputError(
                f"the page sent {key}={shown_value(value)}; it must list some of "
                f"{list(allowed)} (pick one or more)"
            )
        return [v for v in allowed if v in value]

    def check_page_value(self, key: str, value: Any) -> None:
        """Refuse a value the page sent that no control could have made (InputError); a family
        with a value of its own checks it in an override, then calls this."""
        control = self._controls.get(key)
        if control is None:  # panels and a family's sets: page_set checked them
            return
        spec, shown = control.spec, shown_value(value)
        if control.options and value not in control.options:
            raise InputError(f"the page sent {key}={shown}; it must be one of {control.options}")
        if spec["kind"] == "slider":
            self._check_slider_value(key, value, spec)
        if spec["kind"] == "checkbox" and not isinstance(value, bool):
            raise InputError(f"the page sent {key}={shown}; it must be true or false")

    @staticmethod
    def _check_slider_value(key: str, value: Any, spec: dict) -> None:
        """A slider's value is ``origin + k * step`` for a whole k in lo … hi, the very sum the
        page makes (``grid_value`` in controls.py and .js): anything else no slider could send."""
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        origin, step = spec["origin"], spec["step"]
        lo, hi = origin + spec["lo"] * step, origin + spec["hi"] * step
        if not ok or not lo - 1e-9 * abs(lo) - 1e-12 <= value <= hi + 1e-9 * abs(hi) + 1e-12:
            raise InputError(f"the page sent {key}={value!r}; it must be {lo:g} … {hi:g}")
        if not on_grid(spec, value):
            nearest = grid_value(spec, grid_position(spec, value))
            raise InputError(
                f"the page sent {key}={value!r}, between two positions of its slider "
                f"({nearest:.6g} is the nearest); no slider sends that"
            )

    # ------------------------------------------------------------------------- requests
    @command
    def press_button(self, msg: Any, buffers: list) -> tuple[dict, list]:
        """The page pressed a button that needs the kernel (``{"name": ...}``); the answer
        comes once its callbacks ran (their errors are in the error area)."""
        name = msg.get("name") if isinstance(msg, dict) else None
        if isinstance(name, str) and name in self._clicks:
            self.press(name)
        return {}, []

    @command
    def answered(self, msg: Any, buffers: list) -> tuple[dict, list]:
        """Nothing to do: the answer says every message the page sent before has been handled."""
        return {}, []

    @command
    def numbers_at_eps(self, msg: Any, buffers: list) -> tuple[dict, list]:
        """The numbers at the typed eps for the values the kernel holds (:attr:`exact`), and
        those values (``values``): the page takes the answer as final only when they are the
        values it shows (a request may overtake a change ipywidgets held back while the kernel
        was busy; the page asks again once the change is in)."""
        return {**self.exact, "values": json_safe(self.state)}, []

    @property
    def exact(self) -> dict:
        """The answer :meth:`numbers_at_eps` gives now (kept until the scene or a value it is
        of changes, :attr:`OFF_GRID_OF`; :meth:`numbers_off_grid` computes it). Asking is no
        action of the learner's: the error area keeps what is in it, and a failure is added to
        it once per state (the answer is then empty)."""
        of = self.OFF_GRID_OF or tuple(self.state)
        token = (self.scene.get("key"), repr([self.current(k) for k in of]))
        kept = self.__dict__.get("_exact_kept")
        if kept is None or kept[0] != token:
            answer = {}
            try:
                found = None if self.current("eps_exact") is None else self.numbers_off_grid()
            except Exception as error:  # noqa: BLE001 - shown to the learner, never lost
                self.show_error(error)
                found = None
            if found is not None:
                payload, match = found
                answer = {**json_safe(payload), "match": match, "key": self.scene.get("key")}
            kept = self._exact_kept = (token, answer)
        return kept[1]

    def numbers_off_grid(self) -> tuple[dict, dict] | None:
        """A family's numbers at the typed eps for the values shown, ``(payload, match)``
        (``match``: the values they are for), or None when it has none."""
        return None
