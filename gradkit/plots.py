"""Pictures of finite differences: draw on a given Axes, then update the artists in place.

Matplotlib (and numpy) only: every function takes plain numbers and arrays, never torch tensors,
so the pictures can be tested on the Agg backend without widgets or torch. The pattern is the
same for every picture:

>>> from matplotlib.figure import Figure
>>> fig = Figure()
>>> art = draw_error_curves(fig.add_subplot())
>>> # ... later, on every change:  update_error_curves(art, eps=..., errors=..., ...)

``draw_*`` builds the artists once and returns them in a small dataclass; ``update_*`` changes
their data. Each dataclass lists, in ``animated``, the artists whose data change when the
learner moves a control; a widget can redraw just those (blitting) while axes and ticks stay.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator

__all__ = [
    "DTYPE_STYLES",
    "ErrorCurveArtists",
    "JacobianArtists",
    "RulerArtists",
    "SlopeArtists",
    "draw_error_curves",
    "draw_float_ruler",
    "draw_jacobians",
    "draw_slope",
    "update_error_curves",
    "update_error_highlight",
    "update_error_marker",
    "update_float_ruler",
    "update_jacobians",
    "update_slope",
    "update_slope_view",
]

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
_BLUE, _VERMILLION, _GREEN, _PINK = "#0072B2", "#D55E00", "#009E73", "#CC79A7"
_ORANGE, _SKY, _GREY, _INK = "#E69F00", "#56B4E9", "#777777", "#222222"

#: Colour, marker and line style of each dtype's curve (also used by the widgets' legends).
DTYPE_STYLES: dict[str, tuple[str, str, str]] = {
    "float64": (_BLUE, "o", "-"),
    "float32": (_VERMILLION, "s", "-"),
    "float16": (_GREEN, "^", "--"),
    "bfloat16": (_PINK, "D", "-."),
}

_NAN2 = [math.nan, math.nan]


def _finite(values: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(values, dtype=float).ravel()
    return a[np.isfinite(a)]


def _padded(
    lo: float, hi: float, pad: float = 0.08, minimum: float = 1e-300
) -> tuple[float, float]:
    span = hi - lo
    if not span > minimum:
        centre = 0.5 * (lo + hi)
        half = max(abs(centre) * 0.05, 1.0)
        return centre - half, centre + half
    return lo - pad * span, hi + pad * span


# ---------------------------------------------------------------------------------------------
# SlopeExplorer: the tangent (analytic slope) and the secant (numeric slope)
# ---------------------------------------------------------------------------------------------


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


def draw_slope(ax: Axes, zoom_ax: Axes, *, half_width: float = 2.5) -> SlopeArtists:
    """Draw the empty slope picture on two Axes; fill it with :func:`update_slope_view`."""
    (curve,) = ax.plot([], [], color=_INK, lw=1.8, label="f")
    (tangent,) = ax.plot([], [], color=_BLUE, lw=2.4, alpha=0.8, label="tangent: analytic slope")
    (secant,) = ax.plot([], [], color=_VERMILLION, lw=1.6, ls="--", label="secant: numeric slope")
    (points,) = ax.plot(
        [], [], "o", color=_VERMILLION, ms=6, mec="white", mew=0.8, label="evaluation points"
    )
    (centre,) = ax.plot([], [], "o", color=_INK, ms=5, zorder=4)
    window = Rectangle(
        (0, 0), 0, 1, transform=ax.get_xaxis_transform(), color=_ORANGE, alpha=0.35, lw=0
    )
    ax.add_patch(window)
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.grid(alpha=0.3)

    (zoom_tangent,) = zoom_ax.plot([], [], color=_BLUE, lw=3.0, alpha=0.7)
    (zoom_curve,) = zoom_ax.plot([], [], color=_INK, lw=1.2)
    (zoom_secant,) = zoom_ax.plot([], [], color=_VERMILLION, lw=1.6, ls="--")
    (zoom_points,) = zoom_ax.plot([], [], "o", color=_VERMILLION, ms=7, mec="white", mew=0.8)
    (zoom_centre,) = zoom_ax.plot([], [], "o", color=_INK, ms=5, zorder=4)
    zoom_ax.set_xlim(-half_width * 1.04, half_width * 1.04)
    zoom_ax.set_ylim(-1, 1)
    zoom_ax.set_xlabel("requested nudge u  (t = x + u·eps)")
    zoom_ax.set_ylabel("(f(t) − f(x)) / eps")
    zoom_ax.set_title("zoom: x ± 2.5·eps, f computed in the dtype", fontsize=10)
    zoom_ax.grid(alpha=0.3)
    handles = [
        curve,
        tangent,
        secant,
        points,
        Rectangle((0, 0), 1, 1, color=_ORANGE, alpha=0.35, lw=0, label="zoom window"),
    ]
    ax.figure.legend(
        handles=handles,
        loc="upper center",
        ncol=5,
        fontsize=8.5,
        frameon=False,
        bbox_to_anchor=(0.5, 1.0),
    )
    return SlopeArtists(
        ax,
        zoom_ax,
        curve,
        tangent,
        secant,
        points,
        centre,
        window,
        zoom_curve,
        zoom_tangent,
        zoom_secant,
        zoom_points,
        zoom_centre,
        half_width,
    )


def update_slope_view(
    artists: SlopeArtists,
    *,
    curve_x: Sequence[float],
    curve_y: Sequence[float],
    title: str,
) -> None:
    """Show f over ``curve_x`` and fix the overview's limits (a change that needs a full draw)."""
    artists.curve.set_data(curve_x, curve_y)
    xs, ys = _finite(curve_x), _finite(curve_y)
    if xs.size:
        artists.ax.set_xlim(xs.min(), xs.max())
    if ys.size:
        artists.ax.set_ylim(*_padded(float(ys.min()), float(ys.max()), 0.12))
    artists.ax.set_title(title, fontsize=10)


