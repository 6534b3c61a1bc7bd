"""What the page sends a widget: its values (checked, never trusted) and its requests.

:class:`PageState` is mixed into :class:`~.host.GradkitWidget`. Each value is a typed trait of
its own (:meth:`~.host.GradkitWidget.add_value`), so the page sends only the values it changed,
and ipywidgets' echo handling keeps the answer to an older change from undoing a newer one (the
lost-click race; ``test_busy_kernel_still_moves_eps_dtype_and_x`` holds it). Each value is
checked before it lands (an eps position of 999 from a tampered page, an x of 0.7123 between
two slider positions, n = 4.5): a refused value shows in the error area, and the page is sent
Python's value back.

Requests are anywidget commands (``experimental.invoke`` in the page, ``@command`` here): a
button that needs the kernel (:meth:`press_button`), the numbers at a typed eps off the grid
(:meth:`numbers_at_eps`), and :meth:`answered`, which the page asks after a change that needs a
new scene: the kernel handles a widget's messages in order, so its answer comes once the change
asked before it has been handled (the page's busy mark stays until then). Browser tests hold
both (``tests/browser/test_widgets_in_browser.py``, the kernel stopped meanwhile): a typed eps's
request that overtook its held-back change, and the busy mark of a typed atol.
"""

from __future__ import annotations

from typing import Any, ClassVar

import traitlets
from anywidget.experimental import command

from .controls import grid_position, grid_value, on_grid
from .eps import state_eps
from .guard import InputError
from .tables import json_safe

__all__ = ["PageState"]


class PageState:
    """Values and requests from the page, for a :class:`~.host.GradkitWidget`."""

    #: The values the numbers at a typed eps depend on (empty: every value shown).
    OFF_GRID_OF: ClassVar[tuple[str, ...]] = ()

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
        updates = dict(incoming)
        if "eps" in updates or "eps_exact" in updates:
            updates.update(state_eps({**self.state, **updates}))
        for key, value in updates.items():
            if key in ("eps", "eps_exact"):
                continue
            self.check_page_value(key, value)  # the control's own words first
            try:
                getattr(type(self), self._values[key])._validate(self, value)
            except traitlets.TraitError:
                words = f"the page sent {key}={value!r}, not a value it can take"
                raise InputError(words) from None
        return updates

    def check_page_value(self, key: str, value: Any) -> None:
        """Refuse a value the page sent that no control could have made (InputError); a family
        with a value of its own checks it in an override, then calls this."""
        control = self._controls.get(key)
        if key == "panels":
            try:
                self.check_panels(value)
            except (TypeError, ValueError) as error:
                raise InputError(f"the page sent {key}={value!r}: {error}") from None
            return
        if control is None:
            return
        spec = control.spec
        if control.options and value not in control.options:
            raise InputError(f"the page sent {key}={value!r}; it must be one of {control.options}")
        if spec["kind"] == "slider":
            self._check_slider_value(key, value, spec)
        if spec["kind"] == "checkbox" and not isinstance(value, bool):
            raise InputError(f"the page sent {key}={value!r}; it must be true or false")

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
