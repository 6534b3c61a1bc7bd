"""PointWidget: the widgets about one x (SlopeExplorer, EpsilonLab, FloatRuler).

What torch measures at an x position (``measure(f, x)``) is kept (a learner walking along x reuses
it); the first picture sends the current x alone, the positions around it follow after the cell,
and the kernel refills as x nears the edge of what was sent. A subclass builds its controls
(:meth:`~PointWidget.point_rows`, ``dtype_toggle``, maybe a ``function`` drop-down over
``self._menu``), calls :meth:`~PointWidget.track_x`, and says what a window sends
(``scene_of``, ``arrays_of``) and what a typed eps sends (``exact_of``).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
import traitlets

from ..._args import DTYPES, EPS_GRID, WIDGET_SCHEMES, check_x
from .cache import fields, scene_cache, scene_key
from .controls import Control, grid_value
from .host import GradkitWidget
from .rows import EpsDtypeTraits, dropdown, eps_row, slider

__all__ = ["MenuSchemeTraits", "PointWidget", "cached_measure", "stack_points"]


def stack_points(points: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The measurements of a window of x positions (dicts of arrays), stacked on a leading axis."""
    return {name: np.stack([p[name] for p in points]) for name in points[0]}


def cached_measure(
    family: str, compute: Callable[[Callable, float], Any], **kinds: Any
) -> Callable[[Callable, float], Any]:
    """``compute(f, x)`` (every eps of the grid, every dtype) through the scene cache; a value
    read back must hold exactly ``kinds`` (:func:`~.cache.fields`)."""
    expect = fields(**kinds)

    def measure(f: Callable, x: float) -> Any:
        key = scene_key(family, f, x, EPS_GRID, [*DTYPES])
        return scene_cache.fetch(key, lambda: compute(f, x), expect)

    return measure


