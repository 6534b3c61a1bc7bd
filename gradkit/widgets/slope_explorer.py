"""SlopeExplorer: slide eps and watch the secant (numeric slope) leave the tangent (analytic).

Per scene (function and x) torch computes every eps of the grid for every dtype and scheme in one
batched pass (:func:`~gradkit.widgets._slope_table.slope_table`); the browser moves eps, dtype
and scheme from that table with no kernel message. A typed eps off the grid and a new x or
function go to the kernel.

A scene is sent compactly: the table as float64 buffers, each distinct readout string once
(:func:`~gradkit.widgets._format.pack_strings`), and the static picture redrawn only where it
changes (:class:`~gradkit.widgets._stage.SceneStage`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from .. import plots
from .._args import (
    DTYPES,
    EPS_GRID,
    SCHEMES,
    WIDGET_SCHEMES,
    as_dtype,
    check_control_eps,
    check_scheme,
    check_x,
    dtype_name,
)
from ..numerics import analytic_slope
from . import _floats
from ._base import GradkitWidget
from ._format import fmt, json_safe, pack_strings, readout_html
from ._functions import FunctionChoice, function_options, is_custom_function
from ._slope_table import (
    FIELDS,
    FORMULAS,
    HALF_WIDTH,
    READOUT_KEYS,
    ZOOM_POINTS,
    exact_payload,
    slope_readouts,
    slope_table,
)
from ._stage import SceneStage

__all__ = ["SlopeExplorer"]


class SlopeExplorer(FunctionChoice, GradkitWidget):
    """f near x with its tangent (analytic slope) and a secant (numeric slope).

    The numeric slope nudges x by eps in the chosen dtype; the analytic slope comes from
    autograd in float64 (for an ``autograd.Function``, the slope its backward claims). The right
    panel zooms to x ± 2.5·eps, in units of eps, with f evaluated in the chosen dtype, so a tiny
    eps stays visible and rounding shows up as a staircase. The defaults (x² at 2, eps = 1e-3)
    read numeric 4.000, analytic 4.000.

    Parameters
    ----------
    f : callable, autograd.Function subclass or str, optional
        A function of a tensor (e.g. ``torch.sin``), a custom ``autograd.Function`` (or its
        ``.apply``: the tangent is then the slope its backward claims), or the name of a
        built-in one (``"x²"``, ``"x³"``, ``"sin(x)"``, ...). Default ``"x²"``.
    x : float
        Where to measure the slope. Default 2.0.
    eps : float
        The nudge, 1e-12 … 1. Default 1e-3.
    dtype : torch.dtype or str
        float64 (default), float32, float16 or bfloat16.
    scheme : {"central", "forward"}

    Attributes
    ----------
    function_dropdown, x_slider, x_down, x_up, eps_slider, eps_down, eps_up, eps_text,
    dtype_buttons, scheme_buttons : gradkit.widgets._controls.Control
        Python handles onto the browser's controls: ``.value``, ``.click()``, ``.observe()``.
    numeric_readout, analytic_readout, abs_error_readout, rel_error_readout, eps_readout,
    note_readout : gradkit.widgets._controls.Readout
        ``.value`` is the HTML shown.
    error_area : ``.value`` is the HTML of the error area (empty when all is well).
    figure : matplotlib.figure.Figure
        The static layer (axes, f); the moving lines are drawn by the browser.
    artists : gradkit.plots.SlopeArtists
        The same moving lines in Python (``artists.secant``, ``artists.tangent``, ...).
    numeric, analytic : float
        The current slopes.
    """

    css = "gradkit-slope-explorer"
    view = "slope_explorer"

    def __init__(
        self,
        f: Callable | str | type | None = None,
        x: float = 2.0,
        eps: float = 1e-3,
        dtype: torch.dtype | str = torch.float64,
        scheme: str = "central",
    ) -> None:
        options, selected = function_options(f, "x²")
        scheme = check_scheme(scheme, WIDGET_SCHEMES)
        dtype, x, eps = as_dtype(dtype), check_x(x), check_control_eps(eps)
        super().__init__()
        with self._building():
            self._functions = options
            self.numeric = math.nan
            self.analytic = math.nan
            self._rows = np.empty(0)
            self._zoom = np.empty(0)
            self._ticks: list = []
            self._exact: tuple | None = None
            self._analytic_html = ""
            self._build_controls(selected, x, eps, dtype, scheme)
            self._build_picture()
            self.alt = "f near x with its tangent and secant, and a zoom in units of eps"
            self.guard(self._new_scene)()

    def _build_controls(
        self, selected: str, x: float, eps: float, dtype: torch.dtype, scheme: str
    ) -> None:
        self.function_dropdown = self.dropdown(
            "function", list(self._functions), value=selected, label="f(x) =",
            css="gradkit-function", tooltip="the function whose slope is measured",
        )  # fmt: skip
        self._make_x_controls(x, self._new_scene, lo=-3.0, hi=3.0, step=0.05, continuous=False)
        self._make_eps_controls(eps, self._show_state)
        self.dtype_buttons = self.make_dtype_buttons(dtype)
        self.scheme_buttons = self.toggle(
            "scheme", list(WIDGET_SCHEMES), value=scheme, label="scheme", css="gradkit-scheme",
            tooltips=[
                FORMULAS[s] + ", error ∝ eps" + ("²" if s == "central" else "")
                for s in WIDGET_SCHEMES
            ],
        )  # fmt: skip
        self.numeric_readout = self.readout("numeric", "gradkit-numeric")
        self.analytic_readout = self.readout("analytic", "gradkit-analytic")
        self.abs_error_readout = self.readout("abs_error", "gradkit-abs-error")
        self.rel_error_readout = self.readout("rel_error", "gradkit-rel-error")
        self.eps_readout = self.readout("eps", "gradkit-eps-readout")
        self.note_readout = self.readout("note", "gradkit-note")
        self.function_dropdown.observe(lambda change: self._new_scene())
        self.dtype_buttons.observe(lambda change: self._show_state())
        self.scheme_buttons.observe(lambda change: self._show_state())
        self._layout(
            "SlopeExplorer",
            "nudge x by eps and compare the measured slope with the exact one",
            [self.function_dropdown, self.x_slider, self.eps_slider, self.eps_text,
             self.dtype_buttons, self.scheme_buttons],
            [self.numeric_readout, self.analytic_readout, self.abs_error_readout,
             self.rel_error_readout, self.eps_readout, self.note_readout],
        )  # fmt: skip

    def _build_picture(self) -> None:
        self._stage = SceneStage(self, (8.6, 3.8), moving=["main"])
        fig = self._stage.figure
        ax = fig.add_axes((0.075, 0.14, 0.40, 0.69))
        zoom = fig.add_axes((0.585, 0.14, 0.40, 0.69))
        self._stage.axes = {"main": ax, "zoom": zoom}
        self.artists = plots.draw_slope(ax, zoom)
        for artist in self.artists.animated:
            artist.set_animated(True)  # drawn by the browser, not in the static image

    # ------------------------------------------------------------------------------ state

    @property
    def custom(self) -> bool:
        """Whether f is an autograd.Function: the analytic slope is what its backward says."""
        return is_custom_function(self.f)

    # ---------------------------------------------------------------------------- updates

    def _new_scene(self) -> None:
        """Function or x changed: new curve and limits (a static render) and a new table."""
        x = float(self.x_slider.value)
        t, y = _floats.sample(self.f, x - 1.5, x + 1.5)
        plots.update_slope_view(
            self.artists,
            curve_x=t.numpy(),
            curve_y=y.numpy(),
            title=f"f(x) = {self.function_dropdown.value} near x = {x:g}",
        )
        self._stage.redraw()
        self.analytic = analytic_slope(self.f, x)
        self._rows, self._zoom, self._ticks = slope_table(self.f, x, EPS_GRID, self.analytic)
        self._exact = None
        custom, analytic = self.custom, self.analytic
        self._analytic_html = readout_html(  # the same in every row of the scene
            "analytic (your backward)" if custom else "analytic slope",
            fmt(analytic, ".3f"),
            f"= {fmt(analytic, '.15g')}, "
            + ("what your backward returns, in float64" if custom else "autograd in float64"),
        )
        with self.hold_sync():
            self.table = np.ascontiguousarray(
                np.concatenate([self._rows.ravel(), self._zoom.ravel()])
            ).tobytes()
            self.scene = self._scene(x)
        self._show_state()

    def _scene(self, x: float) -> dict:
        """The scene for the browser: the table's layout and every row's readouts and ticks."""
        fname = self.function_dropdown.value
        cells = [
            (s, sn, d, dn, g)
            for s, sn in enumerate(WIDGET_SCHEMES)
            for d, dn in enumerate(DTYPES)
            for g in range(len(EPS_GRID))
        ]
        # every row's readouts, deduplicated: most rows share most strings (analytic, eps, ...)
        readouts = [
            self._readouts(fname, x, EPS_GRID[g], dn, sn, self._rows[s, d, g])
            for s, sn, d, dn, g in cells
        ]
        strings, index = pack_strings([[r[k] for k in READOUT_KEYS] for r in readouts])
        ticks = [(tuple(self._ticks[s][d][g]),) for s, _, d, _, g in cells]
        tick_sets, tick_index = pack_strings(ticks)
        scene = json_safe(
            {
                "x": x,
                "function": fname,
                "analytic": self.analytic,
                "custom": self.custom,
                "G": len(EPS_GRID),
                "D": len(DTYPES),
                "S": len(WIDGET_SCHEMES),
                "NF": len(FIELDS),
                "NZ": ZOOM_POINTS,
                "fields": list(FIELDS),
                "dtypes": list(DTYPES),
                "schemes": list(WIDGET_SCHEMES),
                "offsets": {s: [SCHEMES[s][0], SCHEMES[s][1]] for s in WIDGET_SCHEMES},
                "half_width": HALF_WIDTH,
                "keys": list(READOUT_KEYS),
                "tick_sets": [list(t) for t in tick_sets],
            }
        )
        # strings and ints hold no NaN: added after json_safe, which need not walk them
        scene.update(strings=strings, readout_index=index, tick_index=tick_index)
        return scene

    def _state_row(self) -> tuple[np.ndarray, np.ndarray, list, float]:
        """The table row of the current eps, dtype and scheme (computed now if eps is typed)."""
        s = WIDGET_SCHEMES.index(self.scheme_buttons.value)
        d = list(DTYPES).index(dtype_name(self.dtype))
        exact = self.values.get("eps_exact")
        if exact is None:
            g = int(self.values["eps"])
            return self._rows[s, d, g], self._zoom[d, g], self._ticks[s][d][g], EPS_GRID[g]
        x = float(self.x_slider.value)
        if self._exact is None or self._exact[0] != (exact, x, self.function_dropdown.value):
            rows, zoom, ticks = slope_table(self.f, x, [exact], self.analytic)
            self._exact = ((exact, x, self.function_dropdown.value), rows, zoom, ticks)
            self.exact = exact_payload(
                rows, zoom, ticks, eps=exact, x=x, fname=self.function_dropdown.value,
                readouts=self._readouts,
            )  # fmt: skip
        _, rows, zoom, ticks = self._exact
        return rows[s, d, 0], zoom[d, 0], ticks[s][d][0], float(exact)

    def _show_state(self) -> None:
        """eps, dtype or scheme changed: look the row up and show it (no static render)."""
        if self._rows.size == 0:
            return
        row, zoom_v, _ticks, eps = self._state_row()
        r = dict(zip(FIELDS, row, strict=True))
        self.numeric = float(r["numeric"])
        scheme = self.scheme_buttons.value
        plus, minus, _, _ = SCHEMES[scheme]
        plots.update_slope(
            self.artists,
            x=r["xs"],
            fx=r["fx"],
            eps=eps,
            analytic=self.analytic,
            numeric=self.numeric,
            offsets=(plus, minus),
            points=(r["p0"], r["p1"]),
            values=(r["v0"], r["v1"]),
            zoom_u=np.linspace(-HALF_WIDTH, HALF_WIDTH, ZOOM_POINTS),
            zoom_v=zoom_v,
        )
        self.artists.zoom_ax.set_ylim(r["lo"], r["hi"])
        x = float(self.x_slider.value)
        texts = self._readouts(
            self.function_dropdown.value, x, eps, dtype_name(self.dtype), scheme, row
        )
        self.readout_html = texts  # outside f's domain the note says so (not an error)

    def _readouts(
        self, fname: str, x: float, eps: float, name: str, scheme: str, row: np.ndarray
    ) -> dict[str, str]:
        """The readouts for one table row (the browser shows these strings as they are)."""
        return slope_readouts(
            row, fname=fname, x=x, eps=eps, dtype_name=name, scheme=scheme,
            analytic=self.analytic, analytic_html=self._analytic_html,
        )  # fmt: skip
