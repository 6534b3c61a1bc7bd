"""GradcheckLab's picture: numeric, analytic and difference Jacobians as heatmaps."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, TwoSlopeNorm
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator

from .style import (
    _INK,
    _finite,
)

__all__ = [
    "JacobianArtists",
    "draw_jacobians",
    "jacobian_cells",
    "ratio_colour",
    "update_jacobians",
]


_RATIO_DECADES = 3  # the difference colours are clipped at 1e-3 and 1e3 times the allowed


def _ratio_cmap() -> ListedColormap:
    """Diverging, centred on 1 = the allowed difference: blues below (passing), reds above.

    The red half starts already saturated, so a failing cell (even 2x the allowed) is hot and a
    passing one is cool; the colours deepen with each decade away from 1.
    """
    import matplotlib

    lower = matplotlib.colormaps["Blues_r"](np.linspace(0.05, 0.92, 128))
    upper = matplotlib.colormaps["Reds"](np.linspace(0.45, 1.0, 128))
    return ListedColormap(np.vstack([lower, upper]), name="gradkit_ratio")


RATIO_CMAP = _ratio_cmap()
RATIO_NORM = TwoSlopeNorm(vmin=-_RATIO_DECADES, vcenter=0.0, vmax=_RATIO_DECADES)


def ratio_colour(ratio: float) -> tuple[float, float, float, float]:
    """The heatmap colour (RGBA) of a cell whose difference is ``ratio`` x the allowed one."""
    if not math.isfinite(ratio) and not ratio > 0:
        return (0.9, 0.9, 0.9, 1.0)
    logr = math.log10(ratio) if ratio > 0 else -_RATIO_DECADES
    logr = min(_RATIO_DECADES, max(-_RATIO_DECADES, logr))
    return tuple(float(c) for c in RATIO_CMAP(RATIO_NORM(logr)))


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
    im_d = ax_d.imshow(
        empty, cmap=RATIO_CMAP, norm=RATIO_NORM, aspect="auto", interpolation="nearest"
    )
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
    ticks = list(range(-_RATIO_DECADES, _RATIO_DECADES + 1))
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


def update_jacobians(  # noqa: C901, PLR0913, PLR0915 - one pass over three heatmaps; split pending
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


def _hex(rgba: Sequence[float]) -> str:
    return "#" + "".join(f"{round(float(c) * 255):02x}" for c in rgba[:3])


def jacobian_cells(
    *,
    numeric: np.ndarray | None,
    analytic: np.ndarray | None,
    atol: float,
    rtol: float,
    worst: tuple[int, int] | None = None,
    missing: str = "",
    annotate_up_to: int = 36,
) -> dict:
    """What :func:`update_jacobians` shows, as data a browser can draw (colours, not pixels).

    Returns
    -------
    dict
        ``shape`` [rows, cols]; ``cells``: for each heatmap (numeric, analytic, difference) a
        list, row by row, of [colour "#rrggbb" or None (empty cell), label text, label colour];
        ``worst`` [row, col] or None; ``notes`` (the three notes shown where a heatmap is
        missing); ``vmax`` (the numeric/analytic colour scale runs from -vmax to vmax).
    """
    import matplotlib

    mats = [np.asarray(m, dtype=float) if m is not None else None for m in (numeric, analytic)]
    n_mat, a_mat = mats
    shape = None
    for m in mats:
        if m is not None:
            shape = m.shape
    rows, cols = shape if shape is not None else (1, 1)
    ratio = d_mat = None
    if n_mat is not None and a_mat is not None and n_mat.shape == a_mat.shape:
        with np.errstate(divide="ignore", invalid="ignore"):
            allowed = atol + rtol * np.abs(n_mat)  # gradcheck's rule
            ratio = np.abs(a_mat - n_mat) / np.where(allowed > 0, allowed, np.nan)
            ratio = np.where((allowed == 0) & (a_mat == n_mat), 0.0, ratio)
            ratio = np.where((allowed == 0) & (a_mat != n_mat), np.inf, ratio)
            logr = np.log10(ratio)
        d_mat = np.clip(
            np.nan_to_num(logr, nan=np.nan, posinf=_RATIO_DECADES, neginf=-_RATIO_DECADES),
            -_RATIO_DECADES,
            _RATIO_DECADES,
        )
    values = [v for m in (n_mat, a_mat) if m is not None for v in _finite(m)]
    vmax = max((abs(v) for v in values), default=1.0) or 1.0
    rdbu = matplotlib.colormaps["RdBu_r"]
    cells, notes = [], []
    for k, mat in enumerate((n_mat, a_mat, d_mat)):
        notes.append("" if mat is not None else (missing or "not available"))
        annotate = mat is not None and rows * cols <= annotate_up_to
        scale = _RATIO_DECADES if k == 2 else vmax
        rgba = None
        if mat is not None:  # one colormap call per heatmap (as imshow colours the cells)
            with np.errstate(invalid="ignore"):
                rgba = RATIO_CMAP(RATIO_NORM(mat)) if k == 2 else rdbu((mat / vmax + 1) / 2)
        out = []
        for r in range(rows):
            for c in range(cols):
                value = float(mat[r, c]) if mat is not None else math.nan
                colour = _hex(rgba[r, c]) if math.isfinite(value) else None
                text, ink = "", _INK
                if annotate:
                    shown = float(ratio[r, c]) if k == 2 else value
                    text = _cell_format(shown)
                    ink = "white" if math.isfinite(value) and abs(value) > 0.6 * scale else _INK
                out.append([colour, text, ink])
        cells.append(out)
    return {
        "shape": [int(rows), int(cols)],
        "cells": cells,
        "worst": None if worst is None or shape is None else [int(worst[0]), int(worst[1])],
        "notes": notes,
        "vmax": float(vmax),
    }
