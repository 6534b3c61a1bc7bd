"""GradcheckLab's picture: numeric, analytic and difference Jacobians as heatmaps.

The numbers behind the heatmaps (the matrices, the ratio scale, the cell labels) live in
:mod:`gradkit.plots.jacobian_data`; this module draws them with matplotlib.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colorbar import Colorbar
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator

from .jacobian_data import (
    RATIO_CMAP,
    RATIO_DECADES,
    RATIO_NORM,
    JacobianMatrices,
    cell_label,
    jacobian_cells,
    jacobian_matrices,
    ratio_colour,
)
from .style import INK

__all__ = [
    "JacobianArtists",
    "draw_jacobians",
    "jacobian_cells",
    "ratio_colour",
    "update_jacobians",
]

_TITLES = (
    "numeric Jacobian\n(nudges)",
    "analytic Jacobian\n(backward)",
    "|analytic − numeric| ÷ allowed\n(above 1 fails)",
)


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


def _draw_images(axes: Sequence[Axes]) -> tuple[AxesImage, AxesImage, AxesImage]:
    """Three empty heatmaps: two on the Jacobians' diverging scale, one on the ratio scale."""
    ax_n, ax_a, ax_d = axes
    empty = np.full((1, 1), np.nan)
    jacobian_scale = {"cmap": "RdBu_r", "vmin": -1, "vmax": 1}
    im_n = ax_n.imshow(empty, **jacobian_scale, aspect="auto", interpolation="nearest")
    im_a = ax_a.imshow(empty, **jacobian_scale, aspect="auto", interpolation="nearest")
    im_d = ax_d.imshow(
        empty, cmap=RATIO_CMAP, norm=RATIO_NORM, aspect="auto", interpolation="nearest"
    )
    return im_n, im_a, im_d


def _dress_heatmap(ax: Axes, title: str) -> tuple[Rectangle, Text]:
    """Title and labels of one heatmap, its hidden worst-entry box and its (empty) note."""
    ax.set_title(title, fontsize=9.5)
    ax.set_xlabel("input entry", fontsize=9)
    ax.tick_params(labelsize=8)
    rect = Rectangle((0, 0), 1, 1, fill=False, ec=INK, lw=2.2, zorder=5, visible=False)
    ax.add_patch(rect)
    note = ax.text(
        0.5,
        0.5,
        "",
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=8.5,
        wrap=True,
        color=INK,
    )
    return rect, note


def _draw_colorbars(
    figure: Figure,
    axes: Sequence[Axes],
    images: tuple[AxesImage, AxesImage, AxesImage],
    colorbar_axes: Sequence[Axes] | None,
) -> tuple[Colorbar, Colorbar]:
    """One colour bar for both Jacobians, one (labelled in decades) for the ratio."""
    ax_n, ax_a, ax_d = axes
    cax = list(colorbar_axes) if colorbar_axes is not None else [None, None]
    cb_j = figure.colorbar(images[1], cax=cax[0], ax=None if cax[0] else [ax_n, ax_a])
    cb_j.set_label("d output / d input", fontsize=8.5)
    cb_d = figure.colorbar(images[2], cax=cax[1], ax=None if cax[1] else ax_d)
    ticks = list(range(-RATIO_DECADES, RATIO_DECADES + 1))
    cb_d.set_ticks(ticks)
    cb_d.ax.yaxis.set_major_formatter(
        FixedFormatter([("1 = limit" if t == 0 else f"1e{t:+d}") for t in ticks])
    )
    cb_d.set_label("ratio to allowed", fontsize=8.5)
    for cb in (cb_j, cb_d):
        cb.ax.tick_params(labelsize=8)
    return cb_j, cb_d


