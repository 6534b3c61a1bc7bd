"""SlopeExplorer's table: every eps of the grid × dtype × scheme, computed ahead in one pass.

Per scene (function and x), :func:`slope_table` runs torch once per dtype and scheme for all the
grid's eps, and :func:`slope_readouts` writes each row's readouts as Python formats them. The
browser moves eps, dtype and scheme by looking rows up (``slopeRow`` in
``static/slope_explorer.js``, the twin of :func:`scene_row_extra`), with no kernel message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch

from .._args import DTYPES, SCHEMES, WIDGET_SCHEMES
from ..numerics import numeric_slopes
from ..plots.slope import zoom_limits_many
from . import _floats
from ._format import (
    fmt,
    fmt_eps,
    fmt_plain,
    json_safe,
    readout_html,
    scene_row,
    unpack_strings,
)

__all__ = [
    "FIELDS",
    "FORMULAS",
    "HALF_WIDTH",
    "READOUT_KEYS",
    "ZOOM_POINTS",
    "exact_payload",
    "scene_row_extra",
    "slope_readouts",
    "slope_table",
]

#: The columns of one table row (one eps, one dtype, one scheme).
FIELDS = ("numeric", "h", "p0", "p1", "v0", "v1", "fx", "xs", "underflow", "collapsed", "lo", "hi")
#: The readouts of one table row, in the order of the scene's ``readout_index``.
READOUT_KEYS = ("numeric", "analytic", "abs_error", "rel_error", "eps", "note")
#: The numeric slope of each scheme, as the readouts write it.
FORMULAS = {
    "central": "(f(x+eps) − f(x−eps)) / (2·eps)",
    "forward": "(f(x+eps) − f(x)) / eps",
}
#: The zoom panel: points across x ± HALF_WIDTH·eps.
ZOOM_POINTS, HALF_WIDTH = 121, 2.5


def slope_table(
    f: Callable,
    x: float,
    eps: Sequence[float],
    analytic: float,
    *,
    dtypes: Sequence[str] = tuple(DTYPES),
    schemes: Sequence[str] = WIDGET_SCHEMES,
) -> tuple[np.ndarray, np.ndarray, list]:
    """Everything the picture and readouts need for every eps, dtype and scheme.

    Returns
    -------
    rows : ndarray, shape (schemes, dtypes, eps, len(FIELDS))
        The numeric slope (from :func:`gradkit.numerics.numeric_slopes`, one batched call per
        dtype and scheme), eps and x as stored in the dtype, the evaluation points and f there,
        f(x), the underflow and collapse flags, and the zoom panel's y-limits.
    zoom : ndarray, shape (dtypes, eps, ZOOM_POINTS)
        (f(x + u eps) - f(x)) / eps for u in [-HALF_WIDTH, HALF_WIDTH], computed in the dtype.
    ticks : nested list [scheme][dtype][eps] of [(value, label), ...]
        The zoom panel's y ticks.
    """
    eps64 = torch.tensor([float(e) for e in eps], dtype=torch.float64)
    n = len(eps)
    u = torch.linspace(-HALF_WIDTH, HALF_WIDTH, ZOOM_POINTS, dtype=torch.float64)
    rows = np.full((len(schemes), len(dtypes), n, len(FIELDS)), np.nan)
    zoom = np.full((len(dtypes), n, ZOOM_POINTS), np.nan)
    ticks: list = [[[] for _ in dtypes] for _ in schemes]
    for d, name in enumerate(dtypes):
        dtype = DTYPES[name]
        h = eps64.to(dtype)
        x_t = torch.tensor(float(x), dtype=dtype)
        t = x_t + (eps64[:, None] * u[None, :]).to(dtype)  # x + u eps, rounded in the dtype
        points = torch.cat([x_t + h, x_t - h, x_t.reshape(1), t.reshape(-1)])
        values = _floats.evaluate(f, points).to(torch.float64)
        fx = float(values[2 * n])
        # the zoom: (f(x + u eps) - f(x)) / eps, NaN where eps rounds to 0
        zoom[d] = ((values[2 * n + 1 :].reshape(n, ZOOM_POINTS) - fx) / eps64[:, None]).numpy()
        zoom[d][(h == 0).numpy()] = np.nan
        for s, scheme in enumerate(schemes):
            numeric = numeric_slopes(f, x, eps64, dtype=dtype, scheme=scheme).numpy()
            _fill_rows(rows[s, d], scheme, x_t, h, values[: 2 * n], fx, numeric)
            lo, hi, ticks[s][d] = _zoom_limits(rows[s, d], zoom[d], analytic, fx, eps64)
            rows[s, d, :, 10], rows[s, d, :, 11] = lo, hi
    return rows, zoom, ticks


def _fill_rows(
    r: np.ndarray,
    scheme: str,
    x_t: torch.Tensor,
    h: torch.Tensor,
    plus_minus: torch.Tensor,
    fx: float,
    numeric: np.ndarray,
) -> None:
    """Columns 0-9 of one (scheme, dtype) block: slope, stored eps, points, values, flags."""
    n = len(h)
    plus, minus = plus_minus[:n], plus_minus[n:]
    backward_point = SCHEMES[scheme][1] < 0  # central: x - eps; forward: x itself
    p0 = (x_t + h).to(torch.float64)
    p1 = (x_t - h if backward_point else x_t + 0.0 * h).to(torch.float64)
    v1 = minus if backward_point else torch.full_like(plus, fx)
    r[:, 0] = numeric
    r[:, 1] = h.to(torch.float64).numpy()
    r[:, 2], r[:, 3] = p0.numpy(), p1.numpy()
    r[:, 4], r[:, 5] = plus.numpy(), v1.numpy()
    r[:, 6], r[:, 7] = fx, float(x_t)
    r[:, 8] = (h == 0).numpy()
    r[:, 9] = (p0 == p1).numpy()


def _zoom_limits(
    r: np.ndarray, zoom: np.ndarray, analytic: float, fx: float, eps64: torch.Tensor
) -> tuple[np.ndarray, np.ndarray, list]:
    """The zoom panel's y-limits and ticks for every eps of one (scheme, dtype) block."""
    # the evaluation points in the zoom's units: (f(p) - f(x)) / eps
    with np.errstate(invalid="ignore", divide="ignore"):  # f(x) = ±inf: NaN, unshown
        vals = (r[:, 4:6] - fx) / eps64.numpy()[:, None]
    return zoom_limits_many(zoom, analytic, vals, HALF_WIDTH)


