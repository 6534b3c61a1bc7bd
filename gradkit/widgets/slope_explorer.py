"""SlopeExplorer: slide eps and watch the secant (numeric slope) leave the tangent (analytic)."""

from __future__ import annotations

import math
from collections.abc import Callable

import ipywidgets as widgets
import torch

from .. import plots
from ..numerics import SCHEMES, analytic_slope, dtype_name, numeric_slopes
from . import _floats
from ._base import (
    Panel,
    Stage,
    check_eps,
    check_x,
    dtype_buttons,
    dtype_value,
    fmt,
    fmt_plain,
    function_options,
    readout,
    readout_html,
)

__all__ = ["SlopeExplorer"]

_SCHEMES = ("central", "forward")
_FORMULA = {
    "central": "(f(x+eps) − f(x−eps)) / (2·eps)",
    "forward": "(f(x+eps) − f(x)) / eps",
}


class SlopeExplorer(Panel):
    """f near x with its tangent (analytic slope) and a secant (numeric slope).

    The numeric slope nudges x by eps in the chosen dtype; the analytic slope comes from
    autograd in float64. The right panel zooms to x ± 2.5·eps, in units of eps, with f evaluated
    in the chosen dtype, so a tiny eps stays visible and rounding shows up as a staircase.
    The defaults reproduce the seed: x² at 2 with eps = 1e-3 reads numeric 4.000, analytic 4.000.

    Parameters
    ----------
    f : callable or str, optional
        A function of a tensor (e.g. ``torch.sin``) or the name of a built-in one
        (``"x²"``, ``"x³"``, ``"sin(x)"``, ``"exp(x)"`` and the zoo's scalar functions).
        Default ``"x²"``.
    x : float
        Where to measure the slope. Default 2.0.
    eps : float
        The nudge, 1e-12 … 1. Default 1e-3.
    dtype : torch.dtype or str
        float64 (default), float32, float16 or bfloat16.
    scheme : {"central", "forward"}

    Attributes
    ----------
    function_dropdown : ipywidgets.Dropdown
        Values are the function names (``"x²"``, ...).
    x_slider : ipywidgets.FloatSlider
        With step buttons ``x_down`` and ``x_up``.
    eps_slider : ipywidgets.FloatLogSlider
        With step buttons ``eps_down`` (÷10) and ``eps_up`` (×10), and ``eps_text``
        (ipywidgets.Text: type ``1e-6`` and press Enter).
    dtype_buttons : ipywidgets.ToggleButtons
        Values are torch dtypes.
    scheme_buttons : ipywidgets.ToggleButtons
        ``"central"`` or ``"forward"``.
    numeric_readout, analytic_readout, abs_error_readout, rel_error_readout, eps_readout,
    note_readout : ipywidgets.HTML
        Readouts (CSS class ``gradkit-readout``); their ``.value`` is the text shown.
    error_area : ipywidgets.HTML
        Messages from failed callbacks (CSS class ``gradkit-error``); empty when all is well.
    figure : matplotlib.figure.Figure
    artists : gradkit.plots.SlopeArtists
        The plotted lines (``artists.secant``, ``artists.tangent``, ``artists.zoom_curve`` ...).
    numeric, analytic : float
        The current slopes.

    Examples
    --------
    >>> SlopeExplorer()  # doctest: +SKIP
    """

    css = "gradkit-slope-explorer"

    def __init__(
        self,
        f: Callable | str | None = None,
        x: float = 2.0,
        eps: float = 1e-3,
        dtype: torch.dtype | str = torch.float64,
        scheme: str = "central",
    ) -> None:
        options, selected = function_options(f, "x²")
        if scheme not in _SCHEMES:
            raise ValueError(f"scheme={scheme!r} is not one of {list(_SCHEMES)}")
        dtype, x, eps = dtype_value(dtype), check_x(x), check_eps(eps)
        super().__init__()
        with self._building():
            self._functions = options
            self.numeric = math.nan
            self.analytic = math.nan

            self.function_dropdown = widgets.Dropdown(
                options=list(options),
                value=selected,
                description="f(x) =",
                tooltip="the function whose slope is measured",
                style={"description_width": "64px"},
                layout=widgets.Layout(width="260px"),
            )
            self.function_dropdown.add_class("gradkit-function")
            x_row = self._make_x_controls(x, self._update_view, lo=-3.0, hi=3.0, step=0.05)
            eps_rows = self._make_eps_controls(eps, self._update_nudge)
            self.dtype_buttons = dtype_buttons(dtype)
            self.scheme_buttons = widgets.ToggleButtons(
                options=list(_SCHEMES),
                value=scheme,
                description="scheme",
                tooltips=[
                    _FORMULA[s] + ", error ∝ eps" + ("²" if s == "central" else "")
                    for s in _SCHEMES
                ],
                style={"description_width": "64px", "button_width": "80px"},
            )
            self.scheme_buttons.add_class("gradkit-scheme")

            self.numeric_readout = readout("gradkit-numeric")
            self.analytic_readout = readout("gradkit-analytic")
            self.abs_error_readout = readout("gradkit-abs-error")
            self.rel_error_readout = readout("gradkit-rel-error")
            self.eps_readout = readout("gradkit-eps-readout")
            self.note_readout = readout("gradkit-note")

            self._stage = Stage((8.6, 3.8))
            fig = self._stage.figure
            ax = fig.add_axes((0.075, 0.14, 0.40, 0.69))
            zoom = fig.add_axes((0.585, 0.14, 0.40, 0.69))
            self.artists = plots.draw_slope(ax, zoom)
            self._stage.animate(*self.artists.animated)

            self._observe(self.function_dropdown, self._update_view)
            self._observe(self.dtype_buttons, self._update_nudge)
            self._observe(self.scheme_buttons, self._update_nudge)
            self._assemble(
                "SlopeExplorer",
                "nudge x by eps and compare the measured slope with the exact one",
                [self.function_dropdown, x_row, *eps_rows, self.dtype_buttons, self.scheme_buttons],
                [
                    self.numeric_readout,
                    self.analytic_readout,
                    self.abs_error_readout,
                    self.rel_error_readout,
                    self.eps_readout,
                    self.note_readout,
                ],
            )
            self.guard(self._update_view)()

    # ------------------------------------------------------------------------------ state

    @property
    def f(self) -> Callable:
        """The function currently selected."""
        return self._functions[self.function_dropdown.value]

    @property
    def dtype(self) -> torch.dtype:
        """The dtype currently selected."""
        return self.dtype_buttons.value

    # ---------------------------------------------------------------------------- updates

    def _update_view(self) -> None:
        """Function or x changed: new curve, new limits, new analytic slope (full draw)."""
        x = float(self.x_slider.value)
        t, y = _floats.sample(self.f, x - 1.5, x + 1.5)
        plots.update_slope_view(
            self.artists,
            curve_x=t.numpy(),
            curve_y=y.numpy(),
            title=f"f(x) = {self.function_dropdown.value} near x = {x:g}",
        )
        self.analytic = analytic_slope(self.f, x)
        self._update_nudge(full=True)

    def _update_nudge(self, full: bool = False) -> None:
        """eps, dtype or scheme changed: new secant and evaluation points (blit)."""
        x, eps, dtype = float(self.x_slider.value), float(self.eps_slider.value), self.dtype
        scheme = self.scheme_buttons.value
        self.numeric = float(numeric_slopes(self.f, x, [eps], dtype=dtype, scheme=scheme)[0])
        land = _floats.landing(self.f, x, eps, dtype, scheme)
        u, v = _floats.zoom_sample(self.f, x, eps, dtype, self.artists.half_width)
        plus, minus, _, _ = SCHEMES[scheme]
        limits_changed = plots.update_slope(
            self.artists,
            x=land.x,
            fx=land.fx,
            eps=eps,
            analytic=self.analytic,
            numeric=self.numeric,
            offsets=(plus, minus),
            points=land.points,
            values=land.values,
            zoom_u=u.numpy(),
            zoom_v=v.numpy(),
        )
        self._show_readouts(x, eps, dtype, scheme, land)
        if full or limits_changed:
            self._stage.redraw()
        else:
            self._stage.refresh()

    def _show_readouts(self, x, eps, dtype, scheme, land: _floats.Landing) -> None:
        name = dtype_name(dtype)
        numeric, analytic = self.numeric, self.analytic
        self.numeric_readout.value = readout_html(
            "numeric slope",
            fmt(numeric, ".3f"),
            f"= {fmt(numeric, '.15g')}, {_FORMULA[scheme]} in {name}",
        )
        self.analytic_readout.value = readout_html(
            "analytic slope",
            fmt(analytic, ".3f"),
            f"= {fmt(analytic, '.15g')}, autograd in float64",
        )
        error = abs(numeric - analytic)
        self.abs_error_readout.value = readout_html(
            "absolute error", fmt(error, ".2e"), "|numeric − analytic|"
        )
        rel = error / abs(analytic) if analytic != 0 else math.nan
        self.rel_error_readout.value = readout_html(
            "relative error",
            fmt(rel, ".2e") if analytic != 0 else "undefined",
            "|numeric − analytic| / |analytic|" if analytic != 0 else "the analytic slope is 0",
        )
        stored = "" if land.h == eps else f"; stored in {name} as {fmt(land.h, '.6g')}"
        self.eps_readout.value = readout_html("eps", f"{eps:.1e}", f"= {fmt_plain(eps)}{stored}")
        self.note_readout.value = _note(self.function_dropdown.value, x, eps, name, land)


def _note(fname: str, x: float, eps: float, name: str, land: _floats.Landing) -> str:
    if land.underflow:
        return (
            f"<span style='color:#B3261E'>eps = {eps:.1e} rounds to 0 in {name}: there is no "
            "nudge, so no slope can be measured (0/0).</span>"
        )
    if not math.isfinite(land.fx):
        return (
            f"<span style='color:#B3261E'>f(x) = {fname} is not defined at x = {x:g} "
            f"(it gives {fmt(land.fx)}); pick another x.</span>"
        )
    if land.collapsed:
        return (
            f"<span style='color:#B3261E'>Both evaluation points round to the same {name} "
            f"number: f is evaluated twice at one point and the numeric slope is exactly 0."
            "</span>"
        )
    return (
        f"The evaluation points land on {fmt(land.points[1], '.10g')} and "
        f"{fmt(land.points[0], '.10g')} in {name}."
    )