def draw_jacobians(
    axes: Sequence[Axes], colorbar_axes: Sequence[Axes] | None = None
) -> JacobianArtists:
    """Draw three empty heatmaps: numeric, analytic, and |analytic - numeric| / allowed."""
    images = _draw_images(axes)
    dressed = [_dress_heatmap(ax, title) for ax, title in zip(axes, _TITLES, strict=True)]
    worst, notes = zip(*dressed, strict=True)
    axes[0].set_ylabel("output entry", fontsize=9)
    colorbars = _draw_colorbars(axes[0].figure, axes, images, colorbar_axes)
    return JacobianArtists(tuple(axes), images, colorbars, tuple(worst), tuple(notes))


def _update_separators(
    artists: JacobianArtists, row_splits: Sequence[int], col_splits: Sequence[int]
) -> None:
    """Redraw the lines between blocks (several outputs or inputs) if the blocks changed."""
    split_key = (tuple(row_splits), tuple(col_splits))
    if split_key == artists._split_key:
        return
    for line in artists.separators:
        line.remove()
    artists.separators = []
    for ax in artists.axes:
        artists.separators += [ax.axhline(r - 0.5, color=INK, lw=1.2) for r in row_splits]
        artists.separators += [ax.axvline(c - 0.5, color=INK, lw=1.2) for c in col_splits]
        ax.set_xlabel(
            "input entry" + (" (lines separate inputs)" if col_splits else ""),
            fontsize=9 if not col_splits else 8,
        )
    artists._split_key = split_key


def _show_heatmap(ax: Axes, image: AxesImage, mat: np.ndarray | None, rows: int, cols: int) -> None:
    """Show ``mat`` (or an empty rows x cols grid): one cell per unit, row 0 on top."""
    image.set_data(mat if mat is not None else np.full((rows, cols), np.nan))
    image.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    for axis, n in ((ax.xaxis, cols), (ax.yaxis, rows)):
        if n <= 12:  # every entry gets its tick
            axis.set_major_locator(FixedLocator(range(n)))
        else:
            axis.set_major_locator(MaxNLocator(nbins=6, integer=True))


def _box_worst(rect: Rectangle, worst: tuple[int, int] | None, shown: bool) -> None:
    """Box the worst (row, column) cell, or hide the box."""
    if worst is not None and shown:
        r, c = worst
        rect.set_xy((c - 0.5, r - 0.5))
        rect.set_visible(True)
    else:
        rect.set_visible(False)


def _label_cells(
    artists: JacobianArtists, k: int, mats: JacobianMatrices, annotate_up_to: int
) -> None:
    """Write each cell's number in heatmap ``k`` if it has at most ``annotate_up_to`` cells."""
    rows, cols = mats.rows_cols
    mat, numbers = mats.heatmaps[k], mats.label_values(k)
    annotate = mat is not None and rows * cols <= annotate_up_to
    pool = artists._texts(k, rows * cols if annotate else 0)
    used = 0
    if annotate:
        size = 8 if rows * cols <= 16 else 6.5
        for r in range(rows):
            for c in range(cols):
                label, ink = cell_label(float(mat[r, c]), float(numbers[r, c]), mats.scale(k))
                text = pool[used]
                text.set_position((c, r))
                text.set_text(label)
                text.set_fontsize(size)
                text.set_color(ink)
                text.set_visible(True)
                used += 1
    for text in pool[used:]:
        text.set_visible(False)


def update_jacobians(  # noqa: PLR0913 - the widgets' public call: one keyword per thing shown
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
    _update_separators(artists, row_splits, col_splits)
    mats = jacobian_matrices(numeric, analytic, atol, rtol)
    rows, cols = mats.rows_cols
    vmax = mats.vmax
    notes = mats.notes(missing)
    for k, (ax, image, mat, note) in enumerate(
        zip(artists.axes, artists.images, mats.heatmaps, artists.notes, strict=True)
    ):
        note.set_text(notes[k])
        _show_heatmap(ax, image, mat, rows, cols)
        if k < 2 and image.get_clim() != (-vmax, vmax):
            image.set_clim(-vmax, vmax)
        _box_worst(artists.worst[k], worst, mats.shape is not None)
        _label_cells(artists, k, mats, annotate_up_to)
