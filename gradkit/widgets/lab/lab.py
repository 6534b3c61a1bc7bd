"""GradcheckLab: run gradcheck on a Function and see its verdict, its cause and the Jacobians.

torch checks the state the controls show (the first picture), then the states one click away
(:mod:`.states`), from which the page (``lab.js``) draws: eps, dtype and fast_mode moves need no
kernel message; a new Function or tolerance, and a typed eps off the grid, do.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import ClassVar

import torch
import traitlets

from ..._args import EPS_GRID, GRADCHECK_DEFAULTS, as_dtype, check_tolerance
from ...report import CheckReport
from ...zoo.checks import OTHER_CHECKS
from ..base import GradkitWidget, InputError
from ..base.eps import eps_of, eps_state
from ..base.rows import EpsDtypeTraits, button, checkbox, dropdown, dtype_toggle, eps_row, text
from .states import Grid, LabState, LabStates, state_key
from .target import LabTargets

__all__ = ["GradcheckLab", "parse_checks", "parse_tolerance"]

#: Seconds one lab may spend on what a page with no kernel gets beyond its window.
OFFLINE_BUDGET_S = 10.0
_TOLERANCE_TIPS = tuple(
    f"{kind} tolerance: an entry passes when |analytic − numeric| ≤ atol + rtol·|numeric|"
    for kind in ("absolute", "relative")
)


def parse_tolerance(typed: object, name: str) -> float:
    """A typed tolerance (``"1e-5"``, ``" 0 "``, ``"−0"``) as a float in 0 … 1e6; InputError
    otherwise (``"abc"``, ``"nan"``, ``"inf"``, ``"-1"``)."""
    cleaned = str(typed).strip().replace("−", "-").replace(" ", "")
    try:
        value = float(cleaned)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(
            f"{name} must be a number written like 1e-5 or 0.001; “{typed}” is not one"
        )
    if not 0.0 <= value <= 1e6:
        raise InputError(f"{name} must be between 0 and 1e+06; got {cleaned}")
    return check_tolerance(value, name)


def parse_checks(checks: Sequence[str] | Mapping[str, bool] | None) -> dict[str, bool]:
    """gradcheck's other checks (:data:`gradkit.zoo.OTHER_CHECKS`) as keyword arguments, from
    names to switch on (``["check_forward_ad"]``) or names to values."""
    if checks is None:
        return {}
    if isinstance(checks, str):
        raise TypeError(f"checks must be a list of check names, e.g. [{checks!r}]")
    chosen = dict(checks) if isinstance(checks, Mapping) else dict.fromkeys(checks, True)
    for name, value in chosen.items():
        if name not in OTHER_CHECKS:
            raise ValueError(f"checks: {name!r} is not one of {sorted(OTHER_CHECKS)}")
        if not isinstance(value, bool):
            raise TypeError(f"checks: {name} must be True or False, got {value!r}")
    return chosen


class GradcheckLab(GradkitWidget, EpsDtypeTraits):
    """torch.autograd.gradcheck on a Function, with gradkit's explanation and the Jacobians.

    The verdict is torch's own (through :func:`gradkit.check`); the cause (pass, precision, bug,
    kink, ...), the explanation, the suggestion and the worst Jacobian entry are gradkit's.
    Heatmaps show the numeric Jacobian (nudges), the analytic one (backward) and their
    difference as a ratio to gradcheck's allowance atol + rtol·|numeric|, worst entry boxed.

    Parameters
    ----------
    fn : str, ZooEntry, torch.autograd.Function subclass or callable, optional
        A zoo name such as ``"WrongSquareFn"`` (default ``"SquareFn"``), or your own Function.
    inputs : tuple of tensors, optional
        Needed for a Function outside the zoo; cast to the chosen dtype, never changed.
    dtype : torch.dtype or str
        Input precision: float64 (default), float32, float16 or bfloat16.
    eps, atol, rtol : float
        gradcheck's settings (defaults 1e-6, 1e-5, 1e-3).
    fast_mode : bool
    panels : sequence of {"verdict", "jacobians", "difference"}, optional
        What to show (default all): the verdict and its words, the two Jacobians, their
        difference.
    checks : sequence of str or mapping of str to bool, optional
        gradcheck's other checks: names to switch on (``["check_forward_ad"]``, which needs a
        ``jvp``) or names to values; torch's defaults otherwise.

    Attributes
    ----------
    function_dropdown, dtype_buttons, eps_slider, eps_down, eps_up, eps_text, atol_text,
    rtol_text, fast_mode_checkbox, retry_button : gradkit.widgets.base.Control
        Python handles onto the page's controls (``.value``, ``.click()``); the page presses
        ``retry_button`` itself (its ``.click()`` raises a TypeError: set ``dtype`` instead),
        and alone presses ÷10 / ×10 and reads ``eps_text``: their ``.click()`` and
        ``eps_text.value = ...`` raise a TypeError naming the value to set.
    function, dtype, eps, eps_exact, atol, rtol, fast_mode, panels
        The values the page shows (``eps`` a grid position, ``dtype`` a name); ``state`` holds
        them all.
    report : gradkit.CheckReport or None
        torch's report for the settings shown (None where the inputs cannot take the dtype).
    """

    css = "gradkit-gradcheck-lab"
    view = "labView"
    scripts = ("base/matrix.js", "lab/lab.js")
    PANELS = ("verdict", "jacobians", "difference")
    #: A typed eps's check is one state: the dtype and fast_mode it is for go with the request.
    OFF_GRID_OF: ClassVar[tuple[str, ...]] = ("dtype", "fast_mode")

    function = traitlets.Unicode(None, allow_none=True, help="the menu's label").tag(
        sync=True, state=True
    )
    atol = traitlets.Unicode(help="atol as typed").tag(sync=True, state=True)
    rtol = traitlets.Unicode(help="rtol as typed").tag(sync=True, state=True)
    fast_mode = traitlets.Bool(help="gradcheck's fast_mode").tag(sync=True, state=True)

    def __init__(  # noqa: PLR0913 - gradcheck's settings, as keyword arguments
        self,
        fn: object = None,
        inputs: Sequence[torch.Tensor] | torch.Tensor | None = None,
        *,
        dtype: torch.dtype | str = torch.float64,
        eps: float = GRADCHECK_DEFAULTS["eps"],
        atol: float = GRADCHECK_DEFAULTS["atol"],
        rtol: float = GRADCHECK_DEFAULTS["rtol"],
        fast_mode: bool = False,
        panels: Sequence[str] | None = None,
        checks: Sequence[str] | Mapping[str, bool] | None = None,
    ) -> None:
        targets = LabTargets.of(fn, inputs)
        switches = parse_checks(checks)
        dtype = as_dtype(dtype)
        tolerance = {"atol": check_tolerance(atol, "atol"), "rtol": check_tolerance(rtol, "rtol")}
        eps = eps_of(eps_state(eps))
        if not isinstance(fast_mode, bool):
            raise TypeError(f"fast_mode must be True or False, got {fast_mode!r}")
        super().__init__(panels)
        with self.building():
            self._targets = targets
            self._checks = switches
            self._tolerance = tolerance
            self._sent: dict[str, LabState] = {}
            self._redraws = 0  # the scene key: a new scene, or a state the page must redraw
            self._build_controls(targets, dtype, eps, fast_mode)
            moves = ["dtype", "eps", "eps_exact", "fast_mode"]
            self.observe(self.guard(lambda _change: self._moved()), names=moves)
            self.observe(self.guard(lambda _change: self._new_scene()), names=["function"])
            typed = self.guard(lambda change: self._tolerance_typed(change["name"]))
            self.observe(typed, names=list(tolerance))
            self.guard(self._new_scene)()

    def _build_controls(  # long: every control of the lab, one call each, in the order shown
        self, targets: LabTargets, dtype: torch.dtype, eps: float, fast_mode: bool
    ) -> None:
        self.function_dropdown = dropdown(
            self,
            "function",
            targets.names,
            value=targets.label,
            label="Function",
            css="gradkit-function",
            tooltip="a Function from gradkit's zoo: correct rules and their buggy twins",
        )
        self.dtype_buttons = dtype_toggle(self, dtype, "inputs")
        self.eps_slider, self.eps_text = eps_row(self, eps)
        self.eps_down, self.eps_up = self._controls["eps_down"], self._controls["eps_up"]
        self.atol_text, self.rtol_text = (
            text(self, name, value=f"{value:g}", label=name, css=f"gradkit-{name}", tooltip=tip)
            for (name, value), tip in zip(self._tolerance.items(), _TOLERANCE_TIPS, strict=True)
        )
        self.fast_mode_checkbox = checkbox(
            self,
            "fast_mode",
            value=fast_mode,
            text="fast_mode",
            css="gradkit-fast-mode",
            tooltip="compare one random projection qᵀJp instead of every Jacobian entry",
        )
        self.retry_button = button(
            self,
            "retry",
            "retry in float64",
            css="gradkit-retry",
            sets=("dtype", "float64"),
            tooltip="gradcheck's own advice: run the check with float64 inputs",
        )
        readouts = ["verdict", "description", "explanation", "suggestion", "worst"]
        self.layout(
            "GradcheckLab",
            "run torch.autograd.gradcheck and see why it passes or fails",
            [
                self.function_dropdown,
                self.dtype_buttons,
                self.eps_slider,
                self.eps_text,
                self.atol_text,
                self.rtol_text,
                self.fast_mode_checkbox,
                self.retry_button,
            ],
            [*readouts, ("message", "gradkit-torch-message")],
            alt="numeric, analytic and difference Jacobians as heatmaps, the worst entry boxed",
        )

    @property
    def report(self) -> CheckReport | None:
        """torch's report for the settings shown (checked now if needed)."""
        fast_mode, dtype, _ = self._here()
        return self._states.get(fast_mode, dtype, self.eps_slider.value).report

    def _here(self) -> Grid:
        return bool(self.state["fast_mode"]), str(self.state["dtype"]), int(self.state["eps"])

    def _new_scene(self) -> None:
        """A new Function or tolerance: torch's verdict now, the states ahead after it."""
        label = self.function_dropdown.value
        self._states = LabStates(self._targets, label, checks=self._checks, **self._tolerance)
        self._redraws += 1
        self._sent = {}
        self._show_current()
        self.later(self._fill)

    def _moved(self) -> None:
        self._show_current()
        if self.state.get("eps_exact") is None:
            self._fill()

    def _fill(self) -> None:
        """The states one click away, computed and sent (no repaint: the page has its state)."""
        self._states.fill(self._states.neighbours(*self._here()), self._states.engine)
        self._send_window()

    def _show_current(self) -> None:
        """torch's own check of the state shown; a state the page drew is redrawn only when
        torch's verdict differs from the one computed ahead."""
        if self.state.get("eps_exact") is not None:
            return  # the page asks for a typed eps's check (numbers_off_grid)
        fast_mode, dtype, g = self._here()
        shown = self._sent.get(state_key(fast_mode, dtype, g))
        try:
            current = self._states.get(fast_mode, dtype, EPS_GRID[g])
            agree = ("passed", "verdict", "cause", "unavailable")
            if shown is not None and any(shown.record[k] != current.record[k] for k in agree):
                self._redraws += 1  # the page showed a verdict torch does not give
        finally:
            self._send_window()  # an error is kept as the state's words: the page stops waiting

    def _send_window(self, extra: Sequence[Grid] = ()) -> None:
        """The computed states one click from the current one (and ``extra``), if changed."""
        here = self._here()
        window = self._states.window([here, *self._states.neighbours(*here), *extra])
        key = (self.function_dropdown.value, self._redraws)
        if window == self._sent and self.scene.get("key") == str(key):
            return
        self._sent = window
        self.send_scene(*self._states.scene(window), key=key)

    def numbers_off_grid(self, eps: float, args: dict) -> tuple[dict, dict]:
        """A typed eps off the grid: torch's check for it, at the request's dtype and
        fast_mode, packed as the scene's states are."""
        fast_mode, dtype = bool(args["fast_mode"]), str(args["dtype"])
        state = self._states.get(fast_mode, dtype, eps)
        return self._states.pack({f"{int(fast_mode)}|{dtype}": state})

    def _tolerance_typed(self, name: str) -> None:
        """atol or rtol typed: a new scene, the box written as Python writes the number (the
        scene is made for that text); a slip shows in the error area, the box reverts."""
        try:
            value = parse_tolerance(self.state[name], name)
        except InputError:
            self.update_state({name: f"{self._tolerance[name]:g}"})
            raise
        if self.state[name] != f"{value:g}":
            self.update_state({name: f"{value:g}"})  # its listener comes back here, once
        elif value != self._tolerance[name]:
            self._tolerance = {**self._tolerance, name: value}
            self._new_scene()

    def answers_ahead(self) -> list[dict]:
        """For a page with no kernel, within OFFLINE_BUDGET_S: fast_mode flipped for every
        state sent, and the menu's other Functions at the settings shown, fast_mode flipped,
        ÷10 and ×10, so picking a Function works there too."""
        if self.state.get("eps_exact") is not None:
            return []
        deadline = time.perf_counter() + OFFLINE_BUDGET_S
        fast_mode, dtype, g = here = self._here()
        near = [here, *self._states.neighbours(*here)]
        sent = self._states.window(near)
        twins = [(not f, d, k) for f, d, k in near if state_key(f, d, k) in sent]
        self._states.fill(twins, deadline=deadline)
        self._send_window(extra=twins)
        wanted = [here, (not fast_mode, dtype, g)]
        wanted += [(fast_mode, dtype, g + d) for d in (-3, 3) if 0 <= g + d < len(EPS_GRID)]
        scenes = []
        others = [n for n in self._targets.names if n != self.function_dropdown.value]
        for label in others:
            if time.perf_counter() > deadline:
                break
            states = LabStates(self._targets, label, checks=self._checks, **self._tolerance)
            states.fill(wanted, deadline=deadline)
            window = states.window(wanted)
            if window:
                scenes.append(self.recorded_answer({"function": label}, *states.scene(window)))
        return scenes
