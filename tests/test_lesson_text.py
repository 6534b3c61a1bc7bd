"""The lessons' words against their screens, and their size.

- Every number the prose quotes (2+ significant digits) is one a cell computed: it appears in
  the lesson's outputs, code or widget readouts (:func:`tools.lesson_text.unbacked_numbers`).
- A sentence saying torch warns (or that a pink box is a warning) is followed by a cell that
  shows a warning.
- No predict's answer is on screen before its guess is locked in: a Predict keeps the cells
  after its own out of sight, so what counts is every cell before it and its own cell, which
  shows the widget only. No hunt names its specimens before a Predict gates what follows.
- No prose ends in a colon above a code cell that shows nothing (Voila hides the code).
- A core lesson (all but the appendix) has at most 20 cells and shows at most 3 widgets.
- Every symbol keeps its one meaning from the notation sheet (``00_start_here``, "Notation",
  the same table as :data:`tools.lesson_text.NOTATION`): in every lesson's prose, in what the
  lessons print, in the quiz file. The start page's widget table names the lessons that build
  each widget.

The guards are pure functions (``tools/lesson_text.py``), tested here first on small planted
cases and on a copy of a real lesson with a planted fault, then on every lesson as
``tests/test_notebooks.py`` executed it (one run per lesson per session, shared).
"""

from __future__ import annotations

import copy
import re

import nbformat
import pytest
from test_notebooks import (
    NOTEBOOK_DIR,
    STEMS,
    executed,
    hunt_specimens,
    predict_answers,
    readouts,
)

