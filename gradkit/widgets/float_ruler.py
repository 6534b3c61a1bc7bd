"""FloatRuler: the representable numbers around x, and where x - eps and x + eps land.

A new x makes a new table (:func:`~gradkit.widgets._ruler_table.ruler_table`: every grid eps ×
dtype), so the browser answers eps and dtype moves without the kernel; a typed eps off the grid
is measured by the kernel for every dtype at once.
"""

from __future__ import annotations

import torch

from .. import plots
from .._args import DTYPES, as_dtype, check_control_eps, check_x
from . import _floats
from ._base import GradkitWidget
from ._format import json_safe
from ._ruler_table import FIELDS, ruler_cell, ruler_table
from ._stage import Stage

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
    view = "float_ruler"

    def __init__(
        self, x: float = 0.5, eps: float = 1e-6, dtype: torch.dtype | str = torch.float32
    ) -> None:
        dtype, x, eps = as_dtype(dtype), check_x(x), check_control_eps(eps)
        super().__init__()
        with self._building():
            self.ruler: _floats.Ruler | None = None
            self._table_x: float | None = None
            self._build_controls(x, eps, dtype)
            self._build_picture()
            self.alt = "a ruler of the representable numbers near x and where x ± eps land"
            self.guard(self._update)(full=True)

    def _build_controls(self, x: float, eps: float, dtype: torch.dtype) -> None:
        self._make_x_controls(
            x, self._update, lo=-4.0, hi=4.0, step=0.01, tooltip="the number to look around"
        )
        self._make_eps_controls(eps, self._update)
        # eps on the grid and the dtype are answered from the table in the browser
        self.dtype_buttons = self.make_dtype_buttons(dtype, scene=False)
        self.eps_slider.spec["scene"] = False  # drawn from the table, no round trip
        readouts = [
            self.readout(name, css)
            for name, css in (
                ("x", "gradkit-x-readout"),
                ("ulp", "gradkit-ulp"),
                ("landing", "gradkit-landing"),
                ("step", "gradkit-step"),
                ("collapse", "gradkit-collapse"),
            )
        ]
        self.x_readout, self.ulp_readout, self.landing_readout = readouts[:3]
        self.step_readout, self.collapse_readout = readouts[3:]
        self.dtype_buttons.observe(lambda change: self._update())
        self._layout(
            "FloatRuler",
            "the numbers a dtype can hold near x, and where x ± eps land",
            [self.x_slider, self.eps_slider, self.eps_text, self.dtype_buttons],
            readouts,
        )

    def _build_picture(self) -> None:
        self._stage = Stage(self, (8.6, 3.2))
        fig = self._stage.figure
        top = fig.add_axes((0.04, 0.63, 0.92, 0.27))
        bottom = fig.add_axes((0.04, 0.14, 0.92, 0.26))
        self._stage.axes = {"view": top, "zoom": bottom}
        self.artists = plots.draw_float_ruler(top, bottom)
        for artist in self.artists.animated:  # the browser draws these from the table
            artist.set_animated(True)

    @property
    def dtype(self) -> torch.dtype:
        """The dtype currently selected."""
        return self.dtype_buttons.value

    def _update(self, full: bool = False) -> None:
        """Show the current (x, eps, dtype); a new x also makes a new table (a new scene)."""
        x, eps, dtype = float(self.x_slider.value), self.eps, self.dtype
        if full or self._table_x != x:
            table, scene = ruler_table(x)
            self._table_x = x
            with self.hold_sync():
                self.table = table
                self.scene = scene
            self._stage.redraw()  # a new scene: the browser reloads the table with the image
        cell = ruler_cell(x, eps, dtype)
        r = cell["ruler"]
        self.ruler = r
        n = cell["numbers"]
        plots.update_float_ruler(
            self.artists,
            view_ticks=cell["view_ticks"],
            lower=n["view_lower"],
            upper=n["view_upper"],
            zoom_ticks=cell["zoom_ticks"],
            zoom_lower=n["zoom_lower"],
            zoom_upper=n["zoom_upper"],
            eps_in_ulps=n["eps_in_ulps"],
        )
        for name, text in cell["readouts"].items():
            getattr(self, _READOUT_ATTRS[name]).value = text
        self._send_exact(x, eps)

    def _send_exact(self, x: float, eps: float) -> None:
        """A typed eps off the grid: its cells for every dtype (a dtype switch stays in the
        browser); on the grid, nothing (the table has it)."""
        if self.values.get("eps_exact") is None:
            if self.exact:
                self.exact = {}
            return
        cells = {name: ruler_cell(x, eps, DTYPES[name]) for name in DTYPES}
        self.exact = json_safe(
            {
                "eps": eps,
                "x": x,
                "fields": list(FIELDS),
                "cells": {
                    name: {
                        "numbers": [c["numbers"][f] for f in FIELDS],
                        "view_ticks": c["view_ticks"],
                        "zoom_ticks": c["zoom_ticks"],
                        "readouts": c["readouts"],
                    }
                    for name, c in cells.items()
                },
            }
        )


_READOUT_ATTRS = {
    "x": "x_readout",
    "ulp": "ulp_readout",
    "landing": "landing_readout",
    "step": "step_readout",
    "collapse": "collapse_readout",
}
