"""FloatRuler: the representable numbers around x, and where x - eps and x + eps land."""

from __future__ import annotations

import math

import torch

from .. import plots
from .._args import dtype_name
from . import _floats
from ._base import (
    GradkitWidget,
    Stage,
    check_eps,
    check_x,
    dtype_value,
    fmt,
    fmt_eps,
    fmt_plain,
    json_safe,
    readout_html,
)

__all__ = ["FloatRuler"]


class FloatRuler(GradkitWidget):
    """A ruler of the numbers a dtype can hold near x, and where x ± eps really land.

    Top: x ± 1.6·eps in units of eps; the requested points x − eps and x + eps sit at −1 and +1,
    and the filled dots show where they land once rounded to the dtype (on x itself when eps is
    below half the spacing: then f(x + eps) − f(x − eps) = 0 and the numeric slope is exactly 0).
    Bottom: 8 spacings (ulps) either side of x.

    Parameters
    ----------
    x : float
        Default 0.5.
    eps : float
        Default 1e-6.
    dtype : torch.dtype or str
        Default float32.

    Attributes
    ----------
    x_slider : Control
        With step buttons ``x_down`` and ``x_up``.
    eps_slider : Control
        With ``eps_down`` (÷10), ``eps_up`` (×10) and ``eps_text`` (type ``1e-6``, Enter).
    dtype_buttons : Control
        Values are torch dtypes.
    x_readout, ulp_readout, landing_readout, step_readout, collapse_readout : Readout
        Readouts (CSS class ``gradkit-readout``).
    error_area : ipywidgets.HTML
    figure : matplotlib.figure.Figure
    artists : gradkit.plots.RulerArtists
    ruler : the latest measurement (``.x``, ``.ulp``, ``.lower``, ``.upper``, ``.collapsed`` ...)
    """

    css = "gradkit-float-ruler"
    view = "generic"

    def __init__(
        self, x: float = 0.5, eps: float = 1e-6, dtype: torch.dtype | str = torch.float32
    ) -> None:
        dtype, x, eps = dtype_value(dtype), check_x(x), check_eps(eps)
        super().__init__()
        with self._building():
            self.ruler: _floats.Ruler | None = None
            self._make_x_controls(
                x, self._update, lo=-4.0, hi=4.0, step=0.01, tooltip="the number to look around"
            )
            self._make_eps_controls(eps, self._update)
            self.dtype_buttons = self.make_dtype_buttons(dtype, scene=True)
            self.x_readout = self.readout("x", "gradkit-x-readout")
            self.ulp_readout = self.readout("ulp", "gradkit-ulp")
            self.landing_readout = self.readout("landing", "gradkit-landing")
            self.step_readout = self.readout("step", "gradkit-step")
            self.collapse_readout = self.readout("collapse", "gradkit-collapse")
            self.eps_slider.spec["scene"] = True  # the kernel redraws the ruler (round trip)

            self._stage = Stage(self, (8.6, 3.2))
            fig = self._stage.figure
            top = fig.add_axes((0.04, 0.63, 0.92, 0.27))
            bottom = fig.add_axes((0.04, 0.14, 0.92, 0.26))
            self._stage.axes = {"view": top, "zoom": bottom}
            self.artists = plots.draw_float_ruler(top, bottom)

            self.dtype_buttons.observe(lambda change: self._update())
            self._layout(
                "FloatRuler",
                "the numbers a dtype can hold near x, and where x ± eps land",
                [self.x_slider, self.eps_slider, self.eps_text, self.dtype_buttons],
                [
                    self.x_readout,
                    self.ulp_readout,
                    self.landing_readout,
                    self.step_readout,
                    self.collapse_readout,
                ],
            )
            self.alt = "a ruler of the representable numbers near x and where x ± eps land"
            self.guard(self._update)(full=True)

    @property
    def dtype(self) -> torch.dtype:
        """The dtype currently selected."""
        return self.dtype_buttons.value

    def _update(self, full: bool = False) -> None:
        x, eps, dtype = float(self.x_slider.value), self.eps, self.dtype
        r = _floats.ruler(x, eps, dtype)
        self.ruler = r
        name = dtype_name(dtype)
        ticks = r.view_ticks.numpy() if r.view_ticks is not None else None
        in_eps = (
            ((r.lower - r.x) / eps, (r.upper - r.x) / eps) if not r.underflow else (math.nan,) * 2
        )
        in_ulps = ((r.lower - r.x) / r.ulp, (r.upper - r.x) / r.ulp)
        plots.update_float_ruler(
            self.artists,
            view_ticks=ticks,
            lower=in_eps[0],
            upper=in_eps[1],
            zoom_ticks=r.zoom_ticks.numpy(),
            zoom_lower=in_ulps[0] if not r.underflow else math.nan,
            zoom_upper=in_ulps[1] if not r.underflow else math.nan,
            eps_in_ulps=eps / r.ulp,
        )
        self._show_readouts(x, eps, name, r)
        # what the picture shows, for a browser test to hold against the readouts
        self.scene = json_safe(
            {
                "drawn": {
                    "eps": fmt_eps(eps),
                    "dtype": name,
                    "x": r.x,
                    "landed_in_eps": list(in_eps),  # top axes ("view"), offsets / eps
                    "landed_in_ulps": list(in_ulps),  # bottom axes ("zoom"), offsets / ulp
                    "ulps_between": (r.upper - r.x) / r.ulp,
                    "underflow": r.underflow,
                    "collapsed": r.collapsed,
                }
            }
        )
        self._stage.redraw()  # the kernel draws the whole ruler (one PNG per change)

    def _show_readouts(self, x: float, eps: float, name: str, r: _floats.Ruler) -> None:
        stored = "stored exactly" if r.x == x else f"stored as {r.x!r}"
        self.x_readout.value = readout_html("x", f"{x:g}", f"{stored} in {name}")
        self.ulp_readout.value = readout_html(
            "spacing (ulp) at x",
            f"{r.ulp:.3g}",
            (f"= {fmt_plain(r.ulp)}; " if r.ulp >= 1e-20 else "")
            + f"eps is {fmt(eps / r.ulp, '.3g')} ulps",
        )
        if r.underflow:
            self.landing_readout.value = readout_html(
                "x ± eps", "no nudge", f"eps = {fmt_eps(eps)} rounds to 0 in {name}"
            )
        else:
            away = fmt((r.upper - r.x) / r.ulp, ".3g")
            self.landing_readout.value = readout_html(
                "x − eps → ",
                repr(r.lower),
                f"x + eps → <b>{r.upper!r}</b> ({away} ulps above x)",
            )
        if r.underflow or r.collapsed:
            step_text, detail = "0", "no nudge survives the rounding"
        else:
            real = r.step_up + r.step_down
            detail = (
                f"(x + eps) − (x − eps) = {real:.6g} instead of 2·eps = {2 * eps:.6g} "
                f"({fmt(real / (2 * eps), '.4g')} × 2·eps)"
            )
            step_text = f"{real / 2:.4g}"
        self.step_readout.value = readout_html("the nudge that really happened", step_text, detail)
        if r.underflow:
            text = (
                f"<span class='gk-bad'>eps = {fmt_eps(eps)} is below the smallest {name} number: "
                "it rounds to 0, so (f(x) − f(x)) / 0 is 0/0 = NaN.</span>"
            )
        elif r.collapsed:
            text = (
                f"<span class='gk-bad'>x − eps and x + eps both land on x: eps is less "
                f"than half the spacing {r.ulp:.3g}, so f(x + eps) − f(x − eps) = 0 and the "
                "numeric slope is exactly 0.</span>"
            )
        elif r.lower_collapsed or r.upper_collapsed:
            side = "x − eps" if r.lower_collapsed else "x + eps"
            text = (
                f"<span style='color:#8a5a00'>{side} lands on x: only one side of the nudge "
                "survives, so the central difference sees half a step.</span>"
            )
        else:
            text = (
                "<span class='gk-good'>x − eps, x and x + eps are three different "
                f"{name} numbers.</span>"
            )
        self.collapse_readout.value = text
