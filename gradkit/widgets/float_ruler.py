"""FloatRuler: the representable numbers around x, and where x - eps and x + eps land."""

from __future__ import annotations

import math

import numpy as np
import torch

from .. import plots
from .._args import DTYPES, EPS_GRID, dtype_name
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

__all__ = ["FIELDS", "FloatRuler", "ruler_cell", "ruler_table"]

#: The numbers of one (eps, dtype) cell of the FloatRuler table, in this order (float64 each;
#: flags are 0 or 1). ``view_*`` are offsets from x in units of eps (the top axes), ``zoom_*`` in
#: ulps of x (the bottom axes).
FIELDS: tuple[str, ...] = (
    "x",
    "h",
    "ulp",
    "lower",
    "upper",
    "view_lower",
    "view_upper",
    "zoom_lower",
    "zoom_upper",
    "eps_in_ulps",
    "ulps_between",
    "underflow",
    "collapsed",
    "lower_collapsed",
    "upper_collapsed",
)


def ruler_cell(x: float, eps: float, dtype: torch.dtype) -> dict:
    """Everything FloatRuler shows for one (x, eps, dtype), computed by torch in ``dtype``.

    Returns
    -------
    dict
        ``ruler`` (the :class:`~gradkit.widgets._floats.Ruler`), ``numbers`` (FIELDS -> float),
        ``view_ticks`` (offsets / eps of the representable numbers in the top axes, or None when
        too dense to draw), ``zoom_ticks`` (offsets / ulp in the bottom axes) and ``readouts``
        (readout name -> HTML, the strings Python and the browser show).
    """
    return _cell_of(x, eps, dtype, _floats.ruler(x, eps, dtype))


def _cell_of(x: float, eps: float, dtype: torch.dtype, r: _floats.Ruler) -> dict:
    """:func:`ruler_cell` from a ruler already measured."""
    nan = math.nan
    # where x - eps and x + eps land: offset / eps on top, offset / ulp below
    view = ((r.lower - r.x) / eps, (r.upper - r.x) / eps) if not r.underflow else (nan, nan)
    zoom = ((r.lower - r.x) / r.ulp, (r.upper - r.x) / r.ulp)
    numbers = {
        "x": r.x,
        "h": r.h,
        "ulp": r.ulp,
        "lower": r.lower,
        "upper": r.upper,
        "view_lower": view[0],
        "view_upper": view[1],
        "zoom_lower": zoom[0] if not r.underflow else nan,
        "zoom_upper": zoom[1] if not r.underflow else nan,
        "eps_in_ulps": eps / r.ulp,
        "ulps_between": (r.upper - r.x) / r.ulp,
        "underflow": float(r.underflow),
        "collapsed": float(r.collapsed),
        "lower_collapsed": float(r.lower_collapsed),
        "upper_collapsed": float(r.upper_collapsed),
    }
    return {
        "ruler": r,
        "numbers": numbers,
        "view_ticks": None if r.view_ticks is None else r.view_ticks.tolist(),
        "zoom_ticks": r.zoom_ticks.tolist(),
        "readouts": _readouts(x, eps, dtype_name(dtype), r),
    }


