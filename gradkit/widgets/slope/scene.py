"""SlopeExplorer's numbers: for each x of its grid, every grid eps × dtype × scheme, by torch.

:func:`slope_rows` measures one x in one batched pass per dtype; :class:`SlopeScene` keeps the
rows of the x positions around the current one (the page moves x, eps, dtype and scheme among
them with no kernel message) and the curve f drawn in the overview. The page looks rows up in
``slope.js`` (``slopeRow``), the twin of :meth:`SlopeScene.row`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import torch

from ..._args import DTYPES, EPS_GRID, SCHEMES, WIDGET_SCHEMES
from ...numerics import analytic_slope, numeric_slopes
from ..base.cache import scene_cache, scene_key
from ..base.floats import evaluate, sample

__all__ = ["FIELDS", "HALF_WIDTH", "ZOOM_POINTS", "SlopeScene", "slope_rows"]

#: The columns of one row (one x, one eps, one dtype, one scheme).
FIELDS = ("numeric", "h", "p0", "p1", "v0", "v1", "fx", "xs", "underflow", "collapsed", "lo", "hi")
#: The zoom panel: f(x + u·eps) − f(x), over eps, for u across ±HALF_WIDTH.
ZOOM_POINTS, HALF_WIDTH = 121, 2.5
#: How far the overview reaches either side of x, and how finely f is sampled for it.
VIEW_HALF_WIDTH, CURVE_STEP = 1.5, 0.005


def slope_rows(
    f: Callable, x: float, eps: Sequence[float], analytic: float
) -> tuple[np.ndarray, np.ndarray]:
    """Everything the picture and readouts need at one x, for every eps, dtype and scheme.

    Returns
    -------
    rows : ndarray, shape (schemes, dtypes, eps, len(FIELDS))
        The numeric slope (:func:`gradkit.numerics.numeric_slopes`), eps and x as stored in the
        dtype, the two evaluation points and f there, f(x), the flags "eps rounds to 0" and "both
        points round to one number", and the zoom panel's y-limits.
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
        fx = float(values[2 * n])
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            zoom[d] = ((values[2 * n + 1 :].reshape(n, ZOOM_POINTS) - fx) / eps64[:, None]).numpy()
        zoom[d][(h == 0).numpy()] = np.nan
        for s, scheme in enumerate(WIDGET_SCHEMES):
            numeric = numeric_slopes(f, x, eps64, dtype=dtype, scheme=scheme).numpy()
            _fill(rows[s, d], scheme, x_t, h, values[: 2 * n], fx, numeric)
            rows[s, d, :, 10:12] = _zoom_limits(rows[s, d], zoom[d], analytic, fx, eps64.numpy())
    return rows, zoom


def _fill(r: np.ndarray, scheme: str, x_t: torch.Tensor, h: torch.Tensor,
          plus_minus: torch.Tensor, fx: float, numeric: np.ndarray) -> None:  # fmt: skip
    """Columns 0-9 of one (scheme, dtype) block: slope, stored eps, points, values, flags."""
    n = len(h)
    plus, minus = plus_minus[:n], plus_minus[n:]
    backward_point = SCHEMES[scheme][1] < 0  # central: x − eps; forward: x itself
    p0 = (x_t + h).to(torch.float64)
    p1 = (x_t - h if backward_point else x_t + 0.0 * h).to(torch.float64)
    r[:, 0] = numeric
    r[:, 1] = h.to(torch.float64).numpy()
    r[:, 2], r[:, 3] = p0.numpy(), p1.numpy()
    r[:, 4] = plus.numpy()
    r[:, 5] = minus.numpy() if backward_point else fx
    r[:, 6], r[:, 7] = fx, float(x_t)
    r[:, 8] = (h == 0).numpy()
    r[:, 9] = (p0 == p1).numpy()


