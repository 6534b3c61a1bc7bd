"""Widget latency: kernel-side time from a control change to the canvas frame being ready.

For each widget, a control's ``.value`` is set and everything the browser needs is made ready
inside the callback, as a live front end gets it: a change that the table computed ahead already
holds sends nothing new, and a change of scene re-renders the static PNG (the stage's flush at
the end of the callback) and sends the new table. The anchor, measured in the same run, is the
naive way: an interact-style callback that recomputes everything, builds a new matplotlib figure
and renders it to PNG the way the inline backend does (``print_figure(..., bbox_inches="tight")``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable

import ipywidgets as widgets
import numpy as np
import torch
from IPython.core.pylabtools import print_figure
from matplotlib.figure import Figure

from gradkit import check, plots
from gradkit.numerics import SCHEMES, analytic_slope, sweep
from gradkit.widgets import EpsilonLab, FloatRuler, GradcheckLab, SlopeExplorer, _floats
from gradkit.widgets._lab_matrices import combine_blocks
from gradkit.widgets._slope_table import FIELDS, HALF_WIDTH, ZOOM_POINTS, slope_table
from gradkit.zoo import CATALOGUE

from . import Row, summarize, time_calls

__all__ = ["run"]

_GOAL_MS = 30.0
_GOAL_RATIO = 10.0
_ANCHOR = "interact + new figure + inline PNG"


def _connect_front_end(panel) -> None:
    """Render the first frame, as a browser showing the widget gets it."""
    panel._stage.flush()


def _cycle(values: list) -> Callable[[], object]:
    it = itertools.cycle(values)
    return lambda: next(it)


def _eps_values(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    grid = [10 ** (-11 + 0.2 * k) for k in range(56)]
    out, last = [], None
    while len(out) < n:
        v = rng.choice(grid)
        if v != last:
            out.append(v)
            last = v
    return out


def _measure(panel, control, values: list, repeat: int, before=None) -> list[float]:
    nxt = _cycle(values)
    stage = panel._stage

    def change() -> None:
        if before is not None:
            before()
        control.value = nxt()
        stage.flush()

    return time_calls(change, repeat=repeat, warmup=3)


def _naive(render: Callable[[Figure, object], None], figsize) -> Callable[[object], bytes]:
    image = widgets.Image(format="png")

    def callback(value: object) -> bytes:
        fig = Figure(figsize=figsize, dpi=100)
        render(fig, value)
        data = print_figure(fig, "png", bbox_inches="tight")
        image.value = data
        return data

    return callback


def _anchor(render, figsize, control_factory, values: list, repeat: int) -> list[float]:
    """An interact-style control whose observer draws a brand-new figure on every change."""
    control = control_factory()
    callback = _naive(render, figsize)
    control.observe(lambda change: callback(change["new"]), names="value")
    nxt = _cycle(values)

    def change() -> None:
        control.value = nxt()

    try:
        return time_calls(change, repeat=repeat, warmup=2)
    finally:
        control.close()


def _slope_render(fig, eps) -> None:
    f, x = (lambda v: v * v), 2.0
    art = plots.draw_slope(fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2))
    t, y = _floats.sample(f, x - 1.5, x + 1.5)
    plots.update_slope_view(art, curve_x=t.numpy(), curve_y=y.numpy(), title="f(x) = x² near 2")
    analytic = analytic_slope(f, x)
    rows, zoom, _ = slope_table(f, x, [eps], analytic, dtypes=["float64"], schemes=["central"])
    r = dict(zip(FIELDS, rows[0, 0, 0], strict=True))
    plus, minus, _, _ = SCHEMES["central"]
    plots.update_slope(
        art, x=r["xs"], fx=r["fx"], eps=eps, analytic=analytic, numeric=r["numeric"],
        offsets=(plus, minus), points=(r["p0"], r["p1"]), values=(r["v0"], r["v1"]),
        zoom_u=np.linspace(-HALF_WIDTH, HALF_WIDTH, ZOOM_POINTS), zoom_v=zoom[0, 0],
    )  # fmt: skip


def _epsilon_render(fig, eps) -> None:
    f, x = (lambda v: v**3), 0.5
    result = sweep(f, x)
    art = plots.draw_error_curves(fig.add_subplot())
    curves = result.dtypes
    plots.update_error_curves(
        art,
        eps=result.eps.numpy(),
        errors={k: d.error.numpy() for k, d in curves.items()},
        underflow={k: d.underflow.numpy() for k, d in curves.items()},
        optimal={k: (d.optimal_eps, d.optimal_error) for k, d in curves.items()},
        truncation=curves["float64"].truncation.numpy(),
        rounding={k: d.rounding.numpy() for k, d in curves.items()},
        tolerance=result.tolerance,
        title="error of the numeric slope of x³ at x = 0.5",
    )
    plots.update_error_highlight(art, "float32")
    at = sweep(f, x, eps=[eps])
    plots.update_error_marker(art, eps, float(at.dtypes["float32"].error[0]))


def _ruler_render(fig, eps) -> None:
    x, dtype = 0.5, torch.float32
    r = _floats.ruler(x, eps, dtype)
    art = plots.draw_float_ruler(fig.add_subplot(2, 1, 1), fig.add_subplot(2, 1, 2))
    plots.update_float_ruler(
        art,
        view_ticks=r.view_ticks.numpy() if r.view_ticks is not None else None,
        lower=(r.lower - r.x) / eps,
        upper=(r.upper - r.x) / eps,
        zoom_ticks=r.zoom_ticks.numpy(),
        zoom_lower=(r.lower - r.x) / r.ulp,
        zoom_upper=(r.upper - r.x) / r.ulp,
        eps_in_ulps=eps / r.ulp,
    )


def _gradcheck_render(fig, name) -> None:
    entry = CATALOGUE[name]
    report = check(entry.apply, entry.inputs(torch.float64))
    axes = [fig.add_subplot(1, 3, k) for k in (1, 2, 3)]
    art = plots.draw_jacobians(axes)
    plots.update_jacobians(
        art,
        numeric=combine_blocks(report.numeric)[0],
        analytic=combine_blocks(report.analytic)[0],
        atol=report.atol,
        rtol=report.rtol,
        worst=report.worst.index if report.worst else None,
    )


def _eps_slider() -> widgets.FloatLogSlider:
    return widgets.FloatLogSlider(value=1e-3, base=10, min=-12, max=0, step=0.2)


def _entry_dropdown() -> widgets.Dropdown:
    return widgets.Dropdown(options=list(CATALOGUE), value="MatmulFn")


def _row(name: str, samples: list[float], anchor: list[float], goal: bool) -> Row:
    median, p95 = summarize(samples)
    a_median, a_p95 = summarize(anchor)
    ratio = a_median / median if median > 0 else math.inf
    return Row(
        suite="widgets",
        name=name,
        median_ms=median,
        p95_ms=p95,
        anchor=_ANCHOR,
        anchor_median_ms=a_median,
        anchor_p95_ms=a_p95,
        goal=f"p95 <= {_GOAL_MS:g} ms, >= {_GOAL_RATIO:g}x anchor" if goal else "(no goal)",
        met=(p95 <= _GOAL_MS and ratio >= _GOAL_RATIO) if goal else None,
    )


def run(full: bool, device: str) -> list[Row]:
    """Median and p95 over 50 control changes per widget (200 with ``full``), with anchors.

    ``device`` is ignored: widgets run in the kernel, on the CPU.
    """
    del device
    repeat = 200 if full else 50
    eps = _eps_values(repeat, seed=0)
    rows: list[Row] = []
    dtypes = [torch.float32, torch.float64, torch.float16, torch.bfloat16]

    cases = [
        ("SlopeExplorer: eps change", SlopeExplorer, "eps_slider", eps, _slope_render,
         (8.6, 3.8), True),
        ("SlopeExplorer: dtype change", SlopeExplorer, "dtype_buttons", dtypes, None, None,
         False),
        ("EpsilonLab: eps change", EpsilonLab, "eps_slider", eps, _epsilon_render, (8.6, 4.2),
         True),
        ("EpsilonLab: highlighted dtype change", EpsilonLab, "dtype_buttons", dtypes, None,
         None, False),
        ("FloatRuler: eps change", FloatRuler, "eps_slider", eps, _ruler_render, (8.6, 3.2),
         True),
        ("FloatRuler: dtype change", FloatRuler, "dtype_buttons", dtypes, None, None, False),
    ]  # fmt: skip
    anchors: dict[str, list[float]] = {}
    for name, cls, control, values, render, figsize, goal in cases:
        panel = cls()
        try:
            _connect_front_end(panel)
            samples = _measure(panel, getattr(panel, control), values, repeat)
        finally:
            panel.close()
        key = cls.__name__
        if render is not None:
            anchors[key] = _anchor(render, figsize, _eps_slider, eps, repeat)
        rows.append(_row(name, samples, anchors[key], goal))

    # GradcheckLab: every change runs torch's gradcheck (its cache of reports is emptied first)
    # and redraws three heatmaps; no goal.
    entries = ["SquareFn", "CubeFn", "SigmoidFn", "WrongSquareFn", "TanhFn", "ExpFn"]
    lab = GradcheckLab()
    try:
        _connect_front_end(lab)
        lab_samples = _measure(
            lab, lab.function_dropdown, entries, repeat, before=lab._reports.clear
        )
    finally:
        lab.close()
    lab_anchor = _anchor(_gradcheck_render, (8.6, 3.5), _entry_dropdown, entries, repeat)
    rows.append(_row("GradcheckLab: Function change (+gradcheck)", lab_samples, lab_anchor,
                     False))  # fmt: skip
    return rows
