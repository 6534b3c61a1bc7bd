"""gradkit.plots on the Agg backend: the artists hold the data they were given."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from gradkit import plots


def _figure(*shape: int) -> tuple[Figure, list]:
    fig = Figure(figsize=(8.6, 3.6), dpi=100)
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(*shape, k + 1) for k in range(shape[0] * shape[1])]
    return fig, axes


def _render(fig: Figure) -> None:
    fig.canvas.draw()


# ------------------------------------------------------------------------------- slope


def _slope_update(art, *, eps=1e-3, numeric=4.0, values=None):
    values = values or ((2.0 + eps) ** 2, (2.0 - eps) ** 2)
    return plots.update_slope(
        art,
        x=2.0,
        fx=4.0,
        eps=eps,
        analytic=4.0,
        numeric=numeric,
        offsets=(1.0, -1.0),
        points=(2.0 + eps, 2.0 - eps),
        values=values,
        zoom_u=np.linspace(-2.5, 2.5, 11),
        zoom_v=4.0 * np.linspace(-2.5, 2.5, 11),
    )


def test_slope_lines_carry_both_slopes():
    fig, (ax, zoom) = _figure(1, 2)
    art = plots.draw_slope(ax, zoom)
    t = np.linspace(0.5, 3.5, 50)
    plots.update_slope_view(art, curve_x=t, curve_y=t * t, title="f(x) = x² near x = 2")
    assert ax.get_xlim() == (0.5, 3.5)
    assert ax.get_title() == "f(x) = x² near x = 2"
    changed = _slope_update(art, numeric=3.5, values=(4.0035, 3.9965))

    tx, ty = art.tangent.get_data()
    assert (ty[1] - ty[0]) / (tx[1] - tx[0]) == pytest.approx(4.0)  # analytic slope
    sx, sy = art.secant.get_data()
    assert (sy[1] - sy[0]) / (sx[1] - sx[0]) == pytest.approx(3.5)  # numeric slope
    # the secant goes through the second evaluation point
    assert np.interp(2.0 - 1e-3, sx, sy) == pytest.approx(3.9965)
    px, py = art.points.get_data()
    assert list(px) == [2.001, 1.999]
    assert list(py) == [4.0035, 3.9965]
    # zoom: in units of eps, the points sit at the scheme's offsets
    zx, zy = art.zoom_points.get_data()
    assert list(zx) == [1.0, -1.0]
    assert zy[0] == pytest.approx(3.5)
    assert art.window.get_width() == pytest.approx(2 * 2.5 * 1e-3)
    assert changed  # the zoom's first limits had to be set
    lo, hi = zoom.get_ylim()
    assert lo < -10 < 10 < hi  # the tangent spans +-4 * 2.5
    _render(fig)


def test_slope_zoom_limits_fit_each_state():
    _fig, (ax, zoom) = _figure(1, 2)
    art = plots.draw_slope(ax, zoom)
    _slope_update(art)
    first = zoom.get_ylim()
    assert _slope_update(art, eps=1e-5) is False  # same picture in units of eps: same limits
    assert zoom.get_ylim() == first
    wild = plots.update_slope(
        art,
        x=2.0,
        fx=4.0,
        eps=1e-3,
        analytic=4.0,
        numeric=4.0,
        offsets=(1.0, -1.0),
        points=(2.001, 1.999),
        values=(4.1, 3.9),
        zoom_u=[0.0, 1.0],
        zoom_v=[0.0, 100.0],
    )
    assert wild is True
    assert zoom.get_ylim()[1] >= 100
    lo, hi, ticks = plots.zoom_limits([0.0, 100.0], 4.0, [100.0, -100.0])
    assert lo < -100 and hi > 100
    assert all(lo <= v <= hi for v, _ in ticks) and len(ticks) >= 3
    assert dict(ticks)[0.0] == "0" and any(label.startswith("−") for _, label in ticks)


def test_slope_nan_slope_draws_nothing():
    fig, (ax, zoom) = _figure(1, 2)
    art = plots.draw_slope(ax, zoom)
    nan = math.nan
    plots.update_slope(
        art,
        x=2.0,
        fx=4.0,
        eps=1e-3,
        analytic=4.0,
        numeric=nan,
        offsets=(1.0, -1.0),
        points=(2.0, 2.0),
        values=(4.0, 4.0),
        zoom_u=np.full(5, nan),
        zoom_v=np.full(5, nan),
    )
    assert np.isnan(art.secant.get_data()[1]).all()
    _render(fig)
