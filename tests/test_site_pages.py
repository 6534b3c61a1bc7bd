"""The site's words about a lesson with exercises: they check code the learner writes, which a page
with no Python cannot run, so the lesson's top and its index entry say so (and only there)."""

from __future__ import annotations

import nbformat

from gradkit.cli.site.export import render_lesson
from gradkit.cli.site.pages import WRITES_CODE, Lesson, index_page, lesson_page
from gradkit.cli.site.widgets import Modules


def _lesson(name: str, writes_code: bool) -> Lesson:
    return Lesson(name, name.title(), "What it teaches.", ["<h1>T</h1>"], writes_code=writes_code)


def test_a_lesson_with_exercises_says_at_its_top_and_in_the_index_that_they_need_python() -> None:
    coding, reading = _lesson("08_write", True), _lesson("03_read", False)
    assert WRITES_CODE in lesson_page(coding, None, None)
    assert WRITES_CODE not in lesson_page(reading, None, None)
    index = index_page([reading, coding])
    assert index.count(WRITES_CODE) == 1
    assert index.index(WRITES_CODE) > index.index("08_write")


def test_the_export_finds_a_lesson_with_exercises_from_its_code(tmp_path) -> None:
    cells = [
        nbformat.v4.new_markdown_cell("# L"),
        nbformat.v4.new_code_cell('ExercisePanel("cube")'),
    ]
    found = []
    for exercises, name in ((True, "with"), (False, "without")):
        nb = nbformat.v4.new_notebook(cells=cells if exercises else cells[:1])
        path = tmp_path / f"{name}.ipynb"
        nbformat.write(nb, path)
        found.append(render_lesson(nb, path, Modules()).writes_code)
    assert found == [True, False]
