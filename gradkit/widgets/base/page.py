"""What the page sends a widget: its state (checked, never trusted) and button clicks.

:class:`PageState` is mixed into :class:`~.host.GradkitWidget`. The page sends its whole control
state with ``__seq`` (its change counter) and ``__changed`` (the keys it changed that Python has
not handled yet); only those keys are applied, each checked first, so neither a stale copy of
another key nor a value no control could have made ever lands (issue: the lost-click race, an
eps index of 999 from a tampered page, an x of 0.7123 between two slider positions, n = 4.5).
"""

from __future__ import annotations

from typing import Any

from .controls import grid_position, grid_value, on_grid
from .eps import state_eps
from .guard import InputError

__all__ = ["PageState"]


class PageState:
    """``set_state`` and click messages from the page, for a :class:`~.host.GradkitWidget`."""

    def set_state(self, sync_data: dict) -> None:
        """A state update from the page: its changed keys are checked, then applied.

        The page sends its whole control state with ``__seq`` (its change counter) and
        ``__changed`` (the keys it changed that Python has not handled yet). Only those keys are
        applied onto Python's state, so a stale copy of any other key can never undo a newer
        change; each is checked first (:meth:`check_page_value`): a value the page should never
        send is refused with a message in the error area, never trusted.
        """
        state = sync_data.get("state") if isinstance(sync_data, dict) else None
        if isinstance(state, dict):
            try:
                merged = self._merge_page_state(state)
            except InputError as error:
                self.show_error(error)
                self.send_state("state")  # the page goes back to Python's state
                seq = state.get("__seq")
                if isinstance(seq, int) and seq > self.ack:
                    self.ack = seq  # answered (refused): the page takes Python's values
                merged = None
            sync_data = {k: v for k, v in sync_data.items() if k != "state"}
            if merged is not None:
                sync_data["state"] = merged
        super().set_state(sync_data)

    def _merge_page_state(self, incoming: dict) -> dict:
        seq, changed = incoming.get("__seq"), incoming.get("__changed")
        current = dict(self.state)
        if not isinstance(seq, int) or not isinstance(changed, list):
            raise InputError("the page sent a state without its change counter")
        keys = [k for k in changed if isinstance(k, str) and k in incoming and k in current]
        updates = {k: incoming[k] for k in keys}
        if "eps" in updates or "eps_exact" in updates:
            updates.update(state_eps({**current, **updates}))
        for key, value in updates.items():
            if key not in ("eps", "eps_exact"):
                self.check_page_value(key, value)
        merged = {**current, **updates}
        merged["__seq"] = max(seq, int(current.get("__seq") or 0))
        return merged

    def check_page_value(self, key: str, value: Any) -> None:
        """Refuse a value the page sent that no control could have made (InputError)."""
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

    def _on_message(self, _widget: Any, content: dict, _buffers: list) -> None:
        if not isinstance(content, dict) or content.get("type") != "click":
            return
        name = content.get("name")
        try:
            if name in self._clicks:
                self.press(str(name))
        finally:
            seq = content.get("seq")
            if isinstance(seq, int) and seq > self.ack:
                self.ack = seq
