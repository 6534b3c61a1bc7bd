"""EpsilonLab: error versus eps for four dtypes, with theory, tolerance and the best eps.

Per scene (function and x) :func:`gradkit.sweep` measures every eps of the grid for every dtype
and both schemes; the browser draws the curves, the theory lines and the cursor from that table
(built and worded in :mod:`._epsilon_table`), so eps, dtype, scheme, the theory switch and the
reveal button need no kernel message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from .. import plots
from .._args import (
    DTYPES,
    EPS_GRID,
    GRADCHECK_DEFAULTS,
    WIDGET_SCHEMES,
    as_dtype,
    check_control_eps,
    check_scheme,
    check_x,
    dtype_name,
)
from ..numerics import SweepResult, sweep
from ._base import GradkitWidget
from ._epsilon_picture import draw_static_layer, mirror_browser_curves
from ._epsilon_table import (
    FIELDS,
    domain_problem,
    exact_rows,
    row_texts,
    scene_payload,
    sweep_rows,
    table_html,
)
from ._format import InputError, json_safe
from ._functions import FunctionChoice, function_options
from ._stage import SceneStage

__all__ = ["EpsilonLab"]


class EpsilonLab(FunctionChoice, GradkitWidget):
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
        scheme = check_scheme(scheme, WIDGET_SCHEMES)
        dtype, x, eps = as_dtype(dtype), check_x(x), check_control_eps(eps)
        shown, dtype = _shown_dtypes(dtypes, dtype)
        super().__init__()
        with self._building():
            self._functions = options
            self.sweeps: dict = {}
            self._at_exact: tuple | None = None
            self._rows = np.empty(0)
            self._extra: list = []
            self._build_controls(options, selected, x, eps)
            self._build_switches(dtype, scheme, shown)
            self._build_readouts()
            self._build_picture()
            self._connect()
            self.alt = "error of the numeric slope versus eps, log-log, one curve per dtype"
            self.guard(self._new_scene)()

    def _build_controls(self, options: dict, selected: str, x: float, eps: float) -> None:
        """The function, x and eps controls (x starts a new scene; eps only a lookup)."""
        self.function_dropdown = self.dropdown(
            "function", list(options), value=selected, label="f(x) =",
            css="gradkit-function", tooltip="the function whose slope is measured",
        )  # fmt: skip
        self._make_x_controls(x, self._new_scene, lo=-3.0, hi=3.0, step=0.05, continuous=False)
        self._make_eps_controls(eps, self._show_state)

    def _build_switches(self, dtype: torch.dtype, scheme: str, shown: list[str]) -> None:
        """The dtype, scheme and theory switches and the reveal button."""
        self.dtype_buttons = self.make_dtype_buttons(dtype, "highlight")
        self.dtype_buttons.spec["shown_key"] = "shown"
        self.scheme_buttons = self.toggle(
            "scheme", list(WIDGET_SCHEMES), value=scheme, label="scheme", css="gradkit-scheme",
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

    def _build_readouts(self) -> None:
        """The readouts; their HTML comes from the scene's strings (_epsilon_table)."""
        self.eps_readout = self.readout("eps", "gradkit-eps-readout")
        self.error_readout = self.readout("error", "gradkit-error-readout")
        self.tolerance_readout = self.readout("tolerance", "gradkit-tolerance")
        self.optimal_readout = self.readout("optimal", "gradkit-optimal")
        self.table_readout = self.readout("table", "gradkit-table")

    def _build_picture(self) -> None:
        """The static layer: the error axes and, below them, the strip of markers."""
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

    def _connect(self) -> None:
        """Observers (a new function: a new scene; the rest: a lookup) and the layout."""
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

    # ------------------------------------------------------------------------------ state

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
        names = [dtype_name(as_dtype(d, "dtypes")) for d in dtypes] or list(DTYPES)
        shown = set(self.shown) | set(names)
        self._set_values({"shown": [n for n in DTYPES if n in shown]})

    # ---------------------------------------------------------------------------- updates

    def _new_scene(self) -> None:
        """Function or x changed: sweep every grid eps, dtype and scheme; one static render."""
        x, fname = float(self.x_slider.value), self.function_dropdown.value
        self.sweeps = {}
        self._rows = np.empty(0)
        problem = domain_problem(self.f, fname, x)
        if problem is None:
            self.sweeps = {s: sweep(self.f, x, eps=EPS_GRID, scheme=s) for s in WIDGET_SCHEMES}
        draw_static_layer(self.artists, self.sweeps, x, fname)
        self._stage.redraw()
        if problem is not None:
            with self.hold_sync():
                self.table = b""
                self.scene = {"empty": True, "x": x, "function": fname}
                self.readout_html = {}
            raise InputError(problem)
        # numbers (scheme, dtype, grid eps, field) and each row's readouts, sent once per scene
        self._rows = np.stack([sweep_rows(self.sweeps[s]) for s in WIDGET_SCHEMES])
        self._extra = row_texts(self.sweeps, self._rows, EPS_GRID)
        with self.hold_sync():
            self.table = np.ascontiguousarray(self._rows.ravel()).tobytes()
            self.scene = scene_payload(x, fname, self.sweeps, self._extra)
        self._show_state()

    def _row(self) -> tuple[np.ndarray, float, list]:
        """Every dtype's row at the current eps and scheme (computed now for a typed eps)."""
        s = WIDGET_SCHEMES.index(self.scheme_buttons.value)
        exact = self.values.get("eps_exact")
        if exact is None:
            g = int(self.values["eps"])
            return self._rows[s, :, g], EPS_GRID[g], self._extra[s]
        key = (exact, float(self.x_slider.value), self.function_dropdown.value)
        if self._at_exact is None or self._at_exact[0] != key:
            rows = exact_rows(self.f, key[1], exact)  # (scheme, dtype, field)
            extra = row_texts(self.sweeps, rows[:, :, None], [exact])
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
        mirror_browser_curves(
            self.artists, result, self.shown, name, show_theory=self.theory_checkbox.value
        )  # what the browser draws, for Python to read
        error = float(rows[d, FIELDS.index("error")])
        plots.update_error_marker(self.artists, eps, error)
        texts = dict(extra[d][g]["r"])
        texts["table"] = table_html(extra, g, self.shown, name)
        self.readout_html = texts


def _shown_dtypes(
    dtypes: Sequence[torch.dtype | str], dtype: torch.dtype
) -> tuple[list[str], torch.dtype]:
    """The dtypes shown first, and the highlighted one (the first shown if float32 is not)."""
    shown = [dtype_name(as_dtype(d, "dtypes")) for d in dtypes]
    if not shown:
        raise ValueError("dtypes must name at least one dtype, e.g. ('float64', 'float32')")
    if dtype_name(dtype) not in shown:
        dtype = DTYPES[shown[0]] if dtype is torch.float32 else dtype
        if dtype_name(dtype) not in shown:
            raise ValueError(f"dtype={dtype_name(dtype)} is not among dtypes={shown}")
    return shown, dtype
