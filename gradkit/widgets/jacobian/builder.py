"""JacobianBuilder: watch gradcheck build its two Jacobians, a column and a row at a time.

>>> from gradkit.widgets import JacobianBuilder
>>> JacobianBuilder(f=WrongSquareFn, n=4)  # doctest: +SKIP

torch makes every call of gradcheck's slow mode when the scene is built (:mod:`.steps`) and the
page replays them (``jacobian.js``): step, run all and reset need no kernel message; only a new
n does (a page with no kernel gets the n's around the one shown, :data:`N_AROUND`). Beside the
build's own calls the page shows torch's count for the whole gradcheck
(:func:`gradkit.cost.count_calls`), which adds checks of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import traitlets

from ..._args import GRADCHECK_DEFAULTS, check_control_eps
from ...cost import CallCount, count_calls
from ..base import Control, GradkitWidget
from ..base.jacobians import difference_ratio
from ..base.page import check_count
from ..base.rows import slider
from .steps import (
    N_MAX,
    N_MIN,
    JacobianSteps,
    as_function,
    as_input,
    check_n,
    jacobian_steps,
    sample_input,
)

__all__ = ["N_AROUND", "JacobianBuilder"]

#: The n's a page with no kernel gets beside the one shown: one fewer, up to two more.
N_AROUND = (-1, 1, 2)

#: step / run all / reset: the page moves by itself (``MOVES`` in jacobian.js); Python's
#: ``.click()`` calls next_step, run_all, reset.
_BUTTONS = (
    ("step_button", "step", "gradkit-step", "the next call: a nudged entry, then a backward pass"),
    ("run_button", "run all", "gradkit-run-all", "every call: both Jacobians built"),
    ("reset_button", "reset", "gradkit-reset", "back to empty Jacobians"),
)
_N_STEPS = (
    {"name": "n_down", "css": "gradkit-n-down", "label": "−", "tooltip": "one input entry fewer"},
    {"name": "n_up", "css": "gradkit-n-up", "label": "+", "tooltip": "one input entry more"},
)


class JacobianBuilder(GradkitWidget):
    """Build the numeric Jacobian column by column and the analytic one row by row.

    Parameters
    ----------
    f : Function class, its ``apply``, a function of a tensor, or a name
        Names are the zoo's one-input Functions ("SquareFn", "WrongSquareFn", …) and the plain
        functions "x²", "sin(x)", …. Default "SquareFn". An error f raises shows in the error
        area (a wrong kind of argument raises).
    n : int, optional
        Input entries, 1 … 64 (default 4, or the length of ``x``).
    x : tensor or list of numbers, optional
        The input (float64). Default n values evenly spaced over 0.25 … 2.0; changing n keeps
        the range of ``x``.
    eps : float
        The nudge, gradcheck's 1e-6 by default.
    panels : sequence of {"numeric", "analytic", "counts"}, optional
        What to show (default all): the numeric Jacobian, the analytic one, the call counts.

    Attributes
    ----------
    n : int
        Input entries (the n slider's position is its value); setting it rebuilds the scene.
    step, position : int
        Steps shown: 0 (nothing yet), then 1 … n numeric columns, then n+1 … n+m analytic rows.
        A new n shows step 1; ``next_step()``, ``run_all()`` and ``reset()`` move it as the
        page's buttons do.
    gradcheck_calls : gradkit.cost.CallCount or None
        torch.autograd.gradcheck's own calls on the same input, counted.
    result : JacobianSteps or None
        Both Jacobians and the calls and time after each step, computed ahead (None when f
        failed): the page shows them up to ``position``.
    history : list of dict
        One row per n built: n, forward, backward, seconds, gradcheck's forward and backward.
    n_slider, n_down, n_up, step_button, run_button, reset_button : Control
        Handles onto the page's controls: ``.value``, ``.click()``; the page alone presses
        − / + (``n_down.click()`` raises a TypeError: set ``n`` instead).
    """

    css = "gradkit-jacobian-builder"
    view = "jacobianView"
    scripts = ("base/matrix.js", "jacobian/jacobian.js")
    PANELS = ("numeric", "analytic", "counts")

    n = traitlets.Int(
        help="input entries: the n slider's position, N_MIN … N_MAX; setting it rebuilds the scene"
    ).tag(sync=True, state=True)
    step = traitlets.Int(
        1, help="steps shown: 0, then 1 … n numeric columns, then n+1 … n+m analytic rows"
    ).tag(sync=True, state=True)

    def __init__(  # long: the builder's controls, one call each, in the order shown
        self,
        f: object = "SquareFn",
        n: int | None = None,
        *,
        x: object = None,
        eps: float = GRADCHECK_DEFAULTS["eps"],
        panels: Sequence[str] | None = None,
    ) -> None:
        fn, label = as_function(f)
        like = as_input(x) if x is not None else None
        n = check_n(n if n is not None else (like.numel() if like is not None else 4))
        nudge = check_control_eps(eps)
        super().__init__(panels)
        with self.building():
            self._f: Callable = fn
            self.label, self._like, self._nudge = label, like, nudge
            self.history: list[dict] = []
            self.result: JacobianSteps | None = None
            self.gradcheck_calls: CallCount | None = None
            self._builds = 0
            self.n_slider = slider(
                self,
                "n",
                value=n,
                origin=0,
                step=1,
                lo=N_MIN,
                hi=N_MAX,
                label="n",
                css="gradkit-n",
                tooltip="input entries: each one costs 2 forward calls",
                continuous=False,
                fmt=".0f",
                steps=_N_STEPS,
            )
            self.n_down, self.n_up = self._controls["n_down"], self._controls["n_up"]
            presses = (self.next_step, self.run_all, self.reset)
            for (name, text, css, tip), press in zip(_BUTTONS, presses, strict=True):
                spec = {"kind": "button", "name": name, "text": text, "css": css, "tooltip": tip}
                made = Control(self, spec, click=self.guard(press))
                setattr(self, name, self.add_control(made, has_value=False))
            self.layout(
                f"Building the Jacobians of {label}",
                "step through gradcheck's calls; raise n to see the cost grow",
                [self.n_slider],
                [
                    (name, f"gradkit-jb-{name}")
                    for name in ("status", "calls", "verdict", "history")
                ],
                alt="the numeric Jacobian filled column by column, the analytic one row by row",
            )
            # the page draws these beside the n control itself (jacobian.js)
            self.spec = {**self.spec, "steps": [self._controls[b[0]].spec for b in _BUTTONS]}
            self.observe(self.guard(lambda _change: self._rebuild()), names=["n"])
            self.guard(self._rebuild)()

    # ---------------------------------------------------------------------------- Python API
    @traitlets.validate("n")
    def _valid_n(self, proposal: dict) -> int:
        return check_n(proposal["value"])

    @property
    def eps(self) -> float:
        """The nudge."""
        return self._nudge

    @property
    def position(self) -> int:
        """Steps shown so far (0 … n + m)."""
        return self.step

    @property
    def total_steps(self) -> int:
        """n numeric columns plus m analytic rows (0 when f failed)."""
        return self.result.steps if self.result is not None else 0

    def next_step(self) -> int:
        """Show the next step (a numeric column, then an analytic row); return the position."""
        self.update_state({"step": min(self.position + 1, self.total_steps)})
        return self.position

    def run_all(self) -> int:
        """Show every step at once; return the position (n + m)."""
        self.update_state({"step": self.total_steps})
        return self.position

    def reset(self) -> None:
        """Back to the empty Jacobians (the plain run only)."""
        self.update_state({"step": 0})

    def check_page_value(self, key: str, value: Any) -> None:
        """The page's step must be a whole number 0 … n + m; other keys as the base checks."""
        if key == "step":
            return check_count(key, value, self.total_steps)
        return super().check_page_value(key, value)

    # ------------------------------------------------------------------------------ scene
    def _build(self, n: int) -> tuple[JacobianSteps, CallCount | None]:
        """Every step for n (the faster of two builds: the first call of a Function can carry
        one-off start-up time), and gradcheck's own count (None when gradcheck raises)."""
        x = sample_input(n, self._like)
        result = min(
            (jacobian_steps(self._f, x, eps=self._nudge) for _ in range(2)),
            key=lambda built: built.seconds[-1],
        )
        try:
            counted = count_calls(self._f, (x.clone().requires_grad_(True),), eps=self._nudge)
        except Exception:  # noqa: BLE001 - the page then shows the build's calls only
            counted = None
        return result, counted

    def _scene(self, r: JacobianSteps, counted: CallCount | None, history: list) -> tuple:
        """The scene JSON and tables of a build: both Jacobians, the entries outside
        gradcheck's tolerance, the running calls and times, gradcheck's count, the n's built."""
        atol, rtol = GRADCHECK_DEFAULTS["atol"], GRADCHECK_DEFAULTS["rtol"]
        numeric, analytic = r.numeric.numpy(), r.analytic.numpy()
        scene = {
            "failed": False,
            "label": self.label,
            "n": r.n,
            "m": r.m,
            "steps": r.steps,
            "eps": r.eps,
            "atol": atol,
            "rtol": rtol,
            "gradcheck": None
            if counted is None
            else {
                "forward": counted.forward,
                "backward": counted.backward,
                "passed": counted.passed,
            },
            "history": history,
        }
        arrays = {
            "x": r.x.numpy(),
            "numeric": numeric,
            "analytic": analytic,
            "outside": difference_ratio(numeric, analytic, atol, rtol)[1].astype(np.float64),
            "forward": np.array(r.forward_calls),
            "backward": np.array(r.backward_calls),
            "seconds": np.array(r.seconds),
        }
        return scene, arrays

    def _rebuild(self) -> None:
        self._builds += 1
        try:
            result, self.gradcheck_calls = self._build(self.n)
        except Exception:
            self.result = self.gradcheck_calls = None
            self.update_state({"step": 0})
            self.send_scene({"failed": True, "n": self.n}, key=self._builds)
            raise
        self.result = result
        self.history = sorted(
            [h for h in self.history if h["n"] != result.n]
            + [_history_row(result, self.gradcheck_calls)],
            key=lambda h: h["n"],
        )
        with self.hold_sync():  # one message: the new step never meets the old scene
            self.update_state({"step": min(1, result.steps)})  # the first column built
            scene, arrays = self._scene(result, self.gradcheck_calls, self.history)
            self.send_scene(scene, arrays, key=(self.label, self._builds))

    def answers_ahead(self) -> list[dict]:
        """For a page with no kernel: the scenes of the n's around this one (:data:`N_AROUND`),
        each starting at step 1 as a new n does here; its history lists the n's built and the
        ones between."""
        if self.result is None:
            return []
        n, built = self.n, {}
        for k in sorted({min(N_MAX, max(N_MIN, n + d)) for d in N_AROUND} - {n}):
            try:
                built[k] = self._build(k)
            except Exception:  # noqa: BLE001 - that n then needs a running notebook
                continue
        rows = {h["n"]: h for h in self.history}
        rows.update({k: _history_row(*pair) for k, pair in built.items()})
        scenes = []
        for k, (result, counted) in built.items():
            lo, hi = min(n, k), max(n, k)
            history = [rows[m] for m in sorted(rows) if lo <= m <= hi or m not in built]
            scene, arrays = self._scene(result, counted, history)
            scenes.append(self.recorded_answer({"n": k}, scene, arrays, sets={"step": 1}))
        return scenes

    def close(self) -> None:
        """Close the widget and drop its numbers."""
        self.result = None
        super().close()

    def __repr__(self) -> str:
        return f"JacobianBuilder(f={self.label!r}, n={self.n})"


def _history_row(r: JacobianSteps, counted: CallCount | None) -> dict:
    """A build's row in the table of every n built: its calls and time, gradcheck's count."""
    return {
        "n": r.n,
        "forward": r.forward_calls[-1],
        "backward": r.backward_calls[-1],
        "seconds": r.seconds[-1],
        "gradcheck_forward": None if counted is None else counted.forward,
        "gradcheck_backward": None if counted is None else counted.backward,
    }
