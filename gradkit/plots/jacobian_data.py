"""What GradcheckLab's heatmaps show, computed without drawing: matrices, scale, colours, labels.

:func:`jacobian_matrices` turns the two Jacobians into the three heatmaps (numeric, analytic,
and the difference as a ratio to gradcheck's allowed difference); :func:`cell_label` writes one
cell's label. Both serve the matplotlib heatmaps (:func:`gradkit.plots.update_jacobians`) and
the browser's cells (:func:`jacobian_cells`), so the two always show the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.colors import ListedColormap, TwoSlopeNorm

from .style import INK, finite_values

__all__ = [
    "RATIO_CMAP",
    "RATIO_DECADES",
    "RATIO_NORM",
    "JacobianMatrices",
    "cell_label",
    "heatmap_cells",
    "jacobian_cells",
    "jacobian_matrices",
    "ratio_colour",
]

RATIO_DECADES = 3  # the difference colours are clipped at 1e-3 and 1e3 times the allowed


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
RATIO_NORM = TwoSlopeNorm(vmin=-RATIO_DECADES, vcenter=0.0, vmax=RATIO_DECADES)


def ratio_colour(ratio: float) -> tuple[float, float, float, float]:
    """The heatmap colour (RGBA) of a cell whose difference is ``ratio`` x the allowed one."""
    if not math.isfinite(ratio) and not ratio > 0:
        return (0.9, 0.9, 0.9, 1.0)
    logr = math.log10(ratio) if ratio > 0 else -RATIO_DECADES
    logr = min(RATIO_DECADES, max(-RATIO_DECADES, logr))
    return tuple(float(c) for c in RATIO_CMAP(RATIO_NORM(logr)))


@dataclass(frozen=True)
class JacobianMatrices:
    """The three heatmaps' data: numeric, analytic and the clipped log10 of the difference ratio.

    ``ratio`` is |analytic - numeric| / allowed (what the difference cells' labels show);
    ``outside`` marks the entries gradcheck fails (|analytic - numeric| > allowed); ``shape``
    is None when both Jacobians are missing; ``vmax`` is the numeric/analytic colour scale's
    half-width (the scale runs from -vmax to vmax).
    """

    numeric: np.ndarray | None
    analytic: np.ndarray | None
    log_ratio: np.ndarray | None
    ratio: np.ndarray | None
    outside: np.ndarray | None
    shape: tuple[int, ...] | None
    vmax: float

    @property
    def heatmaps(self) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """What each heatmap colours: numeric, analytic, log10 ratio (None where missing)."""
        return (self.numeric, self.analytic, self.log_ratio)

    @property
    def rows_cols(self) -> tuple[int, ...]:
        """(rows, cols) of every heatmap; (1, 1) when both Jacobians are missing."""
        return self.shape if self.shape is not None else (1, 1)

    def notes(self, missing: str) -> tuple[str, str, str]:
        """What each heatmap says instead of colours: ``missing`` where it is None, else ""."""
        return tuple(
            "" if mat is not None else (missing or "not available") for mat in self.heatmaps
        )

    def scale(self, k: int) -> float:
        """Half the colour range of heatmap ``k``: vmax, or the ratio's decades for the third."""
        return RATIO_DECADES if k == 2 else self.vmax

    def label_values(self, k: int) -> np.ndarray | None:
        """The numbers written in heatmap ``k``'s cells: the matrix, or the ratio for the third."""
        return self.ratio if k == 2 else self.heatmaps[k]


def _difference_ratio(
    n_mat: np.ndarray, a_mat: np.ndarray, atol: float, rtol: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """gradcheck's rule as a ratio, its log10 clipped to +-RATIO_DECADES, and where it fails.

    ratio = |analytic - numeric| / (atol + rtol |numeric|); where allowed is 0, equal entries
    give 0 and different ones inf. An entry fails where |analytic - numeric| > allowed.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        allowed = atol + rtol * np.abs(n_mat)  # gradcheck's rule
        outside = np.abs(a_mat - n_mat) > allowed
        ratio = np.abs(a_mat - n_mat) / np.where(allowed > 0, allowed, np.nan)
        ratio = np.where((allowed == 0) & (a_mat == n_mat), 0.0, ratio)
        ratio = np.where((allowed == 0) & (a_mat != n_mat), np.inf, ratio)
        logr = np.log10(ratio)
    log_ratio = np.clip(
        np.nan_to_num(logr, nan=np.nan, posinf=RATIO_DECADES, neginf=-RATIO_DECADES),
        -RATIO_DECADES,
        RATIO_DECADES,
    )
    return ratio, log_ratio, outside


def jacobian_matrices(
    numeric: np.ndarray | None, analytic: np.ndarray | None, atol: float, rtol: float
) -> JacobianMatrices:
    """The heatmaps' data for two Jacobians (either may be None: not available)."""
    n_mat, a_mat = (
        np.asarray(m, dtype=float) if m is not None else None for m in (numeric, analytic)
    )
    present = [m for m in (n_mat, a_mat) if m is not None]
    shape = present[-1].shape if present else None  # the analytic's, when both are there
    ratio = log_ratio = outside = None
    if n_mat is not None and a_mat is not None and n_mat.shape == a_mat.shape:
        ratio, log_ratio, outside = _difference_ratio(n_mat, a_mat, atol, rtol)
    finite = np.concatenate([finite_values(m) for m in present] or [np.empty(0)])
    # vmax = max |entry| over both Jacobians' finite entries (1 if none, or all are 0)
    vmax = (float(np.abs(finite).max()) if finite.size else 1.0) or 1.0
    return JacobianMatrices(n_mat, a_mat, log_ratio, ratio, outside, shape, vmax)


def _cell_format(value: float) -> str:
    """A cell's number: 3 significant digits, or 1.0e+04 style outside [1e-3, 1e4)."""
    if not math.isfinite(value):
        return ""
    if value == 0:
        return "0"
    return f"{value:.3g}" if 1e-3 <= abs(value) < 1e4 else f"{value:.1e}"


def cell_label(value: float, shown: float, scale: float) -> tuple[str, str]:
    """(text, ink colour) of a cell coloured by ``value`` that reads ``shown``.

    The ink is white on the strong colours: |value| above 0.6 of the colour scale ``scale``.
    """
    strong = math.isfinite(value) and abs(value) > 0.6 * scale
    return _cell_format(shown), ("white" if strong else INK)


def _hex(rgba: Sequence[float]) -> str:
    return "#" + "".join(f"{round(float(c) * 255):02x}" for c in rgba[:3])


def _cell_colours(mats: JacobianMatrices, k: int) -> np.ndarray | None:
    """RGBA of heatmap ``k``'s cells: one colormap call per heatmap (as imshow colours them)."""
    import matplotlib

    mat = mats.heatmaps[k]
    if mat is None:
        return None
    with np.errstate(invalid="ignore"):
        if k == 2:
            return RATIO_CMAP(RATIO_NORM(mat))
        return matplotlib.colormaps["RdBu_r"]((mat / mats.vmax + 1) / 2)


def _heatmap_cells(mats: JacobianMatrices, k: int, annotate_up_to: int) -> list[list]:
    """Heatmap ``k``'s cells, row by row: [colour or None, label text, label colour]."""
    rows, cols = mats.rows_cols
    mat, numbers = mats.heatmaps[k], mats.label_values(k)
    annotate = mat is not None and rows * cols <= annotate_up_to
    rgba = _cell_colours(mats, k)
    out = []
    for r in range(rows):
        for c in range(cols):
            value = float(mat[r, c]) if mat is not None else math.nan
            colour = _hex(rgba[r, c]) if math.isfinite(value) else None
            text, ink = "", INK
            if annotate:
                text, ink = cell_label(value, float(numbers[r, c]), mats.scale(k))
            out.append([colour, text, ink])
    return out


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
    mats = jacobian_matrices(numeric, analytic, atol, rtol)
    return heatmap_cells(mats, worst=worst, missing=missing, annotate_up_to=annotate_up_to)


def heatmap_cells(
    mats: JacobianMatrices,
    *,
    worst: tuple[int, int] | None = None,
    missing: str = "",
    annotate_up_to: int = 36,
) -> dict:
    """:func:`jacobian_cells` from matrices already computed (:func:`jacobian_matrices`)."""
    rows, cols = mats.rows_cols
    return {
        "shape": [int(rows), int(cols)],
        "cells": [_heatmap_cells(mats, k, annotate_up_to) for k in range(3)],
        "worst": None if worst is None or mats.shape is None else [int(worst[0]), int(worst[1])],
        "notes": list(mats.notes(missing)),
        "vmax": float(mats.vmax),
    }
