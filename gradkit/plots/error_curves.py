"""EpsilonLab's picture: the error of a numeric slope versus eps, log-log."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from .style import (
    DTYPE_STYLES,
    ERROR,
    GREY,
    INK,
    finite_values,
)

__all__ = [
    "ErrorCurveArtists",
    "draw_error_curves",
    "update_error_curves",
    "update_error_highlight",
    "update_error_marker",
]


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


def _setup_error_axes(ax: Axes, eps_range: tuple[float, float]) -> None:
    """Log-log axes a little wider than the eps range, errors from 1e-17 to 10."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(eps_range[0] / 2.5, eps_range[1] * 2.5)
    ax.set_ylim(1e-17, 10)


def _setup_strip(strip_ax: Axes, ax: Axes, names: Sequence[str]) -> None:
    """The strip below the plot: the same eps axis, one row per dtype, for the no-error marks."""
    strip_ax.set_xscale("log")
    strip_ax.set_xlim(ax.get_xlim())
    strip_ax.set_ylim(len(names) - 0.5, -0.5)
    strip_ax.set_yticks(range(len(names)), list(names), fontsize=7.5)
    strip_ax.tick_params(axis="x", labelbottom=False)
    strip_ax.set_title("× eps rounds to 0 (no slope)    ▼ error exactly 0", fontsize=8,
                       loc="left", pad=2)  # fmt: skip
    strip_ax.grid(alpha=0.25, axis="x")


def _draw_dtype_curves(
    ax: Axes, names: Sequence[str], strip_ax: Axes | None
) -> tuple[dict[str, Line2D], ...]:
    """Per dtype: its error curve, its x (underflow) and triangle (exact) marks, its best eps.

    The marks go in the dtype's strip row, or just below the x axis without a strip.
    """
    bottom = ax.get_xaxis_transform()
    marks = strip_ax if strip_ax is not None else ax
    where = {} if strip_ax is not None else {"transform": bottom, "clip_on": False}
    curves, underflow, exact, optima = {}, {}, {}, {}
    for row, name in enumerate(names):
        color, marker, ls = DTYPE_STYLES.get(name, (GREY, "o", "-"))
        (curves[name],) = ax.plot(
            [], [], color=color, marker=marker, ls=ls, ms=3, lw=1.2, label=name
        )
        (underflow[name],) = marks.plot([], [], "x", color=color, ms=6, mew=1.5, **where)
        (exact[name],) = marks.plot([], [], "v", color=color, ms=5, **where)
        underflow[name].strip_row = row if strip_ax is not None else None
        (optima[name],) = ax.plot([], [], "*", color=color, ms=13, mec=INK, mew=0.6, zorder=5)
    return curves, underflow, exact, optima


def _draw_references(ax: Axes, default_eps: float) -> dict[str, Line2D]:
    """The theory lines, the tolerance, gradcheck's eps and the learner's eps (line, marker)."""
    (truncation,) = ax.plot([], [], color=GREY, ls="--", lw=1.2, label="truncation ∝ eps²")
    (rounding,) = ax.plot([], [], color=GREY, ls=":", lw=1.6, label="rounding ∝ u/eps")
    (tolerance,) = ax.plot([], [], color=ERROR, lw=1.6, label="gradcheck tolerance")
    default = ax.axvline(
        default_eps, color=GREY, lw=1.2, ls=(0, (1, 2)), label=f"gradcheck's eps = {default_eps:g}"
    )
    eps_line = ax.axvline(default_eps, color=INK, lw=1.2)
    (eps_marker,) = ax.plot([], [], "o", ms=10, mfc="none", mec=INK, mew=2.0, zorder=6)
    return {
        "truncation": truncation,
        "rounding": rounding,
        "tolerance": tolerance,
        "default_eps": default,
        "eps_line": eps_line,
        "eps_marker": eps_marker,
    }


def _legend_key(marker: str, label: str, **style: object) -> Line2D:
    """A legend entry that is a marker alone, in the neutral grey."""
    return Line2D([], [], ls="none", marker=marker, color=GREY, label=label, **style)


def _draw_legend(ax: Axes, art: ErrorCurveArtists, *, dtypes: bool, strip: bool) -> None:
    """The legend, right of the plot: dtypes (if asked), references, marks, 'your eps'."""
    handles = [*art.curves.values()] if dtypes else []
    handles += [art.truncation, art.rounding, art.tolerance, art.default_eps]
    handles += [_legend_key("*", "theory's best eps", ms=11, mec=INK, mew=0.6)]
    if not strip:  # the strip has its own title for these two
        handles += [
            _legend_key("x", "eps rounds to 0: no slope", ms=6, mew=1.5),
            _legend_key("v", "error exactly 0", ms=5),
        ]
    handles += [
        Line2D([], [], ls="-", marker="o", ms=8, mfc="none", mec=INK, color=INK, label="your eps")
    ]
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=8,
        borderaxespad=0.0,
        framealpha=0.9,
    )