def update_slope(
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
        True if the zoom's y-limits had to change (the caller must redraw everything).
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

    needed = np.concatenate([_finite(zoom_v), _finite(analytic * u), _finite(zoom_vals), [0.0]])
    lo_n, hi_n = _padded(float(needed.min()), float(needed.max()), 0.1)
    cur_lo, cur_hi = artists.zoom_ax.get_ylim()
    fits = lo_n >= cur_lo and hi_n <= cur_hi and (hi_n - lo_n) >= 0.3 * (cur_hi - cur_lo)
    if not fits:
        artists.zoom_ax.set_ylim(*_padded(float(needed.min()), float(needed.max()), 0.25))
    return not fits


# ---------------------------------------------------------------------------------------------
# EpsilonLab: error versus eps, log-log
# ---------------------------------------------------------------------------------------------


@dataclass
class ErrorCurveArtists:
    """Artists of :func:`draw_error_curves`: one curve per dtype plus the reference lines."""

    ax: Axes
    curves: dict[str, Line2D]
    underflow: dict[str, Line2D]
    exact: dict[str, Line2D]
    optima: dict[str, Line2D]
    truncation: Line2D
    rounding: Line2D
    tolerance: Line2D
    default_eps: Line2D
    eps_line: Line2D
    eps_marker: Line2D
    eps_grid: np.ndarray = field(default_factory=lambda: np.empty(0))
    rounding_curves: dict[str, np.ndarray] = field(default_factory=dict)
    chosen: str = ""

    @property
    def animated(self) -> tuple:
        """Artists that change with the chosen dtype or the theory switch (and eps)."""
        return (
            *self.underflow.values(),
            *self.exact.values(),
            self.truncation,
            self.rounding,
            *self.curves.values(),
            *self.optima.values(),
            *self.cursor,
        )

    @property
    def cursor(self) -> tuple:
        """The only artists that change with eps: the 'your eps' line and marker."""
        return (self.eps_line, self.eps_marker)


def draw_error_curves(
    ax: Axes,
    names: Sequence[str] = ("float64", "float32", "float16", "bfloat16"),
    *,
    default_eps: float = 1e-6,
    eps_range: tuple[float, float] = (1e-12, 1.0),
) -> ErrorCurveArtists:
    """Draw the empty error-versus-eps picture (log-log) on ``ax``."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(eps_range[0] / 2.5, eps_range[1] * 2.5)
    ax.set_ylim(1e-17, 10)
    bottom = ax.get_xaxis_transform()
    curves, underflow, exact, optima = {}, {}, {}, {}
    for name in names:
        color, marker, ls = DTYPE_STYLES.get(name, (_GREY, "o", "-"))
        (curves[name],) = ax.plot(
            [], [], color=color, marker=marker, ls=ls, ms=3, lw=1.2, label=name
        )
        (underflow[name],) = ax.plot(
            [], [], "x", color=color, ms=6, mew=1.5, transform=bottom, clip_on=False
        )
        (exact[name],) = ax.plot([], [], "v", color=color, ms=5, transform=bottom, clip_on=False)
        (optima[name],) = ax.plot([], [], "*", color=color, ms=13, mec=_INK, mew=0.6, zorder=5)
    (truncation,) = ax.plot([], [], color=_GREY, ls="--", lw=1.2, label="truncation ∝ eps²")
    (rounding,) = ax.plot([], [], color=_GREY, ls=":", lw=1.6, label="rounding ∝ u/eps")
    (tolerance,) = ax.plot([], [], color="#B3261E", lw=1.6, label="gradcheck tolerance")
    default = ax.axvline(
        default_eps, color=_GREY, lw=1.2, ls=(0, (1, 2)), label=f"gradcheck's eps = {default_eps:g}"
    )
    eps_line = ax.axvline(default_eps, color=_INK, lw=1.2)
    (eps_marker,) = ax.plot([], [], "o", ms=10, mfc="none", mec=_INK, mew=2.0, zorder=6)
    ax.set_xlabel("eps (the nudge)")
    ax.set_ylabel("error  |numeric − analytic|")
    ax.grid(alpha=0.25, which="major")

    handles = [*curves.values(), truncation, rounding, tolerance, default]
    handles += [
        Line2D(
            [],
            [],
            ls="none",
            marker="*",
            ms=11,
            color=_GREY,
            mec=_INK,
            mew=0.6,
            label="theory's best eps",
        ),
        Line2D(
            [],
            [],
            ls="none",
            marker="x",
            ms=6,
            mew=1.5,
            color=_GREY,
            label="eps rounds to 0: no slope",
        ),
        Line2D([], [], ls="none", marker="v", ms=5, color=_GREY, label="error exactly 0"),
        Line2D(
            [], [], ls="-", marker="o", ms=8, mfc="none", mec=_INK, color=_INK, label="your eps"
        ),
    ]
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=8,
        borderaxespad=0.0,
        framealpha=0.9,
    )
    return ErrorCurveArtists(
        ax,
        curves,
        underflow,
        exact,
        optima,
        truncation,
        rounding,
        tolerance,
        default,
        eps_line,
        eps_marker,
    )


def update_error_curves(
    artists: ErrorCurveArtists,
    *,
    eps: Sequence[float],
    errors: Mapping[str, Sequence[float]],
    underflow: Mapping[str, Sequence[bool]],
    optimal: Mapping[str, tuple[float, float]],
    truncation: Sequence[float],
    rounding: Mapping[str, Sequence[float]],
    tolerance: float,
    title: str = "",
) -> None:
    """Replace the curves (a change of function, x or scheme: the limits change too).

    ``errors[name]`` may hold NaN where ``underflow[name]`` is True and 0 where the slope is exact:
    underflowed eps are marked with x at the bottom, exact zeros with a triangle.
    """
    grid = np.asarray(eps, dtype=float)
    artists.eps_grid = grid
    positive = []
    for name, line in artists.curves.items():
        err = np.asarray(errors.get(name, np.full(grid.shape, np.nan)), dtype=float)
        under = np.asarray(underflow.get(name, np.zeros(grid.shape, bool)), dtype=bool)
        shown = np.where(err > 0, err, np.nan)
        line.set_data(grid, shown)
        artists.underflow[name].set_data(grid[under], np.full(int(under.sum()), 0.025))
        zero = (err == 0) & ~under
        artists.exact[name].set_data(grid[zero], np.full(int(zero.sum()), 0.025))
        opt_eps, opt_err = optimal.get(name, (math.nan, math.nan))
        ok = math.isfinite(opt_eps) and math.isfinite(opt_err) and opt_err > 0
        artists.optima[name].set_data([opt_eps] if ok else [], [opt_err] if ok else [])
        positive.append(_finite(shown))
        if ok:
            positive.append(np.array([opt_err]))
    positive.append(np.array([tolerance]) if tolerance > 0 else np.empty(0))
    data = np.concatenate(positive) if positive else np.empty(0)
    data = data[data > 0]
    lo = max(float(data.min()) / 8, 1e-18) if data.size else 1e-17
    hi = max(float(data.max()) * 8, 1.0) if data.size else 10.0
    artists.ax.set_ylim(lo, hi)
    artists.truncation.set_data(grid, np.where(np.asarray(truncation) > 0, truncation, np.nan))
    artists.rounding_curves = {k: np.asarray(v, dtype=float) for k, v in rounding.items()}
    xlo, xhi = artists.ax.get_xlim()
    artists.tolerance.set_data([xlo, xhi], [tolerance, tolerance])
    if title:
        artists.ax.set_title(title, fontsize=10)
    if artists.chosen:
        update_error_highlight(artists, artists.chosen)


def update_error_highlight(
    artists: ErrorCurveArtists, chosen: str, *, show_theory: bool = True
) -> None:
    """Emphasise the chosen dtype's curve and show its rounding line."""
    artists.chosen = chosen
    for name, line in artists.curves.items():
        mine = name == chosen
        line.set_linewidth(2.6 if mine else 1.0)
        line.set_alpha(1.0 if mine else 0.35)
        line.set_markersize(4.5 if mine else 2.5)
        line.set_zorder(4 if mine else 2)
        artists.optima[name].set_alpha(1.0 if mine else 0.45)
    color = DTYPE_STYLES.get(chosen, (_GREY,))[0]
    rounding = artists.rounding_curves.get(chosen)
    if rounding is not None and show_theory:
        artists.rounding.set_data(artists.eps_grid, np.where(rounding > 0, rounding, np.nan))
    else:
        artists.rounding.set_data([], [])
    artists.rounding.set_color(color)
    artists.truncation.set_visible(show_theory)
    artists.rounding.set_visible(show_theory)


def update_error_marker(artists: ErrorCurveArtists, eps: float, error: float) -> None:
    """Move the 'your eps' line and marker; an error of 0 sits on the bottom edge."""
    artists.eps_line.set_xdata([eps, eps])
    color = DTYPE_STYLES.get(artists.chosen, (_GREY,))[0]
    artists.eps_marker.set_markeredgecolor(color)
    if not math.isfinite(error):
        artists.eps_marker.set_data([], [])
        return
    y = error if error > 0 else artists.ax.get_ylim()[0]
    artists.eps_marker.set_data([eps], [y])


# ---------------------------------------------------------------------------------------------
# GradcheckLab: numeric, analytic and difference Jacobians
# ---------------------------------------------------------------------------------------------

_RATIO_DECADES = 6


@dataclass
class JacobianArtists:
    """Artists of :func:`draw_jacobians`: three heatmaps, their colour bars and the marks."""

    axes: tuple[Axes, Axes, Axes]
    images: tuple
    colorbars: tuple
    worst: tuple[Rectangle, Rectangle, Rectangle]
    notes: tuple[Text, Text, Text]
    labels: list = field(default_factory=list)
    separators: list = field(default_factory=list)
    _pools: dict = field(default_factory=dict, repr=False)
    _split_key: tuple = field(default=(), repr=False)

    def _texts(self, k: int, count: int) -> list[Text]:
        """``count`` reusable cell labels on heatmap ``k`` (creating Text objects is slow)."""
        pool = self._pools.setdefault(k, [])
        ax = self.axes[k]
        while len(pool) < count:
            text = ax.text(0, 0, "", ha="center", va="center", fontsize=8, visible=False)
            pool.append(text)
            self.labels.append(text)
        return pool


def draw_jacobians(
    axes: Sequence[Axes], colorbar_axes: Sequence[Axes] | None = None
) -> JacobianArtists:
    """Draw three empty heatmaps: numeric, analytic, and |analytic - numeric| / allowed."""
    ax_n, ax_a, ax_d = axes
    figure = ax_n.figure
    empty = np.full((1, 1), np.nan)
    im_n = ax_n.imshow(
        empty, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest"
    )
    im_a = ax_a.imshow(
        empty, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest"
    )
    norm = TwoSlopeNorm(vmin=-_RATIO_DECADES, vcenter=0.0, vmax=_RATIO_DECADES)
    im_d = ax_d.imshow(empty, cmap="coolwarm", norm=norm, aspect="auto", interpolation="nearest")
    titles = (
        "numeric Jacobian\n(nudges)",
        "analytic Jacobian\n(backward)",
        "|analytic − numeric| ÷ allowed\n(above 1 fails)",
    )
    worst, notes = [], []
    for ax, title in zip(axes, titles, strict=True):
        ax.set_title(title, fontsize=9.5)
        ax.set_xlabel("input entry", fontsize=9)
        ax.tick_params(labelsize=8)
        rect = Rectangle((0, 0), 1, 1, fill=False, ec=_INK, lw=2.2, zorder=5, visible=False)
        ax.add_patch(rect)
        worst.append(rect)
        notes.append(
            ax.text(
                0.5,
                0.5,
                "",
                transform=ax.transAxes,
                ha="center",
                va="center",
                fontsize=8.5,
                wrap=True,
                color=_INK,
            )
        )
    ax_n.set_ylabel("output entry", fontsize=9)
    cax = list(colorbar_axes) if colorbar_axes is not None else [None, None]
    cb_j = figure.colorbar(im_a, cax=cax[0], ax=None if cax[0] else [ax_n, ax_a])
    cb_j.set_label("d output / d input", fontsize=8.5)
    cb_d = figure.colorbar(im_d, cax=cax[1], ax=None if cax[1] else ax_d)
    ticks = list(range(-_RATIO_DECADES, _RATIO_DECADES + 1, 3))
    cb_d.set_ticks(ticks)
    cb_d.ax.yaxis.set_major_formatter(
        FixedFormatter([("1 = limit" if t == 0 else f"1e{t:+d}") for t in ticks])
    )
    cb_d.set_label("ratio to allowed", fontsize=8.5)
    for cb in (cb_j, cb_d):
        cb.ax.tick_params(labelsize=8)
    return JacobianArtists(
        tuple(axes), (im_n, im_a, im_d), (cb_j, cb_d), tuple(worst), tuple(notes)
    )


def _cell_format(value: float) -> str:
    if not math.isfinite(value):
        return ""
    if value == 0:
        return "0"
    return f"{value:.3g}" if 1e-3 <= abs(value) < 1e4 else f"{value:.1e}"


def update_jacobians(
    artists: JacobianArtists,
    *,
    numeric: np.ndarray | None,
    analytic: np.ndarray | None,
    atol: float,
    rtol: float,
    worst: tuple[int, int] | None = None,
    row_splits: Sequence[int] = (),
    col_splits: Sequence[int] = (),
    missing: str = "",
    annotate_up_to: int = 36,
) -> None:
    """Show new Jacobians (rows: flattened output entries, columns: flattened input entries).

    The third heatmap is |analytic - numeric| / (atol + rtol |numeric|), gradcheck's own rule, on
    a log colour scale where 1 is the limit. ``worst`` (row, column) is boxed in all three.
    ``row_splits``/``col_splits`` draw lines between blocks (several outputs or inputs).
    ``missing`` is shown where a Jacobian is None.
    """
    split_key = (tuple(row_splits), tuple(col_splits))
    if split_key != artists._split_key:
        for line in artists.separators:
            line.remove()
        artists.separators = []
        for ax in artists.axes:
            artists.separators += [ax.axhline(r - 0.5, color=_INK, lw=1.2) for r in row_splits]
            artists.separators += [ax.axvline(c - 0.5, color=_INK, lw=1.2) for c in col_splits]
            ax.set_xlabel(
                "input entry" + (" (lines separate inputs)" if col_splits else ""),
                fontsize=9 if not col_splits else 8,
            )
        artists._split_key = split_key

    shape = None
    for m in (numeric, analytic):
        if m is not None:
            shape = np.asarray(m).shape
    mats = []
    for m in (numeric, analytic):
        mats.append(np.asarray(m, dtype=float) if m is not None else None)
    n_mat, a_mat = mats
    if n_mat is not None and a_mat is not None and n_mat.shape == a_mat.shape:
        allowed = atol + rtol * np.abs(n_mat)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.abs(a_mat - n_mat) / np.where(allowed > 0, allowed, np.nan)
            ratio = np.where((allowed == 0) & (a_mat == n_mat), 0.0, ratio)
            ratio = np.where((allowed == 0) & (a_mat != n_mat), np.inf, ratio)
            logr = np.log10(ratio)
        d_mat = np.clip(
            np.nan_to_num(logr, nan=np.nan, posinf=_RATIO_DECADES, neginf=-_RATIO_DECADES),
            -_RATIO_DECADES,
            _RATIO_DECADES,
        )
    else:
        ratio = d_mat = None

    values = [v for m in (n_mat, a_mat) if m is not None for v in _finite(m)]
    vmax = max((abs(v) for v in values), default=1.0) or 1.0
    for k, (ax, im, mat, note) in enumerate(
        zip(artists.axes, artists.images, (n_mat, a_mat, d_mat), artists.notes, strict=True)
    ):
        rows, cols = shape if shape is not None else (1, 1)
        if mat is None:
            im.set_data(np.full((rows, cols), np.nan))
            note.set_text(missing or "not available")
        else:
            im.set_data(mat)
            note.set_text("")
        im.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
        ax.set_xlim(-0.5, cols - 0.5)
        ax.set_ylim(rows - 0.5, -0.5)
        for axis, n in ((ax.xaxis, cols), (ax.yaxis, rows)):
            if n <= 12:
                axis.set_major_locator(FixedLocator(range(n)))
            else:
                axis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        if k < 2 and im.get_clim() != (-vmax, vmax):
            im.set_clim(-vmax, vmax)
        rect = artists.worst[k]
        if worst is not None and shape is not None:
            r, c = worst
            rect.set_xy((c - 0.5, r - 0.5))
            rect.set_visible(True)
        else:
            rect.set_visible(False)
        annotate = mat is not None and rows * cols <= annotate_up_to
        pool = artists._texts(k, rows * cols if annotate else 0)
        used = 0
        if annotate:
            shown = ratio if k == 2 else mat
            scale = _RATIO_DECADES if k == 2 else vmax
            size = 8 if rows * cols <= 16 else 6.5
            for r in range(rows):
                for c in range(cols):
                    strong = math.isfinite(mat[r, c]) and abs(float(mat[r, c])) > 0.6 * scale
                    text = pool[used]
                    text.set_position((c, r))
                    text.set_text(_cell_format(float(shown[r, c])))
                    text.set_fontsize(size)
                    text.set_color("white" if strong else _INK)
                    text.set_visible(True)
                    used += 1
        for text in pool[used:]:
            text.set_visible(False)


# ---------------------------------------------------------------------------------------------
# FloatRuler: representable numbers around x
# ---------------------------------------------------------------------------------------------


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


def draw_float_ruler(
    ax: Axes, zoom_ax: Axes, *, view: float = 1.6, zoom_ulps: float = 8.0
) -> RulerArtists:
    """Draw the empty ruler on two Axes; fill it with :func:`update_float_ruler`."""
    for a in (ax, zoom_ax):
        a.axhline(0, color=_GREY, lw=1.0, zorder=1)
        a.set_ylim(-0.6, 1.0 if a is zoom_ax else 1.3)
        a.set_yticks([])
        for side in ("left", "right", "top"):
            a.spines[side].set_visible(False)
    ax.set_xlim(-view * 1.04, view * 1.04)
    ax.set_xticks([-1, 0, 1], ["x − eps", "x", "x + eps"])
    ax.set_xlabel("offset from x, in units of eps", fontsize=9)
    ax.set_title("where x − eps and x + eps land", fontsize=10, loc="left")
    (ticks,) = ax.plot([], [], color=_INK, lw=1.0, label="representable number")
    dense = Rectangle((-view, -0.2), 2 * view, 0.4, color=_GREY, alpha=0.25, lw=0)
    ax.add_patch(dense)
    dense_text = ax.text(
        -view,
        -0.4,
        "too many numbers to draw one by one",
        ha="left",
        va="center",
        fontsize=8,
        color=_INK,
        visible=False,
    )
    (arrows,) = ax.plot([], [], color=_VERMILLION, lw=1.0, ls=":")
    (requested,) = ax.plot(
        [], [], "o", ms=9, mfc="white", mec=_VERMILLION, mew=1.8, label="requested x ± eps"
    )
    (landed,) = ax.plot([], [], "o", ms=7, color=_VERMILLION, label="where it lands")
    (centre,) = ax.plot([], [], "|", ms=22, mew=2.5, color=_BLUE, label="x (as stored)")
    ax.legend(loc="upper left", fontsize=8, ncol=4, frameon=False, bbox_to_anchor=(0.0, 1.04))

    zoom_ax.set_xlim(-zoom_ulps - 0.6, zoom_ulps + 0.6)
    zoom_ax.xaxis.set_major_locator(MaxNLocator(nbins=17, integer=True))
    zoom_ax.set_xlabel("offset from x, in spacings (ulp) at x", fontsize=9)
    zoom_ax.set_title("the representable numbers next to x", fontsize=10, loc="left")
    (zoom_ticks,) = zoom_ax.plot([], [], color=_INK, lw=1.4)
    (zoom_requested,) = zoom_ax.plot([], [], "o", ms=9, mfc="white", mec=_VERMILLION, mew=1.8)
    (zoom_landed,) = zoom_ax.plot([], [], "o", ms=7, color=_VERMILLION)
    (zoom_centre,) = zoom_ax.plot([], [], "|", ms=22, mew=2.5, color=_BLUE)
    # fixed labels, shown or hidden: the number of ulps is a readout's job
    zoom_left = zoom_ax.text(
        -zoom_ulps - 0.5,
        0.55,
        "← x − eps lands further out",
        ha="left",
        va="center",
        fontsize=8.5,
        color=_VERMILLION,
        visible=False,
    )
    zoom_right = zoom_ax.text(
        zoom_ulps + 0.5,
        0.55,
        "x + eps lands further out →",
        ha="right",
        va="center",
        fontsize=8.5,
        color=_VERMILLION,
        visible=False,
    )
    return RulerArtists(
        ax,
        zoom_ax,
        ticks,
        dense,
        dense_text,
        requested,
        arrows,
        landed,
        centre,
        zoom_ticks,
        zoom_requested,
        zoom_landed,
        zoom_centre,
        zoom_left,
        zoom_right,
        view,
        zoom_ulps,
    )


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
