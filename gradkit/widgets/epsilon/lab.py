"""EpsilonLab: error versus eps for four dtypes, with theory, gradcheck's tolerance and best eps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
import torch
import traitlets

from ..._args import (
    DTYPES,
    EPS_GRID,
    GRADCHECK_DEFAULTS,
    WIDGET_SCHEMES,
    as_dtype,
    check_scheme,
    check_x,
    dtype_name,
)
from ..._palette import DTYPE_STYLES
from ...numerics import SweepResult, unit_roundoff
from ...numerics import sweep as measure_sweep
from ..base.eps import eps_of, eps_state
from ..base.functions import function_menu
from ..base.point import MenuSchemeTraits, PointWidget, cached_measure, stack_points
from ..base.rows import button, checkbox, dtype_toggle, scheme_toggle
from .scene import FIELDS, KINDS, has_slope, lab_point, sweep_arrays, sweep_of

__all__ = ["EpsilonLab"]

#: The dtypes the reveal button shows and hides.
_HALVES = ("float16", "bfloat16")


#: lab_point looked up at each call, so that a stand-in for it (a test's counter) is used.
_measure = cached_measure("epsilon", lambda f, x: lab_point(f, x), **KINDS)

_READOUTS = [
    ("eps", "gradkit-eps-readout"),
    ("error", "gradkit-error-readout"),
    *("tolerance", "optimal", "table"),
]


class EpsilonLab(PointWidget, MenuSchemeTraits):
    """The V-shaped error of the numeric slope versus eps, for float64, float32, float16, bfloat16.

    The theory lines show truncation (∝ eps² for central differences) and rounding (∝ u/eps) for
    the highlighted dtype; the red line is gradcheck's tolerance atol + rtol·|f′(x)|; stars mark
    each dtype's best eps in theory. At gradcheck's eps = 1e-6 the float32 curve sits above the
    tolerance and float64 below it. Marks for "eps rounds to 0" and "error exactly 0" sit in a
    strip below the plot, never on the error axis.

    Parameters
    ----------
    f : callable or str, optional
        An elementwise function of a tensor, or a built-in name. Default ``"x³"``.
    x : float
        Default 0.5; the x slider moves in steps of 0.05.
    eps : float
        Where the cursor starts, 1e-12 … 1. Default 1e-6 (gradcheck's).
    dtype : torch.dtype or str
        The highlighted dtype. Default float32 (the first shown one if float32 is not shown).
    scheme : {"central", "forward"}
    dtypes : sequence of str or torch.dtype
        The dtypes shown first (default all four); :meth:`reveal` or the toggle "show float16
        and bfloat16" adds the others (pressed again, it goes back to these, less the halves).
    panels : sequence of {"curves", "theory", "table"}, optional
        What to show (default all): the measured error curves with the tolerance (the V); the
        theory lines, the stars at theory's best eps and the best-eps readout; the table of
        every shown dtype's error at this eps.

    Attributes
    ----------
    function_dropdown, x_slider, x_down, x_up, eps_slider, eps_down, eps_up, eps_text,
    dtype_buttons, scheme_buttons, theory_checkbox, reveal_button : Control
        Handles onto the page's controls: ``.value``, ``.click()``; the page presses
        ``reveal_button`` itself (its ``.click()`` raises a TypeError: set ``shown`` or call
        :meth:`reveal` instead), and alone presses − / + and ÷10 / ×10 and reads ``eps_text``:
        their ``.click()`` and ``eps_text.value = ...`` raise a TypeError naming the value to set.
    function, x, eps, eps_exact, dtype, scheme, theory, shown, panels
        The values the page shows (``state`` holds them all; ``shown``: the dtypes on screen;
        see :class:`~gradkit.widgets.base.point.PointWidget` for x, eps and dtype).
    sweeps : dict[str, gradkit.SweepResult]
        The curves on the eps grid at the current x, by scheme (empty where f has no slope).
    sweep : gradkit.SweepResult or None
        The curves for the current scheme.
    at_eps : gradkit.SweepResult
        Every dtype at exactly the current eps (the grid's column sent, or a typed eps's answer).
    Each reads the measurement the page draws from (its numeric slopes kept in Python, the
    theory curves as the float32 it draws); none measures again.
    """

    css = "gradkit-epsilon-lab"
    view = "epsilonView"
    scripts = ("epsilon/words.js", "epsilon/epsilon.js")
    PANELS = ("curves", "theory", "table")
    theory = traitlets.Bool(True, help="whether the theory lines show (the theory check box)").tag(
        sync=True, state=True
    )
    shown = traitlets.List(traitlets.Unicode(), help="the dtypes on screen, in DTYPES' order").tag(
        sync=True, state=True
    )

    def __init__(
        self,
        f: Callable | str | None = None,
        x: float = 0.5,
        eps: float = GRADCHECK_DEFAULTS["eps"],
        dtype: torch.dtype | str = torch.float32,
        scheme: str = "central",
        dtypes: Sequence[torch.dtype | str] = tuple(DTYPES),
        *,
        panels: Sequence[str] | None = None,
    ) -> None:
        menu, selected = function_menu(f, "x³")
        scheme, x, eps = check_scheme(scheme, WIDGET_SCHEMES), check_x(x), eps_of(eps_state(eps))
        shown, dtype = _shown_dtypes(dtypes, as_dtype(dtype))
        super().__init__(panels)
        with self.building():
            self.function_row(menu, selected)
            self._build(x, eps, dtype, scheme, shown)
            self.observe(self.guard(lambda _change: self._theory_switch()), names=["panels"])
            self.track_x(_measure)

    def _build(  # long: every control and panel of the lab, one call each
        self, x: float, eps: float, dtype: torch.dtype, scheme: str, shown: list[str]
    ) -> None:
        rows = self.point_rows(x, eps, lo=-3.0, hi=3.0, step=0.05)
        self.dtype_buttons = dtype_toggle(self, dtype, "highlight")
        self.dtype_buttons.spec["shown_key"] = "shown"  # only the shown dtypes' buttons
        self.scheme_buttons = scheme_toggle(self, scheme)
        toggles = [self.dtype_buttons, self.scheme_buttons]
        self.theory_checkbox = checkbox(
            self,
            "theory",
            value=True,
            text="show theory lines",
            css="gradkit-theory",
            tooltip="truncation and rounding error predicted by Taylor's theorem",
        )
        # a toggle: pressed again, back to the dtypes shown first (less the half precisions)
        first = [n for n in shown if n not in _HALVES] or shown
        fallback = next(n for n in (dtype_name(dtype), "float32", first[0]) if n in first)
        self.reveal_button = button(
            self,
            "reveal",
            "show float16 and bfloat16",
            pressed_text="hide float16 and bfloat16",
            css="gradkit-reveal",
            tooltip="show or hide the half-precision dtypes",
            sets=("shown", list(DTYPES)),
            unsets=(first, {"dtype": fallback}),
        )
        self.shown = shown
        self.layout(
            "EpsilonLab",
            "why the error of a numeric slope is V-shaped, and where gradcheck's eps sits",
            [self.function_dropdown, *rows, *toggles, self.theory_checkbox, self.reveal_button],
            _READOUTS,
            alt="error of the numeric slope versus eps, log-log, one curve per dtype",
        )
        self._theory_switch()

    # ------------------------------------------------------------------------------ state
    @property
    def sweeps(self) -> dict[str, SweepResult]:
        """The curves on the eps grid at the current x, by scheme (empty where f has no slope)."""
        if not has_slope(self.point):
            return {}
        return {s: sweep_of(self.point, s, self.x_value, EPS_GRID) for s in WIDGET_SCHEMES}

    @property
    def sweep(self) -> SweepResult | None:
        """The curves for the current scheme (None where f has no slope)."""
        return self.sweeps.get(self.scheme_buttons.value)

    @property
    def at_eps(self) -> SweepResult:
        """Every dtype at exactly the current eps: the grid's column of the x position's
        arrays, or the answer for a typed eps."""
        if not has_slope(self.point):
            raise ValueError(f"f has no slope to measure at x = {self.x_value:g}: nothing was sent")
        column = {k: self.eps_column(k, 2) for k in ("error", "numeric", "flags", "theory")}
        eps = [self.eps_slider.value]
        return sweep_of(self.point, self.scheme_buttons.value, self.x_value, eps, column)

    def reveal(self, *dtypes: str | torch.dtype) -> None:
        """Add dtypes to the picture (default: all of them), as the reveal button does."""
        names = [dtype_name(as_dtype(d, "dtypes")) for d in dtypes] or list(DTYPES)
        shown = set(self.shown) | set(names)
        self.update_state({"shown": [n for n in DTYPES if n in shown]})

    #: The shown dtypes are a set: each once, in DTYPES order (a non-empty list of their names).
    PAGE_SETS: ClassVar[dict[str, tuple[str, ...]]] = {"shown": tuple(DTYPES)}

    # ---------------------------------------------------------------------------- updates
    def _theory_switch(self) -> None:
        """The theory check box belongs to the theory panel: hidden while that is closed."""
        self.theory_checkbox.hidden = "theory" not in self.panels

    def scene_of(self, measured: list[dict], label: str | None = None) -> dict:
        return {
            "function": label or self.function_dropdown.value,
            "dtypes": list(DTYPES),
            "schemes": list(WIDGET_SCHEMES),
            "fields": FIELDS,
            "atol": GRADCHECK_DEFAULTS["atol"],
            "rtol": GRADCHECK_DEFAULTS["rtol"],
            "default_eps": GRADCHECK_DEFAULTS["eps"],
            "u": {name: unit_roundoff(dt) for name, dt in DTYPES.items()},
            "styles": {name: list(style) for name, style in DTYPE_STYLES.items()},
        }

    def arrays_of(self, measured: list[dict]) -> dict:
        """The sweeps of each x position, stacked, less ``numeric``: the page draws errors, and
        only Python's readouts read the numeric slopes (kept here)."""
        return stack_points([{k: v for k, v in p.items() if k != "numeric"} for p in measured])

    def exact_of(self, eps: float, k: int) -> dict[str, np.ndarray]:
        """Every scheme and dtype at a typed eps, at x position k, with an eps axis of one
        (nothing where f has no slope: the page says so; ``numeric`` too: Python reads it)."""
        if not has_slope(self.point_at(k)):
            return {}
        return sweep_arrays(
            {s: measure_sweep(self.f, self.x_at(k), eps=[eps], scheme=s) for s in WIDGET_SCHEMES}
        )


def _shown_dtypes(
    dtypes: Sequence[torch.dtype | str], dtype: torch.dtype
) -> tuple[list[str], torch.dtype]:
    """The dtypes shown first (DTYPES order), and the highlighted one (the first shown if the
    default float32 is not shown)."""
    if isinstance(dtypes, (str, torch.dtype)):
        dtypes = [dtypes]
    named = {dtype_name(as_dtype(d, "dtypes")) for d in dtypes}
    shown = [n for n in DTYPES if n in named]
    if not shown:
        raise ValueError("dtypes must name at least one dtype, e.g. ('float64', 'float32')")
    if dtype_name(dtype) not in shown:
        dtype = DTYPES[shown[0]] if dtype is torch.float32 else dtype
        if dtype_name(dtype) not in shown:
            raise ValueError(f"dtype={dtype_name(dtype)} is not among dtypes={shown}")
    return shown, dtype
