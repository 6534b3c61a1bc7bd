"""A lesson closed before anything runs, in Notebook 7 and JupyterLab: what follows a Predict is out
of sight in a fresh copy, stays so after Run All and after a reopen, and no keyboard move lands in
it (so no edit or delete can reach a cell the learner cannot see). Locking the guess in opens it.
"""

from __future__ import annotations

import shutil
import time

import pytest
from conftest import FRONT_ENDS

import harness as jp
from unfold import HIDDEN_CELLS, walk

pytestmark = pytest.mark.browser

LESSON = "01_nudging.ipynb"
#: What lesson 01 prints and says after its Predict: its answer, 4.1, and the next one.
ANSWERS = ("4.100000", "4.010000")
#: The active cell, and whether it is on screen.
ACTIVE_JS = """() => { const a = document.querySelector('.jp-Notebook .jp-Cell.jp-mod-active');
  return a === null ? null : {shown: a.offsetParent !== null && a.offsetHeight > 0,
                              text: a.innerText.slice(0, 40)}; }"""
#: A heading Jupyter drew (its collapse button, which shows on hover only): markdown rendered.
HEADINGS = ".jp-collapseHeadingButton"
NOTEBOOKS = [f for f in ("notebook", "lab-no-ipympl") if f in FRONT_ENDS]


def _answers_shown(page) -> list[str]:
    text = page.locator(".jp-NotebookPanel").first.inner_text()
    return [answer for answer in ANSWERS if answer in text]


def _hidden(page) -> int:
    return page.evaluate(f"() => document.querySelectorAll({HIDDEN_CELLS}).length")


def _walk_down(page, moves: int = 30) -> list[dict]:
    """Press ↓ in command mode from the first cell; the active cell after each move."""
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.keyboard.press("Escape")
    seen = []
    for _ in range(moves):
        page.keyboard.press("ArrowDown")
        seen.append(page.evaluate(ACTIVE_JS))
    return seen


@pytest.mark.parametrize("front_end", NOTEBOOKS)
def test_a_lesson_is_closed_before_run_all_after_it_and_after_a_reopen(
    servers, lesson_copy, browser, front_end: str
) -> None:
    server = servers[front_end]
    name = f"_closed_{front_end}_{LESSON}"
    shutil.copyfile(lesson_copy / LESSON, lesson_copy / name)
    # a browser of its own: one that walked lesson 01 keeps its guess (progress.js) and reopens it
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(jp.PAGE_JS)
    page = context.new_page()
    try:
        jp.open_notebook(page, server, name)
        page.wait_for_selector(HEADINGS, state="attached", timeout=30_000)
        where = f"{LESSON} in {front_end}"
        assert _answers_shown(page) == [], f"{where}: a fresh copy shows the answer"
        assert _hidden(page) > 0, f"{where}: a fresh copy hides nothing"
        off_screen = [m for m in _walk_down(page) if m is not None and not m["shown"]]
        assert off_screen == [], f"{where}: ↓ made a hidden cell the active one: {off_screen}"

        jp.run_all(page)
        jp.wait_settled(page.locator(".jp-NotebookPanel").first, 300)
        assert _answers_shown(page) == [], f"{where}: Run All shows the answer"
        off_screen = [m for m in _walk_down(page) if m is not None and not m["shown"]]
        assert off_screen == [], f"{where}: after Run All ↓ lands in a hidden cell: {off_screen}"

        page.evaluate("async () => await window.jupyterapp.commands.execute('docmanager:save')")
        page.reload()
        jp.wait_kernel_idle(page)
        page.wait_for_selector(HEADINGS, state="attached", timeout=30_000)
        time.sleep(0.5)  # the saved outputs render meanwhile
        assert _answers_shown(page) == [], f"{where}: the reopened copy shows the answer"

        jp.run_all(page)
        records = walk(page)  # the guess locked in: the gate opens
        assert records and records[0]["after"] < records[0]["hidden"], where
        assert _answers_shown(page) != [], f"{where}: locking in did not open the lesson"
    finally:
        jp.shutdown_kernel(page)
        context.close()
