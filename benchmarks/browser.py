"""Browser suite: click to final picture in chromium, Notebook 7, with and without network delay.

What is timed, for each click: from the trusted input event in the page (a click) to the final
picture: the frame that paints the last drawing of the widget's canvas after that input (after
it nothing changes: the suite waits for the kernel to go quiet and the canvas to stay still, then
reads the paint times a page script recorded, ``window.__gk`` / ``PAGE_JS`` in
``tests/browser/harness.py``). Every click also counts the widget's paints (``data-paints``): one
per click, never a second one from the kernel's answer.

- eps ÷10 / ×10 in turn, dtype switches and x − / + steps, on SlopeExplorer and EpsilonLab: the
  page draws all of them from the tables torch computed ahead (the x positions around x too);
  after each, outside the timing, the drawn eps and dtype (``data-drawn``) are checked against
  the controls, so a wrong picture is never timed;
- a 1-second mouse drag across the eps track: from releasing the mouse to the frame from which
  on the picture shows the final eps (0 when it already did at the release);
- the first click of a page: a fresh browser context per page (no code compiled, nothing cached),
  the widgets notebook run, then one click of one control kind, the kinds taken in turn (eps,
  dtype, x; ``FIRST_PAGES`` pages per network path); its goal is the other clicks';
- the anchor, measured in the same run: a naive notebook, ``ipywidgets.interact`` drawing a new
  matplotlib figure per change (inline backend), its slider changed by typing into its readout.

Everything is measured twice: straight to the server, and through a local TCP proxy that delays
each direction by 40 ms (an 80 ms round trip, like a hosted hub); the delayed rows are compared
with the naive notebook through the same proxy. Goals: eps, dtype and x p95 <= 25 ms with and
without the delay and >= 30x faster than the naive notebook (median against median), one paint
per click; the drag's picture final within 100 ms of the release (p95).

The suite starts its own server (``gradkit notebook`` on a temporary folder, 127.0.0.1, a random
token), proxy and Debian chromium, and stops them.
"""

from __future__ import annotations

import itertools
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from . import Row, summarize

# The server and chromium harness lives with the browser tests it was written for.
_HARNESS = Path(__file__).resolve().parent.parent / "tests" / "browser"
if str(_HARNESS) not in sys.path:
    sys.path.insert(0, str(_HARNESS))
from delay_proxy import DelayProxy  # noqa: E402

import harness as jp  # noqa: E402

__all__ = ["run"]

DELAY_S = 0.040  # each direction
CLICK_P95_MS, CLICK_RATIO = 25.0, 30.0
DRAG_FINAL_MS = 100.0
DRAGS = 5
FIRST_PAGES = 6  # fresh pages per network path, for the first click of a page