def slope_readouts(
    row: np.ndarray,
    *,
    fname: str,
    x: float,
    eps: float,
    dtype_name: str,
    scheme: str,
    analytic: float,
    analytic_html: str,
) -> dict[str, str]:
    """The readouts for one table row (the browser shows these strings as they are)."""
    r = dict(zip(FIELDS, row, strict=True))
    numeric = float(r["numeric"])
    error = abs(numeric - analytic)
    rel = error / abs(analytic) if analytic != 0 else math.nan
    h = float(r["h"])
    stored = "" if h == eps else f"; stored in {dtype_name} as {fmt(h, '.6g')}"
    return {
        "numeric": readout_html(
            "numeric slope",
            fmt(numeric, ".3f"),
            f"= {fmt(numeric, '.15g')}, {FORMULAS[scheme]} in {dtype_name}",
        ),
        "analytic": analytic_html,
        "abs_error": readout_html("absolute error", fmt(error, ".2e"), "|numeric − analytic|"),
        "rel_error": readout_html(
            "relative error",
            fmt(rel, ".2e") if analytic != 0 else "undefined",
            "|numeric − analytic| / |analytic|" if analytic != 0 else "the analytic slope is 0",
        ),
        "eps": readout_html("eps", fmt_eps(eps), f"= {fmt_plain(eps)}{stored}"),
        "note": _note(fname, x, eps, dtype_name, r),
    }


def exact_payload(
    rows: np.ndarray,
    zoom: np.ndarray,
    ticks: list,
    *,
    eps: float,
    x: float,
    fname: str,
    readouts: Callable[..., dict[str, str]],
) -> dict:
    """What the browser needs for a typed eps off the grid: :func:`slope_table` at that one eps.

    ``readouts(fname, x, eps, dtype_name, scheme, row)`` writes a row's readouts.
    """
    extra = [
        [
            {"r": readouts(fname, x, eps, dn, sn, rows[si, di, 0]), "t": ticks[si][di][0]}
            for di, dn in enumerate(DTYPES)
        ]
        for si, sn in enumerate(WIDGET_SCHEMES)
    ]
    payload = {"eps": eps, "x": x, "function": fname, "rows": rows[:, :, 0, :], "zoom": zoom[:, 0]}
    return json_safe({**payload, "extra": extra})


def scene_row_extra(scene: dict, s: int, d: int, g: int) -> dict:
    """The readouts ``r`` and zoom ticks ``t`` of row (scheme s, dtype d, grid eps g) of a scene.

    The same lookup as ``slopeRow`` in static/slope_explorer.js.
    """
    row = scene_row(scene, s, d, g)
    texts = unpack_strings(scene, "readout_index", row)
    return {"r": texts, "t": scene["tick_sets"][scene["tick_index"][row]]}


def _note(fname: str, x: float, eps: float, name: str, r: dict) -> str:
    if r["underflow"]:
        return (
            f"<span class='gk-bad'>eps = {fmt_eps(eps)} rounds to 0 in {name}: there is no "
            "nudge, so no slope can be measured (0/0).</span>"
        )
    if not math.isfinite(r["fx"]):
        return (
            f"<span class='gk-bad'>f(x) = {fname} is not defined at x = {x:g} "
            f"(it gives {fmt(float(r['fx']))}); pick another x.</span>"
        )
    if r["collapsed"]:
        return (
            f"<span class='gk-bad'>Both evaluation points round to the same {name} "
            f"number: f is evaluated twice at one point and the numeric slope is exactly 0."
            "</span>"
        )
    return (
        f"The evaluation points land on {fmt(float(r['p1']), '.10g')} and "
        f"{fmt(float(r['p0']), '.10g')} in {name}."
    )