def _zoom_limits(
    r: np.ndarray, zoom: np.ndarray, analytic: float, fx: float, eps: np.ndarray
) -> np.ndarray:
    """The zoom panel's y-limits per eps: the staircase, the tangent's ends, the evaluation
    points and 0, padded by 12 % (shape (eps, 2))."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        points = (r[:, 4:6] - fx) / eps[:, None]  # the evaluation points in the zoom's units
        ends = np.broadcast_to(analytic * np.array([-HALF_WIDTH, HALF_WIDTH]), (len(eps), 2))
        parts = np.concatenate([zoom, ends, points], axis=1)
        finite = np.isfinite(parts)
        low = np.minimum(np.where(finite, parts, np.inf).min(axis=1), 0.0)
        high = np.maximum(np.where(finite, parts, -np.inf).max(axis=1), 0.0)
        span = np.where(high > low, high - low, np.maximum(np.abs(high), 1.0))
    return np.stack([low - 0.12 * span, high + 0.12 * span], axis=1)


class SlopeScene:
    """The rows of one function around x: computed per x position, kept for reuse.

    x positions are ``origin + k * step`` (the x slider's grid, the same sum in the page).
    """

    #: x positions kept (a learner walking along x reuses the ones already measured).
    KEEP = 64

    def __init__(self, f: Callable, origin: float, step: float, x_range: tuple[int, int]) -> None:
        self.f, self.origin, self.step, self.x_range = f, origin, step, x_range
        self._rows: OrderedDict[int, tuple[float, np.ndarray, np.ndarray]] = OrderedDict()

    def x_at(self, k: int) -> float:
        """The x of grid position k."""
        return self.origin + k * self.step

    def position(self, x: float) -> int | None:
        """The grid position of x, or None when x is off the grid."""
        k = round((x - self.origin) / self.step)
        return k if self.x_at(k) == x else None

    def at(self, k: int) -> tuple[float, np.ndarray, np.ndarray]:
        """(analytic slope, rows, zoom) at position k, measured once (or read from the scene
        cache, :mod:`..base.cache`, when this torch measured it before for a built-in f)."""
        if k in self._rows:
            self._rows.move_to_end(k)
            return self._rows[k]
        x = self.x_at(k)
        key = scene_key("slope", self.f, x, EPS_GRID, list(DTYPES), WIDGET_SCHEMES, ZOOM_POINTS)
        self._rows[k] = scene_cache.fetch(key, lambda: self.measure(x))
        while len(self._rows) > self.KEEP:
            self._rows.popitem(last=False)
        return self._rows[k]

    def measure(self, x: float) -> tuple[float, np.ndarray, np.ndarray]:
        """(analytic slope, rows, zoom) at x, computed by torch now (:meth:`at` caches it)."""
        analytic = analytic_slope(self.f, x)
        return (analytic, *slope_rows(self.f, x, EPS_GRID, analytic))

    def window(self, center: int, radius: int) -> tuple[list[int], dict[str, np.ndarray]]:
        """Positions center ± radius (inside the slider's range) and their arrays."""
        lo, hi = self.x_range
        ks = list(range(max(lo, center - radius), min(hi, center + radius) + 1))
        measured = [self.at(k) for k in ks]
        arrays = {
            "analytic": np.array([m[0] for m in measured]),
            "rows": np.stack([m[1] for m in measured]),
            "zoom": np.stack([m[2] for m in measured]).astype(np.float32),  # drawn, not read
        }
        return ks, arrays

    def curve(self) -> dict[str, np.ndarray]:
        """f in float64 along the whole slider range and the overview's reach beyond it."""
        lo, hi = self.x_at(self.x_range[0]), self.x_at(self.x_range[1])
        lo, hi = lo - VIEW_HALF_WIDTH, hi + VIEW_HALF_WIDTH
        n = int(min(4001, max(201, (hi - lo) / CURVE_STEP + 1)))
        t, y = sample(self.f, lo, hi, n)
        return {"curve": np.stack([t.numpy(), y.numpy()])}
