"""GradcheckLab: run gradcheck on a zoo Function and see its verdict, cause and Jacobians.

The widget (controls, picture, the kernel's round trip) lives here; the rest beside it:
``_lab_target.py`` (the Function named by ``fn=`` and its inputs in the chosen dtype),
``_lab_readouts.py`` (what one report shows), ``_lab_matrices.py`` (its Jacobians as matrices)
and ``_lab_ahead.py`` (the states computed ahead for the browser).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from .. import plots
from .._args import GRADCHECK_DEFAULTS, as_dtype, check_control_eps, check_tolerance, dtype_name
from ..diagnosis import check
from ..report import CheckReport
from ..zoo import ZooEntry
from ._base import GradkitWidget
from ._format import json_safe, parse_positive
from ._lab_ahead import compute_ahead
from ._lab_matrices import block_splits, missing_jacobian_note, report_matrices
from ._lab_readouts import READOUT_ATTRS, description_readout, report_state
from ._lab_target import LabTargets
from ._stage import Stage

__all__ = ["GradcheckLab"]

_CACHE = 32  # reports kept per widget, so switching a setting back costs nothing


class GradcheckLab(GradkitWidget):
    """torch.autograd.gradcheck on a Function, with gradkit's explanation and the Jacobians.

    The verdict is torch's own (through :func:`gradkit.check`); the cause (pass, precision, bug,
    kink, nondeterministic, error), the explanation, the suggestion and the worst Jacobian entry
    are gradkit's. Heatmaps show the numeric Jacobian (nudges), the analytic one (backward) and
    their difference relative to gradcheck's allowance atol + rtol·|numeric|, worst entry boxed.

    Parameters
    ----------
    fn : str, ZooEntry, torch.autograd.Function subclass or callable, optional
        A zoo name such as ``"WrongSquareFn"`` (default ``"SquareFn"``), or your own Function.
    inputs : tuple of tensors, optional
        Needed for a Function outside the zoo (zoo entries bring their own). Floating inputs are
        cast to the chosen dtype.
    dtype : torch.dtype or str
        Input precision: float64 (default), float32, float16 or bfloat16.
    eps, atol, rtol : float
        gradcheck's settings (defaults 1e-6, 1e-5, 1e-3).
    fast_mode : bool

    Attributes
    ----------
    function_dropdown : Control
        Zoo names (and your Function, listed first).
    dtype_buttons : Control
        Values are torch dtypes.
    eps_slider : Control
        With ``eps_down`` (÷10), ``eps_up`` (×10) and ``eps_text`` (type ``1e-6``, Enter).
    atol_text, rtol_text : Control
        Type a tolerance and press Enter.
    fast_mode_checkbox : Control
    retry_button : Control
        "retry in float64": switches the dtype to float64.
    verdict_html : Control
        The verdict badge (CSS class ``gradkit-verdict``): "pass", or "GradcheckError" and cause.
    description_html, explanation_html, suggestion_html, worst_readout, message_html :
    Readout
        What the Function is, why, what to try, the worst entry, torch's message and warnings.
    error_area : Control
    figure : matplotlib.figure.Figure
    artists : gradkit.plots.JacobianArtists
    report : gradkit.CheckReport
        The latest report.
    """

    css = "gradkit-gradcheck-lab"
    view = "gradcheck_lab"

    def __init__(
        self,
        fn: object = None,
        inputs: Sequence[torch.Tensor] | torch.Tensor | None = None,
        *,
        dtype: torch.dtype | str = torch.float64,
        eps: float = GRADCHECK_DEFAULTS["eps"],
        atol: float = GRADCHECK_DEFAULTS["atol"],
        rtol: float = GRADCHECK_DEFAULTS["rtol"],
        fast_mode: bool = False,
    ) -> None:
        targets = LabTargets.of(fn, inputs)
        dtype = as_dtype(dtype)
        atol, rtol = check_tolerance(atol, "atol"), check_tolerance(rtol, "rtol")
        eps = check_control_eps(eps)
        super().__init__()
        with self._building():
            self._targets = targets
            self.report: CheckReport | None = None
            self._reports: dict[tuple, CheckReport] = {}
            self._scene_key: tuple | None = None
            self._build_controls(targets, dtype, eps)
            self._build_settings(atol, rtol, fast_mode)
            self._build_readouts()
            self._build_picture()
            self._connect()
            self.alt = "numeric, analytic and difference Jacobians as heatmaps"
            self.guard(self._run)()

    # ---------------------------------------------------------------------------- building

    def _build_controls(self, targets: LabTargets, dtype: torch.dtype, eps: float) -> None:
        """The Function menu, the dtype buttons and the eps row."""
        self.function_dropdown = self.dropdown(
            "function", targets.names, value=targets.label, label="Function",
            css="gradkit-function",
            tooltip="a Function from gradkit's zoo: correct rules and their buggy twins",
        )  # fmt: skip
        # dtype and grid eps moves are drawn from the table computed ahead when there is
        # one; otherwise the browser waits for the kernel (no busy mark: it is quick)
        self.dtype_buttons = self.make_dtype_buttons(dtype, "inputs", scene=False)
        self._make_eps_controls(eps, self._run)
        self.eps_slider.spec["scene"] = False

    def _build_settings(self, atol: float, rtol: float, fast_mode: bool) -> None:
        """gradcheck's other settings, and the "retry in float64" button."""
        self.atol_text = self.text(
            "atol", value=f"{atol:g}", label="atol", css="gradkit-atol",
            tooltip="absolute tolerance: allowed |analytic − numeric| = atol + rtol·|numeric|",
        )  # fmt: skip
        self.rtol_text = self.text(
            "rtol", value=f"{rtol:g}", label="rtol", css="gradkit-rtol",
            tooltip="relative tolerance: allowed |analytic − numeric| = atol + rtol·|numeric|",
        )  # fmt: skip
        self.fast_mode_checkbox = self.checkbox(
            "fast_mode", value=bool(fast_mode), text="fast_mode", css="gradkit-fast-mode",
            tooltip="compare one random projection vᵀJu instead of every Jacobian entry",
            scene=True,
        )  # fmt: skip
        self.retry_button = self.button(
            "retry", "retry in float64", css="gradkit-retry",
            tooltip="gradcheck's own advice: run the check with float64 inputs",
        )  # fmt: skip

    def _build_readouts(self) -> None:
        """The readouts; report_readouts (_lab_readouts.py) writes their HTML."""
        self.verdict_html = self.readout("verdict", "gradkit-verdict")
        self.description_html = self.readout("description", "gradkit-description")
        self.explanation_html = self.readout("explanation", "gradkit-explanation")
        self.suggestion_html = self.readout("suggestion", "gradkit-suggestion")
        self.worst_readout = self.readout("worst", "gradkit-worst")
        self.message_html = self.readout("message", "gradkit-torch-message")

    def _build_picture(self) -> None:
        """Three heatmaps (numeric, analytic, difference) and their two colour bars."""
        self._stage = Stage(self, (8.6, 3.5))
        fig = self._stage.figure
        axes = [fig.add_axes((0.055 + k * 0.275, 0.13, 0.2, 0.66)) for k in (0, 1)]
        axes.append(fig.add_axes((0.685, 0.13, 0.2, 0.66)))
        caxes = (
            fig.add_axes((0.545, 0.13, 0.012, 0.66)),
            fig.add_axes((0.9, 0.13, 0.012, 0.66)),
        )
        self._stage.axes = dict(zip(("numeric", "analytic", "difference"), axes, strict=True))
        self.artists = plots.draw_jacobians(axes, caxes)
        self._suptitle = fig.suptitle("", fontsize=10.5, y=0.985)
        self._suptitle.set_animated(True)  # the browser writes it (it names the verdict)
        self._fix_jacobian_colorbar()
        self._stage.axes["jcbar"] = caxes[0]

    def _connect(self) -> None:
        """Every control re-runs the check; lay the panel out."""
        for control in (
            self.function_dropdown,
            self.dtype_buttons,
            self.atol_text,
            self.rtol_text,
            self.fast_mode_checkbox,
        ):
            control.observe(lambda change: self._run())
        self.retry_button.on_click(lambda _b: self._retry())
        self._layout(
            "GradcheckLab",
            "run torch.autograd.gradcheck and see why it passes or fails",
            [self.function_dropdown, self.dtype_buttons, self.eps_slider, self.eps_text,
             self.atol_text, self.rtol_text, self.fast_mode_checkbox, self.retry_button],
            [self.verdict_html, self.description_html, self.explanation_html,
             self.suggestion_html, self.worst_readout, self.message_html],
        )  # fmt: skip

    def _fix_jacobian_colorbar(self) -> None:
        """The Jacobian colour bar runs -1 … 1 (times vmax, which the browser writes beside it):
        the static picture then never changes with eps or dtype."""
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize

        image = self.artists.images[1]
        bar = image.colorbar
        if bar is None:
            return
        image.callbacks.disconnect(image.colorbar_cid)
        bar.update_normal(ScalarMappable(norm=Normalize(-1, 1), cmap="RdBu_r"))
        bar.set_ticks([-1, -0.5, 0, 0.5, 1], labels=[""] * 5)

    # ------------------------------------------------------------------------------ state

    @property
    def dtype(self) -> torch.dtype:
        """The input dtype currently selected."""
        return self.dtype_buttons.value

    def _target(self) -> tuple[str, Callable, tuple, ZooEntry | None]:
        """(label, callable, inputs in the current dtype, zoo entry or None) now chosen."""
        label = self.function_dropdown.value
        return label, *self._targets.target(label, self.dtype)

    # ---------------------------------------------------------------------------- actions

    def _retry(self) -> None:
        self.dtype_buttons.value = torch.float64

    def _run(self) -> None:
        atol = parse_positive(self.atol_text.value, "atol", 0.0, 1e6)
        rtol = parse_positive(self.rtol_text.value, "rtol", 0.0, 1e6)
        label, fn, inputs, entry = self._target()
        self.retry_button.disabled = self.dtype == torch.float64
        self.description_html.value = description_readout(label, entry)
        fast_mode = bool(self.fast_mode_checkbox.value)
        settings = {"eps": self.eps, "atol": atol, "rtol": rtol, "fast_mode": fast_mode}
        self.report = report = self._checked(label, fn, inputs, settings)
        state = report_state(label, report, settings["eps"], dtype_name(self.dtype))
        self._show(report, state)
        self._publish(label, fn, inputs, settings, state)

    def _checked(self, label: str, fn: Callable, inputs: tuple, settings: dict) -> CheckReport:
        """torch's verdict for the exact state (kept: flipping a setting back is instant)."""
        key = (label, self.dtype, *settings.values())
        report = self._reports.pop(key, None)
        if report is None:
            report = check(fn, inputs, **settings)
        self._reports[key] = report  # most recent last
        while len(self._reports) > _CACHE:
            self._reports.pop(next(iter(self._reports)))
        return report

    def _publish(
        self, label: str, fn: Callable, inputs: tuple, settings: dict, state: dict
    ) -> None:
        """The current state for the browser, and a new scene when this state left the last one.

        A new scene: another function or tolerance, or eps left the window computed ahead.
        """
        index = int(self.values["eps"])
        scene_key = (label, settings["atol"], settings["rtol"], settings["fast_mode"])
        window = self.scene.get("window") if self._scene_key == scene_key else None
        on_grid = self.values.get("eps_exact") is None
        here = f"{dtype_name(self.dtype)}:{index}"
        if window is None or (on_grid and window and here not in self.scene.get("ahead", {})):
            self._scene_key = scene_key
            # from the Function's own inputs, never from ones rounded to the current dtype
            _, own_inputs, _ = self._targets.target(label, torch.float64)
            ahead, window = compute_ahead(
                label, fn, own_inputs, settings, index, dtype_name(self.dtype)
            )
            self.scene = json_safe(
                {"key": list(scene_key), "window": window, "ahead": ahead, "drawn": state["drawn"]}
            )
            self._stage.redraw()
        # the current state, computed by the kernel with torch (used where nothing was ahead)
        self.exact = json_safe(
            {
                "key": list(scene_key),
                "dtype": dtype_name(self.dtype),
                "eps": settings["eps"],
                "index": index if on_grid else None,
                "state": state,
            }
        )

    # --------------------------------------------------------------------------- showing

    def _show(self, report: CheckReport, state: dict) -> None:
        """The readouts and the title of ``state``, and the heatmaps of ``report``."""
        for name, text in state["readouts"].items():
            getattr(self, READOUT_ATTRS[name]).value = text
        self._suptitle.set_text(state["suptitle"])
        self._show_jacobians(report)
        for text in self.artists.labels:  # cell labels are made lazily: keep them animated
            text.set_animated(True)

    def _show_jacobians(self, report: CheckReport) -> None:
        """Update the heatmap artists (Python's copy of what the browser draws)."""
        numeric, analytic, rows, cols, worst = report_matrices(report)
        plots.update_jacobians(
            self.artists,
            numeric=numeric,
            analytic=analytic,
            atol=report.atol,
            rtol=report.rtol,
            worst=worst,
            row_splits=block_splits(rows),
            col_splits=block_splits(cols),
            missing=missing_jacobian_note(report, analytic),
        )