from tools.lesson_text import (
    NOTATION,
    Number,
    cell_instructions,
    code_pointers,
    colons_before_hidden_code,
    hunt_spoilers,
    notation_slips,
    notebook_notation_slips,
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


def _widget(text="p"):
    """A widget view output (what a Predict's own cell shows)."""
    data = {"application/vnd.jupyter.widget-view+json": {"model_id": "m"}, "text/plain": text}
    return nbformat.v4.new_output("display_data", data=data)


def test_predict_spoilers_catch_the_answer_on_screen_before_the_commit():
    predict = ("code", 'p = Predict("01-x", compute=f)\np', [_widget()])
    nb = _nb(
        ("md", "Work it out by hand first."), predict, ("code", "print(f())", [_stdout("4.1")])
    )
    assert predict_spoilers(nb, {"01-x": 4.1}) == []  # after the Predict: out of sight
    nb.cells[0].source = "It reads 4.1, as you will see."
    assert predict_spoilers(nb, {"01-x": 4.1}) == [
        "cell 1: Predict('01-x') answer '4.1' shows before it"
    ]
    shown = _nb(("code", "print(f())", [_stdout("eps* = 0.0016")]), predict)  # a cell above
    assert predict_spoilers(shown, {"01-x": 0.0015502}, {"01-x": 0.15}) != []
    own = _nb(("code", 'print(f())\np = Predict("01-x")\np', [_stdout("22"), _widget()]))
    assert predict_spoilers(own, {"01-x": 5}) == [
        "cell 0: Predict('01-x')'s own cell shows more than it"
    ]
    count = _nb(("md", "About 20 of them, and x.mul_(22)."), predict)
    assert predict_spoilers(count, {"01-x": 22}) != []  # a count is exact: 22 gives it away
    count.cells[0].source = "About 20 of them, in lesson 2."
    assert predict_spoilers(count, {"01-x": 22}) == []
    choice = _nb(("md", "Does it pass?"), predict)
    assert predict_spoilers(choice, {"01-x": "passes"}) == []
    choice.cells[0].source = "It passes."
    assert predict_spoilers(choice, {"01-x": "passes"}) != []


def test_colons_before_hidden_code_are_found():
    nb = _nb(("md", "The correct rule multiplies by 2x:"), ("code", "class SquareFn: ..."))
    assert len(colons_before_hidden_code(nb)) == 1
    nb.cells[1].outputs = [_stdout("SquareFn passes: True")]
    assert colons_before_hidden_code(nb) == []
    nb = _nb(("md", "The correct rule multiplies by 2x."), ("code", "class SquareFn: ..."))
    assert colons_before_hidden_code(nb) == []


def test_prose_pointing_at_hidden_code_by_place_is_found():
    """Voila and the site hide the code: "the Function below" points at nothing there."""
    code = ("code", "class DetachedSquareFn:\n    def backward(ctx, g): ...")
    nb = _nb(("md", "The Function below forgets the inner derivative."), code)
    assert len(code_pointers(nb)) == 1
    nb.cells[0].source = "`DetachedSquareFn` below detaches x."  # a name the lesson defines
    assert len(code_pointers(nb)) == 1
    nb.cells[0].source = "The panel below checks it; the slope printed above is 4."  # shown
    assert code_pointers(nb) == []
    nb.cells[0].source = "`DetachedSquareFn` detaches x. The nudges sit above and below x."
    assert code_pointers(nb) == []
    nb.cells[0].source = "The code below:\n\n    return grad_output * 2 * x"  # shown as a block
    assert len(code_pointers(nb)) == 1  # the sentence still points; the block is not counted
    nb.cells[0].metadata["tags"] = ["notebook-only"]
    assert code_pointers(nb) == []


def test_hunt_spoilers_find_specimen_names_before_a_commit():
    hunt = ("code", "hunt = ZooHunt(names=specimens)\nhunt", [_widget()])
    gate = ("code", 'p = Predict("06-x")\np', [_widget()])
    nb = _nb(hunt, ("md", "Before the names: a guess."), gate, ("md", "`CubeFn` is correct."))
    assert hunt_spoilers(nb, {"hunt": ["CubeFn", "WrongSquareFn"]}) == []
    nb.cells[1].source = "`CubeFn` was the correct one."  # before the gate
    assert hunt_spoilers(nb, {"hunt": ["CubeFn"]}) == [
        "cell 1: names the hunt's specimens ['CubeFn'] before a commit"
    ]
    named = _nb(("code", 'hunt = ZooHunt(names=["WrongSquareFn", "CubeFn"])'), gate)
    assert len(hunt_spoilers(named, {"hunt": ["CubeFn", "WrongSquareFn"]})) == 1


def test_a_pink_box_said_to_be_a_warning_needs_one_on_screen():
    nb = _nb(("md", "A pink box under a cell is a warning."), ("code", "f()", [_stdout("done")]))
    assert len(unshown_warnings(nb)) == 1


def test_cell_instructions_are_found_outside_notebook_only_cells():
    nb = _nb(("md", "Run the next cell, then fix it."), ("md", "The cell below draws it."))
    nb.cells.append(nbformat.v4.new_markdown_cell("Press ×10, then Enter."))
    assert [line[:6] for line in cell_instructions(nb)] == ["cell 0", "cell 1"]
    for cell in nb.cells[:2]:
        cell.metadata["tags"] = ["notebook-only"]
    assert cell_instructions(nb) == []


# ------------------------------------------------------------------------------ notation

QUIZ_FILE = NOTEBOOK_DIR.parent / "gradkit" / "data" / "quizzes.toml"


def _section(stem: str, heading: str) -> str:
    """The markdown of a lesson's section ``## heading`` (the unexecuted .ipynb)."""
    nb = nbformat.read(NOTEBOOK_DIR / f"{stem}.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def _table(markdown: str) -> dict[str, str]:
    """A markdown table's rows as first column -> second (header and rule left out)."""
    rows = [line.strip().strip("|").split("|") for line in markdown.splitlines()]
    rows = [[cell.strip() for cell in row] for row in rows if len(row) >= 2]
    return {row[0].replace("\\*", "*"): row[1] for row in rows[2:]}


@pytest.mark.parametrize(
    "text",
    [
        "Backward computes vᵀJ, a row at a time.",
        "It pushes a tangent u, a direction in which x moves.",
        "It gets J·u, a column at a time.",
        "gradcheck tries u = each unit vector in turn.",
    ],
)
def test_the_notation_guard_finds_a_vector_letter_off_the_sheet(text):
    (slip,) = notation_slips(text)
    assert "a vector the size of the input is p" in slip


def test_the_notation_guard_lets_the_sheets_vectors_and_plain_words_be():
    text = (
        "It compares qᵀ J p: J·p from the nudges, qᵀJ from backward with grad_output g, gᵀJ"
        " row by row; a tangent p; p = each unit vector e<sub>j</sub>; torch calls them u and"
        " v; u = 2⁻⁵³; the direction that is 1 at entry j; a vector a little longer."
    )
    assert notation_slips(text) == []


def test_the_notation_sheet_in_start_here_is_the_guards():
    """Lesson 00's table is the sheet the guard reads (:data:`NOTATION`), row for row."""
    assert _table(_section("00_start_here", "Notation, for every lesson")) == NOTATION


def test_the_notation_guard_catches_a_slip_planted_in_a_copy_of_a_lesson():
    """Lesson 10 as it read before: "a tangent u ... gets J·u", with the sheet's u."""
    lesson = nbformat.read(NOTEBOOK_DIR / "10_beyond_the_jacobian.ipynb", as_version=4)
    assert notebook_notation_slips(lesson) == []
    cell = next(c for c in lesson.cells if "**tangent** p" in c.source)
    cell.source = cell.source.replace("**tangent** p", "**tangent** u").replace("J·p", "J·u")
    found = notebook_notation_slips(lesson)
    assert len(found) == 2 and all("u is the unit roundoff" in f for f in found), found


@pytest.mark.parametrize("stem", STEMS)
def test_every_lessons_prose_keeps_to_the_notation_sheet(stem):
    lesson = nbformat.read(NOTEBOOK_DIR / f"{stem}.ipynb", as_version=4)
    assert notebook_notation_slips(lesson) == []


def test_the_quiz_file_keeps_to_the_notation_sheet():
    slips = [
        f"{line_number}: {slip}"
        for line_number, line in enumerate(QUIZ_FILE.read_text("utf-8").splitlines(), 1)
        for slip in notation_slips(line)
    ]
    assert slips == []


@pytest.mark.notebooks
@pytest.mark.parametrize("stem", STEMS)
def test_what_a_lesson_prints_keeps_to_the_notation_sheet(stem):
    """The explanations and the zoo's sources a lesson prints, as the learner reads them."""
    assert notebook_notation_slips(executed(stem)) == []


def _lesson_numbers(cell: str) -> list[str]:
    """A table's lessons as written, "01, 03–07, 10", "all", "appendix" or "tests" (the lessons
    whose two-digit number would be a number in the prose), as two-digit numbers."""
    if cell == "all":
        return sorted(stem[:2] for stem in STEMS)
    for nickname, part_of_name in (("appendix", "appendix"), ("tests", "in_your_tests")):
        cell = cell.replace(nickname, next(stem[:2] for stem in STEMS if part_of_name in stem))
    numbers_ = []
    for part in cell.split(","):
        first, _, last = part.strip().partition("–")
        numbers_ += [f"{k:02d}" for k in range(int(first), int(last or first) + 1)]
    return numbers_


def test_the_widget_table_names_the_lessons_that_build_each_widget():
    """Lesson 00's "The widgets, in one screen": each widget's lessons are the ones whose
    code builds it (a widget moved to another lesson moves in the table too)."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in _section("00_start_here", "The widgets, in one screen").splitlines()
        if line.startswith("|")
    ][2:]
    codes = {
        stem[:2]: "\n".join(
            c.source
            for c in nbformat.read(NOTEBOOK_DIR / f"{stem}.ipynb", as_version=4).cells
            if c.cell_type == "code"
        )
        for stem in STEMS
    }
    assert len(rows) >= 9
    for widget, _what, lessons in rows:
        name = widget.strip("`")
        built = sorted(k for k, code in codes.items() if re.search(rf"\b{name}\(", code))
        assert _lesson_numbers(lessons) == built, (name, lessons, built)


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
def test_the_spoiler_guard_catches_an_answer_printed_above_a_predict_in_a_copy_of_a_lesson():
    """Lesson 7 with the cell that counts the calls moved above the Predict: its 22 is seen."""
    lesson = copy.deepcopy(executed("07_cost_and_fast_mode"))
    answers = {k: v for k, (v, _) in predict_answers("07_cost_and_fast_mode").items()}
    assert predict_spoilers(lesson, answers) == []
    at = next(k for k, c in enumerate(lesson.cells) if 'Predict("07-calls-n10"' in c.source)
    counted = next(c for c in lesson.cells if "forward calls for n = 10" in c.source)
    lesson.cells.remove(counted)
    lesson.cells.insert(at, counted)
    found = predict_spoilers(lesson, answers)
    assert len(found) == 1 and "'22'" in found[0], found


@notebooks
def test_the_colon_guard_catches_prose_pointing_at_hidden_code_in_a_copy_of_a_lesson():
    """Lesson 5 as it read before: "... which is correct:" above a class definition."""
    lesson = copy.deepcopy(executed("05_wrong_backward"))
    assert colons_before_hidden_code(lesson) == []
    cell = next(c for c in lesson.cells if "which is correct" in c.source)
    cell.source = "`SquareFn` multiplies the incoming gradient by 2x, which is correct:"
    assert len(colons_before_hidden_code(lesson)) == 1


@notebooks
def test_the_predict_guard_catches_a_count_in_a_code_comment_in_a_copy_of_a_lesson():
    """Lesson 6's hunt cell as it read before: "# two correct ones" above "how many pass?"."""
    lesson = copy.deepcopy(executed("06_bug_zoo"))
    answers = {k: v for k, (v, _) in predict_answers("06_bug_zoo").items()}
    assert predict_spoilers(lesson, answers) == []
    cell = next(c for c in lesson.cells if "hunt_specimens(" in c.source)
    cell.source += "\ndecoys = correct[1:3]  # two correct ones"
    found = predict_spoilers(lesson, answers)
    assert len(found) == 1 and "two correct ones" in found[0], found


@notebooks
def test_the_hunt_guard_catches_a_named_decoy_in_a_copy_of_a_lesson():
    """Lesson 6's hunt as it was built before: a list naming its correct Functions."""
    lesson = copy.deepcopy(executed("06_bug_zoo"))
    hunts = hunt_specimens("06_bug_zoo")
    assert hunt_spoilers(lesson, hunts) == []
    cell = next(c for c in lesson.cells if "= ZooHunt(" in c.source)
    cell.source = cell.source.replace("names=specimens", 'names=[*bugs[:2], "CubeFn", *bugs[2:]]')
    found = hunt_spoilers(lesson, hunts)
    assert len(found) == 1 and "CubeFn" in found[0], found


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


@notebooks
@pytest.mark.parametrize("stem", STEMS)
def test_no_hunt_names_its_specimens_before_a_commit(stem):
    assert hunt_spoilers(executed(stem), hunt_specimens(stem)) == []


@notebooks
@pytest.mark.parametrize("stem", STEMS)
def test_no_prose_points_at_code_a_page_without_code_hides(stem):
    assert colons_before_hidden_code(executed(stem)) == []


@pytest.mark.parametrize("stem", STEMS)
def test_no_prose_points_by_place_at_code_a_page_hides(stem):
    """What Voila and the site show of a lesson never says "the Function below" of hidden code."""
    nb = nbformat.read(NOTEBOOK_DIR / f"{stem}.ipynb", as_version=4)
    assert code_pointers(nb) == []


@pytest.mark.parametrize("stem", CORE)
def test_a_core_lesson_fits_a_class_period(stem):
    nb = nbformat.read(NOTEBOOK_DIR / f"{stem}.ipynb", as_version=4)
    # the "After your guess" headings that close the lesson (test_lesson_gates.py) hold nothing
    cells = [c for c in nb.cells if not c.metadata.get("jp-MarkdownHeadingCollapsed")]
    assert len(cells) <= MAX_CELLS, f"{stem} has {len(cells)} cells: split it"


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


# ------------------------------------------------------------------------------ one rounding story

#: The two roundings lessons 3 and 4 teach, as gradkit.check's explanations must name them too.
BOTH_ROUNDINGS = (re.compile(r"x ± eps land", re.I), re.compile(r"f\(x ± eps\) is rounded", re.I))


def tells_both_roundings(explanation: str) -> bool:
    """Whether an explanation names the landing of x ± eps and the rounding of f(x ± eps)."""
    return all(word.search(explanation) for word in BOTH_ROUNDINGS)


def test_gradkit_check_tells_the_rounding_story_the_lessons_tell():
    """Lesson 3's float32 failure and sin checked at eps = 1e-13: the card names both
    roundings (x ± eps land near, not at, x ± eps; f(x ± eps) is rounded), as lessons 3 and 4
    do; the words it used before, "rounding noise in f(x ± eps)", name only one."""
    import warnings

    import torch

    import gradkit
    from gradkit.zoo import SquareFn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x32 = torch.tensor([0.5], requires_grad=True)
        low = gradkit.check(SquareFn.apply, (x32,)).explanation
    x64 = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    tiny = gradkit.check(torch.sin, (x64,), eps=1e-13).explanation
    assert tells_both_roundings(low) and tells_both_roundings(tiny), (low, tiny)
    assert not tells_both_roundings("rounding noise in f(x ± eps) is divided by 2·eps")
