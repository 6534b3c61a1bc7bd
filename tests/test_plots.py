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


# ---------------------------------------------------------------------------- jacobians


def test_jacobians_show_ratio_to_tolerance_and_box_the_worst():
    fig, axes = _figure(1, 3)
    art = plots.draw_jacobians(axes)
    numeric = np.array([[1.0, 0.0], [0.0, 2.86]])
    analytic = np.array([[1.0, 0.0], [0.0, 3.0]])
    plots.update_jacobians(
        art, numeric=numeric, analytic=analytic, atol=1e-5, rtol=1e-3, worst=(1, 1)
    )
    np.testing.assert_allclose(art.images[0].get_array(), numeric)
    np.testing.assert_allclose(art.images[1].get_array(), analytic)
    ratio = art.images[2].get_array()
    allowed = 1e-5 + 1e-3 * 2.86
    assert ratio[1, 1] == pytest.approx(math.log10(0.14 / allowed))
    assert ratio[0, 0] == -3  # exact agreement is clipped to the bottom of the scale (1e-3)
    for rect in art.worst:
        assert rect.get_visible() and rect.get_xy() == (0.5, 0.5)
    texts = [t.get_text() for t in art.labels if t.get_visible()]
    assert "2.86" in texts and "3" in texts
    # a second update reuses the annotations instead of piling them up
    plots.update_jacobians(art, numeric=numeric, analytic=analytic, atol=1e-5, rtol=1e-3)
    assert len(art.labels) == 12
    plots.update_jacobians(art, numeric=np.ones((1, 1)), analytic=np.ones((1, 1)), atol=0, rtol=0)
    assert [t.get_text() for t in art.labels if t.get_visible()] == ["1", "1", "0"]
    assert not any(r.get_visible() for r in art.worst)
    _render(fig)


def test_heatmap_colours_a_failing_cell_hot_and_a_passing_one_cool():
    hot = plots.ratio_colour(13.0)  # 13 times the allowed difference (lesson 06's cell)
    assert hot[0] > 0.75 and hot[0] - max(hot[1], hot[2]) > 0.4, hot
    barely = plots.ratio_colour(2.0)
    assert barely[0] - barely[2] > 0.25, barely  # already clearly red just above 1
    cool = plots.ratio_colour(0.01)
    assert cool[2] > cool[0] + 0.2, cool
    # clipped near 1e-3 and 1e3, and the image uses the same scale
    assert plots.ratio_colour(1e6) == plots.ratio_colour(1e3)
    assert plots.ratio_colour(1e-9) == plots.ratio_colour(1e-3)
    fig, axes = _figure(1, 3)
    art = plots.draw_jacobians(axes)
    numeric = np.array([[1.0]])
    allowed = 1e-5 + 1e-3 * 1.0
    plots.update_jacobians(
        art, numeric=numeric, analytic=numeric + 13 * allowed, atol=1e-5, rtol=1e-3
    )
    image = art.images[2]
    drawn = image.cmap(image.norm(image.get_array()[0, 0]))
    np.testing.assert_allclose(drawn, hot, atol=0.02)
    _render(fig)


def test_jacobians_without_analytic_say_why():
    fig, axes = _figure(1, 3)
    art = plots.draw_jacobians(axes)
    plots.update_jacobians(
        art,
        numeric=np.eye(3, 4),
        analytic=None,
        atol=1e-5,
        rtol=1e-3,
        col_splits=[3],
        missing="no analytic Jacobian",
        annotate_up_to=0,
    )
    assert art.notes[1].get_text() == "no analytic Jacobian"
    assert art.notes[0].get_text() == ""
    assert np.ma.getmaskarray(art.images[1].get_array()).all()  # NaN: nothing painted
    assert len(art.separators) == 3  # one per heatmap
    assert "separate inputs" in axes[0].get_xlabel()
    _render(fig)
