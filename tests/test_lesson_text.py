"""The lessons' words against their screens, and their size.

- Every number the prose quotes (2+ significant digits) is one a cell computed: it appears in
  the lesson's outputs, code or widget readouts (:func:`tools.lesson_text.unbacked_numbers`).
- A sentence saying torch warns is followed by a cell that shows a warning.
- No predict's answer shows between its cell and the next code cell.
- A core lesson (all but the appendix) has at most 20 cells and shows at most 3 widgets.

The guards are pure functions (``tools/lesson_text.py``), tested here first on small planted
cases and on a copy of a real lesson with a planted fault, then on every lesson as
``tests/test_notebooks.py`` executed it (one run per lesson per session, shared).
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from test_notebooks import NOTEBOOK_DIR, STEMS, executed, predict_answers, readouts

from tools.lesson_text import (
    Number,
    cell_instructions,
    numbers,
    predict_spoilers,
    unbacked_numbers,
    unshown_warnings,
)

#: The core lessons: the course a class follows (the appendix may be longer).
CORE = [stem for stem in STEMS if "appendix" not in stem]
MAX_CELLS, MAX_WIDGETS = 20, 3
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _nb(*cells):
    """A notebook from ("md", text) and ("code", source, [outputs]) tuples."""
    nb = nbformat.v4.new_notebook()
    for kind, text, *outputs in cells:
        if kind == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(text))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(text, outputs=outputs[0] if outputs else []))
    return nb


def _stdout(text):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


# ------------------------------------------------------------------------------ the guards


@pytest.mark.parametrize(
    ("text", "value", "digits"),
    [
        ("0.0016", 0.0016, 2),
        ("5.96e-08", 5.96e-08, 3),
        ("500,000", 500000.0, 1),
        ("810", 810.0, 2),
        ("16.80", 16.8, 4),
        ("5.4e8", 5.4e8, 2),
        ("−3.5", -3.5, 2),
        ("1e-6", 1e-6, 1),
    ],
)
def test_numbers_reads_value_and_significant_digits(text, value, digits):
    (number,) = numbers(f"it reads {text}.")
    assert (number.value, number.digits) == (pytest.approx(value), digits)


def test_numbers_skips_names_and_words():
    assert list(numbers("float64, x0, 00_start_here, 0x1F, e<sub>j</sub>, v2.1x")) == []


def test_a_number_matches_at_the_digits_it_shows():
    assert Number("0.0133", 0.0133, 3).matches(0.013277)
    assert not Number("0.0134", 0.0134, 3).matches(0.013277)
    assert Number("810", 810.0, 2).matches(813.6)


def test_unbacked_numbers_finds_a_number_no_cell_computed():
    nb = _nb(
        ("code", "print(x)", [_stdout("spacing 5.96e-08, eps 1e-6")]),
        ("md", "The spacing is 5.96e-08, a nudge spans 16.8 of them, and 7 is fine."),
    )
    assert unbacked_numbers(nb) == [
        "cell 1: '16.8' in 'The spacing is 5.96e-08, a nudge spans 16.8 of them, and 7 is fine.'"
    ]
    assert unbacked_numbers(nb, readouts=["<b>eps is 16.8 ulps</b>"]) == []


def test_unshown_warnings_needs_a_warning_in_the_next_code_cell():
    warned = nbformat.v4.new_output("stream", name="stderr", text="UserWarning: not double")
    quiet = _nb(("md", "torch warns in a pink box."), ("code", "f()", [_stdout("done")]))
    loud = _nb(("md", "torch warns in a pink box."), ("code", "f()", [warned]))
    assert len(unshown_warnings(quiet)) == 1
    assert unshown_warnings(loud) == []


def test_predict_spoilers_catch_the_answer_before_the_next_code_cell():
    cells = [("code", 'p = Predict("01-x", compute=f)\np'), ("md", "It reads 4.1, as you guessed.")]
    nb = _nb(*cells, ("code", "print(f())"), ("md", "4.1 it was."))
    assert predict_spoilers(nb, {"01-x": 4.1}) == [
        "cell 0: Predict('01-x') answer '4.1' shows before it"
    ]
    nb.cells[1].source = "Work it out by hand first."
    assert predict_spoilers(nb, {"01-x": 4.1}) == []
    nb.cells[1].source = "About 20 of them."  # within the 10% a guess of 22 may miss by
    assert predict_spoilers(nb, {"01-x": 22}, {"01-x": 0.1}) != []
    nb.cells[1].source = "Does it pass?"
    assert predict_spoilers(nb, {"01-x": "passes"}) == []
    nb.cells[1].source = "It passes."
    assert predict_spoilers(nb, {"01-x": "passes"}) != []


def test_cell_instructions_are_found_outside_notebook_only_cells():
    nb = _nb(("md", "Run the next cell, then fix it."), ("md", "The cell below draws it."))
    nb.cells.append(nbformat.v4.new_markdown_cell("Press ×10, then Enter."))
    assert [line[:6] for line in cell_instructions(nb)] == ["cell 0", "cell 1"]
    for cell in nb.cells[:2]:
        cell.metadata["tags"] = ["notebook-only"]
    assert cell_instructions(nb) == []


# ------------------------------------------------------------------------------ the lessons

notebooks = pytest.mark.notebooks


@notebooks
def test_the_number_guard_catches_a_number_planted_in_a_copy_of_a_lesson():
    lesson = copy.deepcopy(executed("03_why_float32_fails"))
    assert unbacked_numbers(lesson, readouts("03_why_float32_fails")) == []
    cell = next(c for c in lesson.cells if c.cell_type == "markdown" and "5.96e-08" in c.source)
    cell.source = cell.source.replace("5.96e-08", "5.97e-08", 1)
    found = unbacked_numbers(lesson, readouts("03_why_float32_fails"))
    assert len(found) == 1 and "'5.97e-08'" in found[0]


@notebooks
def test_the_warning_guard_catches_a_silenced_warning_in_a_copy_of_a_lesson():
    lesson = copy.deepcopy(executed("08_write_your_own"))
    assert unshown_warnings(lesson) == []
    for cell in lesson.cells:  # the warning silenced: its printed line dropped
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                lines = output.text.splitlines(keepends=True)
                output.text = "".join(line for line in lines if "Warning" not in line)
    assert len(unshown_warnings(lesson)) == 1


@notebooks
@pytest.mark.parametrize("stem", STEMS)
def test_every_number_in_the_prose_is_one_a_cell_computed(stem):
    assert unbacked_numbers(executed(stem), readouts(stem)) == []


@notebooks
@pytest.mark.parametrize("stem", STEMS)
def test_torch_warns_only_where_a_warning_shows(stem):
    assert unshown_warnings(executed(stem)) == []


@notebooks
@pytest.mark.parametrize("stem", STEMS)
def test_no_predict_is_spoiled(stem):
    answers = predict_answers(stem)
    values = {k: v for k, (v, _) in answers.items()}
    tolerances = {k: t for k, (_, t) in answers.items()}
    assert predict_spoilers(executed(stem), values, tolerances) == []


@pytest.mark.parametrize("stem", CORE)
def test_a_core_lesson_fits_a_class_period(stem):
    nb = nbformat.read(NOTEBOOK_DIR / f"{stem}.ipynb", as_version=4)
    assert len(nb.cells) <= MAX_CELLS, f"{stem} has {len(nb.cells)} cells: split it"


@notebooks
@pytest.mark.parametrize("stem", CORE)
def test_a_core_lesson_shows_at_most_three_widgets(stem):
    """Counted on the page after Run All: every widget view (Quiz and Predict too)."""
    views = [
        o
        for c in executed(stem).cells
        if c.cell_type == "code"
        for o in c.outputs
        if WIDGET_VIEW in o.get("data", {})
    ]
    assert 1 <= len(views) <= MAX_WIDGETS, f"{stem} shows {len(views)} widgets: split it"
