"""Browser suite: from a slider change in Notebook 7 to the updated plot painted in chromium.

What is timed, for each change: from the trusted input event in the page (the click on the eps
step button ×10/÷10, or the Enter key after typing an eps) to the first animation frame after the
plot's canvas was drawn (ipympl) or its new image decoded (inline backend). A page script records
both times (``window.__gk``, see :data:`gradkit.bench._jupyter.PAGE_JS`), so nothing waits on a
fixed sleep. Between changes the kernel is left to go idle and the plot to stop redrawing.

Figures: SlopeExplorer and EpsilonLab (their eps slider, by step button and by typed value), and
the anchor from the same run: a naive notebook in its own kernel, ``ipywidgets.interact`` drawing
a new matplotlib figure per change with the inline backend (the same four error-versus-eps curves
as EpsilonLab, the sweep computed once beforehand so the anchor pays only for the figure), its
slider changed by typing into the slider's readout. Goal: p95 <= 100 ms and at least 8x faster
than the anchor (median against median).

The suite starts its own server (``gradkit notebook`` on a temporary folder, 127.0.0.1, a random
token) and Debian's chromium, and stops both.
"""

from __future__ import annotations

import itertools
import secrets
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from . import Row, summarize
from . import _jupyter as jp

__all__ = ["run"]

GOAL_P95_MS = 100.0
GOAL_RATIO = 8.0
GOAL = f"p95<={GOAL_P95_MS:.0f}ms, >={GOAL_RATIO:.0f}x"

# Distinct eps values to type, each different from the one before.
_TYPED = ("1e-2", "1e-4", "1e-6", "1e-8", "1e-10", "1e-3", "1e-5", "1e-7", "1e-9", "1e-11")

_WIDGET_CELLS = [
    "from gradkit.widgets import EpsilonLab, SlopeExplorer",
    "explorer = SlopeExplorer()\nexplorer",
    'eps_lab = EpsilonLab(f="x³", x=0.5)\neps_lab',
]

_NAIVE_CELLS = [
    "%matplotlib inline\n"
    "import matplotlib.pyplot as plt\n"
    "from ipywidgets import FloatLogSlider, interact\n"
    "import gradkit\n"
    "from gradkit.zoo import scalar_functions\n"
    'result = gradkit.sweep(scalar_functions()["x³"], 0.5)',
    "def show(eps=1e-3):\n"
    "    fig, ax = plt.subplots(figsize=(6.4, 4.2))\n"
    "    for name, curve in result.dtypes.items():\n"
    "        ax.loglog(result.eps, curve.error, label=name)\n"
    '    ax.axhline(result.tolerance, color="grey", linestyle="--", label="tolerance")\n'
    '    ax.axvline(eps, color="black")\n'
    '    ax.set_xlabel("eps")\n'
    '    ax.set_ylabel("|numeric - analytic|")\n'
    "    ax.legend()\n"
    "    plt.show()\n"
    "\n"
    "interact(show, eps=FloatLogSlider(value=1e-3, base=10, min=-12, max=0, step=0.2,\n"
    '                                  readout_format=".1e"))',
]


def _write_notebook(path: Path, cells: list[str]) -> None:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nbformat.write(notebook, str(path))


def _open(context, server: jp.Server, name: str):
    page = context.new_page()
    jp.open_notebook(page, server, name)
    widgets = jp.run_all(page)
    trouble = jp.problems(page)
    if trouble or widgets["rendered"] != widgets["expected"]:
        raise RuntimeError(f"bench notebook {name} did not run cleanly: {trouble} {widgets}")
    return page


def _measure(page, root, act: Callable[[int], None], changes: int) -> list[float]:
    """Latency in ms of ``changes`` changes made by ``act(i)`` inside ``root``, after two
    warm-up changes. Each change must draw on the plot: :func:`jp.wait_for_paint` raises
    otherwise, so a change that left the plot alone is never timed."""
    root.scroll_into_view_if_needed()
    samples = []
    for i in range(-2, changes):
        jp.wait_quiet(page, 150)
        jp.wait_settled(root, 150)
        since = jp.last_input(page)
        act(i)
        ms = jp.wait_for_paint(root, since)
        if i >= 0:
            samples.append(ms)
    jp.wait_quiet(page, 150)
    return samples


