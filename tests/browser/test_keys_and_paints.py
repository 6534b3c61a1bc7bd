"""Every control answers at once, from the keyboard too, with one repaint per action.

In Notebook 7 and JupyterLab 4 (and Voila for the keys): each slider of every gradkit widget
moves with the arrow keys, Page Up/Down, Home and End while the notebook keeps its own keys
away (the active cell does not change), says its value to screen readers (``aria-valuetext``),
and the picture follows. Each click paints the picture exactly once, and the kernel's answer
never repaints it. The widgets' chrome follows JupyterLab's dark theme (in Notebook 7 too).
"""

from __future__ import annotations

import json

import pytest

import harness as jp

pytestmark = pytest.mark.browser

WIDGETS = "_widgets.ipynb"  # written next to the lessons by conftest (EXTRA_NOTEBOOKS)

_SLIDERS_JS = """(scope) => {
  const root = scope === 'page' ? document : window.jupyterapp.shell.currentWidget.node;
  return [...root.querySelectorAll('.gradkit-widget input[type=range]')].map((el, i) => {
    el.dataset.gkProbe = String(i);
    const w = el.closest('.gradkit-widget');
    const kind = [...w.classList].find((c) => c.startsWith('gradkit-') && c !== 'gradkit-widget');
    return {i, kind, css: el.className, min: +el.min, max: +el.max, value: +el.value,
            valuetext: el.getAttribute('aria-valuetext'), label: el.getAttribute('aria-label')};
  });
}"""

_ACTIVE_CELL_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  return nb.activeCellIndex;
}"""


def _slider(page, probe: int):
    return page.locator(f"input[data-gk-probe='{probe}']")


def _figure_state(page, probe: int) -> dict:
    return _slider(page, probe).evaluate(
        """(el) => {
          const fig = el.closest('.gradkit-widget').querySelector('.gradkit-figure');
          return {drawn: fig.dataset.drawn || '', paints: +(fig.dataset.paints || 0),
                  value: +el.value, valuetext: el.getAttribute('aria-valuetext')};
        }"""
    )


def _settled(page, probe: int, timeout_ms: float = 15_000) -> None:
    """Wait until the slider's widget shows no busy mark: it has drawn what the state shows.

    In every front end: Voila's page has no kernel handle to wait on, and waiting for a kernel
    idle for a while in a row was a wait of its own after every move. A position whose data the
    kernel still has to send (x past the window, on a loaded machine) keeps the mark until it
    came. Data that never comes (a lost change) still fails, after ``timeout_ms``.
    """
    _slider(page, probe).evaluate(
        """(el, timeout) => new Promise((resolve, reject) => {
          const root = el.closest('.gradkit-widget');
          const start = performance.now();
          const look = () => {
            if (!root.classList.contains('gk-is-busy')) resolve(true);
            else if (performance.now() - start > timeout) reject(new Error('still busy'));
            else setTimeout(look, 50);
          };
          setTimeout(look, 50);
        })""",
        timeout_ms,
    )


def _steps_disabled(page, probe: int) -> list[bool]:
    """Whether the slider's step buttons (− / ÷10, then + / ×10) are disabled."""
    return _slider(page, probe).evaluate(
        "(el) => [...el.parentElement.querySelectorAll('button.gk-step')].map((b) => b.disabled)"
    )


def _press(page, probe: int, key: str) -> dict:
    _slider(page, probe).focus()
    page.keyboard.press(key)
    jp.next_frame(page)
    return _figure_state(page, probe)


@pytest.fixture(scope="module", params=["notebook", "lab"])
def widget_page(request, browser_context, servers):
    """``_widgets.ipynb`` after Run All in Notebook 7 or JupyterLab 4."""
    page = browser_context.new_page()
    errors: list[str] = []
    jp.open_notebook(page, servers[request.param], WIDGETS)
    page.on("pageerror", lambda error: errors.append(str(error)))  # ours, not the app's start
    widgets = jp.run_all(page)
    assert widgets["rendered"] == widgets["expected"] > 0, widgets
    jp.wait_quiet(page, 500)
    page.errors = errors
    page.front_end = request.param
    try:
        yield page
    finally:
        jp.shutdown_kernel(page)
        page.close()


