"""What the page sends a widget: its values (checked, never trusted) and its requests.

:class:`PageState` is mixed into :class:`~.host.GradkitWidget`; ``gradkit/widgets/README.md``
("The life of a click") follows a value through it. Nothing the page sends ends as a kernel
traceback: a refused value shows in the error area and the page gets Python's value back.
"""

from __future__ import annotations

import math
import reprlib
from collections import OrderedDict
from typing import Any, ClassVar

import traitlets
from anywidget.experimental import command

from .eps import page_eps, state_eps
from .guard import InputError
from .tables import json_safe, pack

__all__ = ["MAX_PAGE_LIST", "MAX_PAGE_TEXT", "PageState", "check_count", "check_page_bounds"]

#: The most entries a list from the page may hold (a set of panels or dtypes holds a few).
MAX_PAGE_LIST = 64
#: The longest text a value from the page may be (a typed number is a few characters).
MAX_PAGE_TEXT = 1000
#: Whole numbers past this are no control's (a float holds each one exactly up to 2**53).
MAX_PAGE_INT = 2**53
#: Answers to :meth:`PageState.numbers_at` a widget keeps (a learner typing eps after eps).
KEPT_ANSWERS = 32
_SHORT = reprlib.Repr()
_SHORT.maxlist, _SHORT.maxstring, _SHORT.maxother = 8, 60, 60


def shown_value(value: Any) -> str:
    """``value`` as a message shows it: short, whatever its size."""
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


