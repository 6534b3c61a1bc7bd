"""SlopeExplorer's numbers: for each x of its grid, every grid eps × dtype × scheme, by torch
(:func:`slope_rows`: one batched pass per dtype), and the curve f drawn in the overview."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from ..._args import DTYPES, EPS_GRID, SCHEMES, WIDGET_SCHEMES
from ...numerics import analytic_slope, numeric_slopes
from ..base.functions import evaluate

__all__ = [
    "FIELDS",
    "HALF_WIDTH",
    "ZOOM_POINTS",
    "curve",
    "slope_point",
    "slope_rows",
]

#: The columns of one row (one x, one eps, one dtype, one scheme).
FIELDS = ("numeric", "h", "p0", "p1", "v0", "v1", "fx", "xs", "underflow", "collapsed")
#: The zoom panel: f(x + u·eps) − f(x), over eps, for u across ±HALF_WIDTH.
ZOOM_POINTS, HALF_WIDTH = 121, 2.5
#: How far the overview reaches either side of x, and how finely f is sampled for it.
VIEW_HALF_WIDTH, CURVE_STEP = 1.5, 0.005


def slope_rows(f: Callable, x: float, eps: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Everything the picture and readouts need at one x, for every eps, dtype and scheme.

    Returns
    -------
    rows : ndarray, shape (schemes, dtypes, eps, len(FIELDS))
        The numeric slope (:func:`gradkit.numerics.numeric_slopes`), eps and x as stored in the
        dtype, the two evaluation points and f there, f(x), and the flags "eps rounds to 0" and
        "both points round to one number" (the page sets the panels' limits: layout is its own).
    zoom : ndarray, shape (dtypes, eps, ZOOM_POINTS)
        (f(x + u·eps) − f(x)) / eps for u in [−HALF_WIDTH, HALF_WIDTH], computed in the dtype.
    """
    eps64 = torch.tensor([float(e) for e in eps], dtype=torch.float64)
    n = len(eps)
    u = torch.linspace(-HALF_WIDTH, HALF_WIDTH, ZOOM_POINTS, dtype=torch.float64)
    rows = np.full((len(WIDGET_SCHEMES), len(DTYPES), n, len(FIELDS)), np.nan)
    zoom = np.full((len(DTYPES), n, ZOOM_POINTS), np.nan)
    for d, dtype in enumerate(DTYPES.values()):
        h = eps64.to(dtype)
        x_t = torch.tensor(float(x), dtype=dtype)
        t = x_t + (eps64[:, None] * u[None, :]).to(dtype)  # x + u·eps, rounded in the dtype
        values = evaluate(f, torch.cat([x_t + h, x_t - h, x_t.reshape(1), t.reshape(-1)]))
        values = values.to(torch.float64)
        plus, minus, fx = values[:n], values[n : 2 * n], values[2 * n].expand(n)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            zoom[d] = (
                (values[2 * n + 1 :].reshape(n, ZOOM_POINTS) - fx[0]) / eps64[:, None]
            ).numpy()
        zoom[d][(h == 0).numpy()] = np.nan
        for s, scheme in enumerate(WIDGET_SCHEMES):
            backward_point = SCHEMES[scheme][1] < 0  # central: x − eps; forward: x itself
            p0, p1 = x_t + h, (x_t - h if backward_point else x_t + 0.0 * h)
            numeric = numeric_slopes(f, x, eps64, dtype=dtype, scheme=scheme)
            v1 = minus if backward_point else fx
            columns = [numeric, h, p0, p1, plus, v1, fx, x_t.expand(n), h == 0, p0 == p1]
            rows[s, d] = torch.stack([c.to(torch.float64) for c in columns], -1).numpy()
    return rows, zoom


def slope_point(f: Callable, x: float) -> dict[str, float | np.ndarray]:
    """What SlopeExplorer sends per x position: ``analytic`` (the slope, a float),
    ``rows`` and ``zoom`` (:func:`slope_rows`; the zoom in float32: drawn, never read out).
    A window of them is stacked by :func:`gradkit.widgets.base.point.stack_points`."""
    analytic = analytic_slope(f, x)
    rows, zoom = slope_rows(f, x, EPS_GRID)
    return {"analytic": analytic, "rows": rows, "zoom": zoom.astype(np.float32)}


def curve(f: Callable, lo: float, hi: float) -> dict[str, np.ndarray]:
    """f in float64 along lo … hi and the overview's reach beyond (shape (2, n): x, f(x))."""
    lo, hi = lo - VIEW_HALF_WIDTH, hi + VIEW_HALF_WIDTH
    n = int(min(4001, max(201, (hi - lo) / CURVE_STEP + 1)))
    t = torch.linspace(lo, hi, n, dtype=torch.float64)
    return {"curve": np.stack([t.numpy(), evaluate(f, t).to(torch.float64).numpy()])}
