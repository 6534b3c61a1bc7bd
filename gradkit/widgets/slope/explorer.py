"""SlopeExplorer: slide eps and watch the secant (numeric slope) leave the tangent (analytic)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from ..._args import (
    DTYPES,
    EPS_GRID,
    SCHEMES,
    WIDGET_SCHEMES,
    as_dtype,
    check_scheme,
    check_x,
)
from ..base.eps import eps_of, eps_state
from ..base.functions import function_menu, function_owner
from ..base.point import MenuSchemeTraits, PointWidget, cached_measure, stack_points
from ..base.rows import dtype_toggle, scheme_toggle
from .scene import (
    FIELDS,
    HALF_WIDTH,
    VIEW_HALF_WIDTH,
    ZOOM_POINTS,
    curve,
    slope_point,
    slope_rows,
)

__all__ = ["SlopeExplorer"]


#: What :func:`slope_point` returns, measured once per function and x.
_measure = cached_measure(
    "slope",
    slope_point,
    analytic=float,
    rows=("float64", (len(WIDGET_SCHEMES), len(DTYPES), len(EPS_GRID), len(FIELDS))),
    zoom=("float32", (len(DTYPES), len(EPS_GRID), ZOOM_POINTS)),
)


class SlopeExplorer(PointWidget, MenuSchemeTraits):
    """f near x with its tangent (analytic slope) and a secant (numeric slope).

    The numeric slope nudges x by eps in the chosen dtype; the analytic slope comes from
    autograd in float64 (for an ``autograd.Function``, the slope its backward claims). The zoom
    panel shows x ± 2.5·eps in units of eps, f evaluated in the chosen dtype, so a tiny eps stays
    visible and rounding shows as a staircase. The defaults (x² at 2, eps = 1e-3) read numeric
    4.000, analytic 4.000.

    Parameters
    ----------
    f : callable, autograd.Function subclass or str, optional
        A function of a tensor (e.g. ``torch.sin``), a custom ``autograd.Function`` (or its
        ``.apply``: the tangent is then the slope its backward claims), or the name of a
        built-in one (``"x²"``, ``"x³"``, ``"sin(x)"``, ...). Default ``"x²"``.
    x : float
        Where to measure the slope. Default 2.0; the x slider moves in steps of 0.05.
    eps : float
        The nudge, 1e-12 … 1. Default 1e-3.
    dtype : torch.dtype or str
        float64 (default), float32, float16 or bfloat16.
    scheme : {"central", "forward"}
    panels : sequence of {"curve", "zoom"}, optional
        The pictures to show (default both): the overview of f with both lines, the zoom.

    Attributes
    ----------
    function_dropdown, x_slider, x_down, x_up, eps_slider, eps_down, eps_up, eps_text,
    dtype_buttons, scheme_buttons : gradkit.widgets.base.Control
        Handles onto the page's controls: ``.value``, ``.click()``; the page alone presses
        − / + and ÷10 / ×10 and reads ``eps_text``: their ``.click()`` and
        ``eps_text.value = ...`` raise a TypeError naming the value to set.
    function, x, eps, eps_exact, dtype, scheme, panels
        The values the page shows (``state`` holds them all; see
        :class:`~gradkit.widgets.base.point.PointWidget` for x, eps and dtype).
    numeric, analytic : float
        The slopes the page shows now.
    """

    css = "gradkit-slope-explorer"
    view = "slopeView"
    scripts = ("slope/slope.js",)
    PANELS = ("curve", "zoom")
    READOUTS = (
        "numeric",
        "analytic",
        "abs_error",
        "rel_error",
        ("eps", "gradkit-eps-readout"),
        "note",
    )

    def __init__(
        self,
        f: Callable | str | type | None = None,
        x: float = 2.0,
        eps: float = 1e-3,
        dtype: torch.dtype | str = torch.float64,
        scheme: str = "central",
        *,
        panels: Sequence[str] | None = None,
    ) -> None:
        menu, selected = function_menu(f, "x²")
        scheme, dtype = check_scheme(scheme, WIDGET_SCHEMES), as_dtype(dtype)
        x, eps = check_x(x), eps_of(eps_state(eps))
        super().__init__(panels)
        with self.building():
            self.function_row(menu, selected)
            rows = self.point_rows(x, eps, lo=-3.0, hi=3.0, step=0.05)
            self.dtype_buttons = dtype_toggle(self, dtype)
            self.scheme_buttons = scheme_toggle(self, scheme)
            self.layout(
                "SlopeExplorer",
                "nudge x by eps and compare the measured slope with the exact one",
                [self.function_dropdown, *rows, self.dtype_buttons, self.scheme_buttons],
                list(self.READOUTS),
                alt="f near x with its tangent and secant, and a zoom in units of eps",
            )
            self.track_x(_measure)

    # ------------------------------------------------------------------------------ state
    @property
    def numeric(self) -> float:
        """The numeric slope the page shows now (read from the row sent)."""
        s = WIDGET_SCHEMES.index(self.scheme_buttons.value)
        d, c = list(DTYPES).index(self.dtype), FIELDS.index("numeric")
        return float(self.eps_column("rows", 2)[s, d, 0, c])

    @property
    def analytic(self) -> float:
        """The analytic slope at x (what autograd, or your backward, says), in float64."""
        return float(self.point["analytic"])

    # ---------------------------------------------------------------------- what is sent
    def new_function(self) -> None:
        """A new function: its curve once, then the positions around x."""
        lo, hi = (self.x_at(self.x_slider.spec[end]) for end in ("lo", "hi"))
        self._curve = curve(self.f, lo, hi)
        super().new_function()

    def scene_of(self, measured: list, label: str | None = None) -> dict:
        label = label or self.function_dropdown.value
        return {
            "function": label,
            "custom": function_owner(self._menu[label]) is not None,  # its backward gives the slope
            "dtypes": list(DTYPES),
            "schemes": list(WIDGET_SCHEMES),
            "fields": list(FIELDS),
            "offsets": {s: list(SCHEMES[s][:2]) for s in WIDGET_SCHEMES},
            "half_width": HALF_WIDTH,
            "zoom_points": ZOOM_POINTS,
            "view_half_width": VIEW_HALF_WIDTH,
        }

    def arrays_of(self, measured: list) -> dict[str, np.ndarray]:
        return {**stack_points(measured), **self._curve}

    def answer_arrays(self, f: Callable, measured: list) -> dict[str, np.ndarray]:
        """Another function's arrays for a page with no kernel: its curve around x alone, and no
        zoom table where the zoom panel is not shown (a static page cannot open it)."""
        arrays = {**stack_points(measured), **curve(f, self.x_value, self.x_value)}
        if "zoom" not in self.panels:
            del arrays["zoom"]
        return arrays

    def exact_of(self, eps: float, k: int) -> dict[str, np.ndarray]:
        rows, zoom = slope_rows(self.f, self.x_at(k), [eps])
        return {"rows": rows, "zoom": zoom}
