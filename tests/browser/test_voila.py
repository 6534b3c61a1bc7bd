"""gradkit widgets as a Voila app: token required, no code shown, and eps, dtype and the
GradcheckLab verdict work from the browser; every lesson reads right without its code.

Voila 0.5 serves with no authentication at all unless given a token (``--token=T``, or the bare
``--token`` flag for a random one); :func:`harness.start_voila` always passes one. The lessons
themselves run in Voila in ``test_lessons_voila.py``; the checks on what a Voila page of each lesson
says (no "run the cell", the note that a code exercise needs the notebook) read those runs.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import nbformat
import psutil
import pytest
from conftest import EXTRA_NOTEBOOKS
from widget_checks import SLOPE, check_slope_picture, click, click_toggle

from gradkit.cli import lesson_files
from tools.lesson_text import CELL_WORDS, defined_names, place_pointers

import harness as jp

pytestmark = pytest.mark.browser

WIDGETS = "_widgets.ipynb"


@dataclass
class VoilaApp:
    """The app's page and the JavaScript errors it raised."""

    page: object
    widgets: dict
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def voila_app(browser_context, servers, screenshot_dir) -> Iterator[VoilaApp]:
    """``_widgets.ipynb`` as a Voila app, rendered; a screenshot saved."""
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    widgets = jp.open_voila(page, servers["voila"], WIDGETS)
    jp.wait_settled(page.locator("body"), 300)
    jp.full_screenshot(page, screenshot_dir / "voila" / "widgets.png")
    try:
        yield VoilaApp(page, widgets, errors)
    finally:
        page.close()


def test_voila_demands_the_token(servers, voila_app: VoilaApp) -> None:
    server = servers["voila"]
    # voila_app: the app is running (a kernel is live) while the server is probed
    assert jp.http_status(server.url("")) == 200, "the token must open the app's tree"
    for path in ("", f"voila/render/{WIDGETS}"):
        status = jp.http_status(server.url(path, token=False))
        assert status in (302, 401, 403), f"/{path} without the token answered {status}"
    wrong = f"{server.url('', token=False)}?token={secrets.token_hex(24)}"
    assert jp.http_status(wrong) in (302, 401, 403)
    listening = {
        c.laddr.ip
        for c in psutil.Process(server.process.pid).net_connections("inet")
        if c.status == psutil.CONN_LISTEN
    }
    assert listening == {"127.0.0.1"}


def test_a_lesson_in_voila_asks_nothing_of_any_other_server(browser_context, servers) -> None:
    """Voila's own "lab" template asks a CDN for Font Awesome; the lessons name gradkit's template
    (share/jupyter/voila/templates/gradkit), which asks for nothing beyond the page's server."""
    page = browser_context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        widgets = jp.open_voila(page, servers["voila"], "00_start_here.ipynb")
        jp.wait_settled(page.locator("body"), 300)
    finally:
        page.close()
    assert widgets["failed"] == 0 and widgets["rendered"] >= 1, widgets
    web = [url for url in requested if urlsplit(url).scheme in ("http", "https", "ws", "wss")]
    assert len(web) > 10, requested  # the page, its scripts, the kernel's websocket...
    outside = [url for url in web if urlsplit(url).hostname != "127.0.0.1"]
    assert outside == [], outside


def test_voila_renders_widgets_and_no_code(voila_app: VoilaApp) -> None:
    page = voila_app.page
    assert voila_app.widgets["rendered"] == voila_app.widgets["expected"] >= 4, voila_app.widgets
    assert jp.output_problems(page, "page") == []
    assert jp.picture_problems(page, "page") == []
    assert voila_app.errors == []
    code_inputs = page.locator(
        ".jp-CodeCell:not(.jp-mod-noInput) .jp-InputArea, .cm-editor, .CodeMirror"
    )
    assert code_inputs.count() == 0, "Voila shows code cells"
    text = page.locator("body").inner_text()
    lines = [line for cell in EXTRA_NOTEBOOKS[WIDGETS] for line in cell.splitlines()]
    shown = [line for line in lines if line in text]
    assert not shown, f"code visible in the app: {shown}"


