"""What GradcheckLab shows for one CheckReport: the readout HTML, the title and the drawn state.

Pure functions of the report: the kernel shows their result for the current settings, and the
same result for the states computed ahead goes to the browser (``_lab_ahead.py``).
"""

from __future__ import annotations

import html

import numpy as np

from ..plots.jacobian_data import heatmap_cells, jacobian_matrices
from ..report import CAUSES, CheckReport, WorstEntry
from ..zoo import ZooEntry
from ._format import fmt, fmt_eps
from ._lab_matrices import missing_jacobian_note, report_matrices
from ._theme import THEME

__all__ = ["READOUT_ATTRS", "description_readout", "report_readouts", "report_state"]

_PASS, _FAIL = THEME["pass"], THEME["error"]

#: The readout names of :func:`report_readouts`, and the GradcheckLab handle showing each.
READOUT_ATTRS = {
    "verdict": "verdict_html",
    "explanation": "explanation_html",
    "suggestion": "suggestion_html",
    "worst": "worst_readout",
    "message": "message_html",
}


def description_readout(label: str, entry: ZooEntry | None) -> str:
    """What the Function is: a zoo entry's description (and its bug, folded), or "yours"."""
    if entry is None:
        return f"<b>{html.escape(label)}</b>: your Function, checked on your inputs."
    kind = "a correct rule" if entry.correct else "a buggy twin"
    bug = (
        f"<details><summary>reveal the bug</summary>{html.escape(entry.bug)}</details>"
        if entry.bug
        else ""
    )
    return f"<b>{html.escape(entry.name)}</b> ({kind}): {html.escape(entry.description)}{bug}"


def report_readouts(label: str, report: CheckReport) -> tuple[dict[str, str], str]:
    """The verdict, explanation, suggestion, worst and message readouts, and the title.

    Parameters
    ----------
    label : str
        The Function's name as the lab's menu shows it.
    report : CheckReport

    Returns
    -------
    tuple
        ``(readouts by the names of READOUT_ATTRS, figure title)``.
    """
    dtypes = ", ".join(dict.fromkeys(report.dtypes))
    explanation = f"<b>why:</b> {html.escape(report.explanation)}"
    suggestion = f"<b>try:</b> {html.escape(report.suggestion)}" if report.suggestion else ""
    out = {
        "verdict": _verdict_readout(report, dtypes),
        "explanation": explanation,
        "suggestion": suggestion,
        "worst": _worst_readout(report.worst),
        "message": _message_readout(report),
    }
    verdict = "pass" if report.passed else f"{report.verdict} ({report.cause})"
    return out, f"{label}, {dtypes} inputs: {verdict}"


def _verdict_readout(report: CheckReport, dtypes: str) -> str:
    """The badge: "✔ pass", or torch's error and gradkit's cause, with a coloured bar."""
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
    return f"<div style='border-left:5px solid {color};padding:2px 8px;margin:2px 0'>{badge}</div>"


def _worst_readout(w: WorstEntry | None) -> str:
    """The worst entry's numbers against gradcheck's allowance atol + rtol·|numeric|."""
    if w is None:
        return "<b>worst entry:</b> no Jacobians to compare"
    relation = "&gt;" if w.error > w.tolerance else "≤"
    return (
        f"<b>worst entry</b> (boxed): {w.position}: "
        f"numeric <code>{fmt(w.numeric, '.10g')}</code>, "
        f"analytic <code>{fmt(w.analytic, '.10g')}</code>, |diff| "
        f"<code>{fmt(w.error, '.3g')}</code> {relation} allowed "
        f"<code>{fmt(w.tolerance, '.3g')}</code>"
    )


def _message_readout(report: CheckReport) -> str:
    """torch's message (folded) and the warnings torch gave."""
    parts = []
    if report.torch_message:
        parts.append(
            "<details><summary>torch's message</summary><pre style='white-space:pre-wrap;"
            f"font-size:11px'>{html.escape(report.torch_message)}</pre></details>"
        )
    for warning in report.warnings:
        parts.append(f"<div class='gk-warn'>torch warned: {html.escape(warning)}</div>")
    return "".join(parts)


def report_state(label: str, report: CheckReport, eps: float, dtype: str) -> dict:
    """Everything the browser shows for one report: readouts, heatmap cells, drawn data.

    Parameters
    ----------
    label : str
        The Function's name as the lab's menu shows it.
    report : CheckReport
    eps : float
        The step the report was computed with.
    dtype : str
        The inputs' dtype name, e.g. ``"float32"``.

    Returns
    -------
    dict
        ``{"readouts", "suptitle", "cells", "drawn"}``: the readouts and title of
        :func:`report_readouts`, :func:`gradkit.plots.jacobian_cells`'s heatmap cells, and the
        numbers the browser tests read back (``drawn``).
    """
    readouts, suptitle = report_readouts(label, report)
    numeric, analytic, _rows, _cols, worst = report_matrices(report)
    mats = jacobian_matrices(numeric, analytic, report.atol, report.rtol)
    cells = heatmap_cells(mats, worst=worst, missing=missing_jacobian_note(report, analytic))
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
        # [row, col] of every entry outside gradcheck's allowance (none without both Jacobians)
        "failing_cells": [] if mats.outside is None else np.argwhere(mats.outside).tolist(),
        "shape": cells["shape"],
    }
    return {"readouts": readouts, "suptitle": suptitle, "cells": cells, "drawn": drawn}
