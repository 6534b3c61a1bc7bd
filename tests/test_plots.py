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


# ------------------------------------------------------------------------- error curves


def _error_data():
    eps = np.logspace(-12, 0, 61)
    errors = {
        "float64": 1e-16 / eps + eps**2,
        "float32": 6e-8 / eps + eps**2,
        "float16": np.where(eps < 1e-7, np.nan, 0.75),
        "bfloat16": np.zeros(61),
    }
    underflow = {k: np.zeros(61, bool) for k in errors}
    underflow["float16"] = eps < 1e-7
    optimal = {"float64": (2e-6, 1e-11), "float32": (1.5e-3, 6e-6), "float16": (math.inf, math.nan)}
    rounding = dict.fromkeys(errors, 1e-16 / eps)
    return eps, errors, underflow, optimal, rounding


def _drawn_error_curves(**extra):
    """Error curves drawn from :func:`_error_data` on a fresh Axes."""
    fig, (ax,) = _figure(1, 1)
    art = plots.draw_error_curves(ax)
    data = _error_data()
    eps, errors, underflow, optimal, rounding = data
    plots.update_error_curves(
        art,
        eps=eps,
        errors=errors,
        underflow=underflow,
        optimal=optimal,
        truncation=eps**2,
        rounding=rounding,
        tolerance=7.6e-4,
        **extra,
    )
    return fig, ax, art, data


def test_error_curves_mark_underflow_and_exact_zeros():
    fig, ax, art, (_, errors, underflow, _, _) = _drawn_error_curves(title="x³ at 0.5")
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlabel() and ax.get_ylabel()
    _, y64 = art.curves["float64"].get_data()
    np.testing.assert_allclose(y64, errors["float64"])
    # underflowed eps are marked at the bottom, not drawn as NaN on the curve
    ux, _ = art.underflow["float16"].get_data()
    assert len(ux) == int(underflow["float16"].sum()) > 0
    # exact zeros cannot sit on a log axis: marked with a triangle instead
    zx, _ = art.exact["bfloat16"].get_data()
    assert len(zx) == 61
    assert np.isnan(art.curves["bfloat16"].get_data()[1]).all()
    # no theoretical optimum for float16 here: no star
    assert len(art.optima["float16"].get_data()[0]) == 0
    assert list(art.optima["float32"].get_data()[0]) == [1.5e-3]
    assert art.tolerance.get_data()[1][0] == pytest.approx(7.6e-4)
    lo, hi = ax.get_ylim()
    assert lo < 1e-11 and hi > 0.75
    _render(fig)


def test_error_highlight_and_marker():
    fig, ax, art, _ = _drawn_error_curves()
    plots.update_error_highlight(art, "float32")
    assert art.curves["float32"].get_linewidth() > art.curves["float64"].get_linewidth()
    assert art.curves["float32"].get_alpha() == 1.0
    assert art.rounding.get_visible()
    plots.update_error_highlight(art, "float32", show_theory=False)
    assert not art.rounding.get_visible() and not art.truncation.get_visible()

    plots.update_error_marker(art, 1e-6, 1e-2)
    assert list(art.eps_line.get_xdata()) == [1e-6, 1e-6]
    assert art.eps_marker.get_data() == ([1e-6], [1e-2])
    plots.update_error_marker(art, 1e-6, 0.0)  # exact: sits on the bottom edge
    assert art.eps_marker.get_data()[1][0] == ax.get_ylim()[0]
    plots.update_error_marker(art, 1e-9, math.nan)  # no slope: no marker
    assert len(art.eps_marker.get_data()[0]) == 0
    _render(fig)


# -------------------------------------------------------------------------------- ruler


def test_ruler_draws_ticks_or_says_they_are_too_dense():
    fig, (ax, zoom) = _figure(2, 1)
    art = plots.draw_float_ruler(ax, zoom)
    plots.update_float_ruler(
        art,
        view_ticks=np.linspace(-1.5, 1.5, 7),
        lower=-1.02,
        upper=1.02,
        zoom_ticks=np.arange(-8, 9),
        zoom_lower=-17.0,
        zoom_upper=17.0,
        eps_in_ulps=16.8,
    )
    xs, _ = art.ticks.get_data()
    assert np.count_nonzero(~np.isnan(xs)) == 14  # two ends per tick
    assert list(art.landed.get_data()[0]) == [-1.02, 1.02]
    assert not art.dense.get_visible()
    assert art.zoom_left.get_visible() and art.zoom_right.get_visible()
    assert art.slow_state() == (False, True, True)
    assert len(art.zoom_landed.get_data()[0]) == 0  # both land outside the zoom
    _render(fig)

    plots.update_float_ruler(
        art,
        view_ticks=None,
        lower=-1.0,
        upper=1.0,
        zoom_ticks=np.arange(-8, 9),
        zoom_lower=-9e9,
        zoom_upper=9e9,
        eps_in_ulps=9e9,
    )
    assert art.dense.get_visible()
    assert art.dense_text.get_visible()
    assert "too many numbers to draw" in art.dense_text.get_text()
    # collapse: both land on x
    plots.update_float_ruler(
        art,
        view_ticks=[0.0],
        lower=0.0,
        upper=0.0,
        zoom_ticks=[-1, 0, 1],
        zoom_lower=0.0,
        zoom_upper=0.0,
        eps_in_ulps=0.17,
    )
    assert list(art.landed.get_data()[0]) == [0.0, 0.0]
    assert list(art.zoom_requested.get_data()[0]) == [-0.17, 0.17]
    assert not art.zoom_left.get_visible() and not art.zoom_right.get_visible()
    _render(fig)