def draw_error_curves(
    ax: Axes,
    names: Sequence[str] = ("float64", "float32", "float16", "bfloat16"),
    *,
    default_eps: float = 1e-6,
    eps_range: tuple[float, float] = (1e-12, 1.0),
    strip_ax: Axes | None = None,
    dtype_legend: bool = True,
) -> ErrorCurveArtists:
    """Draw the empty error-versus-eps picture (log-log) on ``ax``.

    The markers "eps rounds to 0" and "error exactly 0" are no errors: they go on ``strip_ax``,
    a strip below the plot with one row per dtype (or, without it, just below the x axis).
    ``dtype_legend=False`` leaves the dtypes out of the legend (a widget shows them itself).
    """
    _setup_error_axes(ax, eps_range)
    if strip_ax is not None:
        _setup_strip(strip_ax, ax, names)
    curves, underflow, exact, optima = _draw_dtype_curves(ax, names, strip_ax)
    references = _draw_references(ax, default_eps)
    ax.set_xlabel("eps (the nudge)")
    ax.set_ylabel("error  |numeric − analytic|")
    ax.grid(alpha=0.25, which="major")
    art = ErrorCurveArtists(ax, curves, underflow, exact, optima, **references)
    _draw_legend(ax, art, dtypes=dtype_legend, strip=strip_ax is not None)
    return art


def _update_dtype_curve(
    artists: ErrorCurveArtists,
    name: str,
    grid: np.ndarray,
    *,
    errors: Mapping[str, Sequence[float]],
    underflow: Mapping[str, Sequence[bool]],
    optimal: Mapping[str, tuple[float, float]],
) -> list[np.ndarray]:
    """Replace one dtype's curve, marks and best eps; return the positive errors it shows."""
    err = np.asarray(errors.get(name, np.full(grid.shape, np.nan)), dtype=float)
    under = np.asarray(underflow.get(name, np.zeros(grid.shape, bool)), dtype=bool)
    shown = np.where(err > 0, err, np.nan)  # a log axis cannot show 0: the marks do
    artists.curves[name].set_data(grid, shown)
    row = getattr(artists.underflow[name], "strip_row", None)
    level = 0.025 if row is None else row  # below the x axis, or the dtype's strip row
    artists.underflow[name].set_data(grid[under], np.full(int(under.sum()), level))
    zero = (err == 0) & ~under
    artists.exact[name].set_data(grid[zero], np.full(int(zero.sum()), level))
    opt_eps, opt_err = optimal.get(name, (math.nan, math.nan))
    ok = math.isfinite(opt_eps) and math.isfinite(opt_err) and opt_err > 0
    artists.optima[name].set_data([opt_eps] if ok else [], [opt_err] if ok else [])
    return [finite_values(shown), np.array([opt_err])] if ok else [finite_values(shown)]


def _fit_error_ylim(ax: Axes, positive: list[np.ndarray], tolerance: float) -> None:
    """y-limits around every error shown and the tolerance: a factor 8 of room each side."""
    positive = [*positive, np.array([tolerance]) if tolerance > 0 else np.empty(0)]
    data = np.concatenate(positive)
    data = data[data > 0]
    lo = max(float(data.min()) / 8, 1e-18) if data.size else 1e-17
    hi = max(float(data.max()) * 8, 1.0) if data.size else 10.0
    ax.set_ylim(lo, hi)


def update_error_curves(  # noqa: PLR0913 - one keyword per curve property the widget moves
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
    for name in artists.curves:
        positive += _update_dtype_curve(
            artists, name, grid, errors=errors, underflow=underflow, optimal=optimal
        )
    _fit_error_ylim(artists.ax, positive, tolerance)
    artists.truncation.set_data(grid, np.where(np.asarray(truncation) > 0, truncation, np.nan))
    artists.rounding_curves = {k: np.asarray(v, dtype=float) for k, v in rounding.items()}
    xlo, xhi = artists.ax.get_xlim()
    artists.tolerance.set_data([xlo, xhi], [tolerance, tolerance])
    if title:
        # a fixed position (where matplotlib puts it: no ticks on top) skips measuring the axes
        artists.ax.set_title(title, fontsize=10, y=1.0)
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
    color = DTYPE_STYLES.get(chosen, (GREY,))[0]
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
    color = DTYPE_STYLES.get(artists.chosen, (GREY,))[0]
    artists.eps_marker.set_markeredgecolor(color)
    if not math.isfinite(error):
        artists.eps_marker.set_data([], [])
        return
    y = error if error > 0 else artists.ax.get_ylim()[0]
    artists.eps_marker.set_data([eps], [y])
