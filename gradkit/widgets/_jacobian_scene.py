"""The JacobianBuilder's scene: its text for every step, the binary table and the empty frame.

Pure functions of a :class:`~gradkit.widgets._jacobian_steps.JacobianSteps` (what torch did);
:mod:`gradkit.widgets.jacobian_builder` sends them to the browser.
"""

from __future__ import annotations

import numpy as np
import torch

from .._args import GRADCHECK_DEFAULTS
from ._jacobian_steps import JacobianSteps, close_entries, fmt_entry
from ._stage import Stage
from ._theme import THEME

__all__ = [
    "calls_line",
    "draw_frame",
    "history_table",
    "scene_data",
    "status_line",
    "table_bytes",
    "ticks",
    "verdict_line",
]


def scene_data(r: JacobianSteps) -> dict:
    """What the browser replays: every step's status and calls line, the verdict, the
    entries' text and the colours."""
    ok = close_entries(r)
    return {
        "n": r.n,
        "m": r.m,
        "status": [status_line(r, k) for k in range(r.steps + 1)],
        "calls": [calls_line(r, k) for k in range(r.steps + 1)],
        "verdict": verdict_line(r, ok),
        "numeric_text": [fmt_entry(v) for v in r.numeric.reshape(-1).tolist()],
        "analytic_text": [fmt_entry(v) for v in r.analytic.reshape(-1).tolist()],
        "colors": {
            "numeric": THEME["blue"],
            "analytic": THEME["green"],
            "bad": THEME["vermillion"],
            "current": THEME["orange"],
        },
    }


def status_line(r: JacobianSteps, k: int) -> str:
    """What step k does, in words and the formula."""
    eps = f"{r.eps:.3g}"
    if k == 0:
        return (
            f"<span class='gk-r-label'>step 0 of {r.steps}</span>&nbsp; one plain run of "
            f"f at x: {r.m} output entr{'y' if r.m == 1 else 'ies'}, so the Jacobians "
            f"are {r.m} × {r.n}. Press <b>step</b> or <b>run all</b>."
        )
    if k <= r.n:
        j = k - 1
        xj = f"{float(r.x[j]):.4g}"
        return (
            f"<span class='gk-r-label'>step {k} of {r.steps}</span>&nbsp; nudge input "
            f"entry {j} (x<sub>{j}</sub> = {xj}) by ±{eps}: (f(x + eps·e<sub>{j}</sub>) "
            f"− f(x − eps·e<sub>{j}</sub>)) / (2·eps) fills <b>column {j}</b> of the "
            "numeric Jacobian"
        )
    i = k - r.n - 1
    return (
        f"<span class='gk-r-label'>step {k} of {r.steps}</span>&nbsp; backward with "
        f"grad_output = e<sub>{i}</sub> (1 at output entry {i}, 0 elsewhere) returns "
        f"e<sub>{i}</sub>ᵀJ: <b>row {i}</b> of the analytic Jacobian"
    )


def calls_line(r: JacobianSteps, k: int) -> str:
    """The calls made and the time taken up to step k."""
    forward, backward = r.forward_calls[k], r.backward_calls[k]
    columns = min(k, r.n)
    ms = r.seconds[k] * 1e3
    return (
        f"<span class='gk-r-label'>forward calls</span>&nbsp; <b>{forward}</b>"
        f" <span class='gk-r-detail'>(1 plain + 2 × {columns} nudged)</span> &nbsp;·&nbsp; "
        f"<span class='gk-r-label'>backward calls</span>&nbsp; <b>{backward}</b> &nbsp;·&nbsp; "
        f"<span class='gk-r-label'>time</span>&nbsp; <b>{ms:.3g} ms</b>"
    )


def verdict_line(r: JacobianSteps, ok: torch.Tensor) -> str:
    """gradcheck's verdict on the two finished Jacobians (``ok``: which entries agree)."""
    atol, rtol = GRADCHECK_DEFAULTS["atol"], GRADCHECK_DEFAULTS["rtol"]
    total = ok.numel()
    bad = int((~ok).sum())
    allowed = f"{atol:g} + {rtol:g}·|numeric|"
    if bad == 0:
        return (
            f"<span class='gk-good'>✔ all {total} entries agree</span> "
            f"<span class='gk-r-detail'>(|analytic − numeric| ≤ {allowed} everywhere): "
            "gradcheck passes</span>"
        )
    i, j = (int(v) for v in (~ok).nonzero()[0])
    return (
        f"<span class='gk-bad'>✘ {bad} of {total} entries differ by more than {allowed}:"
        f" gradcheck fails</span> <span class='gk-r-detail'>e.g. output entry {i}, input "
        f"entry {j}: analytic {float(r.analytic[i, j]):.6g}, numeric "
        f"{float(r.numeric[i, j]):.6g}</span>"
    )


def draw_frame(stage: Stage, r: JacobianSteps) -> None:
    """The static layer: two empty matrices with their ticks and titles."""
    fig = stage.figure
    fig.clear()
    stage.axes.clear()
    titles = {
        "numeric": "numeric: column k ← nudge input entry k",
        "analytic": r"analytic: row i ← backward of $e_i$",
    }
    for name, left in (("numeric", 0.07), ("analytic", 0.56)):
        ax = fig.add_axes((left, 0.13, 0.40, 0.72))
        ax.set_xlim(-0.5, r.n - 0.5)
        ax.set_ylim(r.m - 0.5, -0.5)  # output entry 0 at the top
        ax.set_aspect("equal", adjustable="box", anchor="N")
        ax.set_xticks(ticks(r.n))
        ax.set_yticks(ticks(r.m))
        ax.tick_params(labelsize=8, length=2)
        ax.set_xlabel("input entry j", fontsize=9)
        ax.set_ylabel("output entry i", fontsize=9)
        ax.set_title(titles[name], fontsize=10, color=THEME["ink"])
        for side in ax.spines.values():
            side.set_color(THEME["grey"])
        stage.axes[name] = ax


def ticks(count: int) -> list[int]:
    """Every entry up to 16, else about 8 ticks."""
    stride = 1 if count <= 16 else int(np.ceil(count / 8))
    return list(range(0, count, stride))


def table_bytes(r: JacobianSteps) -> bytes:
    """numeric (m·n), analytic (m·n), close (m·n, 1 or 0) as little-endian float64."""
    parts = [
        r.numeric.reshape(-1),
        r.analytic.reshape(-1),
        close_entries(r).reshape(-1).to(torch.float64),
    ]
    return torch.cat(parts).numpy().astype("<f8").tobytes()


def history_table(rows: list[dict]) -> str:
    """The cost of every finished run, by n."""
    body = "".join(
        f"<tr><td>{row['n']}</td><td>{row['forward']}</td><td>{row['backward']}</td>"
        f"<td>{row['seconds'] * 1e3:.3g} ms</td></tr>"
        for row in rows
    )
    return (
        "<span class='gk-r-label'>finished runs</span>"
        "<table class='gk-history'><tr><th>n</th><th>forward</th><th>backward</th>"
        f"<th>time</th></tr>{body}</table>"
    )