def _check_every_slider(page, scope: str, front_end: str) -> None:
    """Arrow keys, Page Up/Down, Home and End move every slider; the picture follows; the
    notebook (where there is one) keeps its active cell."""
    sliders = page.evaluate(_SLIDERS_JS, scope)
    assert len(sliders) >= 5, sliders
    for s in sliders:
        assert s["label"] and s["valuetext"], f"{s['kind']} {s['css']}: no accessible name/value"
        _slider(page, s["i"]).scroll_into_view_if_needed()
        _slider(page, s["i"]).focus()  # focus makes the widget's cell the active one
        cell = page.evaluate(_ACTIVE_CELL_JS) if scope == "notebook" else None
        start = _figure_state(page, s["i"])
        key = "ArrowLeft" if start["value"] == s["max"] else "ArrowRight"
        moved = _press(page, s["i"], key)
        step = -1 if key == "ArrowLeft" else 1
        where = f"{front_end}: {s['kind']} slider {s['css']}"
        assert moved["value"] == start["value"] + step, f"{where}: {key} did not move it"
        assert moved["valuetext"] != start["valuetext"], f"{where}: aria-valuetext stayed"
        if scope == "notebook":
            assert page.evaluate(_ACTIVE_CELL_JS) == cell, f"{where}: the notebook took the key"
        _settled(page, s["i"])
        after = _figure_state(page, s["i"])
        assert after["drawn"] != start["drawn"], f"{where}: the picture did not follow {key}"
        assert _press(page, s["i"], "End")["value"] == s["max"], f"{where}: End"
        # at its end, + / ×10 leads nowhere: greyed out; at its start, − / ÷10
        assert _steps_disabled(page, s["i"]) in ([False, True], []), f"{where}: at its end"
        assert _press(page, s["i"], "Home")["value"] == s["min"], f"{where}: Home"
        assert _steps_disabled(page, s["i"]) in ([True, False], []), f"{where}: at its start"
        paged = _press(page, s["i"], "PageUp")["value"]
        assert paged > s["min"], f"{where}: Page Up did not move it"
        assert _steps_disabled(page, s["i"])[:1] in ([False], []), f"{where}: off its start"
        _press(page, s["i"], "PageDown")
        back = _figure_state(page, s["i"])
        assert back["value"] == s["min"], f"{where}: Page Down did not undo Page Up"
        # back where it was, for the next test: by pages, then by steps (one change a key, so
        # few keys: every change is a round trip to the kernel)
        pages, steps = divmod(start["value"] - s["min"], paged - s["min"])
        for key in ["PageUp"] * pages + ["ArrowRight"] * steps:
            page.keyboard.press(key)
        _settled(page, s["i"])
        restored = _figure_state(page, s["i"])["value"]
        assert restored == start["value"], f"{where}: left at {restored}, not {start['value']}"


def test_arrow_keys_move_every_slider_and_the_picture_follows(widget_page) -> None:
    _check_every_slider(widget_page, "notebook", widget_page.front_end)
    assert widget_page.errors == []


def test_arrow_keys_move_every_slider_in_voila(browser_context, servers) -> None:
    page = browser_context.new_page()
    try:
        widgets = jp.open_voila(page, servers["voila"], WIDGETS)
        assert widgets["rendered"] == widgets["expected"] > 0, widgets
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        _check_every_slider(page, "page", "voila")
        assert errors == []
    finally:
        page.close()


@pytest.mark.parametrize(
    "move",
    [
        ".gradkit-eps-down",
        ".gradkit-eps-up",
        "dtype:float32",
        "dtype:float64",
        "scheme:forward",
        "scheme:central",
        ".gradkit-x-up",
        ".gradkit-x-down",
    ],
)
def test_each_click_paints_once_and_the_kernel_never_repaints(widget_page, move: str) -> None:
    page = widget_page
    root = page.locator(".gradkit-slope-explorer").first
    root.scroll_into_view_if_needed()
    figure = root.locator(".gradkit-figure")
    jp.wait_quiet(page, 300)
    before = int(figure.get_attribute("data-paints"))
    if move.startswith("."):
        root.locator(move).first.click()
    else:
        css, value = move.split(":")
        root.locator(f".gradkit-{css} button[data-value='{value}']").first.click()
    jp.next_frame(page)
    painted = int(figure.get_attribute("data-paints"))
    jp.wait_quiet(page, 500)  # the kernel has answered (and refilled, for x)
    page.wait_for_timeout(200)
    final = int(figure.get_attribute("data-paints"))
    state = json.loads(figure.get_attribute("data-drawn"))
    assert painted == before + 1, f"{move}: {painted - before} paints right after the click"
    assert final == painted, f"{move}: the kernel's answer repainted {final - painted} times"
    assert state, f"{move}: nothing drawn"


def test_widgets_follow_the_dark_theme(widget_page) -> None:
    """On the page the tests above drove (last in this file: the light theme comes back after)."""
    page = widget_page
    try:
        page.evaluate(
            "async () => await window.jupyterapp.commands.execute('apputils:change-theme',"
            " {theme: 'JupyterLab Dark'})"
        )
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
        page.wait_for_timeout(500)
        colours = page.evaluate(
            """() => [...document.querySelectorAll('.gradkit-widget')].map((w) => {
                 const rgb = (c) => (c.match(/\\d+/g) || []).slice(0, 3).map(Number);
                 const lum = (c) => rgb(c).reduce((a, b) => a + b, 0) / 3;
                 const button = w.querySelector('button:not([aria-pressed="true"])');
                 const canvas = w.querySelector('canvas');
                 return {kind: w.className, bg: lum(getComputedStyle(w).backgroundColor),
                         fg: lum(getComputedStyle(w).color),
                         button: button ? lum(getComputedStyle(button).backgroundColor) : null,
                         canvas: canvas ? lum(getComputedStyle(canvas).backgroundColor) : null};
               })"""
        )
        assert colours
        for c in colours:
            assert c["bg"] < 80 and c["fg"] > 150, f"a widget stays light in the dark theme: {c}"
            assert c["button"] is None or c["button"] < 100, c
            assert c["canvas"] is None or c["canvas"] < 80, f"the picture stays light: {c}"
    finally:
        page.evaluate(
            "async () => await window.jupyterapp.commands.execute('apputils:change-theme',"
            " {theme: 'JupyterLab Light'})"
        )
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")