def _step_buttons(root) -> Callable[[int], None]:
    down = root.locator(".gradkit-eps-down").first
    up = root.locator(".gradkit-eps-up").first

    def act(i: int) -> None:
        (down if i % 2 == 0 else up).click()

    return act


def _typed(box, values: Iterator[str]) -> Callable[[int], None]:
    def act(_i: int) -> None:
        box.fill(next(values))
        box.press("Enter")

    return act


def run(full: bool, device: str) -> list[Row]:
    """Time slider changes to painted plots in chromium; one row per widget and input kind.

    Parameters
    ----------
    full : bool
        100 changes per figure instead of 30.
    device : str
        Ignored: the browser suite measures the page, not the compute device.
    """
    from playwright.sync_api import sync_playwright

    if not jp.have_chromium():
        raise RuntimeError(jp.chromium_missing_message())
    changes = 100 if full else 30
    figures: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory(prefix="gradkit-bench-browser-") as tmp:
        root = Path(tmp) / "notebooks"
        root.mkdir()
        _write_notebook(root / "widgets.ipynb", _WIDGET_CELLS)
        _write_notebook(root / "naive.ipynb", _NAIVE_CELLS)
        server = jp.start_notebook(
            root,
            Path(tmp) / "server",
            token=secrets.token_hex(24),
            extra=["--JupyterNotebookApp.expose_app_in_browser=True"],
        )
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=jp.CHROMIUM, args=jp.CHROMIUM_ARGS
                )
                try:
                    context = browser.new_context(viewport={"width": 1280, "height": 1000})
                    context.add_init_script(jp.PAGE_JS)
                    context.set_default_timeout(30_000)
                    figures += _measure_widgets(context, server, changes)
                    anchor = _measure_naive(context, server, changes)
                finally:
                    browser.close()
        finally:
            server.stop()
    anchor_median, anchor_p95 = summarize(anchor)
    rows = []
    for name, samples in figures:
        median, p95 = summarize(samples)
        row = Row(
            suite="browser",
            name=name,
            median_ms=median,
            p95_ms=p95,
            anchor="naive interact+inline, typed eps",
            anchor_median_ms=anchor_median,
            anchor_p95_ms=anchor_p95,
            goal=GOAL,
            met=None,
        )
        row.met = p95 <= GOAL_P95_MS and row.ratio >= GOAL_RATIO
        rows.append(row)
    return rows


def _measure_widgets(context, server: jp.Server, changes: int) -> list[tuple[str, list[float]]]:
    page = _open(context, server, "widgets.ipynb")
    figures = []
    for label, css in (
        ("SlopeExplorer", "gradkit-slope-explorer"),
        ("EpsilonLab", "gradkit-epsilon-lab"),
    ):
        widget = page.locator(f".{css}").first
        print(f"  {label}: {changes} step-button changes ...", file=sys.stderr, flush=True)
        samples = _measure(page, widget, _step_buttons(widget), changes)
        figures.append((f"{label} eps step button -> paint", samples))
        print(f"  {label}: {changes} typed changes ...", file=sys.stderr, flush=True)
        box = widget.locator(".gradkit-eps-text input").first
        samples = _measure(page, widget, _typed(box, itertools.cycle(_TYPED)), changes)
        figures.append((f"{label} eps typed + Enter -> paint", samples))
    jp.shutdown_kernel(page)
    page.close()
    return figures


def _measure_naive(context, server: jp.Server, changes: int) -> list[float]:
    page = _open(context, server, "naive.ipynb")
    print(f"  naive interact: {changes} typed changes ...", file=sys.stderr, flush=True)
    widget = page.locator(".widget-interact").first
    readout = widget.locator(".widget-readout").first
    samples = _measure(page, widget, _typed(readout, itertools.cycle(_TYPED)), changes)
    jp.shutdown_kernel(page)
    page.close()
    return samples
