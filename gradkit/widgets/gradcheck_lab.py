"""GradcheckLab: run gradcheck on a zoo Function and see its verdict, cause and Jacobians."""

from __future__ import annotations

import html
import time
from collections.abc import Callable, Sequence

import numpy as np
import torch

from .. import plots
from .._args import DTYPES, EPS_GRID, GRADCHECK_DEFAULTS, dtype_name
from ..diagnosis import check
from ..plots import jacobian_cells
from ..report import CAUSES, CheckReport
from ..zoo import CATALOGUE, ZooEntry
from ._base import (
    GradkitWidget,
    InputError,
    Stage,
    check_eps,
    dtype_value,
    fmt,
    fmt_eps,
    json_safe,
    parse_positive,
)

__all__ = ["GradcheckLab"]

_PASS, _FAIL = "#1b7f3b", "#B3261E"
_COMPLEX = {torch.float64: torch.complex128, torch.float32: torch.complex64}
_CACHE = 32  # reports kept per widget, so switching a setting back costs nothing
#: Inputs with at most this many entries get verdicts computed ahead (batched engine).
AHEAD_MAX_ENTRIES = 16
#: Grid positions either side of the current eps computed ahead: 6 = two decades (÷10 is 3).
AHEAD_GRID_STEPS = 6
#: Seconds a scene may spend computing ahead (nearest states first); the rest round-trips.
AHEAD_BUDGET_S = 0.25


def _resolve(fn: object) -> tuple[str, ZooEntry | None, Callable | None]:
    """(label, zoo entry or None, callable or None) for the ``fn`` argument."""
    if fn is None:
        return "SquareFn", CATALOGUE["SquareFn"], None
    if isinstance(fn, ZooEntry):
        return fn.name, fn, None
    if isinstance(fn, str):
        if fn not in CATALOGUE:
            raise ValueError(f"fn={fn!r} is not a zoo entry; choose from {sorted(CATALOGUE)}")
        return fn, CATALOGUE[fn], None
    if isinstance(fn, type) and issubclass(fn, torch.autograd.Function):
        for e in CATALOGUE.values():
            if e.function is fn:
                return e.name, e, None
        return f"{fn.__name__} (yours)", None, fn.apply
    if callable(fn):
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
            return _resolve(owner)
        name = getattr(fn, "__name__", "") or "fn"
        return f"{name if name != '<lambda>' else 'fn'} (yours)", None, fn
    raise TypeError(
        f"fn must be a zoo name, a torch.autograd.Function (or its .apply) or a function of "
        f"tensors, got {type(fn).__name__}"
    )


def _cast(inputs: Sequence, dtype: torch.dtype) -> tuple:
    out = []
    for k, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor) or not (t.is_floating_point() or t.is_complex()):
            out.append(t)
            continue
        if t.is_complex():
            if dtype not in _COMPLEX:
                raise InputError(
                    f"input {k} is complex: complex tensors come as complex128 (choose float64) "
                    f"or complex64 (choose float32), not {dtype_name(dtype)}"
                )
            target = _COMPLEX[dtype]
        else:
            target = dtype
        out.append(t.detach().to(target).requires_grad_(t.requires_grad))
    return tuple(out)


def _combine(jacobian) -> tuple:
    """One matrix from the blocks J[o][i], with the block boundaries."""
    rows = [torch.cat([b.detach().double() for b in row], dim=1) for row in jacobian]
    matrix = torch.cat(rows, dim=0)
    row_sizes = [r.shape[0] for r in rows]
    col_sizes = [b.shape[1] for b in jacobian[0]]
    return matrix.numpy(), row_sizes, col_sizes