def check_count(key: str, value: Any, last: int) -> None:
    """InputError unless ``value`` is a whole number 0 … ``last`` (a counter's count, a step)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= last:
        raise InputError(
            f"the page sent {key}={shown_value(value)}; it must be a whole number from 0 to {last}"
        )


class PageState:
    """Values and requests from the page, for a :class:`~.host.GradkitWidget`."""

    #: The values the numbers at a typed eps depend on besides eps and the scene: the page's
    #: request carries them (:meth:`numbers_at`).
    OFF_GRID_OF: ClassVar[tuple[str, ...]] = ()
    #: A family's values that are sets (``{"shown": dtype names}``), each entry of its tuple, in
    #: that order; ``panels`` is one too (of ``PANELS``).
    PAGE_SETS: ClassVar[dict[str, tuple[str, ...]]] = {}

    def set_state(self, sync_data: dict) -> None:
        """Values from the page: checked, then applied as one change.

        Only the values' traits are the page's to change: anything else it sends is sent back as
        Python has it. A message with a value no control could have made is refused whole.
        """
        if not isinstance(sync_data, dict):
            return
        names = self.state_names()
        incoming = {n: v for n, v in sync_data.items() if n in names}
        others = [n for n in sync_data if n not in names and n in self.keys]
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
            held = {k: self.current(k) for k in checked}  # what the page has for the others
            super().set_state(checked)  # each trait's observers once, after all changed
        # a refused value, or one the eps rule wrote otherwise: the page takes Python's (a value
        # the page did not send and Python left as it was needs no message)
        back = refused + [k for k, v in checked.items() if incoming.get(k, held[k]) != v]
        if (back or others) and not self._closed:
            self.send_state(back + others)

    def check_page_values(self, incoming: dict) -> dict:
        """The values from the page, checked (InputError for the first refused): eps by the eps
        rule, the others by :meth:`check_control_value`."""
        for key, value in incoming.items():
            check_page_bounds(key, value)
        updates = {key: self.page_set(key, value) for key, value in incoming.items()}
        if "eps" in updates or "eps_exact" in updates:
            updates.update(state_eps({**self.state, **updates}))
        for key, value in updates.items():
            if key not in ("eps", "eps_exact"):
                self.check_control_value(key, value)
        return updates

    def check_control_value(self, key: str, value: Any) -> None:
        """One value, checked by :meth:`check_page_value` and by its trait's type."""
        try:
            self.check_page_value(key, value)
            getattr(type(self), key)._validate(self, value)
        except InputError:
            raise
        except (traitlets.TraitError, TypeError, ValueError, ArithmeticError):
            words = f"the page sent {key}={shown_value(value)}, not a value it can take"
            raise InputError(words) from None

    def page_set(self, key: str, value: Any) -> Any:
        """A value that is a set (``panels``, :attr:`PAGE_SETS`): each entry once, in the
        widget's order; others as sent."""
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
        for counter in self._controls.values():  # a counter button's count: 0 … its last
            if counter.spec.get("count", [None])[0] == key:
                check_count(key, value, counter.spec["count"][1])
        control = self._controls.get(key)
        if control is None:  # panels and a family's sets: page_set checked them
            return
        spec, shown = control.spec, shown_value(value)
        if (
            control.options
            and value not in control.options
            and not (value is None and control.accepts_none)
        ):
            raise InputError(f"the page sent {key}={shown}; it must be one of {control.options}")
        if spec["kind"] == "slider":
            try:  # a slider sends its whole position lo … hi, never a value
                control.check_position(value)
            except ValueError as error:
                raise InputError(f"the page sent {error}") from None
        if spec["kind"] == "checkbox" and not isinstance(value, bool):
            raise InputError(f"the page sent {key}={shown}; it must be true or false")

    # ------------------------------------------------------------------------- requests
    @command
    def press_button(self, msg: Any, buffers: list) -> tuple[dict, list]:
        """The page pressed a kernel button (``{"name": ...}``); answered once its callbacks
        ran."""
        name = msg.get("name") if isinstance(msg, dict) else None
        if isinstance(name, str) and name in self._clicks:
            self.press(name)
        return {}, []

    @command
    def numbers_at(self, msg: Any, buffers: list) -> tuple[dict, list]:
        """The numbers at a typed eps off the grid: ``{"key": the scene's key, "eps": ...}``
        and the values of :attr:`OFF_GRID_OF`, answered with arrays packed as a scene's tables
        in the command's buffer; ``{"stale": true}`` for a replaced scene, ``{"error": words}``
        for a request no control could have made."""
        try:
            args = self.off_grid_args(msg)
        except InputError as error:
            return {"error": str(error)}, []
        if args["key"] != self.scene.get("key"):
            return {"stale": True}, []
        found = self.numbers_for(args)
        if found is None:
            return {"error": "no numbers for that eps (the error area says why)"}, []
        meta, arrays = found
        buffer, layout = pack(arrays)
        return {**json_safe(meta), "tables": layout}, [buffer]

    def off_grid_args(self, msg: Any) -> dict:
        """A request for the numbers at a typed eps, checked as the page's values are."""
        if not isinstance(msg, dict):
            raise InputError("the page asked for numbers without saying for what")
        wanted = ("key", "eps", *self.OFF_GRID_OF)
        if set(msg) != set(wanted):
            raise InputError(f"the page asked for numbers at {sorted(msg)}; it must send {wanted}")
        for key, value in msg.items():
            check_page_bounds(key, value)
        key = msg["key"]
        if not isinstance(key, str):
            raise InputError(f"the page sent the scene key {shown_value(key)}; it must be a text")
        args = {"key": key, "eps": page_eps(msg["eps"])}
        for name in self.OFF_GRID_OF:
            self.check_control_value(name, msg[name])
            args[name] = msg[name]
        return args

    def numbers_for(self, args: dict) -> tuple[dict, dict] | None:
        """The answer for a checked request, computed once (:meth:`numbers_off_grid`) and kept:
        the page and Python's readouts read the same. A failure is said in the error area once
        per request, and the answer is None."""
        kept = self.__dict__.setdefault("_numbers", OrderedDict())
        token = repr(sorted(args.items()))
        if token not in kept:
            try:
                kept[token] = self.numbers_off_grid(args["eps"], args)
            except Exception as error:  # noqa: BLE001 - shown to the learner, never lost
                self.show_error(error)
                kept[token] = None
            while len(kept) > KEPT_ANSWERS:
                kept.popitem(last=False)
        kept.move_to_end(token)
        return kept[token]

    def request_here(self) -> dict | None:
        """The request the page makes for the typed eps it shows now (None on the grid)."""
        eps = self.current("eps_exact")
        if eps is None:
            return None
        args = {"key": self.scene.get("key"), "eps": float(eps)}
        return {**args, **{name: self.current(name) for name in self.OFF_GRID_OF}}

    def numbers_here(self) -> tuple[dict, dict] | None:
        """The answer for the typed eps the widget shows now (None on the grid)."""
        request = self.request_here()
        return None if request is None else self.numbers_for(request)

    def numbers_off_grid(self, eps: float, args: dict) -> tuple[dict, dict]:
        """A family's numbers at the typed ``eps`` for the request ``args``: ``(JSON, arrays)``,
        laid out as the scene's tables (one x position, one eps)."""
        raise NotImplementedError(f"{type(self).__name__} measures no eps off the grid")
