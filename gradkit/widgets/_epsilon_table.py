"""EpsilonLab's table: every grid eps × dtype × scheme, measured and worded ahead, per scene.

Per scene (function and x) :func:`sweep_rows` lays the :func:`gradkit.sweep` results out as one
array of numbers, :func:`row_texts` writes each row's readouts as Python formats them, and
:func:`scene_payload` packs both for the browser, which looks rows up (``labCell`` and
``labExtra`` in ``static/epsilon_lab.js``, the twins of :func:`scene_cell` and
:func:`table_html`) with no kernel message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch

from .. import plots
from .._args import DTYPES, EPS_GRID, WIDGET_SCHEMES
from ..numerics import DtypeSweep, SweepResult, sweep, unit_roundoff
from ..numerics.slopes import analytic_slope
from ._format import (
    fmt,
    fmt_eps,
    fmt_plain,
    json_safe,
    pack_strings,
    readout_html,
    scene_row,
    unpack_strings,
)

__all__ = [
    "CELL_KEYS",
    "FIELDS",
    "domain_problem",
    "exact_rows",
    "row_texts",
    "scene_cell",
    "scene_payload",
    "sweep_rows",
    "table_html",
]

#: The columns of one table row (one eps, one dtype, one scheme).
FIELDS = ("error", "underflow", "collapsed", "passes", "truncation", "rounding", "numeric")
#: The strings of one row of the scene (``r`` readouts, then the table cells and header).
CELL_KEYS = ("eps", "error", "tolerance", "optimal", "cells", "head")

# ------------------------------------------------------------------------------------ numbers


def sweep_rows(result: SweepResult) -> np.ndarray:
    """One sweep as numbers: shape (dtype, eps, field), in DTYPES and FIELDS order, float64."""
    rows = np.full((len(DTYPES), result.eps.numel(), len(FIELDS)), np.nan)
    for d, name in enumerate(DTYPES):
        for k, field in enumerate(FIELDS):
            rows[d, :, k] = getattr(result.dtypes[name], field).to(torch.float64).numpy()
    return rows


def exact_rows(f: Callable, x: float, eps: float) -> np.ndarray:
    """Every scheme and dtype measured at exactly ``eps``: shape (scheme, dtype, field)."""
    return np.stack([sweep_rows(sweep(f, x, eps=[eps], scheme=s))[:, 0] for s in WIDGET_SCHEMES])


def domain_problem(f: Callable, fname: str, x: float) -> str | None:
    """A learner-facing message if f or its slope is not a finite number at x, else None."""
    with torch.no_grad():
        value = f(torch.tensor(x, dtype=torch.float64))
    value = float(value.reshape(-1)[0]) if isinstance(value, torch.Tensor) else float(value)
    if not math.isfinite(value):
        return (
            f"f(x) = {fname} is {fmt(value)} at x = {x:g} (outside its domain, or too large "
            "for float64), so there is no slope to measure; move x"
            + (" to a positive number" if fname.startswith("log") and x <= 0 else "")
        )
    slope = analytic_slope(f, x)
    if not math.isfinite(slope):
        return f"the slope of {fname} at x = {x:g} is {fmt(slope)}; move x"
    return None


# ------------------------------------------------------------------------------------ strings


def _fixed_readouts(result: SweepResult, name: str) -> dict[str, str]:
    """The readouts of one sweep (a scheme) and dtype that are the same at every eps."""
    tol = result.tolerance
    ds = result.dtypes[name]
    if math.isfinite(ds.optimal_eps):
        theory = f"theory {ds.optimal_eps:.2g} (error ≈ {ds.optimal_error:.1g})"
    else:
        theory = "theory: no best eps (no truncation error here, larger is better)"
    slope = float(result.analytic.reshape(-1)[0])
    return {
        "tolerance": readout_html(
            "gradcheck tolerance",
            fmt(tol, ".3g"),
            f"= atol + rtol·|f′(x)| = {result.atol:g} + {result.rtol:g}·{fmt(abs(slope), '.4g')}",
        ),
        "optimal": readout_html(
            f"best eps for {name}",
            f"{ds.best_eps:.2g}",
            f"measured on the grid (error {fmt(ds.best_error, '.1g')}); {theory}",
        ),
        "u": "</td><td class='gk-r-detail' style='padding-left:8px'>"
        f"u = {unit_roundoff(DTYPES[name]):.1g}</td>",
    }


def _readouts(tolerance: float, fixed: dict, name: str, eps: float, row: np.ndarray) -> dict:
    """Readouts of one dtype at one eps: ``{"r": {key: html}, "cells": ..., "head": ...}``."""
    r = dict(zip(FIELDS, row, strict=True))
    error_text = _error_text(r)
    texts = {
        "eps": readout_html("eps", fmt_eps(eps), f"= {fmt_plain(eps)}"),
        "error": readout_html(f"{name} error at this eps", error_text, _verdict(r, tolerance)),
        "tolerance": fixed["tolerance"],
        "optimal": fixed["optimal"],
    }
    passes = (
        "<span class='gk-good'>passes</span>"
        if r["passes"]
        else "<span class='gk-bad'>fails</span>"
    )
    cells = f"<td>{name}</td><td style='padding:0 10px'>{error_text}</td><td>{passes}{fixed['u']}"
    head = (
        f"<div class='gk-r-label'>at eps = {fmt_eps(eps)}, against the tolerance "
        f"{fmt(tolerance, '.3g')}:</div>"
    )
    return {"r": texts, "cells": cells, "head": head}


def row_texts(sweeps: Mapping[str, SweepResult], rows: np.ndarray, eps: Sequence[float]) -> list:
    """Each row's readouts, ``texts[s][d][g]``, for rows of shape (scheme, dtype, eps, field).

    ``sweeps`` (by scheme) gives the tolerance and the readouts that do not depend on eps.
    """
    texts: list = []
    for s, scheme in enumerate(WIDGET_SCHEMES):
        result = sweeps[scheme]
        texts.append([])
        for d, name in enumerate(DTYPES):
            fixed = _fixed_readouts(result, name)  # the same at every eps
            texts[s].append(
                [
                    _readouts(result.tolerance, fixed, name, e, rows[s, d, g])
                    for g, e in enumerate(eps)
                ]
            )
    return texts


def _error_text(r: dict) -> str:
    """The error as the readout and the table write it (or why there is none)."""
    if r["underflow"]:
        return "no slope (eps rounds to 0)"
    text = fmt(float(r["error"]), ".2e")
    if r["collapsed"]:
        text += " (x ± eps round to x: slope 0)"
    return text


def _verdict(r: dict, tolerance: float) -> str:
    """gradcheck's verdict at this eps, and by how much it misses (error / tolerance)."""
    if r["underflow"]:
        return "gradcheck could not measure a slope"
    error = float(r["error"])
    if math.isnan(error):
        return "no measurement: f or its slope is NaN here (outside its domain?)"
    if r["passes"]:
        return f"within the tolerance {fmt(tolerance, '.3g')}: gradcheck passes"
    times = error / tolerance if tolerance > 0 else math.inf
    return f"{fmt(times, '.3g')} × the tolerance {fmt(tolerance, '.3g')}: gradcheck fails"


