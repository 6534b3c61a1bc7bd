"""SlopeExplorer's picture: f with the tangent (analytic slope) and the secant (numeric)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from .style import (
    BLUE,
    INK,
    ORANGE,
    VERMILLION,
    finite_values,
    padded_limits,
)

__all__ = [
    "SlopeArtists",
    "draw_slope",
    "update_slope",
    "update_slope_view",
    "zoom_limits",
    "zoom_limits_many",
]


@dataclass
class SlopeArtists:
    """Artists of :func:`draw_slope`.

    ``ax`` shows f near x with the tangent and the secant; ``zoom_ax`` shows x +- 2.5 eps in units
    of eps, where f is evaluated in the learner's dtype (a staircase when eps is tiny).
    """

    ax: Axes
    zoom_ax: Axes
    curve: Line2D
    tangent: Line2D
    secant: Line2D
    points: Line2D
    centre: Line2D
    window: Rectangle
    zoom_curve: Line2D
    zoom_tangent: Line2D
    zoom_secant: Line2D
    zoom_points: Line2D
    zoom_centre: Line2D
    half_width: float = 2.5

    @property
    def animated(self) -> tuple:
        """Artists that change with eps, dtype and scheme (the axes limits do not)."""
        return (
            self.window,
            self.tangent,
            self.secant,
            self.points,
            self.centre,
            self.zoom_tangent,
            self.zoom_curve,
            self.zoom_secant,
            self.zoom_points,
            self.zoom_centre,
        )


def _draw_overview(ax: Axes) -> dict[str, Artist]:
    """f near x with the tangent, the secant, the evaluation points, x and the zoom window."""
    (curve,) = ax.plot([], [], color=INK, lw=1.8, label="f")
    (tangent,) = ax.plot([], [], color=BLUE, lw=2.4, alpha=0.8, label="tangent: analytic slope")
    (secant,) = ax.plot([], [], color=VERMILLION, lw=1.6, ls="--", label="secant: numeric slope")
    (points,) = ax.plot(
        [], [], "o", color=VERMILLION, ms=6, mec="white", mew=0.8, label="evaluation points"
    )
    (centre,) = ax.plot([], [], "o", color=INK, ms=5, zorder=4)
    window = Rectangle(
        (0, 0), 0, 1, transform=ax.get_xaxis_transform(), color=ORANGE, alpha=0.35, lw=0
    )
    ax.add_patch(window)
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.grid(alpha=0.3)
    return {
        "curve": curve,
        "tangent": tangent,
        "secant": secant,
        "points": points,
        "centre": centre,
        "window": window,
    }


def _draw_zoom(zoom_ax: Axes, half_width: float) -> dict[str, Line2D]:
    """The zoom x +- half_width eps in units of eps; its y ticks are the browser's."""
    (zoom_tangent,) = zoom_ax.plot([], [], color=BLUE, lw=3.0, alpha=0.7)
    (zoom_curve,) = zoom_ax.plot([], [], color=INK, lw=1.2)
    (zoom_secant,) = zoom_ax.plot([], [], color=VERMILLION, lw=1.6, ls="--")
    (zoom_points,) = zoom_ax.plot([], [], "o", color=VERMILLION, ms=7, mec="white", mew=0.8)
    (zoom_centre,) = zoom_ax.plot([], [], "o", color=INK, ms=5, zorder=4)
    zoom_ax.set_xlim(-half_width * 1.04, half_width * 1.04)
    zoom_ax.set_ylim(-1, 1)
    # the y ticks change with every eps: the browser draws them (see zoom_limits)
    zoom_ax.tick_params(axis="y", left=False, labelleft=False)
    zoom_ax.set_xlabel("requested nudge u  (t = x + u·eps)")
    zoom_ax.set_ylabel("(f(t) − f(x)) / eps", labelpad=34)  # room for the browser's ticks
    zoom_ax.set_title("zoom: x ± 2.5·eps, f computed in the dtype", fontsize=10)
    zoom_ax.grid(alpha=0.3, axis="x")
    return {
        "zoom_curve": zoom_curve,
        "zoom_tangent": zoom_tangent,
        "zoom_secant": zoom_secant,
        "zoom_points": zoom_points,
        "zoom_centre": zoom_centre,
    }


def _draw_slope_legend(ax: Axes, overview: dict[str, Artist]) -> None:
    """One legend above both panels: f, the two slopes, the points and the zoom window."""
    handles = [overview[k] for k in ("curve", "tangent", "secant", "points")]
    handles += [Rectangle((0, 0), 1, 1, color=ORANGE, alpha=0.35, lw=0, label="zoom window")]
    ax.figure.legend(
        handles=handles,
        loc="upper center",
        ncol=5,
        fontsize=8.5,
        frameon=False,
        bbox_to_anchor=(0.5, 1.0),
    )


def draw_slope(ax: Axes, zoom_ax: Axes, *, half_width: float = 2.5) -> SlopeArtists:
    """Draw the empty slope picture on two Axes; fill it with :func:`update_slope_view`."""
    overview = _draw_overview(ax)
    zoom = _draw_zoom(zoom_ax, half_width)
    _draw_slope_legend(ax, overview)
    return SlopeArtists(ax, zoom_ax, **overview, **zoom, half_width=half_width)


def update_slope_view(
    artists: SlopeArtists,
    *,
    curve_x: Sequence[float],
    curve_y: Sequence[float],
    title: str,
) -> None:
    """Show f over ``curve_x`` and fix the overview's limits (a change that needs a full draw)."""
    artists.curve.set_data(curve_x, curve_y)
    xs, ys = finite_values(curve_x), finite_values(curve_y)
    if xs.size:
        artists.ax.set_xlim(xs.min(), xs.max())
    if ys.size:
        artists.ax.set_ylim(*padded_limits(float(ys.min()), float(ys.max()), 0.12))
    # y=1.0 fixes the position (as matplotlib would place it: no ticks on top), so a redraw
    # skips measuring the axes for it
    artists.ax.set_title(title, fontsize=10, y=1.0)


