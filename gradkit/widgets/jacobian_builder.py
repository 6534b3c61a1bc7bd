"""JacobianBuilder: watch gradcheck build its two Jacobians, a column and a row at a time.

>>> from gradkit.widgets import JacobianBuilder
>>> JacobianBuilder(f=WrongSquareFn, n=4)  # doctest: +SKIP

gradcheck's slow mode nudges input entry k by ±eps and fills column k of the numeric Jacobian
(2 forward calls), then runs the one-hot ``grad_output = e_i`` through backward and fills row i
of the analytic one (1 backward call). torch makes every call when the scene is built
(:mod:`gradkit.widgets._jacobian_steps`); the browser replays them from that data, sent as a
binary table, so "step" and "run all" need no kernel message. Changing n rebuilds the scene;
the cost of every finished run stays listed, so the call counts and the time are seen to grow
with n.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import torch

from .._args import GRADCHECK_DEFAULTS, check_control_eps
from ._base import GradkitWidget
from ._controls import Control
from ._jacobian_scene import draw_frame, history_table, scene_data, table_bytes
from ._jacobian_steps import (
    N_MAX,
    N_MIN,
    JacobianSteps,
    as_function,
    as_input,
    check_n,
    jacobian_steps,
    sample_input,
)
from ._panel_helpers import with_theme
from ._stage import Stage

__all__ = ["Calls", "JacobianBuilder"]

#: Figure size in inches (at 100 dpi): the two matrices side by side.
_FIGSIZE = (8.6, 3.9)


_CSS = """
.gradkit-widget .gk-jb-buttons button { min-width: 64px; }
.gradkit-widget .gk-jb-buttons { padding-left: 34px; }
.gradkit-widget table.gk-history { border-collapse: collapse; margin-top: 2px; }
.gradkit-widget table.gk-history th, .gradkit-widget table.gk-history td {
  padding: 1px 10px 1px 0; text-align: right; font-variant-numeric: tabular-nums; }
