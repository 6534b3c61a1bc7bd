"""What check() found, and how it reads: CheckReport, WorstEntry, CAUSES, text and HTML.

Depends on torch only.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import torch
from torch.autograd.gradcheck import GradcheckError

__all__ = ["CAUSES", "CheckReport", "WorstEntry"]

#: Every cause check() can report, with a one-line meaning.
CAUSES: dict[str, str] = {
    "pass": "the backward rule agrees with the nudges",
    "precision": (
        "rounding, not the rule, failed the check: low-precision numbers, or an eps too small "
        "for them"
    ),
    "bug": "the backward rule disagrees with the nudges in float64",
    "kink": "an input sits within eps of a point where the function is not differentiable",
    "nondeterministic": "two runs on the same input give different results",
    "mutation": (
        "the function changes its own input in place, so the nudges measure a moving target"
    ),
    "layout": (
        "an input's entries share memory (an as_strided view), so one nudge moves several of them"
    ),
    "error": "torch raised an error instead of comparing Jacobians",
}


@dataclass(frozen=True)
class WorstEntry:
    """The Jacobian entry furthest outside its tolerance (or closest to it, on a pass).

    ``index`` is (row, column) in the real-view Jacobian: row = flat output entry,
    column = flat input entry.
    """

    output: int
    input: int
    index: tuple[int, int]
    numeric: float
    analytic: float
    tolerance: float

    @property
    def error(self) -> float:
        """|analytic - numeric|."""
        return abs(self.analytic - self.numeric)


@dataclass
class CheckReport:
    """What :func:`check` found. ``passed`` is torch's verdict; the rest explains it."""

    passed: bool
    cause: str
    explanation: str
    suggestion: str
    torch_message: str
    numeric: tuple[tuple[torch.Tensor, ...], ...] | None
    analytic: tuple[tuple[torch.Tensor, ...], ...] | None
    max_abs_error: float
    worst: WorstEntry | None
    eps: float
    atol: float
    rtol: float
    fast_mode: bool
    dtypes: tuple[str, ...]
    engine: str = "torch"
    warnings: tuple[str, ...] = ()
    traceback: str = ""
    notes: tuple[str, ...] = ()
    error_type: str = field(default="", repr=False)

    @property
    def verdict(self) -> str:
        """``"pass"`` or ``"GradcheckError"`` (or the name of the exception torch raised)."""
        return "pass" if self.passed else (self.error_type or "GradcheckError")

    def raise_for_failure(self) -> None:
        """Raise torch's ``GradcheckError`` (with torch's own message) if the check failed."""
        if not self.passed:
            raise GradcheckError(self.torch_message)

    def __str__(self) -> str:
        head = "PASS" if self.passed else f"FAIL ({self.verdict}, cause: {self.cause})"
        lines = [
            f"gradcheck {head}",
            f"  inputs: {', '.join(self.dtypes)}   eps={self.eps:g} atol={self.atol:g} "
            f"rtol={self.rtol:g}{'  fast_mode' if self.fast_mode else ''}",
        ]
        if self.worst is not None:
            w = self.worst
            lines.append(
                f"  worst entry: output {w.output} wrt input {w.input} at {w.index}: "
                f"numeric {w.numeric:.6g}, analytic {w.analytic:.6g}, |diff| {w.error:.3g} "
                f"(allowed {w.tolerance:.3g})"
            )
        lines.append(f"  why: {self.explanation}")
        if self.suggestion:
            lines.append(f"  try: {self.suggestion}")
        lines.extend(f"  note: {n}" for n in self.notes)
        if self.torch_message:
            lines.append("  torch says:")
            lines.extend("    " + line for line in self.torch_message.splitlines()[:12])
        return "\n".join(lines)

    def _html_rows(self) -> list[tuple[str, str]]:
        """(heading, escaped HTML) rows of the report's table."""
        rows = [
            ("cause", f"<b>{html.escape(self.cause)}</b> — {html.escape(CAUSES[self.cause])}"),
            ("why", html.escape(self.explanation)),
        ]
        if self.suggestion:
            rows.append(("try", html.escape(self.suggestion)))
        if self.worst is not None:
            w = self.worst
            rows.append(
                (
                    "worst entry",
                    f"output {w.output} / input {w.input} at {w.index}: numeric "
                    f"<code>{w.numeric:.6g}</code>, analytic <code>{w.analytic:.6g}</code>, "
                    f"|diff| <code>{w.error:.3g}</code> vs allowed <code>{w.tolerance:.3g}</code>",
                )
            )
        rows.append(
            (
                "settings",
                f"{html.escape(', '.join(self.dtypes))}; eps={self.eps:g}, atol={self.atol:g}, "
                f"rtol={self.rtol:g}{', fast_mode' if self.fast_mode else ''}",
            )
        )
        return rows

    def _repr_html_(self) -> str:
        color = "#1b7f3b" if self.passed else "#b3261e"
        badge = "✔ pass" if self.passed else f"✘ {html.escape(self.verdict)}"
        body = "".join(
            f"<tr><th style='text-align:left;padding-right:1em;vertical-align:top'>{k}</th>"
            f"<td style='text-align:left'>{v}</td></tr>"
            for k, v in self._html_rows()
        )
        message = (
            f"<details><summary>torch's message</summary><pre style='white-space:pre-wrap'>"
            f"{html.escape(self.torch_message)}</pre></details>"
            if self.torch_message
            else ""
        )
        return (
            f"<div class='gradkit-report' style='border:2px solid {color};border-radius:6px;"
            f"padding:0.5em 0.8em;margin:0.3em 0'>"
            f"<div style='font-weight:bold;color:{color};font-size:1.1em'>gradcheck: {badge}</div>"
            f"<table style='margin:0.3em 0'>{body}</table>{message}</div>"
        )
