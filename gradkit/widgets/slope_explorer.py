"""SlopeExplorer: slide eps and watch the secant (numeric slope) leave the tangent (analytic).

Per scene (function and x) torch computes every eps of the grid for every dtype and scheme in one
batched pass (:func:`slope_table`); the browser moves eps, dtype and scheme from that table with
no kernel message. A typed eps off the grid and a new x or function go to the kernel.

A scene is sent compactly: the table as float64 buffers, each distinct readout string once
(:func:`pack_strings`, looked up by :func:`scene_row_extra` and its twin in the browser), and the
static picture redrawn only where it changes (:class:`SceneStage`).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence

import numpy as np
import torch

from .. import plots
from .._args import DTYPES, EPS_GRID, SCHEMES, dtype_name
from ..numerics import analytic_slope, numeric_slopes
from ..plots.slope import zoom_limits_many
from . import _floats
from ._base import (
    GradkitWidget,
    Stage,
    check_eps,
    check_x,
    dtype_value,
    fmt,
    fmt_eps,
    fmt_plain,
    function_options,
    is_custom_function,
    json_safe,
    readout_html,
)

__all__ = [
    "FIELDS",
    "READOUT_KEYS",
    "SceneStage",
    "SlopeExplorer",
    "pack_strings",
    "scene_row_extra",
    "slope_table",
]

_SCHEMES = ("central", "forward")
_FORMULA = {
    "central": "(f(x+eps) − f(x−eps)) / (2·eps)",
    "forward": "(f(x+eps) − f(x)) / eps",
}
#: The columns of one table row (one eps, one dtype, one scheme).
FIELDS = ("numeric", "h", "p0", "p1", "v0", "v1", "fx", "xs", "underflow", "collapsed", "lo", "hi")
_ZOOM_POINTS = 121
_HALF_WIDTH = 2.5


def slope_table(
    f: Callable,
    x: float,
    eps: Sequence[float],
    analytic: float,
    *,
    dtypes: Sequence[str] = tuple(DTYPES),
    schemes: Sequence[str] = _SCHEMES,
    zoom_points: int = _ZOOM_POINTS,
    half_width: float = _HALF_WIDTH,
) -> tuple[np.ndarray, np.ndarray, list]:
    """Everything the picture and readouts need for every eps, dtype and scheme.

    Returns
    -------
    rows : ndarray, shape (schemes, dtypes, eps, len(FIELDS))
        The numeric slope (from :func:`gradkit.numerics.numeric_slopes`, one batched call per
        dtype and scheme), eps and x as stored in the dtype, the evaluation points and f there,
        f(x), the underflow and collapse flags, and the zoom panel's y-limits.
    zoom : ndarray, shape (dtypes, eps, zoom_points)
        (f(x + u eps) - f(x)) / eps for u in [-half_width, half_width], computed in the dtype.
    ticks : nested list [scheme][dtype][eps] of [(value, label), ...]
        The zoom panel's y ticks.
    """
    eps64 = torch.tensor([float(e) for e in eps], dtype=torch.float64)
    n = len(eps)
    u = torch.linspace(-half_width, half_width, zoom_points, dtype=torch.float64)
    rows = np.full((len(schemes), len(dtypes), n, len(FIELDS)), np.nan)
    zoom = np.full((len(dtypes), n, zoom_points), np.nan)
    ticks: list = [[[] for _ in dtypes] for _ in schemes]
    for d, name in enumerate(dtypes):
        dtype = DTYPES[name]
        h = eps64.to(dtype)
        x_t = torch.tensor(float(x), dtype=dtype)
        t = x_t + (eps64[:, None] * u[None, :]).to(dtype)  # x + u eps, rounded in the dtype
        points = torch.cat([x_t + h, x_t - h, x_t.reshape(1), t.reshape(-1)])
        values = _floats.evaluate(f, points).to(torch.float64)
        plus, minus, fx = values[:n], values[n : 2 * n], float(values[2 * n])
        zv = ((values[2 * n + 1 :].reshape(n, zoom_points) - fx) / eps64[:, None]).numpy()
        zv[(h == 0).numpy()] = np.nan
        zoom[d] = zv
        for s, scheme in enumerate(schemes):
            numeric = numeric_slopes(f, x, eps64, dtype=dtype, scheme=scheme).numpy()
            p0 = (x_t + h).to(torch.float64)
            p1 = (x_t - h if SCHEMES[scheme][1] < 0 else x_t + 0.0 * h).to(torch.float64)
            v1 = minus if SCHEMES[scheme][1] < 0 else torch.full_like(plus, fx)
            r = rows[s, d]
            r[:, 0] = numeric
            r[:, 1] = h.to(torch.float64).numpy()
            r[:, 2], r[:, 3] = p0.numpy(), p1.numpy()
            r[:, 4], r[:, 5] = plus.numpy(), v1.numpy()
            r[:, 6], r[:, 7] = fx, float(x_t)
            r[:, 8] = (h == 0).numpy()
            r[:, 9] = (p0 == p1).numpy()
            # the evaluation points in the zoom's units: (f(p) - f(x)) / eps
            with np.errstate(invalid="ignore", divide="ignore"):  # f(x) = ±inf: NaN, unshown
                vals = (r[:, 4:6] - fx) / eps64.numpy()[:, None]
            lo, hi, tk = zoom_limits_many(zv, analytic, vals, half_width)
            r[:, 10], r[:, 11] = lo, hi
            ticks[s][d] = tk
    return rows, zoom, ticks


class SlopeExplorer(GradkitWidget):
    """f near x with its tangent (analytic slope) and a secant (numeric slope).

    The numeric slope nudges x by eps in the chosen dtype; the analytic slope comes from
    autograd in float64 (for an ``autograd.Function``, the slope its backward claims). The right
    panel zooms to x ± 2.5·eps, in units of eps, with f evaluated in the chosen dtype, so a tiny
    eps stays visible and rounding shows up as a staircase. The defaults (x² at 2, eps = 1e-3)
    read numeric 4.000, analytic 4.000.

    Parameters
    ----------
    f : callable, autograd.Function subclass or str, optional
        A function of a tensor (e.g. ``torch.sin``), a custom ``autograd.Function`` (or its
        ``.apply``: the tangent is then the slope its backward claims), or the name of a
        built-in one (``"x²"``, ``"x³"``, ``"sin(x)"``, ...). Default ``"x²"``.
    x : float
        Where to measure the slope. Default 2.0.
    eps : float
        The nudge, 1e-12 … 1. Default 1e-3.
    dtype : torch.dtype or str
        float64 (default), float32, float16 or bfloat16.
    scheme : {"central", "forward"}

    Attributes
    ----------
    function_dropdown, x_slider, x_down, x_up, eps_slider, eps_down, eps_up, eps_text,
    dtype_buttons, scheme_buttons : gradkit.widgets._base.Control
        Python handles onto the browser's controls: ``.value``, ``.click()``, ``.observe()``.
    numeric_readout, analytic_readout, abs_error_readout, rel_error_readout, eps_readout,
    note_readout : gradkit.widgets._base.Readout
        ``.value`` is the HTML shown.
    error_area : ``.value`` is the HTML of the error area (empty when all is well).
    figure : matplotlib.figure.Figure
        The static layer (axes, f); the moving lines are drawn by the browser.
    artists : gradkit.plots.SlopeArtists
        The same moving lines in Python (``artists.secant``, ``artists.tangent``, ...).
    numeric, analytic : float
        The current slopes.
    """

    css = "gradkit-slope-explorer"
    view = "slope_explorer"

    def __init__(
        self,
        f: Callable | str | type | None = None,
        x: float = 2.0,
        eps: float = 1e-3,
        dtype: torch.dtype | str = torch.float64,
        scheme: str = "central",
    ) -> None:
        options, selected = function_options(f, "x²")
        if scheme not in _SCHEMES:
            raise ValueError(f"scheme={scheme!r} is not one of {list(_SCHEMES)}")
        dtype, x, eps = dtype_value(dtype), check_x(x), check_eps(eps)
        super().__init__()
        with self._building():
            self._functions = options
            self.numeric = math.nan
            self.analytic = math.nan
            self._rows = np.empty(0)
            self._zoom = np.empty(0)
            self._ticks: list = []
            self._exact: tuple | None = None
            self._analytic_html = ""

            self.function_dropdown = self.dropdown(
                "function", list(options), value=selected, label="f(x) =",
                css="gradkit-function", tooltip="the function whose slope is measured",
            )  # fmt: skip
            self._make_x_controls(x, self._new_scene, lo=-3.0, hi=3.0, step=0.05, continuous=False)
            self._make_eps_controls(eps, self._show_state)
            self.dtype_buttons = self.make_dtype_buttons(dtype)
            self.scheme_buttons = self.toggle(
                "scheme", list(_SCHEMES), value=scheme, label="scheme", css="gradkit-scheme",
                tooltips=[
                    _FORMULA[s] + ", error ∝ eps" + ("²" if s == "central" else "")
                    for s in _SCHEMES
                ],
            )  # fmt: skip
            self.numeric_readout = self.readout("numeric", "gradkit-numeric")
            self.analytic_readout = self.readout("analytic", "gradkit-analytic")
            self.abs_error_readout = self.readout("abs_error", "gradkit-abs-error")
            self.rel_error_readout = self.readout("rel_error", "gradkit-rel-error")
            self.eps_readout = self.readout("eps", "gradkit-eps-readout")
            self.note_readout = self.readout("note", "gradkit-note")

            self._stage = SceneStage(self, (8.6, 3.8), moving=["main"])
            fig = self._stage.figure
            ax = fig.add_axes((0.075, 0.14, 0.40, 0.69))
            zoom = fig.add_axes((0.585, 0.14, 0.40, 0.69))
            self._stage.axes = {"main": ax, "zoom": zoom}
            self.artists = plots.draw_slope(ax, zoom)
            for artist in self.artists.animated:
                artist.set_animated(True)  # drawn by the browser, not in the static image

            self.function_dropdown.observe(lambda change: self._new_scene())
            self.dtype_buttons.observe(lambda change: self._show_state())
            self.scheme_buttons.observe(lambda change: self._show_state())
            self._layout(
                "SlopeExplorer",
                "nudge x by eps and compare the measured slope with the exact one",
                [self.function_dropdown, self.x_slider, self.eps_slider, self.eps_text,
                 self.dtype_buttons, self.scheme_buttons],
                [self.numeric_readout, self.analytic_readout, self.abs_error_readout,
                 self.rel_error_readout, self.eps_readout, self.note_readout],
            )  # fmt: skip
            self.alt = "f near x with its tangent and secant, and a zoom in units of eps"
            self.guard(self._new_scene)()

    # ------------------------------------------------------------------------------ state

    @property
    def f(self) -> Callable:
        """The function currently selected."""
        return self._functions[self.function_dropdown.value]

    @property
    def dtype(self) -> torch.dtype:
        """The dtype currently selected."""
        return self.dtype_buttons.value

    @property
    def custom(self) -> bool:
        """Whether f is an autograd.Function: the analytic slope is what its backward says."""
        return is_custom_function(self.f)

    # ---------------------------------------------------------------------------- updates

    def _new_scene(self) -> None:
        """Function or x changed: new curve and limits (a static render) and a new table."""
        x = float(self.x_slider.value)
        t, y = _floats.sample(self.f, x - 1.5, x + 1.5)
        plots.update_slope_view(
            self.artists,
            curve_x=t.numpy(),
            curve_y=y.numpy(),
            title=f"f(x) = {self.function_dropdown.value} near x = {x:g}",
        )
        self._stage.redraw()
        self.analytic = analytic_slope(self.f, x)
        self._rows, self._zoom, self._ticks = slope_table(self.f, x, EPS_GRID, self.analytic)
        self._exact = None
        fname = self.function_dropdown.value
        custom, analytic = self.custom, self.analytic
        self._analytic_html = readout_html(  # the same in every row of the scene
            "analytic (your backward)" if custom else "analytic slope",
            fmt(analytic, ".3f"),
            f"= {fmt(analytic, '.15g')}, "
            + ("what your backward returns, in float64" if custom else "autograd in float64"),
        )
        # every row's readouts, deduplicated: most rows share most strings (analytic, eps, ...)
        readouts = [
            self._readouts(fname, x, EPS_GRID[g], dn, sn, self._rows[s, d, g])
            for s, sn in enumerate(_SCHEMES)
            for d, dn in enumerate(DTYPES)
            for g in range(len(EPS_GRID))
        ]
        ticks = [
            self._ticks[s][d][g]
            for s in range(len(_SCHEMES))
            for d in range(len(DTYPES))
            for g in range(len(EPS_GRID))
        ]
        strings, index = pack_strings([[r[k] for k in READOUT_KEYS] for r in readouts])
        tick_sets, tick_index = pack_strings([[tuple(t)] for t in ticks])
        with self.hold_sync():
            self.table = np.ascontiguousarray(
                np.concatenate([self._rows.ravel(), self._zoom.ravel()])
            ).tobytes()
            scene = json_safe(
                {
                    "x": x,
                    "function": fname,
                    "analytic": self.analytic,
                    "custom": self.custom,
                    "G": len(EPS_GRID),
                    "D": len(DTYPES),
                    "S": len(_SCHEMES),
                    "NF": len(FIELDS),
                    "NZ": _ZOOM_POINTS,
                    "fields": list(FIELDS),
                    "dtypes": list(DTYPES),
                    "schemes": list(_SCHEMES),
                    "offsets": {s: [SCHEMES[s][0], SCHEMES[s][1]] for s in _SCHEMES},
                    "half_width": _HALF_WIDTH,
                    "keys": list(READOUT_KEYS),
                    "tick_sets": [list(t) for t in tick_sets],
                }
            )
            # strings and ints hold no NaN: added after json_safe, which need not walk them
            scene.update(strings=strings, readout_index=index, tick_index=tick_index)
            self.scene = scene
        self._show_state()

    def _state_row(self) -> tuple[np.ndarray, np.ndarray, list, float]:
        """The table row of the current eps, dtype and scheme (computed now if eps is typed)."""
        s = _SCHEMES.index(self.scheme_buttons.value)
        d = list(DTYPES).index(dtype_name(self.dtype))
        exact = self.values.get("eps_exact")
        if exact is None:
            g = int(self.values["eps"])
            return self._rows[s, d, g], self._zoom[d, g], self._ticks[s][d][g], EPS_GRID[g]
        x = float(self.x_slider.value)
        if self._exact is None or self._exact[0] != (exact, x, self.function_dropdown.value):
            rows, zoom, ticks = slope_table(self.f, x, [exact], self.analytic)
            self._exact = ((exact, x, self.function_dropdown.value), rows, zoom, ticks)
            fname = self.function_dropdown.value
            self.exact = json_safe(
                {
                    "eps": exact,
                    "x": x,
                    "function": fname,
                    "rows": rows[:, :, 0, :],
                    "zoom": zoom[:, 0],
                    "extra": [
                        [
                            {
                                "r": self._readouts(fname, x, exact, dn, sn, rows[si, di, 0]),
                                "t": ticks[si][di][0],
                            }
                            for di, dn in enumerate(DTYPES)
                        ]
                        for si, sn in enumerate(_SCHEMES)
                    ],
                }
            )
        _, rows, zoom, ticks = self._exact
        return rows[s, d, 0], zoom[d, 0], ticks[s][d][0], float(exact)

    def _show_state(self) -> None:
        """eps, dtype or scheme changed: look the row up and show it (no static render)."""
        if self._rows.size == 0:
            return
        row, zoom_v, _ticks, eps = self._state_row()
        r = dict(zip(FIELDS, row, strict=True))
        self.numeric = float(r["numeric"])
        scheme = self.scheme_buttons.value
        plus, minus, _, _ = SCHEMES[scheme]
        plots.update_slope(
            self.artists,
            x=r["xs"],
            fx=r["fx"],
            eps=eps,
            analytic=self.analytic,
            numeric=self.numeric,
            offsets=(plus, minus),
            points=(r["p0"], r["p1"]),
            values=(r["v0"], r["v1"]),
            zoom_u=np.linspace(-_HALF_WIDTH, _HALF_WIDTH, _ZOOM_POINTS),
            zoom_v=zoom_v,
        )
        self.artists.zoom_ax.set_ylim(r["lo"], r["hi"])
        x = float(self.x_slider.value)
        texts = self._readouts(
            self.function_dropdown.value, x, eps, dtype_name(self.dtype), scheme, row
        )
        self.readout_html = texts  # outside f's domain the note says so (not an error)

    def _readouts(
        self, fname: str, x: float, eps: float, name: str, scheme: str, row: np.ndarray
    ) -> dict[str, str]:
        """The readouts for one table row (the browser shows these strings as they are)."""
        r = dict(zip(FIELDS, row, strict=True))
        numeric, analytic = float(r["numeric"]), self.analytic
        out = {
            "numeric": readout_html(
                "numeric slope",
                fmt(numeric, ".3f"),
                f"= {fmt(numeric, '.15g')}, {_FORMULA[scheme]} in {name}",
            ),
            "analytic": self._analytic_html,
        }
        error = abs(numeric - analytic)
        out["abs_error"] = readout_html("absolute error", fmt(error, ".2e"), "|numeric − analytic|")
        rel = error / abs(analytic) if analytic != 0 else math.nan
        out["rel_error"] = readout_html(
            "relative error",
            fmt(rel, ".2e") if analytic != 0 else "undefined",
            "|numeric − analytic| / |analytic|" if analytic != 0 else "the analytic slope is 0",
        )
        h = float(r["h"])
        stored = "" if h == eps else f"; stored in {name} as {fmt(h, '.6g')}"
        out["eps"] = readout_html("eps", fmt_eps(eps), f"= {fmt_plain(eps)}{stored}")
        out["note"] = _note(fname, x, eps, name, r)
        return out


class SceneStage(Stage):
    """A :class:`Stage` that redraws only the Axes that change with the scene.

    The rest of the figure (other Axes, figure legends, and the legends of the changing Axes,
    which are fixed once drawn) is rendered once into a cached background; each scene restores
    it and draws the ``moving`` Axes on top, so a new x or function costs one Axes' draw instead
    of the whole figure's. Call :meth:`invalidate` after changing anything in the background.

    Parameters
    ----------
    owner : GradkitWidget
    figsize : (float, float)
        Inches, as for :class:`Stage`.
    moving : sequence of str
        Names in ``axes`` of the Axes that change per scene.
    """

    def __init__(
        self,
        owner,
        figsize: tuple[float, float],
        moving: Sequence[str],
        fixed_xaxis: Sequence[str] = (),
    ) -> None:
        super().__init__(owner, figsize)
        self.moving = tuple(moving)
        self.fixed_xaxis = tuple(fixed_xaxis)
        self._background = None
        self._background_bounds: tuple | None = None

    def _draw_background(self) -> None:
        """Draw everything but the moving parts and keep the pixels."""
        changed = []  # (artist, visible before)
        for name in self.moving:
            ax = self.axes[name]
            if name in self.fixed_xaxis:  # keep the face and the x axis (ticks, grid, label)
                keep = (ax.patch, ax.xaxis)
                changed += [(a, a.get_visible()) for a in ax.get_children() if a not in keep]
            else:
                changed.append((ax, ax.get_visible()))
        for artist, _ in changed:
            artist.set_visible(False)
        try:
            self.canvas.draw()
        finally:
            for artist, visible in changed:
                artist.set_visible(visible)
        renderer = self.canvas.get_renderer()
        for name in self.moving:  # legends do not change with the scene: part of the background
            legend = self.axes[name].legend_
            if legend is not None:
                legend.draw(renderer)
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._background_bounds = tuple(self.figure.bbox.bounds)

    def invalidate(self) -> None:
        """Forget the cached background (drawn again at the next render)."""
        self._background = None

    def png(self) -> bytes:
        """Render the static layer (animated artists left out) and return it as PNG bytes."""
        from PIL import Image

        renderer = self.canvas.get_renderer()
        bounds = tuple(self.figure.bbox.bounds)
        if self._background is None or self._background_bounds != bounds:
            self._draw_background()
            renderer = self.canvas.get_renderer()
        else:
            self.canvas.restore_region(self._background)
        for name in self.moving:
            ax = self.axes[name]
            # the legend and (for fixed_xaxis) the face and x axis are in the background
            hidden = [ax.patch, ax.xaxis] if name in self.fixed_xaxis else []
            legend, ax.legend_ = ax.legend_, None
            for artist in hidden:
                artist.set_visible(False)
            try:
                ax.draw(renderer)
            finally:
                ax.legend_ = legend
                for artist in hidden:
                    artist.set_visible(True)
        with io.BytesIO() as buf:
            Image.fromarray(np.asarray(self.canvas.buffer_rgba())).save(
                buf, format="png", compress_level=1
            )
            return buf.getvalue()


#: The readouts of one table row, in the order of the scene's ``readout_index``.
READOUT_KEYS = ("numeric", "analytic", "abs_error", "rel_error", "eps", "note")


def pack_strings(rows: Sequence[Sequence]) -> tuple[list, list[int]]:
    """Deduplicate the cells of ``rows``: the distinct values and each cell's index into them.

    Every row of a scene's table has its readouts as Python formatted them; most rows share most
    of them (the analytic slope, the eps, the tolerance), so the browser gets each distinct string
    once and a flat list of indices, row after row (``index[row * len(cells) + k]``).
    """
    position: dict = {}
    index = [position.setdefault(cell, len(position)) for cells in rows for cell in cells]
    return list(position), index


def scene_row_extra(scene: dict, s: int, d: int, g: int) -> dict:
    """The readouts ``r`` and zoom ticks ``t`` of row (scheme s, dtype d, grid eps g) of a scene.

    The same lookup as ``slopeRow`` in static/slope_explorer.js.
    """
    row = (s * scene["D"] + d) * scene["G"] + g
    keys = scene["keys"]
    start = row * len(keys)
    texts = {k: scene["strings"][scene["readout_index"][start + i]] for i, k in enumerate(keys)}
    return {"r": texts, "t": scene["tick_sets"][scene["tick_index"][row]]}


def _note(fname: str, x: float, eps: float, name: str, r: dict) -> str:
    if r["underflow"]:
        return (
            f"<span class='gk-bad'>eps = {fmt_eps(eps)} rounds to 0 in {name}: there is no "
            "nudge, so no slope can be measured (0/0).</span>"
        )
    if not math.isfinite(r["fx"]):
        return (
            f"<span class='gk-bad'>f(x) = {fname} is not defined at x = {x:g} "
            f"(it gives {fmt(float(r['fx']))}); pick another x.</span>"
        )
    if r["collapsed"]:
        return (
            f"<span class='gk-bad'>Both evaluation points round to the same {name} "
            f"number: f is evaluated twice at one point and the numeric slope is exactly 0."
            "</span>"
        )
    return (
        f"The evaluation points land on {fmt(float(r['p1']), '.10g')} and "
        f"{fmt(float(r['p0']), '.10g')} in {name}."
    )