WIDGETS = {"SlopeExplorer": "gradkit-slope-explorer", "EpsilonLab": "gradkit-epsilon-lab"}
_WIDGET_CELLS = [
    "from gradkit.widgets import EpsilonLab, SlopeExplorer",
    "explorer = SlopeExplorer()\nexplorer",
    'eps_lab = EpsilonLab(f="x³", x=0.5)\neps_lab',
]
# Distinct eps values to type into the naive notebook, each different from the one before.
_TYPED = ("1e-2", "1e-4", "1e-6", "1e-8", "1e-10", "1e-3", "1e-5", "1e-7", "1e-9", "1e-11")
_NAIVE_CELLS = [
    "%matplotlib inline\n"
    "import matplotlib.pyplot as plt\n"
    "from ipywidgets import FloatLogSlider, interact\n"
    "from gradkit.numerics import sweep\n"
    "from gradkit.zoo import scalar_functions\n"
    'result = sweep(scalar_functions()["x³"], 0.5)',
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

# After an input at t0: the paint time of the last canvas drawing inside the widget since t0 (ms
# from t0), once nothing has been drawn for `quiet` ms; and the widget's paints counter.
_FINAL_JS = """async (el, [t0, quiet, timeout]) => {
  const start = performance.now();
  while (performance.now() - Math.max(start, window.__gk.lastDraw(el)) < quiet) {
    if (performance.now() - start > timeout) return {error: 'the picture kept changing'};
    await new Promise((r) => setTimeout(r, 25));
  }
  let last = null;
  for (const c of el.querySelectorAll('canvas')) {
    for (const e of c.__gkDraws || []) {
      if (e.draw >= t0 && e.paint > 0) last = Math.max(last || 0, e.paint);
    }
  }
  const fig = el.querySelector('.gradkit-figure');
  return {ms: last === null ? null : last - t0, paints: +((fig && fig.dataset.paints) || 0)};
}"""


def _rows_for(
    name: str,
    samples: list[float],
    anchor: list[float],
    anchor_name: str,
    goal: str,
    met: Callable[[float, float, float], bool] | None,
) -> Row:
    median, p95 = summarize(samples)
    anchor_median, anchor_p95 = summarize(anchor)
    row = Row(
        suite="browser",
        name=name,
        median_ms=median,
        p95_ms=p95,
        anchor=anchor_name,
        anchor_median_ms=anchor_median,
        anchor_p95_ms=anchor_p95,
        goal=goal,
        met=None,
    )
    if met is not None:
        row.met = met(median, p95, row.ratio)
    return row


def _open(context, base: jp.Server, name: str, port: int | None = None):
    """Open and run notebook ``name``, straight or through the proxy on ``port``."""
    page = context.new_page()
    page.goto(
        base.url(base.notebook_path(name)).replace(f":{base.port}/", f":{port or base.port}/"),
        wait_until="commit",
    )
    jp.wait_kernel_idle(page, 120_000)
    widgets = jp.run_all(page)
    trouble = jp.problems(page) + jp.output_problems(page)
    if trouble or widgets["rendered"] != widgets["expected"]:
        raise RuntimeError(f"bench notebook {name} did not run cleanly: {trouble} {widgets}")
    return page


def _settle(page, root) -> None:
    jp.wait_quiet(page, 150)
    jp.wait_settled(root, 150)


def _check_drawn(root, what: str) -> dict:
    """The picture names the eps and dtype the controls show (else the bench stops)."""
    state = jp.widget_state(root)
    drawn = state["drawn"] or {}
    label = state["sliders"].get("gradkit-eps", {}).get("label")
    dtype = state["pressed"].get("gradkit-dtype")
    if "eps" in drawn and jp.eps_text(drawn["eps"]) != label:
        raise RuntimeError(f"{what}: picture drawn for eps {drawn['eps']}, slider shows {label}")
    if "dtype" in drawn and dtype and drawn["dtype"] != dtype:
        raise RuntimeError(f"{what}: picture drawn in {drawn['dtype']}, {dtype} is pressed")
    return state


def _clicks(page, root, buttons: Callable[[int], object], count: int, what: str) -> list[float]:
    """Click ``buttons(i)`` ``count`` times, the first click of the control included; ms from
    each click to the final picture.

    Each click must paint the widget exactly once, the kernel's answer included.
    """
    root.scroll_into_view_if_needed()
    samples = []
    for i in range(count):
        _settle(page, root)
        paints = int(root.locator(".gradkit-figure").first.get_attribute("data-paints") or 0)
        since = jp.last_input(page)
        buttons(i).click()
        jp.wait_for_paint(root, since)
        jp.wait_quiet(page, 150)
        final = root.evaluate(_FINAL_JS, [jp.last_input(page), 300, 30_000])
        if "error" in final or final["ms"] is None:
            raise RuntimeError(f"{what}: {final.get('error', 'nothing painted')}")
        if final["paints"] != paints + 1:
            raise RuntimeError(f"{what}: {final['paints'] - paints} paints for one click")
        _check_drawn(root, what)
        samples.append(final["ms"])
    return samples


_KINDS = {"eps": "_eps_buttons", "dtype": "_dtype_buttons", "x": "_x_buttons"}


def _first_clicks(browser, server: jp.Server, port: int | None, pages: int) -> list[float]:
    """The first click of ``pages`` fresh pages, each in a browser context of its own (nothing
    compiled or cached yet), on SlopeExplorer; page k clicks the kind ``k % 3`` of eps, dtype, x."""
    samples = []
    for k in range(pages):
        kind = list(_KINDS)[k % len(_KINDS)]
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        context.add_init_script(jp.PAGE_JS)
        context.set_default_timeout(60_000)
        try:
            page = _open(context, server, "widgets.ipynb", port)
            root = page.locator(f".{WIDGETS['SlopeExplorer']}").first
            buttons = globals()[_KINDS[kind]](root)
            samples += _clicks(page, root, buttons, 1, f"first {kind} click of a page")
            jp.shutdown_kernel(page)
        finally:
            context.close()
    return samples


def _drags(page, root, count: int) -> list[float]:
    """Release of a 1-second drag across the eps track to the frame showing the final eps."""
    samples = []
    slider = root.locator("input.gradkit-eps").first
    for _ in range(count):
        jp.set_range(root, "gradkit-eps", 0)
        _settle(page, root)
        released = jp.drag_range(page, root, "gradkit-eps", seconds=1.0)
        page.wait_for_timeout(1000)  # let any late update arrive: it must not change the picture
        _settle(page, root)
        final = _check_drawn(root, "drag")
        if final["sliders"]["gradkit-eps"]["value"] != slider.get_attribute("max"):
            raise RuntimeError(f"the drag ended at {final['sliders']['gradkit-eps']}")
        history = [e for e in jp.drawn_history(root) if e["drawn"]]
        last = history[-1]["drawn"].get("eps")
        first_final = len(history) - 1
        while first_final > 0 and history[first_final - 1]["drawn"].get("eps") == last:
            first_final -= 1
        samples.append(max(0.0, history[first_final]["paint"] - released))
    return samples


def _dtype_buttons(root) -> Callable[[int], object]:
    """float32 and float64 in turn, starting with the one not pressed (every click changes)."""
    group = root.locator(".gradkit-dtype").first
    shown = [
        b.get_attribute("data-value")
        for b in group.locator("button").all()
        if b.is_visible() and b.get_attribute("data-value")
    ]
    order = ["float32", "float64"] if {"float32", "float64"} <= set(shown) else shown[:2]
    pressed = group.locator("button[aria-pressed='true']").first.get_attribute("data-value")
    if order[0] == pressed:
        order.reverse()
    return lambda i: group.locator(f"button[data-value='{order[i % 2]}']")


def _eps_buttons(root) -> Callable[[int], object]:
    down, up = root.locator(".gradkit-eps-down").first, root.locator(".gradkit-eps-up").first
    return lambda i: down if i % 2 == 0 else up


def _x_buttons(root) -> Callable[[int], object]:
    down, up = root.locator(".gradkit-x-down").first, root.locator(".gradkit-x-up").first
    return lambda i: up if i % 2 == 0 else down


def _naive(page, changes: int) -> list[float]:
    widget = page.locator(".widget-interact").first
    readout = widget.locator(".widget-readout").first
    values = itertools.cycle(_TYPED)
    widget.scroll_into_view_if_needed()
    samples = []
    for i in range(-2, changes):
        _settle(page, widget)
        since = jp.last_input(page)
        readout.fill(next(values))
        readout.press("Enter")
        ms = jp.wait_for_paint(widget, since)
        if i >= 0:
            samples.append(ms)
    return samples


def _log(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


def _measure_path(browser, context, server: jp.Server, port: int | None, changes: int) -> dict:
    """Every figure on one network path (``port``: the proxy's, or None for straight)."""
    path = "40 ms proxy" if port else "direct"
    figures: dict[str, list[float]] = {}
    _log(f"{path}: the first click of {FIRST_PAGES} fresh pages ...")
    figures["SlopeExplorer first click of a page"] = _first_clicks(
        browser, server, port, FIRST_PAGES
    )
    page = _open(context, server, "widgets.ipynb", port)
    for label, css in WIDGETS.items():
        root = page.locator(f".{css}").first
        _log(f"{path}: {label}: {changes} eps clicks, {changes} dtype switches ...")
        figures[f"{label} eps ÷10/×10"] = _clicks(
            page, root, _eps_buttons(root), changes, f"{label} eps"
        )
        figures[f"{label} dtype switch"] = _clicks(
            page, root, _dtype_buttons(root), changes, f"{label} dtype"
        )
        _log(f"{path}: {label}: {changes} x steps ...")
        figures[f"{label} x step"] = _clicks(page, root, _x_buttons(root), changes, f"{label} x")
        if port is None or label == "SlopeExplorer":
            _log(f"{path}: {label}: {DRAGS} drags ...")
            figures[f"{label} drag release->final"] = _drags(page, root, DRAGS)
    jp.shutdown_kernel(page)
    page.close()
    _log(f"{path}: naive interact: {changes} typed changes ...")
    page = _open(context, server, "naive.ipynb", port)
    figures["naive"] = _naive(page, changes)
    jp.shutdown_kernel(page)
    page.close()
    return figures


def run(full: bool, device: str) -> list[Row]:
    """Time clicks to painted pictures in chromium, direct and through a 40 ms proxy.

    Parameters
    ----------
    full : bool
        60 changes per figure instead of 20.
    device : str
        Ignored: the browser suite measures the page, not the compute device.
    """
    from playwright.sync_api import sync_playwright

    if not jp.have_chromium():
        raise RuntimeError(jp.chromium_missing_message())
    changes = 60 if full else 20
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="gradkit-bench-browser-") as tmp:
        root = Path(tmp) / "notebooks"
        root.mkdir()
        jp.write_notebook(root / "widgets.ipynb", _WIDGET_CELLS)
        jp.write_notebook(root / "naive.ipynb", _NAIVE_CELLS)
        server = jp.start_notebook(
            root,
            Path(tmp) / "server",
            token=secrets.token_hex(24),
            extra=["--JupyterNotebookApp.expose_app_in_browser=True"],
        )
        try:
            with (
                DelayProxy(server.port, DELAY_S, lifetime=1800) as proxy,
                sync_playwright() as playwright,
            ):
                browser = playwright.chromium.launch(
                    executable_path=jp.CHROMIUM, args=jp.CHROMIUM_ARGS
                )
                try:
                    context = browser.new_context(viewport={"width": 1280, "height": 1000})
                    context.add_init_script(jp.PAGE_JS)
                    context.set_default_timeout(60_000)
                    results[""] = _measure_path(browser, context, server, None, changes)
                    results[", 40ms"] = _measure_path(browser, context, server, proxy.port, changes)
                finally:
                    browser.close()
        finally:
            server.stop()
    return _table(results)


def _table(results: dict[str, dict]) -> list[Row]:
    rows = []
    for suffix, figures in results.items():
        anchor = figures.pop("naive")
        anchor_name = f"naive interact{suffix}"
        for name, samples in figures.items():
            if name.endswith(("eps ÷10/×10", "dtype switch", "x step", "first click of a page")):
                goal = f"p95<={CLICK_P95_MS:.0f}ms, >={CLICK_RATIO:.0f}x"

                def met(_m, p95, ratio):
                    return p95 <= CLICK_P95_MS and ratio >= CLICK_RATIO
            elif name.endswith("drag release->final"):
                goal = f"p95<={DRAG_FINAL_MS:.0f}ms after release"

                def met(_m, p95, _r):
                    return p95 <= DRAG_FINAL_MS
            else:
                goal, met = "(no goal)", None
            rows.append(_rows_for(name + suffix, samples, anchor, anchor_name, goal, met))
    return rows
