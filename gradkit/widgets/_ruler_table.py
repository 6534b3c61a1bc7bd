"""FloatRuler's table: for one x, every eps of the grid × dtype, measured ahead by torch.

:func:`ruler_table` measures all the grid's eps for a dtype in one batched pass
(:func:`~gradkit.widgets._floats.rulers`) and packs the numbers, the tick positions and the
readouts (:func:`ruler_readouts`) so the browser answers eps and dtype moves on its own.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .._args import DTYPES, EPS_GRID, dtype_name
from . import _floats
from ._format import fmt, fmt_eps, fmt_plain, readout_html

__all__ = ["FIELDS", "ruler_cell", "ruler_readouts", "ruler_table"]

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
        "readouts": ruler_readouts(x, eps, dtype_name(dtype), r),
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
    view_at, view_n = _append_runs(flat, view_parts)
    zoom_at, zoom_n = _append_runs(flat, zoom_parts)
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


def _append_runs(flat: list[float], runs: list[list[float] | None]) -> tuple[list[int], list[int]]:
    """Append each run of ticks to ``flat``: where each starts and how long it is (-1: none)."""
    starts, counts = [], []
    for ticks in runs:
        starts.append(len(flat) if ticks is not None else -1)
        counts.append(len(ticks) if ticks is not None else -1)
        flat.extend(ticks or [])
    return starts, counts


def ruler_readouts(x: float, eps: float, name: str, r: _floats.Ruler) -> dict[str, str]:
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
    out["collapse"] = _collapse_text(eps, name, r)
    return out


def _collapse_text(eps: float, name: str, r: _floats.Ruler) -> str:
    """Whether x - eps, x and x + eps stay three different numbers, and what it means if not."""
    if r.underflow:
        return (
            f"<span class='gk-bad'>eps = {fmt_eps(eps)} is below the smallest {name} number: "
            "it rounds to 0, so (f(x) − f(x)) / 0 is 0/0 = NaN.</span>"
        )
    if r.collapsed:
        return (
            f"<span class='gk-bad'>x − eps and x + eps both land on x: eps is less "
            f"than half the spacing {r.ulp:.3g}, so f(x + eps) − f(x − eps) = 0 and the "
            "numeric slope is exactly 0.</span>"
        )
    if r.lower_collapsed or r.upper_collapsed:
        side = "x − eps" if r.lower_collapsed else "x + eps"
        return (
            f"<span class='gk-warn'>{side} lands on x: only one side of the nudge "
            "survives, so the central difference sees half a step.</span>"
        )
    return (
        f"<span class='gk-good'>x − eps, x and x + eps are three different {name} numbers.</span>"
    )
