"""EpsilonLab: error versus eps for four dtypes, with theory, tolerance and the best eps.

Per scene (function and x) :func:`gradkit.sweep` measures every eps of the grid for every dtype
and both schemes; the browser draws the curves, the theory lines and the cursor from that table,
so eps, dtype, scheme, the theory switch and the reveal button need no kernel message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch

from .. import plots
from .._args import DTYPES, EPS_GRID, GRADCHECK_DEFAULTS, dtype_name
from ..numerics import SweepResult, sweep, unit_roundoff
from ..numerics.slopes import analytic_slope
from ._base import (
    GradkitWidget,
    InputError,
    check_eps,
    check_x,
    dtype_value,
    fmt,
    fmt_eps,
    fmt_plain,
    function_options,
    json_safe,
    readout_html,
)
from .slope_explorer import SceneStage, pack_strings

__all__ = ["CELL_KEYS", "EpsilonLab", "scene_cell", "table_html"]

_SCHEMES = ("central", "forward")
#: The columns of one table row (one eps, one dtype, one scheme).
FIELDS = ("error", "underflow", "collapsed", "passes", "truncation", "rounding", "numeric")


class EpsilonLab(GradkitWidget):
    """The V-shaped error of the numeric slope versus eps, for float64, float32, float16, bfloat16.

    The theory lines show truncation (∝ eps² for central differences) and rounding (∝ u/eps) for
    the chosen dtype; the red line is gradcheck's tolerance atol + rtol·|f'(x)|; stars mark each
    dtype's best eps in theory. At gradcheck's eps = 1e-6 the float32 curve sits above the
    tolerance and float64 below it. Markers for "eps rounds to 0" and "error exactly 0" sit in a
    strip below the plot, never on the error axis.

    Parameters
    ----------
    f : callable or str, optional
        An elementwise function of a tensor, or a built-in name. Default ``"x³"``.
    x : float
        Default 0.5.
    eps : float
        Where the marker starts. Default 1e-6 (gradcheck's).
    dtype : torch.dtype or str
        The highlighted dtype. Default float32.
    scheme : {"central", "forward"}
    dtypes : sequence of str or torch.dtype
        The dtypes shown first (default all four); :meth:`reveal` or the button "show float16 and
        bfloat16" adds the others.

    Attributes
    ----------
    function_dropdown, x_slider, x_down, x_up, eps_slider, eps_down, eps_up, eps_text,
    dtype_buttons, scheme_buttons, theory_checkbox, reveal_button : Control
        Python handles onto the browser's controls.
    eps_readout, error_readout, tolerance_readout, optimal_readout, table_readout : Readout
    error_area
    figure : matplotlib.figure.Figure
        The static layer; curves and cursor are drawn by the browser.
    artists : gradkit.plots.ErrorCurveArtists
        The same curves in Python (``artists.curves[name]``, ``artists.tolerance``).
    sweep : gradkit.SweepResult
        The curves on the eps grid for the current scheme (``sweeps`` holds both schemes).
    at_eps : gradkit.SweepResult
        The measurement at exactly the current eps (computed when asked).
    shown : list[str]
        The dtypes on screen.
    """

    css = "gradkit-epsilon-lab"
    view = "epsilon_lab"

    def __init__(
        self,
        f: Callable | str | None = None,
        x: float = 0.5,
        eps: float = GRADCHECK_DEFAULTS["eps"],
        dtype: torch.dtype | str = torch.float32,
        scheme: str = "central",
        dtypes: Sequence[torch.dtype | str] = tuple(DTYPES),
    ) -> None:
        options, selected = function_options(f, "x³")
        if scheme not in _SCHEMES:
            raise ValueError(f"scheme={scheme!r} is not one of {list(_SCHEMES)}")
        dtype, x, eps = dtype_value(dtype), check_x(x), check_eps(eps)
        shown = [dtype_name(dtype_value(d, "dtypes")) for d in dtypes]
        if not shown:
            raise ValueError("dtypes must name at least one dtype, e.g. ('float64', 'float32')")
        if dtype_name(dtype) not in shown:
            dtype = DTYPES[shown[0]] if dtype is torch.float32 else dtype
            if dtype_name(dtype) not in shown:
                raise ValueError(f"dtype={dtype_name(dtype)} is not among dtypes={shown}")
        super().__init__()
        with self._building():
            self._functions = options
            self.sweeps: dict = {}
            self._at_exact: tuple | None = None
            self._rows = np.empty(0)
            self._extra: list = []
            self._fixed_cache: dict = {}

            self.function_dropdown = self.dropdown(
                "function", list(options), value=selected, label="f(x) =",
                css="gradkit-function", tooltip="the function whose slope is measured",
            )  # fmt: skip
            self._make_x_controls(x, self._new_scene, lo=-3.0, hi=3.0, step=0.05, continuous=False)
            self._make_eps_controls(eps, self._show_state)
            self.dtype_buttons = self.make_dtype_buttons(dtype, "highlight")
            self.dtype_buttons.spec["shown_key"] = "shown"
            self.scheme_buttons = self.toggle(
                "scheme", list(_SCHEMES), value=scheme, label="scheme", css="gradkit-scheme",
                tooltips=["(f(x+eps) − f(x−eps)) / (2·eps): truncation ∝ eps²",
                          "(f(x+eps) − f(x)) / eps: truncation ∝ eps"],
            )  # fmt: skip
            self.theory_checkbox = self.checkbox(
                "theory", value=True, text="show theory lines", css="gradkit-theory",
                tooltip="truncation and rounding error predicted by Taylor's theorem",
            )  # fmt: skip
            self.reveal_button = self.button(
                "reveal", "show float16 and bfloat16", css="gradkit-reveal",
                tooltip="add the half-precision dtypes to the picture",
            )  # fmt: skip
            self.reveal_button.spec["set"] = ["shown", list(DTYPES)]
            self.values = {**self.values, "shown": [n for n in DTYPES if n in shown]}
            self.reveal_button.on_click(lambda _b: self.reveal())

            self.eps_readout = self.readout("eps", "gradkit-eps-readout")
            self.error_readout = self.readout("error", "gradkit-error-readout")
            self.tolerance_readout = self.readout("tolerance", "gradkit-tolerance")
            self.optimal_readout = self.readout("optimal", "gradkit-optimal")
            self.table_readout = self.readout("table", "gradkit-table")

            self._stage = SceneStage(self, (8.6, 4.9), moving=["main"], fixed_xaxis=["main"])
            fig = self._stage.figure
            ax = fig.add_axes((0.1, 0.33, 0.64, 0.6))
            strip = fig.add_axes((0.1, 0.03, 0.64, 0.13))
            self._stage.axes = {"main": ax, "strip": strip}
            self.artists = plots.draw_error_curves(
                ax, tuple(DTYPES), strip_ax=strip, dtype_legend=False
            )
            for artist in self.artists.animated:
                artist.set_animated(True)  # drawn by the browser
            # the strip's rows are the shown dtypes only: the browser labels them
            strip.tick_params(axis="y", left=False, labelleft=False)

            self.function_dropdown.observe(lambda change: self._new_scene())
            for control in (self.dtype_buttons, self.scheme_buttons, self.theory_checkbox):
                control.observe(lambda change: self._show_state())
            self._listen("shown", lambda change: self._show_state())
            self._layout(
                "EpsilonLab",
                "why the error of a numeric slope is V-shaped, and where gradcheck's eps sits",
                [self.function_dropdown, self.x_slider, self.eps_slider, self.eps_text,
                 self.dtype_buttons, self.scheme_buttons, self.theory_checkbox,
                 self.reveal_button],
                [self.eps_readout, self.error_readout, self.tolerance_readout,
                 self.optimal_readout, self.table_readout],
            )  # fmt: skip
            self.alt = "error of the numeric slope versus eps, log-log, one curve per dtype"
            self.guard(self._new_scene)()

    # ------------------------------------------------------------------------------ state

    @property
    def f(self) -> Callable:
        """The function currently selected."""
        return self._functions[self.function_dropdown.value]

    @property
    def dtype(self) -> torch.dtype:
        """The highlighted dtype."""
        return self.dtype_buttons.value

    @property
    def shown(self) -> list[str]:
        """The dtypes on screen."""
        return list(self.values.get("shown", list(DTYPES)))

    @property
    def sweep(self) -> SweepResult | None:
        """The curves on the eps grid for the current scheme."""
        return self.sweeps.get(self.scheme_buttons.value)

    @property
    def at_eps(self) -> SweepResult:
        """Every dtype measured at exactly the current eps (one batched sweep)."""
        return sweep(
            self.f, float(self.x_slider.value), eps=[self.eps], scheme=self.scheme_buttons.value
        )

    def reveal(self, *dtypes: str | torch.dtype) -> None:
        """Add dtypes to the picture (default: all of them), as the reveal button does."""
        names = [dtype_name(dtype_value(d, "dtypes")) for d in dtypes] or list(DTYPES)
        shown = set(self.shown) | set(names)
        self._set_values({"shown": [n for n in DTYPES if n in shown]})

    # ---------------------------------------------------------------------------- updates

    def _new_scene(self) -> None:
        """Function or x changed: sweep every grid eps, dtype and scheme; one static render."""
        x, fname = float(self.x_slider.value), self.function_dropdown.value
        self.sweeps = {}
        self._rows = np.empty(0)
        problem = _domain_problem(self.f, fname, x)
        if problem is None:
            self.sweeps = {s: sweep(self.f, x, eps=EPS_GRID, scheme=s) for s in _SCHEMES}
        self._draw_static(x, fname)
        if problem is not None:
            with self.hold_sync():
                self.table = b""
                self.scene = {"empty": True, "x": x, "function": fname}
                self.readout_html = {}
            raise InputError(problem)
        n, D = len(EPS_GRID), len(DTYPES)
        rows = np.full((len(_SCHEMES), D, n, len(FIELDS)), np.nan)
        per_dtype: list = []
        for s, scheme in enumerate(_SCHEMES):
            result = self.sweeps[scheme]
            per_dtype.append([])
            for d, name in enumerate(DTYPES):
                ds = result.dtypes[name]
                for k, field in enumerate(FIELDS):
                    rows[s, d, :, k] = getattr(ds, field).to(torch.float64).numpy()
                per_dtype[s].append(
                    {
                        "optimal_eps": ds.optimal_eps,
                        "optimal_error": ds.optimal_error,
                        "best_eps": ds.best_eps,
                        "best_error": ds.best_error,
                    }
                )
        self._rows = rows
        self._extra = [
            [
                [self._readouts(scheme, name, EPS_GRID[g], rows[s, :, g]) for g in range(n)]
                for name in DTYPES
            ]
            for s, scheme in enumerate(_SCHEMES)
        ]
        # each distinct readout string once, and per row (scheme, dtype, grid eps) its indices
        strings, index = pack_strings(
            [
                [_cell(self._extra[s][d][g], k) for k in CELL_KEYS]
                for s in range(len(_SCHEMES))
                for d in range(D)
                for g in range(n)
            ]
        )
        with self.hold_sync():
            self.table = np.ascontiguousarray(rows.ravel()).tobytes()
            scene = json_safe(
                {
                    "x": x,
                    "function": fname,
                    "G": n,
                    "D": D,
                    "NF": len(FIELDS),
                    "fields": list(FIELDS),
                    "dtypes": list(DTYPES),
                    "schemes": list(_SCHEMES),
                    "eps": list(EPS_GRID),
                    "tolerance": self.sweeps["central"].tolerance,
                    "per_dtype": per_dtype,
                    "colors": {k: v[0] for k, v in plots.DTYPE_STYLES.items()},
                    "markers": {k: v[1] for k, v in plots.DTYPE_STYLES.items()},
                    "styles": {k: v[2] for k, v in plots.DTYPE_STYLES.items()},
                    "keys": list(CELL_KEYS),
                }
            )
            # strings and ints hold no NaN: added after json_safe, which need not walk them
            scene.update(strings=strings, cell_index=index)
            self.scene = scene
        self._show_state()

    def _draw_static(self, x: float, fname: str) -> None:
        """Axes, limits (fitting both schemes), tolerance line, title: the static layer."""
        empty = np.full(len(EPS_GRID), np.nan)
        errors, under, optimal, rounding = {}, {}, {}, {}
        truncation = empty
        tolerance = 0.0
        if self.sweeps:
            both = [self.sweeps[s] for s in _SCHEMES]
            for name in DTYPES:
                stacked = np.concatenate([r.dtypes[name].error.numpy() for r in both])
                errors[name] = stacked
                under[name] = np.concatenate([r.dtypes[name].underflow.numpy() for r in both])
            tolerance = both[0].tolerance
        grid = np.concatenate([EPS_GRID, EPS_GRID]) if self.sweeps else np.asarray(EPS_GRID)
        truncation = np.full(grid.shape, np.nan)
        plots.update_error_curves(
            self.artists,
            eps=grid,
            errors=errors,
            underflow=under,
            optimal=optimal,
            truncation=truncation,
            rounding=rounding,
            tolerance=tolerance,
            title=f"error of the numeric slope of {fname} at x = {x:g}",
        )
        self._stage.redraw()

    def _row(self) -> tuple[np.ndarray, float, dict]:
        """Every dtype's row at the current eps and scheme (computed now for a typed eps)."""
        s = _SCHEMES.index(self.scheme_buttons.value)
        exact = self.values.get("eps_exact")
        if exact is None:
            g = int(self.values["eps"])
            return self._rows[s, :, g], EPS_GRID[g], self._extra[s]
        key = (exact, float(self.x_slider.value), self.function_dropdown.value)
        if self._at_exact is None or self._at_exact[0] != key:
            rows = np.full((len(_SCHEMES), len(DTYPES), len(FIELDS)), np.nan)
            for si, scheme in enumerate(_SCHEMES):
                result = sweep(self.f, key[1], eps=[exact], scheme=scheme)
                for d, name in enumerate(DTYPES):
                    for k, field in enumerate(FIELDS):
                        rows[si, d, k] = float(getattr(result.dtypes[name], field)[0])
            extra = [
                [[self._readouts(sc, name, exact, rows[si])] for name in DTYPES]
                for si, sc in enumerate(_SCHEMES)
            ]
            self._at_exact = (key, rows, extra)
            self.exact = json_safe(
                {"eps": exact, "x": key[1], "function": key[2], "rows": rows, "extra": extra}
            )
        _, rows, extra = self._at_exact
        return rows[s], float(exact), [[cell[0]] for cell in extra[s]]

    def _show_state(self) -> None:
        """eps, dtype, scheme, theory or the shown dtypes changed: look up and show."""
        if self._rows.size == 0:
            return
        rows, eps, extra = self._row()
        name = dtype_name(self.dtype)
        d = list(DTYPES).index(name)
        g = 0 if self.values.get("eps_exact") is not None else int(self.values["eps"])
        result = self.sweeps[self.scheme_buttons.value]
        self._show_python_curves(result, name)
        error = float(rows[d, 0])
        plots.update_error_marker(self.artists, eps, error)
        texts = dict(extra[d][g]["r"])
        texts["table"] = table_html(extra, g, self.shown, name)
        self.readout_html = texts

    def _show_python_curves(self, result, chosen: str) -> None:
        """The Python artists mirror what the browser draws (tests read them)."""
        grid = result.eps.numpy()
        for name, line in self.artists.curves.items():
            err = result.dtypes[name].error.numpy()
            shown = name in self.shown
            line.set_data(grid, np.where(err > 0, err, np.nan) if shown else np.nan * grid)
            under = result.dtypes[name].underflow.numpy().astype(bool) & shown
            # the strip has one row per shown dtype, in DTYPES order (as static/epsilon_lab.js)
            row = [n for n in DTYPES if n in self.shown].index(name) if shown else 0
            self.artists.underflow[name].set_data(grid[under], np.full(int(under.sum()), row))
            zero = (err == 0) & ~under & shown
            self.artists.exact[name].set_data(grid[zero], np.full(int(zero.sum()), row))
            ds = result.dtypes[name]
            ok = shown and math.isfinite(ds.optimal_eps) and ds.optimal_error > 0
            self.artists.optima[name].set_data(
                [ds.optimal_eps] if ok else [], [ds.optimal_error] if ok else []
            )
        first = next(iter(result.dtypes.values()))
        trunc = first.truncation.numpy()
        self.artists.truncation.set_data(grid, np.where(trunc > 0, trunc, np.nan))
        self.artists.eps_grid = grid
        self.artists.rounding_curves = {k: d.rounding.numpy() for k, d in result.dtypes.items()}
        plots.update_error_highlight(self.artists, chosen, show_theory=self.theory_checkbox.value)

    # --------------------------------------------------------------------------- readouts

    def _readouts(self, scheme: str, name: str, eps: float, rows: np.ndarray) -> dict:
        """Readouts for one dtype at one eps (rows: every dtype's row there)."""
        result = self.sweeps[scheme]
        tol = result.tolerance
        d = list(DTYPES).index(name)
        r = dict(zip(FIELDS, rows[d], strict=True))
        fixed = self._fixed_readouts(scheme, name)  # the same at every eps
        error_text = _error_text(r)
        texts = {
            "eps": readout_html("eps", fmt_eps(eps), f"= {fmt_plain(eps)}"),
            "error": readout_html(f"{name} error at this eps", error_text, _verdict(r, tol)),
            "tolerance": fixed["tolerance"],
            "optimal": fixed["optimal"],
        }
        cells = (
            f"<td>{name}</td><td style='padding:0 10px'>{error_text}</td><td>"
            + (
                "<span class='gk-good'>passes</span>"
                if r["passes"]
                else "<span class='gk-bad'>fails</span>"
            )
            + fixed["u"]
        )
        head = f"<div class='gk-r-label'>at eps = {fmt_eps(eps)}, against the tolerance " + (
            f"{fmt(tol, '.3g')}:</div>"
        )
        return {"r": texts, "cells": cells, "head": head}

    def _fixed_readouts(self, scheme: str, name: str) -> dict[str, str]:
        """The readouts of one scheme and dtype that do not depend on eps (cached per sweep)."""
        result = self.sweeps[scheme]
        key = (id(result), scheme, name)
        cache = self._fixed_cache
        if key in cache and cache[key][0] is result:
            return cache[key][1]
        tol = result.tolerance
        ds = result.dtypes[name]
        if math.isfinite(ds.optimal_eps):
            theory = f"theory {ds.optimal_eps:.2g} (error ≈ {ds.optimal_error:.1g})"
        else:
            theory = "theory: no best eps (no truncation error here, larger is better)"
        slope = float(result.analytic.reshape(-1)[0])
        texts = {
            "tolerance": readout_html(
                "gradcheck tolerance",
                fmt(tol, ".3g"),
                f"= atol + rtol·|f′(x)| = {result.atol:g} + {result.rtol:g}·"
                f"{fmt(abs(slope), '.4g')}",
            ),
            "optimal": readout_html(
                f"best eps for {name}",
                f"{ds.best_eps:.2g}",
                f"measured on the grid (error {fmt(ds.best_error, '.1g')}); {theory}",
            ),
            "u": "</td><td class='gk-r-detail' style='padding-left:8px'>"
            f"u = {unit_roundoff(DTYPES[name]):.1g}</td>",
        }
        if len(cache) > 64:
            cache.clear()
        cache[key] = (result, texts)
        return texts


#: The strings of one row of the scene (``r`` readouts, then the table cells and header).
CELL_KEYS = ("eps", "error", "tolerance", "optimal", "cells", "head")


def _cell(extra: dict, key: str) -> str:
    return extra[key] if key in ("cells", "head") else extra["r"][key]


def scene_cell(scene: dict, s: int, d: int, g: int) -> dict:
    """Row (scheme s, dtype d, grid eps g) of a scene as ``{"r": {...}, "cells", "head"}``.

    The same lookup as ``labExtra`` in static/epsilon_lab.js.
    """
    keys = scene["keys"]
    start = ((s * scene["D"] + d) * scene["G"] + g) * len(keys)
    texts = {k: scene["strings"][scene["cell_index"][start + i]] for i, k in enumerate(keys)}
    return {
        "r": {k: texts[k] for k in keys if k not in ("cells", "head")},
        "cells": texts["cells"],
        "head": texts["head"],
    }


def table_html(extra: list, g: int, shown: Sequence[str], chosen: str) -> str:
    """The per-dtype table readout (static/epsilon_lab.js assembles it the same way)."""
    bold = " style='font-weight:bold'"
    rows = "".join(
        f"<tr{bold if name == chosen else ''}>{extra[list(DTYPES).index(name)][g]['cells']}</tr>"
        for name in DTYPES
        if name in shown
    )
    return f"{extra[0][g]['head']}<table>{rows}</table>"


def _domain_problem(f: Callable, fname: str, x: float) -> str | None:
    """A learner-facing message if f or its slope is not a finite number at x, else None."""
    with torch.no_grad():
        value = f(torch.tensor(x, dtype=torch.float64))
    value = float(value.reshape(-1)[0]) if isinstance(value, torch.Tensor) else float(value)
    if not math.isfinite(value):
        return (
            f"f(x) = {fname} is {fmt(value)} at x = {x:g} (outside its domain, or too large "
            "for float64), so there is no slope to measure; move x"
            + (" to a positive number" if fname.startswith("log") and x <= 0 else "")
        )
    slope = analytic_slope(f, x)
    if not math.isfinite(slope):
        return f"the slope of {fname} at x = {x:g} is {fmt(slope)}; move x"
    return None


def _error_text(r: dict) -> str:
    if r["underflow"]:
        return "no slope (eps rounds to 0)"
    text = fmt(float(r["error"]), ".2e")
    if r["collapsed"]:
        text += " (x ± eps round to x: slope 0)"
    return text


def _verdict(r: dict, tolerance: float) -> str:
    if r["underflow"]:
        return "gradcheck could not measure a slope"
    error = float(r["error"])
    if math.isnan(error):
        return "no measurement: f or its slope is NaN here (outside its domain?)"
    if r["passes"]:
        return f"within the tolerance {fmt(tolerance, '.3g')}: gradcheck passes"
    times = error / tolerance if tolerance > 0 else math.inf
    return f"{fmt(times, '.3g')} × the tolerance {fmt(tolerance, '.3g')}: gradcheck fails"
