"""The control-making half of :class:`~gradkit.widgets._base.GradkitWidget`.

Each method makes a :class:`~gradkit.widgets._controls.Control` (a Python handle), registers it
and puts its starting value into the synced ``values``; ``_layout`` then sends the controls, in
order, and the readouts to the browser. The shared rows live here too: the dtype buttons, eps on
the decimal 1-2-5 grid with ÷10 / ×10 and a text box, and x with − / +.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch

from .._args import DTYPES, EPS_GRID, EPS_MAX, EPS_MIN, check_control_eps, check_x, snap_eps
from ._controls import Control, EpsSlider, EpsStep, Readout, XStep
from ._format import eps_label, fmt_eps, parse_positive
from ._theme import DTYPE_TIPS

__all__ = ["ControlBuilder"]

_SMALLER, _LARGER = "make eps 10 times smaller", "make eps 10 times larger"


class ControlBuilder:
    """Makes the controls and readouts of a widget (mixed into ``GradkitWidget``).

    It relies on the widget's synced ``values``, ``readouts``, ``controls``, ``title`` and
    ``hint`` traits and on its ``_listen`` / ``_set_values`` plumbing.
    """

    _syncing = False

    def _add(self, control: Control) -> Control:
        self._handles[control.name] = control
        return control

    def toggle(
        self,
        name: str,
        options: Sequence[tuple[str, Any]] | Sequence[str],
        *,
        value: Any,
        label: str = "",
        css: str = "",
        tooltips: Sequence[str] = (),
        scene: bool = False,
    ) -> Control:
        """Toggle buttons (one of several)."""
        pairs = [o if isinstance(o, tuple) else (o, o) for o in options]
        c = Control(self, name, "toggle", css=css, description=label, options=pairs,
                    tooltips=list(tooltips), scene=scene)  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: c._to_raw(value) if value is not None else None}
        return c

    def dropdown(
        self, name: str, options: Sequence[str], *, value: str, label: str = "", css: str = "",
        tooltip: str = "", scene: bool = True,
    ) -> Control:  # fmt: skip
        """A drop-down menu of labels."""
        c = Control(self, name, "dropdown", css=css, description=label, tooltip=tooltip,
                    options=[(o, o) for o in options], scene=scene)  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: value}
        return c

    def slider(  # noqa: PLR0913 - mirrors ipywidgets slider keywords
        self, name: str, *, value: float, lo: float, hi: float, step: float, label: str = "",
        css: str = "", tooltip: str = "", scene: bool = True, continuous: bool = True,
        down: dict | None = None, up: dict | None = None,
    ) -> Control:  # fmt: skip
        """A number slider (with optional step buttons ``down`` / ``up``: {css, label, tooltip})."""
        c = Control(self, name, "slider", css=css, description=label, tooltip=tooltip,
                    min=lo, max=hi, step=step, scene=scene, continuous=continuous,
                    down=down, up=up, short=True, format=".3g")  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: float(value)}
        return c

    def text(
        self, name: str, *, value: str, label: str = "", css: str = "", tooltip: str = "",
        placeholder: str = "",
    ) -> Control:  # fmt: skip
        """A text box (sent on Enter or when it loses focus)."""
        c = Control(self, name, "text", css=css, description=label, tooltip=tooltip,
                    placeholder=placeholder)  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: value}
        return c

    def checkbox(
        self, name: str, *, value: bool, text: str, css: str = "", tooltip: str = "",
        scene: bool = False,
    ) -> Control:  # fmt: skip
        """A check box with a text."""
        c = Control(self, name, "checkbox", css=css, tooltip=tooltip, text=text, scene=scene)
        c.description = text
        self._add(c)
        self.values = {**self.values, name: bool(value)}
        return c

    def button(self, name: str, text: str, *, css: str = "", tooltip: str = "") -> Control:
        """A button; ``.click()`` from Python or a click in the browser runs its listeners."""
        c = Control(self, name, "button", css=css, tooltip=tooltip, text=text)
        c.description = text
        return self._add(c)

    def readout(self, name: str, css: str) -> Readout:
        """A readout line."""
        r = Readout(self, name, css)
        self.readouts = [*self.readouts, {"name": name, "css": css}]
        return r

    def make_dtype_buttons(
        self, value: torch.dtype, label: str = "dtype", *, scene: bool = False
    ) -> Control:
        """float64 / float32 / float16 / bfloat16, with the unit roundoff in each tooltip."""
        return self.toggle(
            "dtype",
            list(DTYPES.items()),
            value=value,
            label=label,
            css="gradkit-dtype",
            tooltips=[DTYPE_TIPS[n] for n in DTYPES],
            scene=scene,
        )

    def _make_eps_controls(self, eps: float, on_change: Callable[[], None]) -> list[Control]:
        """eps on EPS_GRID with ÷10 / ×10 (three grid steps) and a text box for typing eps.

        A typed eps on the grid moves the slider; one off the grid is kept exactly
        (``values["eps_exact"]``) and computed by the kernel.
        """
        eps = check_control_eps(eps)
        index = snap_eps(eps)
        on_grid = EPS_GRID[index] == eps
        self.eps_slider = EpsSlider(
            self, "eps", "grid", css="gradkit-eps", description="eps",
            tooltip=f"the nudge eps, on a log scale ({EPS_MIN:g} … {EPS_MAX:g})",
            labels=[eps_label(k) for k in range(len(EPS_GRID))], steps=3, short=True,
            aria="eps",
            down={"css": "gradkit-eps-down", "label": "÷10", "tooltip": _SMALLER},
            up={"css": "gradkit-eps-up", "label": "×10", "tooltip": _LARGER},
        )  # fmt: skip
        self._add(self.eps_slider)
        self.eps_down = EpsStep(self, "eps_down", "gradkit-eps-down", -1, description="÷10",
                               tooltip=_SMALLER)  # fmt: skip
        self.eps_up = EpsStep(self, "eps_up", "gradkit-eps-up", 1, description="×10",
                             tooltip=_LARGER)  # fmt: skip
        self.values = {
            **self.values,
            "eps": index,
            "eps_exact": None if on_grid else eps,
            "eps_label": fmt_eps(eps),
        }
        self.eps_text = self.text(
            "eps_text", value=fmt_eps(eps), label="type eps", css="gradkit-eps-text",
            tooltip="type eps (e.g. 1e-6) and press Enter", placeholder="e.g. 1e-6",
        )  # fmt: skip
        self._listen("eps", lambda change: self._eps_moved(on_change))
        self._listen("eps_text", lambda change: self._eps_typed())
        return [self.eps_slider, self.eps_text]

    def _eps_moved(self, on_change: Callable[[], None]) -> None:
        """The slider moved: the text box and label follow (without counting as typing)."""
        self._syncing = True
        try:
            self._set_values({"eps_text": fmt_eps(self.eps), "eps_label": fmt_eps(self.eps)})
        finally:
            self._syncing = False
        on_change()

    def _eps_typed(self) -> None:
        """eps was typed: on the grid it moves the slider, off it the exact value is kept."""
        if self._syncing:
            return
        value = parse_positive(self.eps_text.value, "eps", EPS_MIN, EPS_MAX)
        k = snap_eps(value)
        exact = None if math.isclose(EPS_GRID[k], value, rel_tol=1e-12) else value
        self._set_values({"eps": k, "eps_exact": exact, "eps_label": fmt_eps(value)})

    def _make_x_controls(
        self, x: float, on_change: Callable[[], None], *, lo: float, hi: float, step: float,
        continuous: bool = True, tooltip: str = "where the slope is measured",
    ) -> Control:  # fmt: skip
        """x slider with − / + step buttons."""
        x = check_x(x)
        lo, hi = min(lo, math.floor(x) - 1), max(hi, math.ceil(x) + 1)
        self.x_slider = self.slider(
            "x", value=x, lo=lo, hi=hi, step=step, label="x", css="gradkit-x", tooltip=tooltip,
            continuous=continuous,
            down={"css": "gradkit-x-down", "label": "−", "tooltip": f"move x down by {step:g}"},
            up={"css": "gradkit-x-up", "label": "+", "tooltip": f"move x up by {step:g}"},
        )  # fmt: skip
        self.x_down = XStep(self, "x_down", "gradkit-x-down", -1, description="−",
                            tooltip=f"move x down by {step:g}")  # fmt: skip
        self.x_up = XStep(self, "x_up", "gradkit-x-up", 1, description="+",
                          tooltip=f"move x up by {step:g}")  # fmt: skip
        self._listen("x", lambda change: on_change())
        return self.x_slider

    def _layout(
        self, title: str, hint: str, controls: Sequence[Control], readouts: Sequence[Readout]
    ) -> None:
        """Send the controls (in this order) and the readouts to the browser."""
        self.title, self.hint = title, hint
        self.controls = [c.spec for c in controls]
        order = [r.name for r in readouts]
        by_name = {r["name"]: r for r in self.readouts}
        self.readouts = [by_name[n] for n in order]
