"""SlopeExplorer: slide eps and watch the secant (numeric slope) leave the tangent (analytic).

Per function, torch measures every grid eps × dtype × scheme at the x positions around the
current one (:class:`~.scene.SlopeScene`); the page (``slope.js``) moves eps, dtype, scheme and
x among them, drawing and wording everything itself. Only a typed eps off the grid, a new
function and an x beyond the positions sent reach the kernel; its answer brings data, never a
repaint of what the page already shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from ..._args import DTYPES, SCHEMES, WIDGET_SCHEMES, as_dtype, check_scheme, check_x, dtype_name
from ..base import GradkitWidget
from ..base.eps import eps_of, eps_state
from ..base.functions import function_menu, is_custom_function
from ..base.rows import dropdown, dtype_toggle, eps_row, scheme_toggle, x_row
from .scene import FIELDS, HALF_WIDTH, VIEW_HALF_WIDTH, ZOOM_POINTS, SlopeScene, slope_rows

__all__ = ["SlopeExplorer"]


class SlopeExplorer(GradkitWidget):
    """f near x with its tangent (analytic slope) and a secant (numeric slope).

    The numeric slope nudges x by eps in the chosen dtype; the analytic slope comes from
    autograd in float64 (for an ``autograd.Function``, the slope its backward claims). The zoom
    panel shows x ± 2.5·eps in units of eps, f evaluated in the chosen dtype, so a tiny eps stays
    visible and rounding shows as a staircase. The defaults (x² at 2, eps = 1e-3) read numeric
    4.000, analytic 4.000.

    Parameters
    ----------
    f : callable, autograd.Function subclass or str, optional
        A function of a tensor (e.g. ``torch.sin``), a custom ``autograd.Function`` (or its
        ``.apply``: the tangent is then the slope its backward claims), or the name of a
        built-in one (``"x²"``, ``"x³"``, ``"sin(x)"``, ...). Default ``"x²"``.
    x : float
        Where to measure the slope. Default 2.0; the x slider moves in steps of 0.05.
    eps : float
        The nudge, 1e-12 … 1. Default 1e-3.
    dtype : torch.dtype or str
        float64 (default), float32, float16 or bfloat16.
    scheme : {"central", "forward"}
    panels : sequence of {"curve", "zoom"}, optional
        The pictures to show (default both): the overview of f with both lines, the zoom.

    Attributes
    ----------
    function_dropdown, x_slider, x_down, x_up, eps_slider, eps_down, eps_up, eps_text,
    dtype_buttons, scheme_buttons : gradkit.widgets.base.Control
        Python handles onto the page's controls: ``.value``, ``.click()``, ``.observe()``.
    error_area
        ``.value`` is the HTML of the error area (empty when all is well).
    numeric, analytic : float
        The slopes the page shows now.
    """

    css = "gradkit-slope-explorer"
    view = "slopeView"
    scripts = ("slope/slope.js",)
    PANELS = ("curve", "zoom")
    #: x positions sent either side of the current one; the kernel refills near the edge.
    RADIUS = 5

    def __init__(
        self,
        f: Callable | str | type | None = None,
        x: float = 2.0,
        eps: float = 1e-3,
        dtype: torch.dtype | str = torch.float64,
        scheme: str = "central",
        *,
        panels: Sequence[str] | None = None,
    ) -> None:
        menu, selected = function_menu(f, "x²")
        scheme, dtype = check_scheme(scheme, WIDGET_SCHEMES), as_dtype(dtype)
        x, eps = check_x(x), eps_of(eps_state(eps))
        super().__init__(panels)
        with self.building():
            self._menu = menu
            self._scene: SlopeScene | None = None
            self._window: tuple[int, int] = (0, -1)
            self._functions_seen = 0
            self.function_dropdown = dropdown(
                self, "function", list(menu), value=selected, label="f(x) =",
                css="gradkit-function", tooltip="the function whose slope is measured",
            )  # fmt: skip
            self.x_slider = x_row(self, x, lo=-3.0, hi=3.0, step=0.05)
            self.eps_slider, self.eps_text = eps_row(self, eps)
            self.dtype_buttons = dtype_toggle(self, dtype)
            self.scheme_buttons = scheme_toggle(self, scheme)
            for name in ("x_down", "x_up", "eps_down", "eps_up"):
                setattr(self, name, self._controls[name])
            self.layout(
                "SlopeExplorer",
                "nudge x by eps and compare the measured slope with the exact one",
                [self.function_dropdown, self.x_slider, self.eps_slider, self.eps_text,
                 self.dtype_buttons, self.scheme_buttons],
                [("numeric", "gradkit-numeric"), ("analytic", "gradkit-analytic"),
                 ("abs_error", "gradkit-abs-error"), ("rel_error", "gradkit-rel-error"),
                 ("eps", "gradkit-eps-readout"), ("note", "gradkit-note")],
                alt="f near x with its tangent and secant, and a zoom in units of eps",
            )  # fmt: skip
            self.on_change("function", lambda _change: self._new_function())
            self.on_change("x", lambda _change: self._x_moved())
            self.on_change("eps", lambda _change: self._send_exact())
            self.guard(self._new_function)()

    # ------------------------------------------------------------------------------ state
    @property
    def f(self) -> Callable:
        """The function selected now."""
        return self._menu[self.function_dropdown.value]

    @property
    def custom(self) -> bool:
        """Whether f is an autograd.Function: the analytic slope is what its backward says."""
        return is_custom_function(self.f)

    @property
    def dtype(self) -> torch.dtype:
        """The dtype selected now."""
        return self.dtype_buttons.value

    @property
    def x(self) -> float:
        """x as set (float64)."""
        return float(self.x_slider.value)

    def _row(self) -> tuple[float, np.ndarray]:
        """(analytic slope, the row of FIELDS) the page shows now (measured now if needed)."""
        s = WIDGET_SCHEMES.index(self.scheme_buttons.value)
        d = list(DTYPES).index(dtype_name(self.dtype))
        k = self._scene.position(self.x)
        analytic, rows, _zoom = self._scene.at(k)
        exact = self.state.get("eps_exact")
        if exact is None:
            return analytic, rows[s, d, int(self.state["eps"])]
        return analytic, slope_rows(self.f, self.x, [exact], analytic)[0][s, d, 0]

    @property
    def numeric(self) -> float:
        """The numeric slope the page shows now."""
        return float(self._row()[1][FIELDS.index("numeric")])

    @property
    def analytic(self) -> float:
        """The analytic slope at x (what autograd, or your backward, says), in float64."""
        return float(self._row()[0])

    # ---------------------------------------------------------------------------- updates
    def _new_function(self) -> None:
        """A new function (or the first): the row at x first, the rest after the picture."""
        spec = self.x_slider.spec
        self._functions_seen += 1  # the scene's key: a new function, a new picture
        self._scene = SlopeScene(self.f, spec["origin"], spec["step"], (spec["lo"], spec["hi"]))
        k = self._scene.position(self.x)
        self._send_window(k, 0)
        self.later(lambda: self._send_window(self._scene.position(self.x), self.RADIUS))

    def _x_moved(self) -> None:
        """x moved: nothing to send inside the positions sent; near their edge, refill."""
        k = self._scene.position(self.x)
        lo, hi = self._window
        if not lo + self.RADIUS // 2 <= k <= hi - self.RADIUS // 2:
            self._send_window(k, self.RADIUS)
        self._send_exact()

    def _send_window(self, center: int, radius: int) -> None:
        ks, arrays = self._scene.window(center, radius)
        self._window = (ks[0], ks[-1])
        scene = {
            "function": self.function_dropdown.value,
            "custom": self.custom,
            "dtypes": list(DTYPES),
            "schemes": list(WIDGET_SCHEMES),
            "fields": list(FIELDS),
            "offsets": {s: list(SCHEMES[s][:2]) for s in WIDGET_SCHEMES},
            "half_width": HALF_WIDTH,
            "zoom_points": ZOOM_POINTS,
            "view_half_width": VIEW_HALF_WIDTH,
            "x_grid": {"origin": self._scene.origin, "step": self._scene.step},
            "window": [ks[0], len(ks)],
        }
        arrays.update(self._scene.curve())
        key = (self.function_dropdown.value, self._functions_seen, self._scene.origin)
        self.send_scene(scene, arrays, key=key)

    def _send_exact(self) -> None:
        """A typed eps off the grid: its rows at the current x (a dtype switch stays local)."""
        exact = self.state.get("eps_exact")
        if exact is None or self._scene is None:
            return
        analytic = self._scene.at(self._scene.position(self.x))[0]
        rows, zoom = slope_rows(self.f, self.x, [exact], analytic)
        match = {"eps_exact": exact, "x": self.x}
        self.send_exact({"rows": rows[:, :, 0], "zoom": zoom[:, 0]}, match)