def _splits(sizes: Sequence[int]) -> list[int]:
    out, total = [], 0
    for s in sizes[:-1]:
        total += s
        if total > 0 and (not out or out[-1] != total):
            out.append(total)
    return out


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
        label, entry, custom = _resolve(fn)
        if isinstance(inputs, torch.Tensor):
            inputs = (inputs,)
        if inputs is not None and not isinstance(inputs, (tuple, list)):
            raise TypeError(
                f"inputs must be a tensor or a tuple of tensors, got {type(inputs).__name__}"
            )
        if custom is not None and inputs is None:
            raise TypeError(
                f"inputs= is needed for {label}: pass e.g. "
                "inputs=(torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True),)"
            )
        dtype = dtype_value(dtype)
        for name, value in (("atol", atol), ("rtol", rtol)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{name} must be a number >= 0 such as 1e-5, got {value!r}")
        eps = check_eps(eps)
        super().__init__()
        with self._building():
            self._custom = (label, custom, tuple(inputs)) if custom is not None else None
            self._entry_inputs = (
                (label, tuple(inputs)) if (entry is not None and inputs is not None) else None
            )
            self.report: CheckReport | None = None
            self._reports: dict[tuple, CheckReport] = {}

            names = ([label] if custom is not None else []) + list(CATALOGUE)
            self.function_dropdown = self.dropdown(
                "function", names, value=label, label="Function", css="gradkit-function",
                tooltip="a Function from gradkit's zoo: correct rules and their buggy twins",
            )  # fmt: skip
            self._scene_key: tuple | None = None
            # dtype and grid eps moves are drawn from the table computed ahead when there is
            # one; otherwise the browser waits for the kernel (no busy mark: it is quick)
            self.dtype_buttons = self.make_dtype_buttons(dtype, "inputs", scene=False)
            self._make_eps_controls(eps, self._run)
            self.eps_slider.spec["scene"] = False
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

            self.verdict_html = self.readout("verdict", "gradkit-verdict")
            self.description_html = self.readout("description", "gradkit-description")
            self.explanation_html = self.readout("explanation", "gradkit-explanation")
            self.suggestion_html = self.readout("suggestion", "gradkit-suggestion")
            self.worst_readout = self.readout("worst", "gradkit-worst")
            self.message_html = self.readout("message", "gradkit-torch-message")

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
            self.alt = "numeric, analytic and difference Jacobians as heatmaps"
            self.guard(self._run)()

    # ------------------------------------------------------------------------------ state

    @property
    def dtype(self) -> torch.dtype:
        """The input dtype currently selected."""
        return self.dtype_buttons.value

    def _target(self) -> tuple[str, Callable, tuple, ZooEntry | None]:
        label = self.function_dropdown.value
        if self._custom is not None and label == self._custom[0]:
            return label, self._custom[1], _cast(self._custom[2], self.dtype), None
        entry = CATALOGUE[label]
        given = self._entry_inputs
        raw = given[1] if given is not None and given[0] == label else entry.make_input()
        return label, entry.apply, _cast(raw, self.dtype), entry

    # ---------------------------------------------------------------------------- actions

    def _retry(self) -> None:
        self.dtype_buttons.value = torch.float64

    def _run(self) -> None:
        atol = parse_positive(self.atol_text.value, "atol", 0.0, 1e6)
        rtol = parse_positive(self.rtol_text.value, "rtol", 0.0, 1e6)
        label, fn, inputs, entry = self._target()
        self.retry_button.disabled = self.dtype == torch.float64
        self._show_description(label, entry)
        fast_mode = bool(self.fast_mode_checkbox.value)
        settings = {"eps": self.eps, "atol": atol, "rtol": rtol, "fast_mode": fast_mode}
        key = (label, self.dtype, *settings.values())
        report = self._reports.pop(key, None)
        if report is None:
            report = check(fn, inputs, **settings)  # torch's verdict for the exact state
        self._reports[key] = report  # most recent last; flipping back is instant
        while len(self._reports) > _CACHE:
            self._reports.pop(next(iter(self._reports)))
        self.report = report
        state = self._state(label, report, settings["eps"], dtype_name(self.dtype))
        for name, text in state["readouts"].items():
            getattr(self, _READOUT_ATTRS[name]).value = text
        self._suptitle.set_text(state["suptitle"])
        self._show_jacobians(report)
        for text in self.artists.labels:  # cell labels are made lazily: keep them animated
            text.set_animated(True)
        # a new scene: another function or tolerance, or eps left the window computed ahead
        index = int(self.values["eps"])
        scene_key = (label, atol, rtol, fast_mode)
        window = self.scene.get("window") if self._scene_key == scene_key else None
        on_grid = self.values.get("eps_exact") is None
        here = f"{dtype_name(self.dtype)}:{index}"
        if window is None or (on_grid and window and here not in self.scene.get("ahead", {})):
            self._scene_key = scene_key
            ahead, window = self._compute_ahead(label, atol, rtol, fast_mode, index)
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

    def _compute_ahead(
        self, label: str, atol: float, rtol: float, fast_mode: bool, index: int
    ) -> tuple[dict, list[int]]:
        """States for the grid eps within two decades of ``index``, for every dtype.

        Computed with the batched engine (tested to decide as torch's slow gradcheck does);
        small inputs only (at most AHEAD_MAX_ENTRIES entries), never in fast_mode. Returns the
        states by ``"dtype:grid index"`` and the window [first, last] grid index ([] if none).
        """
        _, fn, raw, _ = self._target()
        entries = sum(t.numel() for t in raw if isinstance(t, torch.Tensor))
        if fast_mode or entries > AHEAD_MAX_ENTRIES:
            return {}, []
        lo = max(0, index - AHEAD_GRID_STEPS)
        hi = min(len(EPS_GRID) - 1, index + AHEAD_GRID_STEPS)
        cast = {}
        for name, dtype in DTYPES.items():
            try:
                cast[name] = _cast(raw, dtype)
            except InputError:  # e.g. complex inputs in float16: the kernel says why
                continue
        # what one click reaches first (÷10 / ×10, then the dtype switches), then the rest,
        # nearest first: a slow Function still gets those within the time budget
        current = dtype_name(self.dtype)
        order = sorted(
            ((g, name) for name in cast for g in range(lo, hi + 1)),
            key=lambda item: (
                abs(item[0] - index) % 3 != 0,  # ÷10 / ×10 land on multiples of 3 steps
                abs(item[0] - index),
                item[1] != current,
            ),
        )
        ahead = {}
        start = time.perf_counter()
        for g, name in order:
            if time.perf_counter() - start > AHEAD_BUDGET_S:
                break  # the rest takes the round trip
            report = check(fn, cast[name], eps=EPS_GRID[g], atol=atol, rtol=rtol, engine="batched")
            ahead[f"{name}:{g}"] = self._state(label, report, EPS_GRID[g], name)
        return ahead, [lo, hi]

    def _state(self, label: str, report: CheckReport, eps: float, dtype: str) -> dict:
        """Everything the browser shows for one report: readouts, heatmap cells, drawn data."""
        readouts, suptitle = _report_readouts(label, report)
        numeric, analytic, _rows, _cols, worst = _matrices(report)
        missing = (
            f"no analytic Jacobian:\ntorch raised {report.verdict}"
            if analytic is None and not report.passed
            else "no Jacobian"
        )
        cells = jacobian_cells(
            numeric=numeric,
            analytic=analytic,
            atol=report.atol,
            rtol=report.rtol,
            worst=worst,
            missing=missing,
        )
        failing: list[list[int]] = []
        if numeric is not None and analytic is not None:
            with np.errstate(invalid="ignore"):
                allowed = report.atol + report.rtol * np.abs(numeric)  # gradcheck's rule
                failing = np.argwhere(np.abs(analytic - numeric) > allowed).tolist()
        w = report.worst
        drawn = {
            "function": label,
            "dtype": dtype,
            "eps": eps,  # the number; eps_label as the controls print it
            "eps_label": fmt_eps(eps),
            "passed": report.passed,
            "cause": report.cause,
            "worst": None if w is None else [w.output, w.input, *w.index],
            "ratio": None if w is None or not w.tolerance else w.error / w.tolerance,
            "worst_cell": cells["worst"],
            "failing_cells": failing,
            "shape": cells["shape"],
        }
        return {"readouts": readouts, "suptitle": suptitle, "cells": cells, "drawn": drawn}

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

    # --------------------------------------------------------------------------- showing

    def _show_description(self, label: str, entry: ZooEntry | None) -> None:
        if entry is None:
            self.description_html.value = (
                f"<b>{html.escape(label)}</b>: your Function, checked on your inputs."
            )
            return
        kind = "a correct rule" if entry.correct else "a buggy twin"
        bug = (
            f"<details><summary>reveal the bug</summary>{html.escape(entry.bug)}</details>"
            if entry.bug
            else ""
        )
        self.description_html.value = (
            f"<b>{html.escape(entry.name)}</b> ({kind}): {html.escape(entry.description)}{bug}"
        )

    def _show_jacobians(self, report: CheckReport) -> None:
        """Update the heatmap artists (Python's copy of what the browser draws)."""
        numeric, analytic, rows, cols, worst = _matrices(report)
        missing = (
            f"no analytic Jacobian:\ntorch raised {report.verdict}"
            if analytic is None and not report.passed
            else "no Jacobian"
        )
        plots.update_jacobians(
            self.artists,
            numeric=numeric,
            analytic=analytic,
            atol=report.atol,
            rtol=report.rtol,
            worst=worst,
            row_splits=_splits(rows),
            col_splits=_splits(cols),
            missing=missing,
        )


def _report_readouts(label: str, report: CheckReport) -> tuple[dict[str, str], str]:
    """The verdict, explanation, suggestion, worst and message readouts, and the title."""
    out = {}
    dtypes = ", ".join(dict.fromkeys(report.dtypes))
    if report.passed:
        badge = (
            f"<span style='color:{_PASS};font-weight:bold;font-size:1.15em'>✔ pass</span>"
            f" — gradcheck returned True ({html.escape(dtypes)} inputs): "
            f"{html.escape(CAUSES['pass'])}"
        )
        color = _PASS
    else:
        badge = (
            f"<span style='color:{_FAIL};font-weight:bold;font-size:1.15em'>✘ "
            f"{html.escape(report.verdict)}</span> — cause: <b>{html.escape(report.cause)}"
            f"</b> ({html.escape(CAUSES[report.cause])}; {html.escape(dtypes)} inputs)"
        )
        color = _FAIL
    out["verdict"] = (
        f"<div style='border-left:5px solid {color};padding:2px 8px;margin:2px 0'>{badge}</div>"
    )
    out["explanation"] = f"<b>why:</b> {html.escape(report.explanation)}"
    out["suggestion"] = f"<b>try:</b> {html.escape(report.suggestion)}" if report.suggestion else ""
    w = report.worst
    if w is None:
        out["worst"] = "<b>worst entry:</b> no Jacobians to compare"
    else:
        relation = "&gt;" if w.error > w.tolerance else "≤"
        out["worst"] = (
            f"<b>worst entry</b> (boxed): {w.position}: "
            f"numeric <code>{fmt(w.numeric, '.10g')}</code>, "
            f"analytic <code>{fmt(w.analytic, '.10g')}</code>, |diff| "
            f"<code>{fmt(w.error, '.3g')}</code> {relation} allowed "
            f"<code>{fmt(w.tolerance, '.3g')}</code>"
        )
    parts = []
    if report.torch_message:
        parts.append(
            "<details><summary>torch's message</summary><pre style='white-space:pre-wrap;"
            f"font-size:11px'>{html.escape(report.torch_message)}</pre></details>"
        )
    for warning in report.warnings:
        parts.append(f"<div style='color:#8a5a00'>torch warned: {html.escape(warning)}</div>")
    out["message"] = "".join(parts)
    verdict = "pass" if report.passed else f"{report.verdict} ({report.cause})"
    return out, f"{label}, {dtypes} inputs: {verdict}"


_READOUT_ATTRS = {
    "verdict": "verdict_html",
    "explanation": "explanation_html",
    "suggestion": "suggestion_html",
    "worst": "worst_readout",
    "message": "message_html",
}


def _matrices(report: CheckReport) -> tuple:
    """(numeric, analytic, row sizes, column sizes, worst [row, col]) of a report's Jacobians."""
    numeric = analytic = None
    rows: list[int] = []
    cols: list[int] = []
    if report.numeric is not None:
        numeric, rows, cols = _combine(report.numeric)
    if report.analytic is not None:
        analytic, rows_a, cols_a = _combine(report.analytic)
        if numeric is None:
            rows, cols = rows_a, cols_a
        elif analytic.shape != numeric.shape:
            analytic = None
    worst = None
    w = report.worst
    if w is not None and rows:
        worst = (sum(rows[: w.output]) + w.index[0], sum(cols[: w.input]) + w.index[1])
    return numeric, analytic, rows, cols, worst
