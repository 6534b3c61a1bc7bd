"""FloatRuler's picture: the representable numbers around x and where x ± eps land."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator

from .style import (
    BLUE,
    GREY,
    INK,
    VERMILLION,
)

__all__ = ["RulerArtists", "draw_float_ruler", "update_float_ruler"]


@dataclass
class RulerArtists:
    """Artists of :func:`draw_float_ruler`.

    ``ax`` spans x +- 1.6 eps in units of eps (requested x - eps and x + eps always sit at -1 and
    +1); ``zoom_ax`` spans x +- 8 spacings in units of the spacing (ulp) at x.
    """

    ax: Axes
    zoom_ax: Axes
    ticks: Line2D
    dense: Rectangle
    dense_text: Text
    requested: Line2D
    arrows: Line2D
    landed: Line2D
    centre: Line2D
    zoom_ticks: Line2D
    zoom_requested: Line2D
    zoom_landed: Line2D
    zoom_centre: Line2D
    zoom_left: Text
    zoom_right: Text
    view: float = 1.6
    zoom_ulps: float = 8.0

    @property
    def animated(self) -> tuple:
        """Everything but the axes: x, eps and dtype changes never move the axes."""
        return (*self.slow, *self.fast)

    @property
    def slow(self) -> tuple:
        """Artists that change with x and dtype, and show or hide at thresholds, not with eps.

        What they show depends on x, the dtype and :meth:`slow_state`.
        """
        return (
            self.dense,
            self.dense_text,
            self.zoom_ticks,
            self.zoom_centre,
            self.zoom_left,
            self.zoom_right,
        )

    def slow_state(self) -> tuple[bool, bool, bool]:
        """Which threshold labels show: too dense to draw, lands beyond the zoom left / right."""
        return (
            self.dense.get_visible(),
            self.zoom_left.get_visible(),
            self.zoom_right.get_visible(),
        )

    @property
    def fast(self) -> tuple:
        """Artists that move with eps."""
        return (
            self.ticks,
            self.arrows,
            self.requested,
            self.landed,
            self.centre,
            self.zoom_requested,
            self.zoom_landed,
        )


def _tick_segments(positions: Sequence[float], half: float) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(positions, dtype=float)
    xs = np.repeat(p, 3)
    ys = np.tile([-half, half, np.nan], p.size)
    xs[2::3] = np.nan
    return xs, ys


def _setup_ruler_axes(ax: Axes, zoom_ax: Axes, view: float, zoom_ulps: float) -> None:
    """Two bare rulers (a number line, no y axis), x limits and labels of each."""
    for a in (ax, zoom_ax):
        a.axhline(0, color=GREY, lw=1.0, zorder=1)
        a.set_ylim(-0.6, 1.0 if a is zoom_ax else 1.3)
        a.set_yticks([])
        for side in ("left", "right", "top"):
            a.spines[side].set_visible(False)
    ax.set_xlim(-view * 1.04, view * 1.04)
    ax.set_xticks([-1, 0, 1], ["x − eps", "x", "x + eps"])
    ax.set_xlabel("offset from x, in units of eps", fontsize=9)
    ax.set_title("where x − eps and x + eps land", fontsize=10, loc="left")
    zoom_ax.set_xlim(-zoom_ulps - 0.6, zoom_ulps + 0.6)
    zoom_ax.xaxis.set_major_locator(MaxNLocator(nbins=17, integer=True))
    zoom_ax.set_xlabel("offset from x, in spacings (ulp) at x", fontsize=9)
    zoom_ax.set_title("the representable numbers next to x", fontsize=10, loc="left")


def _draw_eps_view(ax: Axes, view: float) -> dict[str, Artist]:
    """The ruler in units of eps: numbers (or a grey band), requested, landed, x, legend."""
    (ticks,) = ax.plot([], [], color=INK, lw=1.0, label="representable number")
    dense = Rectangle((-view, -0.2), 2 * view, 0.4, color=GREY, alpha=0.25, lw=0)
    ax.add_patch(dense)
    dense_text = ax.text(
        -view,
        -0.4,
        "too many numbers to draw one by one",
        ha="left",
        va="center",
        fontsize=8,
        color=INK,
        visible=False,
    )
    (arrows,) = ax.plot([], [], color=VERMILLION, lw=1.0, ls=":")
    (requested,) = ax.plot(
        [], [], "o", ms=9, mfc="white", mec=VERMILLION, mew=1.8, label="requested x ± eps"
    )
    (landed,) = ax.plot([], [], "o", ms=7, color=VERMILLION, label="where it lands")
    (centre,) = ax.plot([], [], "|", ms=22, mew=2.5, color=BLUE, label="x (as stored)")
    ax.legend(loc="upper left", fontsize=8, ncol=4, frameon=False, bbox_to_anchor=(0.0, 1.04))
    return {
        "ticks": ticks,
        "dense": dense,
        "dense_text": dense_text,
        "requested": requested,
        "arrows": arrows,
        "landed": landed,
        "centre": centre,
    }


def _draw_zoom_view(zoom_ax: Axes, zoom_ulps: float) -> dict[str, Artist]:
    """The ruler in ulps of x: the next numbers, requested, landed, x, 'lands further out'."""
    (zoom_ticks,) = zoom_ax.plot([], [], color=INK, lw=1.4)
    (zoom_requested,) = zoom_ax.plot([], [], "o", ms=9, mfc="white", mec=VERMILLION, mew=1.8)
    (zoom_landed,) = zoom_ax.plot([], [], "o", ms=7, color=VERMILLION)
    (zoom_centre,) = zoom_ax.plot([], [], "|", ms=22, mew=2.5, color=BLUE)
    # fixed labels, shown or hidden: the number of ulps is a readout's job
    further = {"va": "center", "fontsize": 8.5, "color": VERMILLION, "visible": False}
    zoom_left = zoom_ax.text(
        -zoom_ulps - 0.5, 0.55, "← x − eps lands further out", ha="left", **further
    )
    zoom_right = zoom_ax.text(
        zoom_ulps + 0.5, 0.55, "x + eps lands further out →", ha="right", **further
    )
    return {
        "zoom_ticks": zoom_ticks,
        "zoom_requested": zoom_requested,
        "zoom_landed": zoom_landed,
        "zoom_centre": zoom_centre,
        "zoom_left": zoom_left,
        "zoom_right": zoom_right,
    }


def draw_float_ruler(
    ax: Axes, zoom_ax: Axes, *, view: float = 1.6, zoom_ulps: float = 8.0
) -> RulerArtists:
    """Draw the empty ruler on two Axes; fill it with :func:`update_float_ruler`."""
    _setup_ruler_axes(ax, zoom_ax, view, zoom_ulps)
    eps_view = _draw_eps_view(ax, view)
    zoom_view = _draw_zoom_view(zoom_ax, zoom_ulps)
    return RulerArtists(ax, zoom_ax, **eps_view, **zoom_view, view=view, zoom_ulps=zoom_ulps)


def update_float_ruler(
    artists: RulerArtists,
    *,
    view_ticks: Sequence[float] | None,
    lower: float,
    upper: float,
    zoom_ticks: Sequence[float],
    zoom_lower: float,
    zoom_upper: float,
    eps_in_ulps: float,
) -> None:
    """Show the ruler for one (x, eps, dtype).

    Parameters
    ----------
    view_ticks : array or None
        Representable numbers near x in units of eps (None: too many to draw).
    lower, upper : float
        Where x - eps and x + eps land, in units of eps (NaN if eps underflows).
    zoom_ticks : array
        Representable numbers near x in ulps of x.
    zoom_lower, zoom_upper : float
        Where x - eps and x + eps land, in ulps of x.
    eps_in_ulps : float
        eps divided by the spacing at x: where the requested points sit in the zoom.
    """
    zu = artists.zoom_ulps
    if view_ticks is not None:
        artists.ticks.set_data(*_tick_segments(view_ticks, 0.2))
        artists.dense.set_visible(False)
        artists.dense_text.set_visible(False)
    else:
        artists.ticks.set_data([], [])
        artists.dense.set_visible(True)
        artists.dense_text.set_visible(True)
    finite = math.isfinite(lower) and math.isfinite(upper)
    artists.requested.set_data([-1.0, 1.0], [0.6, 0.6])
    artists.landed.set_data([lower, upper] if finite else [], [0.0, 0.0] if finite else [])
    if finite:
        artists.arrows.set_data(
            [-1.0, lower, math.nan, 1.0, upper], [0.52, 0.06, math.nan, 0.52, 0.06]
        )
    else:
        artists.arrows.set_data([], [])
    artists.centre.set_data([0.0], [0.0])

    artists.zoom_ticks.set_data(*_tick_segments(zoom_ticks, 0.25))
    artists.zoom_centre.set_data([0.0], [0.0])
    inside = [v for v in (zoom_lower, zoom_upper) if math.isfinite(v) and abs(v) <= zu + 0.5]
    artists.zoom_landed.set_data(inside, [0.0] * len(inside))
    req = [v for v in (-eps_in_ulps, eps_in_ulps) if math.isfinite(v) and abs(v) <= zu + 0.5]
    artists.zoom_requested.set_data(req, [0.6] * len(req))
    artists.zoom_left.set_visible(math.isfinite(zoom_lower) and zoom_lower < -zu - 0.5)
    artists.zoom_right.set_visible(math.isfinite(zoom_upper) and zoom_upper > zu + 0.5)