# ---------------------------------------------------------------------------- the scene


def scene_payload(x: float, fname: str, sweeps: Mapping[str, SweepResult], texts: list) -> dict:
    """The scene the browser draws from (the numbers travel apart, as the ``table`` bytes).

    Each distinct readout string is sent once, with per row (scheme, dtype, grid eps) the indices
    of its :data:`CELL_KEYS` strings.
    """
    strings, index = pack_strings(
        [
            [_cell(cell, k) for k in CELL_KEYS]
            for by_dtype in texts
            for by_eps in by_dtype
            for cell in by_eps
        ]
    )
    scene = json_safe(
        {
            "x": x,
            "function": fname,
            "G": len(EPS_GRID),
            "D": len(DTYPES),
            "NF": len(FIELDS),
            "fields": list(FIELDS),
            "dtypes": list(DTYPES),
            "schemes": list(WIDGET_SCHEMES),
            "eps": list(EPS_GRID),
            "tolerance": sweeps["central"].tolerance,
            "per_dtype": [[_optima(sweeps[s].dtypes[n]) for n in DTYPES] for s in WIDGET_SCHEMES],
            "colors": {k: v[0] for k, v in plots.DTYPE_STYLES.items()},
            "markers": {k: v[1] for k, v in plots.DTYPE_STYLES.items()},
            "styles": {k: v[2] for k, v in plots.DTYPE_STYLES.items()},
            "keys": list(CELL_KEYS),
        }
    )
    # strings and ints hold no NaN: added after json_safe, which need not walk them
    scene.update(strings=strings, cell_index=index)
    return scene


def _optima(ds: DtypeSweep) -> dict[str, float]:
    """Theory's best eps and the grid's, with their errors (the stars and the readout)."""
    return {
        "optimal_eps": ds.optimal_eps,
        "optimal_error": ds.optimal_error,
        "best_eps": ds.best_eps,
        "best_error": ds.best_error,
    }


def _cell(texts: dict, key: str) -> str:
    """One of a row's :data:`CELL_KEYS` strings (the readouts sit under ``"r"``)."""
    return texts[key] if key in ("cells", "head") else texts["r"][key]


def scene_cell(scene: dict, s: int, d: int, g: int) -> dict:
    """Row (scheme s, dtype d, grid eps g) of a scene as ``{"r": {...}, "cells", "head"}``.

    The same lookup as ``labExtra`` in static/epsilon_lab.js.
    """
    texts = unpack_strings(scene, "cell_index", scene_row(scene, s, d, g))
    return {
        "r": {k: v for k, v in texts.items() if k not in ("cells", "head")},
        "cells": texts["cells"],
        "head": texts["head"],
    }


def table_html(extra: list, g: int, shown: Sequence[str], chosen: str) -> str:
    """The per-dtype table readout (static/epsilon_lab.js assembles it the same way)."""
    bold = " style='font-weight:bold'"
    rows = "".join(
        f"<tr{bold if name == chosen else ''}>{extra[list(DTYPES).index(name)][g]['cells']}</tr>"
        for name in DTYPES
        if name in shown
    )
    return f"{extra[0][g]['head']}<table>{rows}</table>"
