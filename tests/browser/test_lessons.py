"""Every lesson as a learner meets it: Notebook 7 in chromium, Run All, no error on the page."""

from __future__ import annotations

import pytest

from gradkit.cli import lesson_files

pytestmark = pytest.mark.browser

LESSONS = [path.name for path in lesson_files()]

_CANVASES_JS = """() => [...document.querySelectorAll('.jupyter-matplotlib-figure')].map((fig) => {
  const drawn = [...fig.querySelectorAll('canvas')].some((c) => (c.__gkDraws || []).length > 0);
  const canvas = fig.querySelector('canvas');
  return {drawn, width: canvas ? canvas.width : 0, height: canvas ? canvas.height : 0};
})"""


def test_there_are_lessons() -> None:
    assert len(LESSONS) >= 9, f"expected the nine lessons 00..08 in notebooks/, found {LESSONS}"


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_runs_clean(lessons, name: str) -> None:
    """Open, Run All, idle kernel: no error output, every widget rendered, every plot drawn."""
    try:
        run = lessons.run(name)
        assert not run.problems, f"{name} shows errors (see {run.screenshot}):\n" + "\n".join(
            run.problems
        )
        widgets = run.widgets
        assert widgets["failed"] == 0, f"{name}: 'Error displaying widget' on the page"
        assert widgets["rendered"] == widgets["expected"], (
            f"{name}: {widgets['expected']} widget outputs but {widgets['rendered']} rendered"
        )
        for i, figure in enumerate(run.page.evaluate(_CANVASES_JS)):
            assert figure["drawn"], f"{name}: plot {i + 1} was never drawn (blank canvas)"
            assert figure["width"] > 50 and figure["height"] > 50, f"{name}: plot {i + 1} {figure}"
        assert run.console_errors == [], f"{name}: uncaught errors in the page's JavaScript"
    finally:
        lessons.finished(name)