class PointWidget(GradkitWidget, EpsDtypeTraits):
    """A widget about one x on a grid of steps, with eps and dtype: the state traits ``x`` (the
    float x is ``x_value``), ``eps``, ``eps_exact`` and ``dtype``."""

    x = traitlets.Int(
        help="x's whole position on the x slider, lo … hi (the float x: x_slider.value)"
    ).tag(sync=True, state=True)

    #: x positions sent either side of the current one; the kernel refills near the edge.
    RADIUS: ClassVar[int] = 5
    #: x positions' measurements kept in memory.
    KEEP: ClassVar[int] = 64
    #: The answer for a typed eps holds every dtype and scheme: only eps and x change it.
    OFF_GRID_OF: ClassVar[tuple[str, ...]] = ("x",)
    _menu: ClassVar[dict[str, Callable]] = {}  # an instance sets its own menu

    def point_rows(
        self,
        x: float,
        eps: float,
        *,
        lo: float,
        hi: float,
        step: float,
        tooltip: str = "where the slope is measured",
    ) -> list[Control]:
        """The x row and the eps row, with their handles: ``x_slider``, ``eps_slider``,
        ``eps_text``, ``x_down``, ``x_up``, ``eps_down``, ``eps_up``; returns the first three,
        in the order shown. x moves on a grid of steps through x itself, with − / +: over
        lo … hi when x lies inside, else a range as wide, centred on it."""
        x = check_x(x)
        if lo <= x <= hi:
            lo_k, hi_k = -math.ceil((x - lo) / step - 1e-9), math.ceil((hi - x) / step - 1e-9)
        else:
            hi_k = math.ceil((hi - lo) / 2 / step)
            lo_k = -hi_k
        tip = f"move x by {step:g}"
        down = {"name": "x_down", "css": "gradkit-x-down", "label": "−", "tooltip": f"{tip} down"}
        up = {"name": "x_up", "css": "gradkit-x-up", "label": "+", "tooltip": f"{tip} up"}
        self.x_slider = slider(
            self,
            "x",
            value=x,
            origin=x,
            step=step,
            lo=lo_k,
            hi=hi_k,
            label="x",
            css="gradkit-x",
            tooltip=tooltip,
            steps=(down, up),
            scene=False,  # the window sent around x answers a move; a refill near its edge
        )
        self.eps_slider, self.eps_text = eps_row(self, eps)
        for name in ("x_down", "x_up", "eps_down", "eps_up"):
            setattr(self, name, self._controls[name])
        return [self.x_slider, self.eps_slider, self.eps_text]

    def function_row(self, menu: dict[str, Callable], selected: str) -> None:
        """The ``function`` drop-down over ``menu`` (``function_dropdown``; the callable: f)."""
        self._menu = menu
        self.function_dropdown = dropdown(
            self,
            "function",
            list(menu),
            value=selected,
            label="f(x) =",
            css="gradkit-function",
            tooltip="the function whose slope is measured",
        )

    def track_x(self, measure: Callable[[Callable | None, float], Any]) -> None:
        """Measure per x position with ``measure(f, x)`` (``f``: the function selected, None
        without a menu; a page with no kernel gets the menu's others) and send the first picture."""
        self._measure = measure
        self._functions_seen = 0
        self.observe(self.guard(self._x_moved), names=["x"])
        if "function" in self._controls:
            self.observe(self.guard(lambda _change: self.new_function()), names=["function"])
        self.guard(self.new_function)()

    # ------------------------------------------------------------------------------ state
    @traitlets.validate("x")
    def _valid_x(self, proposal: dict) -> int:
        control = self.__dict__.get("_controls", {}).get("x")
        return proposal["value"] if control is None else control.check_position(proposal["value"])

    @property
    def x_value(self) -> float:
        """x, the value at the x slider's position."""
        return self.x_slider.value

    def x_at(self, k: int) -> float:
        """The x at the x slider's position ``k``."""
        return grid_value(self.x_slider.spec, k)

    @property
    def f(self) -> Callable | None:
        """The function selected now (None without a function menu)."""
        return self._menu.get(self.current("function"))

    @property
    def point(self) -> Any:
        """What ``measure`` gave at the current x."""
        return self.point_at(self.x)

    def point_at(self, k: int) -> Any:
        """What ``measure`` gave at x position ``k`` (measured once; the latest KEEP kept)."""
        if k not in self._kept:
            self._kept[k] = self._measure(self.f, self.x_at(k))
        self._kept.move_to_end(k)
        while len(self._kept) > self.KEEP:
            self._kept.popitem(last=False)
        return self._kept[k]

    # ---------------------------------------------------------------------------- updates
    def new_function(self) -> None:
        """A new function (or the first picture): x alone now, the positions around it later."""
        self._functions_seen += 1  # part of the scene's key: a new function, a new picture
        self._kept: OrderedDict[int, Any] = OrderedDict()  # measured x positions, newest last
        self._sent = (0, -1)  # the first and last position sent
        self._send_window(0)
        self.later(lambda: self._send_window(self.RADIUS))

    def _x_moved(self, _change: dict) -> None:
        # inside the window sent the page moves alone; within RADIUS // 2 of its edge (the
        # slider's own ends are no edge), a refill
        (lo, hi), k, margin, spec = self._sent, self.x, self.RADIUS // 2, self.x_slider.spec
        low_edge = lo > spec["lo"] and k < lo + margin
        high_edge = hi < spec["hi"] and k > hi - margin
        if not lo <= k <= hi or low_edge or high_edge:
            self._send_window(self.RADIUS)

    def _send_window(self, radius: int) -> None:
        spec = self.x_slider.spec
        ks = range(max(spec["lo"], self.x - radius), min(spec["hi"], self.x + radius) + 1)
        measured = [self.point_at(k) for k in ks]
        self._sent = (ks[0], ks[-1])
        scene = {**self.scene_of(measured), "window": [ks[0], len(ks)]}
        key = (self.css, self.current("function"), self._functions_seen, spec["origin"])
        self.send_scene(scene, self.arrays_of(measured), key=key)

    def answers_ahead(self) -> list[dict]:
        """For a page with no kernel: every other function of the menu, at the current x only."""
        if "function" not in self._controls or "_measure" not in self.__dict__:
            return []
        scenes = []
        for label, f in self._menu.items():
            if label == self.current("function"):
                continue
            measured = [self._measure(f, self.x_value)]
            scene = {**self.scene_of(measured, label), "window": [self.x, 1]}
            arrays = self.answer_arrays(f, measured)
            scenes.append(self.recorded_answer({"function": label}, scene, arrays))
        return scenes

    def answer_arrays(self, f: Callable, measured: list) -> dict[str, np.ndarray]:
        """The arrays of another function's scene for a page with no kernel (default:
        :meth:`arrays_of`)."""
        return self.arrays_of(measured)

    def numbers_off_grid(self, eps: float, args: dict) -> tuple[dict, dict[str, np.ndarray]]:
        """A typed eps at the request's x position, as a window of that one position."""
        return {}, stack_points([self.exact_of(eps, args["x"])])

    def eps_column(self, key: str, axis: int) -> np.ndarray:
        """The array ``key`` of the current x at the eps shown, its eps ``axis`` one long: the
        grid's column sent, or the typed eps's answer (Python's readouts never measure again)."""
        if self.state.get("eps_exact") is None:
            return np.take(self.point[key], [int(self.state["eps"])], axis=axis)
        found = self.numbers_here()
        if found is None:
            eps = self.current("eps_exact")
            raise RuntimeError(f"no numbers for eps={eps!r} at x={self.x_value!r}")
        return found[1][key][0]  # the answer's one x position

    # ------------------------------------------------------------------- the family's part
    def scene_of(self, measured: list, label: str | None = None) -> dict:
        """The scene's JSON for a window of measurements (what the arrays mean), of the function
        shown or of the menu's ``label``."""
        raise NotImplementedError

    def arrays_of(self, measured: list) -> dict[str, np.ndarray]:
        """The scene's arrays for a window of measurements: stacked, position first."""
        return stack_points(measured)

    def exact_of(self, eps: float, k: int) -> dict[str, np.ndarray]:
        """The arrays of x position ``k`` (its x: :meth:`x_at`) at a typed eps off the grid,
        each as a position's array of the scene with an eps axis of one."""
        raise NotImplementedError


class MenuSchemeTraits(traitlets.HasTraits):
    """The values of a point widget with a function menu and a scheme (SlopeExplorer,
    EpsilonLab), mixed in after :class:`PointWidget`."""

    function = traitlets.Unicode(
        None,
        allow_none=True,
        help="the function's label in the menu (function_dropdown; the callable: f)",
    ).tag(sync=True, state=True)
    scheme = traitlets.Enum(
        list(WIDGET_SCHEMES), "central", help="the difference scheme: central or forward"
    ).tag(sync=True, state=True)
