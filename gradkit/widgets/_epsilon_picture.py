"""EpsilonLab's matplotlib side: the static layer, and the curves as the browser draws them.

The browser (``static/epsilon_lab.js``) draws the curves, the stars, the strip's marks and the
cursor from the scene's table; :func:`mirror_browser_curves` sets the matplotlib artists the same
way, so that Python (tests, a static render) sees what the learner sees.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .. import plots
from .._args import DTYPES, EPS_GRID, WIDGET_SCHEMES
from ..numerics import SweepResult

__all__ = ["draw_static_layer", "mirror_browser_curves"]


def draw_static_layer(
    artists: plots.ErrorCurveArtists, sweeps: Mapping[str, SweepResult], x: float, fname: str
) -> None:
    """Axes limits (fitting both schemes), tolerance line and title; empty axes without sweeps."""
    both = [sweeps[s] for s in WIDGET_SCHEMES] if sweeps else []
    # both schemes' curves one after the other, so that the limits fit either
    grid = np.tile(EPS_GRID, len(both) or 1)
    errors, under = {}, {}
    for name in DTYPES:
        if both:
            errors[name] = np.concatenate([r.dtypes[name].error.numpy() for r in both])
            under[name] = np.concatenate([r.dtypes[name].underflow.numpy() for r in both])
    plots.update_error_curves(
        artists,
        eps=grid,
        errors=errors,
        underflow=under,
        optimal={},  # the stars move with the scheme: mirror_browser_curves draws them
        truncation=np.full(grid.shape, np.nan),
        rounding={},
        tolerance=both[0].tolerance if both else 0.0,
        title=f"error of the numeric slope of {fname} at x = {x:g}",
    )


def mirror_browser_curves(
    artists: plots.ErrorCurveArtists,
    result: SweepResult,
    shown: Sequence[str],
    chosen: str,
    *,
    show_theory: bool,
) -> None:
    """Curves, strip marks and stars of the shown dtypes, the theory lines for ``chosen``."""
    grid = result.eps.numpy()
    for name, line in artists.curves.items():
        err = result.dtypes[name].error.numpy()
        on = name in shown
        line.set_data(grid, np.where(err > 0, err, np.nan) if on else np.nan * grid)
        under = result.dtypes[name].underflow.numpy().astype(bool) & on
        # the strip has one row per shown dtype, in DTYPES order (as static/epsilon_lab.js)
        row = [n for n in DTYPES if n in shown].index(name) if on else 0
        artists.underflow[name].set_data(grid[under], np.full(int(under.sum()), row))
        zero = (err == 0) & ~under & on
        artists.exact[name].set_data(grid[zero], np.full(int(zero.sum()), row))
        ds = result.dtypes[name]
        ok = on and math.isfinite(ds.optimal_eps) and ds.optimal_error > 0
        artists.optima[name].set_data(
            [ds.optimal_eps] if ok else [], [ds.optimal_error] if ok else []
        )
    first = next(iter(result.dtypes.values()))
    trunc = first.truncation.numpy()
    artists.truncation.set_data(grid, np.where(trunc > 0, trunc, np.nan))
    artists.eps_grid = grid
    artists.rounding_curves = {k: d.rounding.numpy() for k, d in result.dtypes.items()}
    plots.update_error_highlight(artists, chosen, show_theory=show_theory)
