"""EpsilonLab: error versus eps for four dtypes, with theory, tolerance and the best eps."""

from __future__ import annotations

import math
from collections.abc import Callable

import ipywidgets as widgets
import torch

from .. import plots
from ..numerics import DTYPES, GRADCHECK_DEFAULTS, SweepResult, dtype_name, sweep, unit_roundoff
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

__all__ = ["EpsilonLab"]

_SCHEMES = ("central", "forward")


class EpsilonLab(Panel):
    """The V-shaped error of the numeric slope versus eps, for float64, float32, float16, bfloat16.

    Curves come from :func:`gradkit.sweep` (computed once per function, x and scheme; moving eps
    only moves a marker). The theory lines show truncation (∝ eps² for central differences) and
    rounding (∝ u/eps) for the chosen dtype; the red line is gradcheck's tolerance
    atol + rtol·|f'(x)|; stars mark each dtype's best eps in theory. At gradcheck's eps = 1e-6
    the float32 curve sits above the tolerance and float64 below it.

    Parameters
    ----------
    f : callable or str, optional
        An elementwise function of a tensor, or a built-in name. Default ``"x³"`` (x² has no
        truncation error with central differences, so its V has no right arm).
    x : float
        Default 0.5.
    eps : float
        Where the marker starts. Default 1e-6 (gradcheck's).
    dtype : torch.dtype or str
        The highlighted dtype. Default float32.
    scheme : {"central", "forward"}

    Attributes
    ----------
    function_dropdown : ipywidgets.Dropdown
    x_slider : ipywidgets.FloatSlider
        With step buttons ``x_down`` and ``x_up``.
    eps_slider : ipywidgets.FloatLogSlider
        With ``eps_down`` (÷10), ``eps_up`` (×10) and ``eps_text`` (type ``1e-6``, Enter).
    dtype_buttons : ipywidgets.ToggleButtons
        The highlighted dtype (values are torch dtypes).
    scheme_buttons : ipywidgets.ToggleButtons
    theory_checkbox : ipywidgets.Checkbox
        Show the theory lines.
    eps_readout, error_readout, tolerance_readout, optimal_readout, table_readout :
    ipywidgets.HTML
        Readouts (CSS class ``gradkit-readout``).
    error_area : ipywidgets.HTML
    figure : matplotlib.figure.Figure
    artists : gradkit.plots.ErrorCurveArtists
        ``artists.curves[name]`` is each dtype's Line2D, ``artists.tolerance`` the tolerance.
    sweep : gradkit.SweepResult
        The curves on the eps grid.
    at_eps : gradkit.SweepResult
        The same measurement at exactly the current eps.
    """

    css = "gradkit-epsilon-lab"

    def __init__(
        self,
        f: Callable | str | None = None,
        x: float = 0.5,
        eps: float = GRADCHECK_DEFAULTS["eps"],
        dtype: torch.dtype | str = torch.float32,
        scheme: str = "central",
    ) -> None:
        options, selected = function_options(f, "x³")
        if scheme not in _SCHEMES:
            raise ValueError(f"scheme={scheme!r} is not one of {list(_SCHEMES)}")
        dtype, x, eps = dtype_value(dtype), check_x(x), check_eps(eps)
        super().__init__()
        with self._building():
            self._functions = options
            self.sweep: SweepResult | None = None
            self.at_eps: SweepResult | None = None

            self.function_dropdown = widgets.Dropdown(
                options=list(options),
                value=selected,
                description="f(x) =",
                tooltip="the function whose slope is measured",
                style={"description_width": "64px"},
                layout=widgets.Layout(width="260px"),
            )
            self.function_dropdown.add_class("gradkit-function")
            x_row = self._make_x_controls(
                x, self._update_curves, lo=-3.0, hi=3.0, step=0.05, continuous=False
            )
            eps_rows = self._make_eps_controls(eps, self._update_eps)
            self.dtype_buttons = dtype_buttons(dtype, "highlight")
            self.scheme_buttons = widgets.ToggleButtons(
                options=list(_SCHEMES),
                value=scheme,
                description="scheme",
                tooltips=[
                    "(f(x+eps) − f(x−eps)) / (2·eps): truncation ∝ eps²",
                    "(f(x+eps) − f(x)) / eps: truncation ∝ eps",
                ],
                style={"description_width": "64px", "button_width": "80px"},
            )
            self.scheme_buttons.add_class("gradkit-scheme")
            self.theory_checkbox = widgets.Checkbox(
                value=True,
                description="show theory lines",
                indent=False,
                tooltip="truncation and rounding error predicted by Taylor's theorem",
            )
            self.theory_checkbox.add_class("gradkit-theory")

            self.eps_readout = readout("gradkit-eps-readout")
            self.error_readout = readout("gradkit-error-readout")
            self.tolerance_readout = readout("gradkit-tolerance")
            self.optimal_readout = readout("gradkit-optimal")
            self.table_readout = readout("gradkit-table")

            self._stage = Stage((8.6, 4.2))
            ax = self._stage.figure.add_axes((0.08, 0.12, 0.66, 0.76))
            self.artists = plots.draw_error_curves(ax, tuple(DTYPES))
            cursor = self.artists.cursor
            self._stage.animate(*[a for a in self.artists.animated if a not in cursor])
            self._stage.animate(*cursor, layer=1)

            self._observe(self.function_dropdown, self._update_curves)
            self._observe(self.scheme_buttons, self._update_curves)
            self._observe(self.dtype_buttons, self._update_highlight)
            self._observe(self.theory_checkbox, self._update_highlight)
            self._assemble(
                "EpsilonLab",
                "why the error of a numeric slope is V-shaped, and where gradcheck's eps sits",
                [
                    self.function_dropdown,
                    x_row,
                    *eps_rows,
                    self.dtype_buttons,
                    self.scheme_buttons,
                    self.theory_checkbox,
                ],
                [
                    self.eps_readout,
                    self.error_readout,
                    self.tolerance_readout,
                    self.optimal_readout,
                    self.table_readout,
                ],
            )
            self.guard(self._update_curves)()

    @property
    def f(self) -> Callable:
        """The function currently selected."""
        return self._functions[self.function_dropdown.value]

    @property
    def dtype(self) -> torch.dtype:
        """The highlighted dtype."""
        return self.dtype_buttons.value

    # ---------------------------------------------------------------------------- updates

    def _update_curves(self) -> None:
        """Function, x or scheme changed: a new sweep, new curves and limits (full draw)."""
        x, scheme = float(self.x_slider.value), self.scheme_buttons.value
        result = sweep(self.f, x, scheme=scheme)
        self.sweep = result
        curves = result.dtypes
        plots.update_error_curves(
            self.artists,
            eps=result.eps.numpy(),
            errors={k: d.error.numpy() for k, d in curves.items()},
            underflow={k: d.underflow.numpy() for k, d in curves.items()},
            optimal={k: (d.optimal_eps, d.optimal_error) for k, d in curves.items()},
            truncation=next(iter(curves.values())).truncation.numpy(),
            rounding={k: d.rounding.numpy() for k, d in curves.items()},
            tolerance=result.tolerance,
            title=(
                f"error of the numeric slope of {self.function_dropdown.value} at x = {x:g} "
                f"({scheme} difference)"
            ),
        )
        self.at_eps = None
        self._update_highlight(full=True)

    def _update_highlight(self, full: bool = False) -> None:
        """Highlighted dtype or theory switch changed: restyle the curves (blit)."""
        plots.update_error_highlight(
            self.artists, dtype_name(self.dtype), show_theory=self.theory_checkbox.value
        )
        self._show(full=full, layer=0)

    def _update_eps(self) -> None:
        """eps changed: measure at exactly this eps, move the marker (blit the cursor only)."""
        self.at_eps = None
        self._show(layer=1)

    def _show(self, full: bool = False, layer: int = 1) -> None:
        eps = float(self.eps_slider.value)
        if self.at_eps is None:  # every dtype at exactly this eps, in one call
            self.at_eps = sweep(
                self.f, float(self.x_slider.value), eps=[eps], scheme=self.scheme_buttons.value
            )
        name = dtype_name(self.dtype)
        plots.update_error_marker(self.artists, eps, float(self.at_eps.dtypes[name].error[0]))
        self._show_readouts(eps, name)
        if full:
            self._stage.redraw()
        else:
            self._stage.refresh(layer)

    # --------------------------------------------------------------------------- readouts

    def _show_readouts(self, eps: float, name: str) -> None:
        at, full = self.at_eps, self.sweep
        tol = at.tolerance
        self.eps_readout.value = readout_html("eps", f"{eps:.1e}", f"= {fmt_plain(eps)}")
        self.error_readout.value = readout_html(
            f"{name} error at this eps",
            _error_text(at.dtypes[name], 0),
            _verdict(at.dtypes[name], tol),
        )
        slope = float(at.analytic[0])
        self.tolerance_readout.value = readout_html(
            "gradcheck tolerance",
            fmt(tol, ".2g"),
            f"= atol + rtol·|f′(x)| = {at.atol:g} + {at.rtol:g}·{fmt(abs(slope), '.4g')}",
        )
        d = full.dtypes[name]
        if math.isfinite(d.optimal_eps):
            theory = f"theory {d.optimal_eps:.2g} (error ≈ {d.optimal_error:.1g})"
        else:
            theory = "theory: no best eps (no truncation error here, larger is better)"
        self.optimal_readout.value = readout_html(
            f"best eps for {name}",
            f"{d.best_eps:.2g}",
            f"measured on the grid (error {fmt(d.best_error, '.1g')}); {theory}",
        )
        rows = []
        for k, dt in at.dtypes.items():
            style = "font-weight:bold" if k == name else ""
            ok = bool(dt.passes[0])
            mark = (
                "<span style='color:#1b7f3b'>passes</span>"
                if ok
                else "<span style='color:#B3261E'>fails</span>"
            )
            rows.append(
                f"<tr style='{style}'><td>{k}</td><td style='padding:0 10px'>"
                f"{_error_text(dt, 0)}</td><td>{mark}</td>"
                f"<td style='color:#555;padding-left:8px'>"
                f"u = {unit_roundoff(DTYPES[k]):.1g}</td></tr>"
            )
        self.table_readout.value = (
            f"<div style='color:#444'>at eps = {eps:.1e}, against the tolerance {tol:.2g}:</div>"
            f"<table>{''.join(rows)}</table>"
        )


def _error_text(d, i: int) -> str:
    if bool(d.underflow[i]):
        return "no slope (eps rounds to 0)"
    error = float(d.error[i])
    text = fmt(error, ".2e")
    if bool(d.collapsed[i]):
        text += " (x ± eps round to x: slope 0)"
    return text


def _verdict(d, tolerance: float) -> str:
    if bool(d.underflow[0]):
        return "gradcheck could not measure a slope"
    error = float(d.error[0])
    if math.isnan(error):
        return "no measurement: f or its slope is NaN here (outside its domain?)"
    if bool(d.passes[0]):
        return f"within the tolerance {tolerance:.2g}: gradcheck passes"
    times = error / tolerance if tolerance > 0 else math.inf
    return f"{fmt(times, '.3g')} × the tolerance {tolerance:.2g}: gradcheck fails"