def update_slope(  # noqa: PLR0913 - one keyword per moving artist
    artists: SlopeArtists,
    *,
    x: float,
    fx: float,
    eps: float,
    analytic: float,
    numeric: float,
    offsets: tuple[float, float],
    points: tuple[float, float],
    values: tuple[float, float],
    zoom_u: Sequence[float],
    zoom_v: Sequence[float],
) -> bool:
    """Move the tangent, the secant and the evaluation points.

    Parameters
    ----------
    x, fx : float
        The point and f(x) (as stored in the dtype).
    eps : float
        The step; the zoom window is x +- ``half_width`` eps.
    analytic, numeric : float
        The two slopes (NaN is drawn as nothing).
    offsets : (float, float)
        The scheme's evaluation offsets in units of eps, e.g. (1, -1) for central.
    points, values : (float, float)
        The evaluation points as rounded in the dtype, and f there.
    zoom_u, zoom_v : arrays
        f near x in units of eps: u = (t - x) / eps, v = (f(t) - f(x)) / eps.

    Returns
    -------
    bool
        True if the zoom's y-limits changed (the browser draws the zoom's y ticks itself).
    """
    hw = artists.half_width
    lo, hi = artists.ax.get_xlim()
    t = np.array([lo, hi])
    artists.tangent.set_data(t, fx + analytic * (t - x))
    pb, vb = points[1], values[1]
    artists.secant.set_data(t, vb + numeric * (t - pb))
    artists.points.set_data(points, values)
    artists.centre.set_data([x], [fx])
    artists.window.set_x(x - hw * eps)
    artists.window.set_width(2 * hw * eps)

    u = np.array([-hw, hw])
    artists.zoom_curve.set_data(zoom_u, zoom_v)
    artists.zoom_tangent.set_data(u, analytic * u)
    zoom_vals = [(v - fx) / eps for v in values]
    artists.zoom_secant.set_data(u, zoom_vals[1] + numeric * (u - offsets[1]))
    artists.zoom_points.set_data(offsets, zoom_vals)
    artists.zoom_centre.set_data([0.0], [0.0])
    lo, hi, _ = zoom_limits(zoom_v, analytic, zoom_vals, hw)
    changed = (lo, hi) != tuple(artists.zoom_ax.get_ylim())
    artists.zoom_ax.set_ylim(lo, hi)
    return changed


def zoom_limits(
    zoom_v: Sequence[float], analytic: float, zoom_vals: Sequence[float], half_width: float = 2.5
) -> tuple[float, float, list[tuple[float, str]]]:
    """The zoom panel's y-limits and labelled ticks for one state (the browser draws them).

    Everything the panel shows fits: the staircase, the tangent over u in +-half_width, the two
    evaluation points and 0.
    """
    u = np.array([-half_width, half_width])
    shown = (zoom_v, analytic * u, zoom_vals)
    needed = np.concatenate([*(finite_values(v) for v in shown), [0.0]])
    lo, hi = padded_limits(float(needed.min()), float(needed.max()), 0.12)
    return lo, hi, list(_zoom_ticks(lo, hi))


def zoom_limits_many(
    zoom_v: np.ndarray, analytic: float, zoom_vals: np.ndarray, half_width: float = 2.5
) -> tuple[np.ndarray, np.ndarray, list[list[tuple[float, str]]]]:
    """:func:`zoom_limits` for many states at once (rows of ``zoom_v`` and ``zoom_vals``).

    The same numbers as calling :func:`zoom_limits` row by row: min and max of the finite
    values (staircase, tangent ends, evaluation points, 0), padded by 12 %.
    """
    zoom_v = np.asarray(zoom_v, dtype=float)
    zoom_vals = np.asarray(zoom_vals, dtype=float)
    ends = np.asarray(analytic * np.array([-half_width, half_width]), dtype=float)
    parts = np.concatenate([zoom_v, np.broadcast_to(ends, (zoom_v.shape[0], 2)), zoom_vals], axis=1)
    finite = np.isfinite(parts)
    low = np.minimum(np.where(finite, parts, np.inf).min(axis=1), 0.0)
    high = np.maximum(np.where(finite, parts, -np.inf).max(axis=1), 0.0)
    lo = np.empty(len(parts))
    hi = np.empty(len(parts))
    ticks = []
    for k in range(len(parts)):
        lo[k], hi[k] = padded_limits(float(low[k]), float(high[k]), 0.12)
        ticks.append(list(_zoom_ticks(float(lo[k]), float(hi[k]))))
    return lo, hi, ticks


_ZOOM_LOCATOR = MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10])


@functools.lru_cache(maxsize=4096)
def _zoom_ticks(lo: float, hi: float) -> tuple[tuple[float, str], ...]:
    """The labelled ticks inside [lo, hi] (cached: many table rows share their limits)."""
    ticks = _ZOOM_LOCATOR.tick_values(lo, hi)
    return tuple((float(t), _tick_label(float(t))) for t in ticks if lo <= t <= hi)


def _tick_label(value: float) -> str:
    """A tick label: ``-2``, ``0.5``, ``4e+09`` (minus sign as matplotlib writes it)."""
    text = f"{value:.4g}" if value != 0 else "0"
    return text.replace("-", "−") if not text.startswith("-") or "e" in text else "−" + text[1:]