def ruler_table(x: float) -> tuple[bytes, dict]:
    """The FloatRuler table for x: every EPS_GRID position for every dtype, computed ahead.

    Returns
    -------
    (bytes, dict)
        The float64 table (``NF`` numbers per cell, cell ``d * G + g`` for dtype ``d`` and grid
        position ``g``; then every cell's view ticks, then every cell's zoom ticks) and the scene
        dict that says how to read it (``view_at`` / ``view_n``: where a cell's view ticks start
        in the table and how many (-1: too dense to draw), ``zoom_at`` / ``zoom_n`` likewise,
        ``readouts``: per cell, readout name -> HTML).
    """
    names = list(DTYPES)
    G, D, NF = len(EPS_GRID), len(names), len(FIELDS)
    numbers: list[float] = []
    view_parts: list[list[float]] = []
    zoom_parts: list[list[float]] = []
    readouts: list[dict] = []
    for name in names:
        measured = _floats.rulers(x, EPS_GRID, DTYPES[name])  # one batched pass per dtype
        for eps, r in zip(EPS_GRID, measured, strict=True):
            cell = _cell_of(x, eps, DTYPES[name], r)
            numbers.extend(cell["numbers"][f] for f in FIELDS)
            view_parts.append(cell["view_ticks"])
            zoom_parts.append(cell["zoom_ticks"])
            readouts.append(cell["readouts"])
    flat = list(numbers)
    view_at, view_n, zoom_at, zoom_n = [], [], [], []
    for ticks in view_parts:
        view_at.append(len(flat) if ticks is not None else -1)
        view_n.append(len(ticks) if ticks is not None else -1)
        flat.extend(ticks or [])
    for ticks in zoom_parts:
        zoom_at.append(len(flat))
        zoom_n.append(len(ticks))
        flat.extend(ticks)
    scene = {
        "x": float(x),
        "dtypes": names,
        "fields": list(FIELDS),
        "G": G,
        "D": D,
        "NF": NF,
        "view_at": view_at,
        "view_n": view_n,
        "zoom_at": zoom_at,
        "zoom_n": zoom_n,
        "readouts": readouts,
    }
    return np.asarray(flat, dtype=np.float64).tobytes(), scene


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
        dtype, x, eps = dtype_value(dtype), check_x(x), check_eps(eps)
        super().__init__()
        with self._building():
            self.ruler: _floats.Ruler | None = None
            self._table_x: float | None = None
            self._make_x_controls(
                x, self._update, lo=-4.0, hi=4.0, step=0.01, tooltip="the number to look around"
            )
            self._make_eps_controls(eps, self._update)
            # eps on the grid and the dtype are answered from the table in the browser
            self.dtype_buttons = self.make_dtype_buttons(dtype, scene=False)
            self.x_readout = self.readout("x", "gradkit-x-readout")
            self.ulp_readout = self.readout("ulp", "gradkit-ulp")
            self.landing_readout = self.readout("landing", "gradkit-landing")
            self.step_readout = self.readout("step", "gradkit-step")
            self.collapse_readout = self.readout("collapse", "gradkit-collapse")
            self.eps_slider.spec["scene"] = False  # drawn from the table, no round trip

            self._stage = Stage(self, (8.6, 3.2))
            fig = self._stage.figure
            top = fig.add_axes((0.04, 0.63, 0.92, 0.27))
            bottom = fig.add_axes((0.04, 0.14, 0.92, 0.26))
            self._stage.axes = {"view": top, "zoom": bottom}
            self.artists = plots.draw_float_ruler(top, bottom)
            for artist in self.artists.animated:  # the browser draws these from the table
                artist.set_animated(True)

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
        if self.values.get("eps_exact") is None:
            if self.exact:
                self.exact = {}
        else:  # a typed eps off the grid: the exact cells, for every dtype (a dtype switch stays
            # in the browser)
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


def _readouts(x: float, eps: float, name: str, r: _floats.Ruler) -> dict[str, str]:
    """The five readouts (name -> HTML) for one (x, eps, dtype)."""
    out = {}
    stored = "stored exactly" if r.x == x else f"stored as {r.x!r}"
    out["x"] = readout_html("x", f"{x:g}", f"{stored} in {name}")
    out["ulp"] = readout_html(
        "spacing (ulp) at x",
        f"{r.ulp:.3g}",
        (f"= {fmt_plain(r.ulp)}; " if r.ulp >= 1e-20 else "")
        + f"eps is {fmt(eps / r.ulp, '.3g')} ulps",
    )
    if r.underflow:
        out["landing"] = readout_html(
            "x ± eps", "no nudge", f"eps = {fmt_eps(eps)} rounds to 0 in {name}"
        )
    else:
        away = fmt((r.upper - r.x) / r.ulp, ".3g")
        out["landing"] = readout_html(
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
    out["step"] = readout_html("the nudge that really happened", step_text, detail)
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
    out["collapse"] = text
    return out