def test_voila_eps_and_dtype_move_the_picture(voila_app: VoilaApp) -> None:
    page = voila_app.page
    explorer = page.locator(SLOPE).first
    explorer.scroll_into_view_if_needed()
    before = check_slope_picture(explorer)
    click(page, explorer, "gradkit-eps-down")
    click_toggle(explorer, "gradkit-dtype", "float32")
    jp.next_frame(page)
    after = check_slope_picture(explorer)
    assert after["drawn"]["eps"] != before["drawn"]["eps"]
    assert after["drawn"]["dtype"] == "float32"
    assert after["pixels"] != before["pixels"], "the canvas did not change"
    assert voila_app.errors == []


def test_voila_a_typed_eps_is_asked_through_anywidgets_invoke(voila_app: VoilaApp) -> None:
    """A typed eps off the grid only the kernel can measure: Voila's page asks through
    anywidget's ``experimental.invoke`` (a command in Python), and the answer reaches the
    picture and readouts."""
    page = voila_app.page
    explorer = page.locator(SLOPE).first
    explorer.scroll_into_view_if_needed()
    box = explorer.locator("input.gradkit-eps-text").first
    box.fill("3e-7")
    box.press("Enter")
    page.wait_for_function(
        """(el) => {
          const f = el.querySelector('.gradkit-figure');
          return Number(JSON.parse((f && f.dataset.drawn) || '{}').eps) === 3e-7
            && !el.classList.contains('gk-is-busy');
        }""",
        arg=explorer.element_handle(),
        timeout=20_000,
    )
    check_slope_picture(explorer)
    assert voila_app.errors == []


def test_voila_dtype_switch(voila_app: VoilaApp, check_dtype_switch) -> None:
    check_dtype_switch(voila_app.page.locator(".gradkit-gradcheck-lab").first)
    assert jp.output_problems(voila_app.page, "page") == []
    assert voila_app.errors == []


#: Lessons whose exercise is writing code: in Voila they must say that it needs the notebook.
CODE_EXERCISES = [
    path.name
    for path in lesson_files()
    if any("ExercisePanel(" in c.source for c in nbformat.read(path, as_version=4).cells)
]


def _code_names(name: str) -> set[str]:
    """The classes and snake_case names lesson ``name`` defines in its (hidden) code."""
    path = next((p for p in lesson_files() if p.name == name), None)
    if path is None:
        return set()
    names = defined_names(nbformat.read(path, as_version=4))
    return {n for n in names if any(c.isupper() or c == "_" for c in n)}


def voila_text_problems(name: str, text: str) -> list[str]:
    """What is wrong with the visible text of lesson ``name`` as a Voila app.

    Voila runs the cells itself and hides the code, so the page must never tell the learner to
    run or fix a cell, nor point by place at code it hides ("the Function below", a class the
    lesson defines "below"); its notebook-only cells are hidden (the note on running cells, and
    no CSS shown as text); and a lesson whose exercise is writing code says it needs the
    notebook. ``test_lessons_voila.py`` applies it to every lesson while its Voila page is open.
    """
    problems = [f"sends the learner to a cell: {m.group(0)!r}" for m in CELL_WORDS.finditer(text)]
    problems += [
        f"points at hidden code: {s[:80]!r}" for s in place_pointers(text, _code_names(name))
    ]
    if "Live widgets" in text:
        problems.append("shows the notebook-only note on running cells")
    if "celltag_" in text or "gradkit-voila-only" in text:
        problems.append("shows the CSS that hides notebook-only cells as text")
    if ("open the lesson in Jupyter" in text) != (name in CODE_EXERCISES):
        problems.append("the note that a code exercise needs the notebook is missing or misplaced")
    return problems


def test_voila_text_problems_are_found():
    """The check catches each kind of problem (planted in a page text)."""
    clean = "Lesson 1: a gradient measured by nudging. Press ×10 and lock in your guess."
    assert voila_text_problems("01_nudging.ipynb", clean) == []
    planted = clean + " Run the next cell, then fix it. Live widgets. .celltag_notebook-only"
    assert len(voila_text_problems("01_nudging.ipynb", planted)) == 3
    hidden = clean + " WrongSquareFn below multiplies by 3x. The printed verdict above is False."
    assert voila_text_problems("05_wrong_backward.ipynb", hidden) == [
        "points at hidden code: 'WrongSquareFn below multiplies by 3x.'"
    ]
    assert voila_text_problems("08_write_your_own.ipynb", clean) == [
        "the note that a code exercise needs the notebook is missing or misplaced"
    ]