.gradkit-widget table.gk-history th { color: var(--gk-muted); font-weight: normal; }
"""


class Calls(NamedTuple):
    """Calls made so far: forward (1 plain run + 2 per nudged entry) and backward (1 per row)."""

    forward: int
    backward: int


class JacobianBuilder(GradkitWidget):
    """Build the numeric Jacobian column by column and the analytic one row by row.

    Parameters
    ----------
    f : Function class, its ``apply``, a function of a tensor, or a name
        Names are the zoo's one-input Functions ("SquareFn", "WrongSquareFn", …) and the plain
        functions "x²", "sin(x)", …. Default "SquareFn".
    n : int, optional
        Input entries, 1 … 64 (default 4, or the length of ``x``).
    x : tensor or list of numbers, optional
        The input (float64). Default n values evenly spaced over 0.25 … 2.0; changing n keeps
        the range of ``x``.
    eps : float
        The nudge, gradcheck's 1e-6 by default.

    Attributes
    ----------
    n : int
        Input entries; setting it rebuilds the scene (as the n control does).
    position : int
        Steps shown: 0 (nothing yet), then 1 … n numeric columns, then n+1 … n+m analytic rows.
    calls : Calls
        Forward and backward calls made up to ``position``.
    seconds : float
        Time those calls took (measured when the scene was built; the faster of two builds).
    numeric, analytic : torch.Tensor
        Shape (m, n), output entry i, input entry j; entries not built yet are NaN.
    result : JacobianSteps
        Everything, computed ahead.
    history : list of dict
        One row per finished run: n, forward, backward, seconds.
    n_slider, step_button, run_button, reset_button : Control
    status_html, calls_html, verdict_html, history_html : Readout
    error_area : ErrorArea
        ``.value`` is the HTML of the error area (empty when all is well).
    """

    css = "gradkit-jacobian-builder"
    view = "jacobian_builder"
    _stage = None  # close() from __del__ after a constructor refused its arguments
    _css = with_theme(_CSS)

    def __init__(
        self,
        f: object = "SquareFn",
        n: int | None = None,
        *,
        x: object = None,
        eps: float = GRADCHECK_DEFAULTS["eps"],
    ) -> None:
        fn, label = as_function(f)
        like = as_input(x) if x is not None else None
        n = check_n(n if n is not None else (like.numel() if like is not None else 4))
        nudge = check_control_eps(eps)
        super().__init__()
        with self._building():
            self._f: Callable = fn
            self.label = label
            self._like = like
            self._nudge = nudge
            self.history: list[dict] = []
            self.result: JacobianSteps | None = None
            self._build_controls(n)
            self._layout(
                f"Building the Jacobians of {label}",
                "step through gradcheck's calls; raise n to see the cost grow",
                [self.n_slider, _Buttons(self)],
                [self.status_html, self.calls_html, self.verdict_html, self.history_html],
            )
            self._stage = Stage(self, _FIGSIZE)
            self._listen("n", lambda change: self._rebuild())
            self._listen("step", lambda change: self._stepped())
            self._rebuild()

    def _build_controls(self, n: int) -> None:
        """The n control, the step / run all / reset buttons and the readouts."""
        self.n_slider = self.slider(
            "n",
            value=n,
            lo=N_MIN,
            hi=N_MAX,
            step=1,
            label="n",
            css="gradkit-n",
            tooltip="input entries: each one costs 2 forward calls",
            scene=True,
            continuous=False,
            down={"css": "gradkit-n-down", "label": "−", "tooltip": "one input entry fewer"},
            up={"css": "gradkit-n-up", "label": "+", "tooltip": "one input entry more"},
        )
        # drawn by the view (they run in the browser); Python's click() does the same
        self.step_button = self.button("step_button", "step", css="gradkit-step")
        self.run_button = self.button("run_button", "run all", css="gradkit-run-all")
        self.reset_button = self.button("reset_button", "reset", css="gradkit-reset")
        self.step_button.on_click(lambda _b: self.step())
        self.run_button.on_click(lambda _b: self.run_all())
        self.reset_button.on_click(lambda _b: self.reset())
        self.values = {**self.values, "step": 0}
        self.status_html = self.readout("status", "gradkit-jb-status")
        self.calls_html = self.readout("calls", "gradkit-jb-calls")
        self.verdict_html = self.readout("verdict", "gradkit-jb-verdict")
        self.history_html = self.readout("history", "gradkit-jb-history")

    # ---------------------------------------------------------------------------- Python API
    @property
    def n(self) -> int:
        """Input entries."""
        return round(float(self.values["n"]))

    @n.setter
    def n(self, value: int) -> None:
        self.n_slider.value = check_n(value)

    @property
    def eps(self) -> float:
        """The nudge."""
        return self._nudge

    @property
    def position(self) -> int:
        """Steps shown so far (0 … n + m)."""
        return int(self.values.get("step", 0))

    @property
    def total_steps(self) -> int:
        """n numeric columns plus m analytic rows."""
        return self.result.steps if self.result is not None else 0

    def step(self) -> int:
        """Show the next step (a numeric column, then an analytic row); return the position."""
        self._set_values({"step": min(self.position + 1, self.total_steps)})
        return self.position

    def run_all(self) -> int:
        """Show every step at once; return the position (n + m)."""
        self._set_values({"step": self.total_steps})
        return self.position

    def reset(self) -> None:
        """Back to the empty Jacobians."""
        self._set_values({"step": 0})

    @property
    def calls(self) -> Calls:
        """Forward and backward calls made up to the current step."""
        r, k = self.result, self.position
        return Calls(r.forward_calls[k], r.backward_calls[k])

    @property
    def seconds(self) -> float:
        """Time the calls up to the current step took."""
        return self.result.seconds[self.position]

    @property
    def numeric(self) -> torch.Tensor:
        """The numeric Jacobian as built so far (columns not nudged yet are NaN)."""
        r = self.result
        out = torch.full_like(r.numeric, float("nan"))
        done = min(self.position, r.n)
        out[:, :done] = r.numeric[:, :done]
        return out

    @property
    def analytic(self) -> torch.Tensor:
        """The analytic Jacobian as built so far (rows not run through backward yet are NaN)."""
        r = self.result
        out = torch.full_like(r.analytic, float("nan"))
        done = max(0, self.position - r.n)
        out[:done] = r.analytic[:done]
        return out

    # ------------------------------------------------------------------------------ scene
    def _input(self) -> torch.Tensor:
        n = self.n
        if self._like is not None and self._like.numel() == n:
            return self._like.clone()
        return sample_input(n, self._like)

    def _rebuild(self) -> None:
        n = check_n(self.n)
        if float(self.values["n"]) != n:  # a slider position between whole numbers
            self._set_values({"n": n})
            return
        self.busy = True
        try:
            x = self._input()
            # best of two builds: the first call of a Function can carry one-off start-up time
            result = min(
                (jacobian_steps(self._f, x, eps=self._nudge) for _ in range(2)),
                key=lambda built: built.seconds[-1],
            )
        finally:
            self.busy = False
        self.result = result
        draw_frame(self._stage, result)
        self.scene = scene_data(result)
        self.table = table_bytes(result)
        self._set_values({"step": 0})
        self._stepped()
        self._stage.redraw()

    def _stepped(self) -> None:
        r = self.result
        if r is None:
            return
        k = int(self.values.get("step", 0))
        clamped = min(max(k, 0), r.steps)
        if clamped != k:
            self._set_values({"step": clamped})
            return
        self.status_html.value = self.scene["status"][k]
        self.calls_html.value = self.scene["calls"][k]
        self.verdict_html.value = self.scene["verdict"] if k == r.steps else ""
        if k == r.steps and not any(row["n"] == r.n for row in self.history):
            self.history.append(
                {
                    "n": r.n,
                    "forward": r.forward_calls[-1],
                    "backward": r.backward_calls[-1],
                    "seconds": r.seconds[-1],
                }
            )
            self.history.sort(key=lambda row: row["n"])
            self.history_html.value = history_table(self.history)

    def close(self) -> None:
        """Close the widget and free its figure."""
        self.result = None
        super().close()

    def __repr__(self) -> str:
        return f"JacobianBuilder(f={self.label!r}, n={self.n})"


class _Buttons(Control):
    """The row of step / run all / reset, drawn by the view (no kernel message on click)."""

    def __init__(self, owner: JacobianBuilder) -> None:
        super().__init__(owner, "buttons", "jb-buttons", css="gradkit-jb-buttons")
