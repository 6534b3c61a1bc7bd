"""The lessons: each pair of files in step and stored clean, and each lesson runs.

Every lesson is a jupytext percent-format source ``notebooks/NN_name.py`` paired with
``notebooks/NN_name.ipynb``. The storage tests read both files. The execution tests run each
``.ipynb`` top to bottom in a fresh kernel, once per lesson and only when a selected test needs
it (so ``pytest tests/test_notebooks.py -k 03`` runs lesson 03 alone), with one extra cell
appended in memory: a self-check that drives the lesson's widgets, quiz and predict-then-run
cells through their Python API and asserts that no widget's error area caught anything. The run
time of each lesson is measured and printed at the end, never asserted.

The executed lessons are shared: :func:`executed` runs a lesson once per test session, and
``tests/test_lesson_text.py`` (the guards on the lessons' words) reads the same runs. The
self-check also reports, as JSON lines, the widgets' readouts after Run All (before it drives
them), each predict's true value (after it locks a guess in) and each hunt's specimens.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import textwrap
from pathlib import Path

import jupytext
import nbformat
import pytest

from gradkit.cli.runner import run_notebook
from tools.lesson_text import NOTEBOOK_ONLY, cell_instructions

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("[0-9]*.ipynb"))
SOURCES = sorted(NOTEBOOK_DIR.glob("[0-9]*.py"))
STEMS = [p.stem for p in NOTEBOOKS]
CELL_TIMEOUT = 120

pytestmark = pytest.mark.notebooks

_HELPERS = """
def _clean(*panels):
    for panel in panels:
        assert panel.error == "", f"{type(panel).__name__} error area: {panel.error}"


def _answer(quiz):
    for choice in quiz.choice_buttons.options:
        quiz.choice_buttons.value = choice
        if quiz.correct:
            break
    assert quiz.correct
    _clean(quiz)


def _predict(moment, guess, right):
    moment.lock_in(guess)
    if not right and moment.second_try_offered:
        assert moment.actual is None  # a hint first: the true value after the second try
        moment.try_again(guess)
    assert moment.actual is not None
    assert moment.correct is right, (guess, moment.actual)
    assert moment.revealed
    _clean(moment)


def _drive_slopes(explorer):
    before = explorer.numeric
    explorer.function_dropdown.value = "x³"
    explorer.eps_slider.value = 0.1
    assert explorer.numeric != before
    explorer.scheme_buttons.value = "forward"
    explorer.dtype_buttons.value = torch.float32
    explorer.eps = explorer.eps - 3  # ÷10 (on the grid: a decade is three positions)
    _clean(explorer)


def _build(builder, bigger):
    builder.next_step()
    builder.run_all()
    built = builder.result  # both Jacobians and the running call counts the page draws
    assert builder.position == built.steps
    assert built.numeric.shape == built.analytic.shape == (builder.n, builder.n)
    assert torch.allclose(built.numeric, built.analytic, atol=1e-5, rtol=1e-3)
    builder.n = bigger
    builder.run_all()
    assert builder.result.numeric.shape == (bigger, bigger)
    assert builder.result.forward_calls[-1] > built.forward_calls[-1]
    _clean(builder)


def _verdict(lab):
    report = lab.report  # torch's verdict for what the lab shows (the page writes the readout)
    return "pass" if report.passed else f"{report.verdict} ({report.cause})"


def _panel(panel, key):
    from gradkit.exercises import EXERCISES

    assert not panel.last.passed and "Not yet" in panel.scene["feedback"]
    panel.hints_shown = 1  # as the page's Hint sets it
    assert "Hint 1 of" in panel.scene["hints"][0] and panel.error == ""
    panel.solution_step = 2  # as the page's Show solution, pressed twice
    assert panel.scene["solution"] and panel.error == ""
    exec(EXERCISES[key].solution, globals())
    panel.check_button.click()
    assert panel.last.passed, str(panel.last)
    _clean(panel)


def _widgets():
    from gradkit.widgets.base import GradkitWidget

    found = [(k, w) for k, w in list(globals().items()) if not k.startswith("_")]
    return {k: w for k, w in found if isinstance(w, GradkitWidget)}


print("gradkit readouts:", json.dumps({k: {} for k in _widgets()}))
"""

# After the drive: each predict's true value and tolerance, and each hunt's specimens, for the
# spoiler guards.
_EPILOGUE = """
_predicts = {w.entry.id: [w.actual, w.entry.tolerance] for w in _widgets().values()
             if type(w).__name__ == "Predict"}
print("gradkit predicts:", json.dumps(_predicts))
_hunts = {k: list(w.names) for k, w in _widgets().items() if type(w).__name__ == "ZooHunt"}
print("gradkit hunts:", json.dumps(_hunts))
"""

# One self-check per lesson: it drives the lesson's widgets, predictions and quiz.
SELF_CHECKS: dict[str, str] = {
    "00_start_here": """
        _drive_slopes(explorer)
        _answer(quiz)
    """,
    "01_nudging": """
        _predict(predict, 4.0, right=False)
        assert abs(predict.actual - 4.1) < 1e-9
        _drive_slopes(explorer)
        _answer(quiz)
    """,
    "02_correct_backward": """
        _build(builder, 6)
        _panel(chain_panel, "sin_square")
        _answer(quiz)
    """,
    "03_why_float32_fails": """
        ruler.eps = ruler.eps + 3  # ×10
        ruler.dtype_buttons.value = torch.float16
        assert ruler.ruler.collapsed  # x ± eps both land on x: the slope is exactly 0
        _clean(ruler)
        _predict(predict, 1.013, right=True)
        assert abs(predict.actual - 1.0133) < 1e-4
        _answer(quiz)
    """,
    "04_choosing_eps": """
        _predict(predict, 1e-3, right=False)  # 35 % off: within 15 % counts
        assert abs(predict.actual - 1.55e-3) < 1e-5
        before = float(eps_lab.at_eps[eps_lab.dtype_buttons.value].error[0])
        eps_lab.eps = eps_lab.eps + 3  # ×10
        assert float(eps_lab.at_eps[eps_lab.dtype_buttons.value].error[0]) != before
        eps_lab.eps_slider.value = 1e-3
        eps_lab.dtype_buttons.value = torch.float16
        _clean(eps_lab)
        _answer(quiz)
    """,
    "05_wrong_backward": """
        _predict(predict, 6, right=False)
        assert abs(predict.actual - 4.0) < 1e-6
        assert abs(explorer.analytic - 6.0) < 1e-12
        assert abs(explorer.numeric - 4.0) < 1e-6
        explorer.eps = explorer.eps - 3  # ÷10
        assert abs(explorer.numeric - 4.0) < 1e-6
        _clean(explorer)
        _answer(quiz)
    """,
    "06_bug_zoo": """
        assert len(hunt.names) == 9 and not set(hunt.names) & set(LATER)
        formulas = [CATALOGUE[name].formula for name in hunt.names]
        alike = [(i, j) for i in range(9) for j in range(i) if formulas[i] == formulas[j]]
        assert alike and all(i - j >= 3 for i, j in alike), alike  # look-alikes kept apart
        assert "kink" not in str(hunt.prediction_buttons.options)  # taught in the appendix
        for name in hunt.names:
            hunt.entry_dropdown.value = name
            hunt.prediction_buttons.value = "bug"
            ran = {hunt.entry: "bug"}  # the page's Run gradcheck (huntRun in panel.js)
            firsts = {**hunt.first_guesses, **ran}
            hunt.set_state({"runs": {**hunt.runs, **ran}, "first_guesses": firsts})
            assert hunt.last is not None and hunt.last.cause in gradkit.CAUSES
            _clean(hunt)
        assert len(hunt.first_guesses) == len(hunt.scene["verdicts"]) == 9
        _predict(passes, 2, right=True)
        assert passes.actual == 2
        _answer(quiz)
    """,
    "07_cost_and_fast_mode": """
        _predict(calls, 21, right=False)  # the forgotten call is the point: counts are exact
        assert calls.actual == 22 == forward_calls
        _predict(catch, "fails", right=False)
        assert catch.actual == "passes"
        _answer(quiz)
    """,
    "08_write_your_own": """
        _panel(cube_panel, "cube")
        _panel(sigmoid_panel, "sigmoid")
        _answer(quiz)
    """,
    "09_capstone_softmax": """
        _panel(product_panel, "product")
        assert "bug" in _verdict(softmax_lab)
        worst = gradkit.check(MySoftmax.apply, (logits,)).worst
        assert worst.index[0] != worst.index[1], worst  # off the diagonal


        class MySoftmax(torch.autograd.Function):  # the capstone, fixed
            @staticmethod
            def forward(ctx, x):
                y = torch.softmax(x, dim=-1)
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                (y,) = ctx.saved_tensors
                return y * (grad_output - (grad_output * y).sum(-1, keepdim=True))


        assert gradkit.check(MySoftmax.apply, (logits,)).passed
        _clean(softmax_lab)
        _answer(quiz)
    """,
    "10_beyond_the_jacobian": """
        _predict(jvp_predict, 6, right=True)
        assert tanh_panel.last.report.cause == "batched_grad"
        _panel(tanh_panel, "tanh_all_checks")
        for twin, switch in ((EntryLoopSinFn, "check_batched_grad"),
                             (ForgotTangentSinFn, "check_forward_ad")):
            assert gradkit.check(twin.apply, (x,)).passed
            assert not gradkit.check(twin.apply, (x,), **{switch: True}).passed
        assert gradkit.check(SinCosFn.apply, (x,), **ALL_ON).passed
        _answer(quiz)
    """,
    "11_appendix_beyond": """
        assert (explorer.numeric, explorer.analytic) == (0.5, 0.0)
        explorer.x += 1
        assert abs(explorer.numeric - 1.0) < 1e-9 and explorer.analytic == 1.0
        _drive_slopes(explorer)
        _answer(quiz)
    """,
    "12_gradcheck_in_your_tests": """
        _predict(fails, 2, right=False)  # two zero entries: the patch's 0 is right there
        assert fails.actual == 1
        _panel(prod_panel, "prod")
        assert suite.written and suite.path.parent.resolve() == Path.cwd().resolve()
        assert "test_my_function.py::" in done.stdout, done.stdout + done.stderr
        _answer(quiz)
    """,
}


def _self_check(stem: str) -> str:
    body = textwrap.dedent(SELF_CHECKS[stem]).strip()
    return (
        "import json\nfrom pathlib import Path\nimport torch\nimport gradkit\n"
        + _HELPERS
        + "\n"
        + body
        + "\n"
        + _EPILOGUE
        + f"\nprint('self-check passed: {stem}')\n"
    )


_RUNS: dict[str, tuple[object, float]] = {}
#: Lessons that write into their own folder (12 writes test_my_function.py there): run from a
#: fresh folder, as a learner's copy would be, never from notebooks/.
WRITES_ITS_FOLDER = {"12_gradcheck_in_your_tests"}


def _run(stem: str) -> tuple[object, float]:
    """Execute one lesson (with its self-check) in a fresh kernel, once per test session."""
    if stem not in _RUNS:
        path = NOTEBOOK_DIR / f"{stem}.ipynb"
        nb = nbformat.read(path, as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(_self_check(stem)))
        # options in file order: the kernel's GRADKIT_QUIZ_ORDER, this process's left alone
        order = {"GRADKIT_QUIZ_ORDER": "fixed"}
        with tempfile.TemporaryDirectory(prefix="gradkit-lesson-") as work:
            folder = Path(work) if stem in WRITES_ITS_FOLDER else path.parent
            run = run_notebook(nb, folder, timeout=CELL_TIMEOUT, env=order)
        assert run.stopped is None, f"{stem}: {run.stopped}"
        _RUNS[stem] = (run.notebook, run.seconds)
    return _RUNS[stem]


def executed(stem: str):
    """The lesson ``stem`` as Run All left it: outputs in place, without the self-check cell."""
    nb = nbformat.from_dict(json.loads(json.dumps(_run(stem)[0])))
    nb.cells = nb.cells[:-1]
    return nb


def _reported(stem: str, label: str) -> dict:
    """A JSON line the self-check printed (``gradkit readouts:`` or ``gradkit predicts:``)."""
    last = _run(stem)[0].cells[-1]
    printed = "".join(
        o.get("text", "") for o in last.get("outputs", []) if o.get("name") == "stdout"
    )
    for line in printed.splitlines():
        if line.startswith(f"gradkit {label}: "):
            return json.loads(line.split(": ", 1)[1])
    raise AssertionError(f"{stem}: the self-check printed no {label}")


def readouts(stem: str) -> list[str]:
    """Every widget readout (HTML) of the lesson after Run All, before the self-check."""
    return [html for widget in _reported(stem, "readouts").values() for html in widget.values()]


def predict_answers(stem: str) -> dict[str, tuple[object, float]]:
    """Predict id -> (true value, tolerance) for the lesson's predicts."""
    return {k: (v[0], v[1]) for k, v in _reported(stem, "predicts").items()}


def hunt_specimens(stem: str) -> dict[str, list[str]]:
    """A ZooHunt's variable name -> its specimens' zoo names, for the lesson's hunts."""
    return _reported(stem, "hunts")


@pytest.fixture(scope="module", autouse=True)
def _report_run_times(request):
    """Print each executed lesson's wall time (kernel start included) after the tests."""
    yield
    if _RUNS:
        reporter = request.config.pluginmanager.get_plugin("terminalreporter")
        capture = request.config.pluginmanager.get_plugin("capturemanager")
        times = ", ".join(f"{stem[:2]} {seconds:.1f} s" for stem, (_, seconds) in _RUNS.items())
        line = f"lesson run times (one at a time, load {os.getloadavg()[0]:.1f}): {times}"
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line("\n" + line)


def _text(nb) -> str:
    """Everything the notebook printed (stdout), in order."""
    return "".join(
        o.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if o.output_type == "stream" and o.name == "stdout"
    )


def _markdown(path: Path) -> list[str]:
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]


def _code(path: Path) -> list[str]:
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


# ------------------------------------------------------------------------------ storage


def test_every_lesson_is_there_as_a_pair():
    assert list(SELF_CHECKS) == STEMS
    assert [p.stem for p in SOURCES] == STEMS
    assert (NOTEBOOK_DIR / "jupytext.toml").read_text(encoding="utf-8").count("ipynb,py:percent")


@pytest.mark.parametrize("stem", STEMS)
def test_pair_in_step(stem):
    """jupytext reads the same cells from the source and from the notebook (metadata aside)."""
    source, notebook = NOTEBOOK_DIR / f"{stem}.py", NOTEBOOK_DIR / f"{stem}.ipynb"
    from_source = [(c.cell_type, c.source.strip()) for c in jupytext.read(source).cells]
    from_notebook = [(c.cell_type, c.source.strip()) for c in jupytext.read(notebook).cells]
    assert from_source == from_notebook, (
        f"{source.name} and {notebook.name} differ: run `make lessons` (the file edited last wins)"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_stored_without_outputs_or_widget_state(path):
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "widgets" not in nb.metadata
    assert '"widgets"' not in text and "application/vnd.jupyter.widget-state" not in text
    for cell in nb.cells:
        assert "widgets" not in cell.metadata
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {cell.id} has stored outputs"
            assert cell.execution_count is None, f"cell {cell.id} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_voila_shows_the_lesson_with_the_template_that_asks_no_other_server(path):
    """Voila's default ("lab") template asks a CDN for Font Awesome; gradkit's asks nothing."""
    assert nbformat.read(path, as_version=4).metadata.get("voila") == {"template": "gradkit"}
    template = Path(__file__).resolve().parents[1] / "share/jupyter/voila/templates/gradkit"
    page = (template / "index.html.j2").read_text(encoding="utf-8")
    assert "'voila/templates/lab/index.html.j2'" in page and "'://' in line" in page


#: In every lesson's first cell: hides the cells tagged notebook-only where nbconvert renders the
#: page (Voila; an HTML export), and shows the notes meant only for such a page.
HIDE_NOTEBOOK_ONLY = (
    "<style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }\n"
    "body[data-voila] .gradkit-voila-only { display: block; }</style>"
)


#: How a note meant only for a page without code starts (hidden in the notebook; the CSS above
#: shows it in Voila).
VOILA_ONLY = '<div class="gradkit-voila-only" hidden="hidden">'


def _tagged(cell, tag: str = NOTEBOOK_ONLY) -> bool:
    return tag in cell.metadata.get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_each_lesson_opens_with_goals_and_the_live_widget_note(path):
    nb = nbformat.read(path, as_version=4)
    first, second = nb.cells[0], nb.cells[1]
    assert first.cell_type == "markdown" and first.source.startswith("# ")
    assert "you will be able to" in first.source
    assert HIDE_NOTEBOOK_ONLY in first.source, "the first cell hides notebook-only cells in Voila"
    note = " ".join(second.source.replace(">", " ").split())
    assert "Live widgets" in note and "Run All Cells" in note
    assert _tagged(second), "the note about running cells is for the notebook only"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_menus_and_cells_are_named_only_in_notebook_only_cells(path):
    """Voila shows the markdown too, and has no menus and no cells to run or fix: such
    instructions sit in cells tagged notebook-only, which it hides."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and not _tagged(cell):
            assert "Run All" not in cell.source and "menu" not in cell.source.lower(), cell.source
    assert cell_instructions(nb) == []
    assert all(c.cell_type == "markdown" for c in nb.cells if _tagged(c)), "code always runs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_a_lesson_with_a_code_exercise_says_in_voila_that_it_needs_the_notebook(path):
    """The note that an exercise needs the notebook sits in exactly the lessons with a code
    exercise; any lesson may hold other notes meant only for a page without code."""
    nb = nbformat.read(path, as_version=4)
    exercise = any(re.search(r"\bExercisePanel\(", c.source) for c in nb.cells)
    notes = [c.source for c in nb.cells if c.cell_type == "markdown" and VOILA_ONLY in c.source]
    needs = [note for note in notes if "open the lesson in Jupyter" in note]
    assert bool(needs) == exercise
    for note in notes:
        assert note.count(VOILA_ONLY) == note.count("</div>") >= 1, "each note is closed"


#: Prose that says gradcheck insists on float64, where it only warns (lessons 3 and 4 show it).
OVERCLAIM = re.compile(
    r"gradcheck\s+(?:demands|requires|insists on|needs)\b"
    r"|as gradcheck\s+(?:demands|requires|insists|needs)\b",
    re.IGNORECASE,
)


def overclaims(texts: list[str]) -> list[str]:
    """Sentences of ``texts`` that say gradcheck demands float64 (it runs, and warns)."""
    return [m.group(0) for text in texts for m in OVERCLAIM.finditer(" ".join(text.split()))]


def test_the_overclaim_guard_catches_a_demand():
    assert overclaims(["The input is float64, as gradcheck\ndemands."]) == ["as gradcheck demands"]
    assert overclaims(["The input is float64, as gradcheck expects."]) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_no_lesson_says_gradcheck_demands_float64(path):
    assert overclaims(_markdown(path)) == []


#: Where J, the Jacobian's letter, is introduced (lesson 2): prose may use J only after it.
J_DEFINED = "written J"
_J = re.compile(r"(?<![A-Za-z0-9_])J(?![A-Za-z0-9_])")


def symbols_before_definition(lessons: list[list[str]]) -> list[str]:
    """Markdown cells (lesson, cell) that use the letter J before any cell has defined it."""
    defined, found = False, []
    for lesson, texts in enumerate(lessons):
        for k, text in enumerate(texts):
            defined = defined or J_DEFINED in text
            if _J.search(text) and not defined:
                found.append(f"lesson {lesson}, markdown cell {k}")
    return found


def test_the_letter_j_is_defined_before_any_lesson_uses_it():
    assert symbols_before_definition([_markdown(path) for path in NOTEBOOKS]) == []
    assert symbols_before_definition([["compares qᵀ J p"], ["The Jacobian, written J"]]) == [
        "lesson 0, markdown cell 0"
    ]


def test_an_exercise_heading_names_the_panel_under_it():
    """ "## Exercise 3: a product of two inputs" above ExercisePanel("product"), whose title
    the panel shows: the same words (no "Exercise:" above an "Exercise 3" panel)."""
    from gradkit.exercises import EXERCISES

    checked = 0
    for path in NOTEBOOKS:
        heading = None
        for cell in nbformat.read(path, as_version=4).cells:
            found = re.search(r"^## (Exercise\b.*)$", cell.source, re.M)
            if cell.cell_type == "markdown" and found:
                heading = found.group(1).strip()
            panel = re.search(r"ExercisePanel\(\s*[\"'](\w+)", cell.source)
            if panel and heading is not None:
                assert heading == EXERCISES[panel.group(1)].title, (path.name, heading)
                heading, checked = None, checked + 1
    assert checked >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_no_code_span_breaks_across_lines(path):
    """A `code` span in the prose stays on one source line (a break would render as a space in
    the middle of a code token)."""
    for text in _markdown(path):
        for line in text.splitlines():
            assert line.count("`") % 2 == 0, f"{path.name}: a code span breaks after {line!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_each_lesson_ends_with_a_check(path):
    code = _code(path)
    assert any(re.search(r"\bQuiz\(", c) for c in code), "every lesson has a quiz"
    appendix = next(k for k, stem in enumerate(STEMS) if "appendix" in stem)
    if path.stem == STEMS[appendix - 1]:  # the course before the appendix ends on the checklist
        last = nbformat.read(path, as_version=4).cells[-1]
        assert last.cell_type == "markdown" and last.source.startswith("## Checklist")
        assert len(last.source.splitlines()) <= 25, "the checklist fits on one screen"
    else:
        assert re.search(r"\bQuiz\(", code[-1]), "the lesson ends with its quiz"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_no_seed_in_learner_text(path):
    """The word "seed" appears nowhere a learner reads it: only torch's own ``manual_seed``."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        text = cell.source.replace("manual_seed", "")
        assert not re.search(r"seed", text, flags=re.IGNORECASE), f"{path.name}: {text[:80]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_cells_stay_short(path):
    """About 12 lines a cell at most (a Function class and its comment may run to 14)."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code":
            assert len(cell.source.splitlines()) <= 14, cell.source


# ------------------------------------------------------------------------------ execution


@pytest.mark.parametrize("stem", STEMS)
def test_lesson_runs_top_to_bottom_and_its_widgets_survive_driving(stem):
    nb, _seconds = _run(stem)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", (
                f"{stem} cell {cell.get('id')}: {output.ename}: {output.evalue}\n"
                + "\n".join(output.traceback[-3:])
            )
    assert f"self-check passed: {stem}" in _text(nb)


def _lines(stem: str) -> list[str]:
    """What the lesson printed, line by line (without the self-check's JSON reports)."""
    lines = _text(_run(stem)[0]).splitlines()
    reports = ("gradkit readouts:", "gradkit predicts:", "gradkit hunts:")
    return [line for line in lines if not line.startswith(reports)]


def _html(nb) -> str:
    """Every rich (HTML) output, e.g. gradkit's verdict cards."""
    return "".join(
        o.get("data", {}).get("text/html", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if o.output_type in ("display_data", "execute_result")
    )


# What the cells print: the facts each lesson is built on. (Every number the prose quotes is
# checked against the outputs by tests/test_lesson_text.py.)
PRINTED: dict[str, list[str]] = {
    "00_start_here": ["SquareFn passes: True"],
    "01_nudging": [
        "Numerical gradient: 4.0",
        "Exact gradient: 4.0",
        "eps=0.1  forward=4.100000  central=4.000000",
        "eps=0.01  forward=4.010000  central=4.000000",
        "eps=0.001  forward=4.001000  central=4.000000",
        "eps=0.1  forward=0.910000  central=0.760000   errors: forward 0.160000, central 0.010000",
        "eps=0.01  forward=0.765100  central=0.750100   errors: forward 0.015100, central 0.000100",
        "eps=0.001  forward=0.751501  central=0.750001   errors: forward 0.001501, "
        "central 0.000001",
    ],
    "02_correct_backward": [
        "Correct backward passes: True",
        "tensor([[1.0000, 0.0000],\n        [0.0000, 3.0000]], dtype=torch.float64)",
    ],
    "03_why_float32_fails": [
        "float32: 24 significant bits, about 7 digits",
        "float64: 53 significant bits, about 16 digits",
        "float32 spacing in [0.5, 1): 5.96e-08, in [0.25, 0.5): 2.98e-08",
        "eps = 1e-6 spans 16.8 spacings above 0.5 and 33.6 below",
        "0.5 + 1e-6 lands 17 spacings above 0.5",
        "0.5 - 1e-6 lands 34 spacings below 0.5",
        "GradcheckError: Jacobian mismatch for output 0 with respect to input 0,",
        "numerical:tensor([[1.0133]])",
        "x² of the landings, exact: 1.0133; rounded to float32: 1.0133",
    ],
    "04_choosing_eps": [
        "float64: finfo.eps 2.22e-16, u = finfo.eps / 2 = 1.11e-16",
        "float32: finfo.eps 1.19e-07, u = finfo.eps / 2 = 5.96e-08",
        "float32's u is 5.4e+08 times float64's",
        "float64: eps* = 1.9e-06\n",
        "the cube root of 5.4e+08 is 8.1e+02",
        "float64: eps* = 1.9e-06; at eps=1e-6: E 1.5e-11, bound 5.7e-11,",
        "float32: eps* = 0.0016; at eps=1e-6: E 0.0075, bound 0.03,\n         measured 0.00996",
        "float32 at 0.5: half a spacing is 1.49e-08 below, 2.98e-08 above",
        "gradcheck allows: 0.00076",
        "float32: eps* 0.0016, E there 7.2e-06",
        "  measured best eps 0.002; above E at",
        "  above the bound at 0\n",
        "measured errors near eps*: 0.0005: 5.2e-06, 0.001: 6e-06, 0.002: 3.6e-07",
        "eps=1e-05: passes False",
        "eps=0.0001: passes True",
        "eps=0.001: passes True",
        "1937.5 vs analytic 2000",
        "float64, eps=1e-6: True",
    ],
    "05_wrong_backward": [
        "Correct backward passes: True",
        "Wrong backward error type: GradcheckError",
        "numerical:tensor([[1.0000, 0.0000],\n        [0.0000, 3.0000]], dtype=torch.float64)",
        "analytical:tensor([[1.5000, 0.0000],\n        [0.0000, 4.5000]], dtype=torch.float64)",
    ],
    "06_bug_zoo": [
        "OneEntryWrongSquareFn: a 16 × 16 Jacobian, 1 of 256 entries red",
        "WrongSquareFn: a 2 × 2 Jacobian, 2 of 4 entries red",
        "ForgotGradOutputSigmoidFn: a 3 × 3 Jacobian, 6 of 9 entries red",
        "returned an invalid gradient at index 1 -\ngot [3, 4] but expected shape compatible "
        "with [3]",
    ],
    "07_cost_and_fast_mode": [
        "forward calls for n = 10: 22",
        "in all, n = m = 10  22 forward  22 backward",
        "n=  1  slow:   4 forward,   4 backward   fast_mode: 4 forward, 4 backward",
        "n= 10  slow:  22 forward,  22 backward   fast_mode: 4 forward, 4 backward",
        "n=100  slow: 202 forward, 202 backward   fast_mode: 4 forward, 4 backward",
        "J·p   0.1375   2.0193   1.3795",
        "|difference| 1.11e-02, the bug's share 0.1·p0·q0 1.11e-02",
        "allowed 2.31e-03: fast_mode passes False",
        "fast_mode passes: True\nslow mode passes: False",
        "0.1·p0·q0: 6.24e-04",
        "allows:    2.42e-03",
        "fast_mode misses the bug at n = [6, 10, 12, 13]",
    ],
    "08_write_your_own": [
        "ValueError: gradcheck expects at least one input tensor to require gradient",
        "dtype: torch.float32",
        "gradcheck passes: False",
        "cause: precision",
    ],
    "09_capstone_softmax": ["Not yet: the backward rule disagrees with the nudges."],
    "10_beyond_the_jacobian": [
        "SinFn, every check on: pass",
        "Jacobian comparison passes: True",
        "passed: False   cause: batched_grad",
        "EntryLoopSinFn under jacrev: vmap: inplace arithmetic",
        "passed: False   cause: forward_ad",
        "passed: False   cause: undefined_grad",
        "why: every Jacobian entry agrees, but the backward breaks when an output's gradient is",
    ],
    "11_appendix_beyond": [
        "ReluFn at 0: kink  numeric 0.5  analytic 0",
        "AbsFn at 0: pass  numeric 0  analytic 0",
        "ReluFn at 5e-07: kink",
        "AbsFn at 5e-07: kink",
        "ReluFn at 1e-05: pass  numeric 1  analytic 1",
        "AbsFn at 1e-05: pass  numeric 1  analytic 1",
        "forward runs on the same input differ by up to 4 at output entry 3",
        "the two runs plotted differ by up to 4 at output entry 3",
        "noisy backward passes: False",
        "with nondet_tol=1e-8: True",
        "with conj:    True",
        "without conj: False",
        "While considering the imaginary part of complex outputs only, Jacobian mismatch",
        "gradcheck:     True",
        "gradgradcheck: False",
        "SquareFn gradgradcheck: True",
        "float16: 11 significant bits, eps* 0.031",
        "bfloat16: 8 significant bits, eps* 0.063",
        "  at eps=1e-6 the slope reads 0",
    ],
    "12_gradcheck_in_your_tests": [
        "gradcheck at [0.5, 1.25, 2]: True",
        "a zero entry                 FAILS: input entry 1, numeric 1, analytic 0",
        "two zero entries             passes",
    ],
}

# Numbers the prose quotes from gradkit's verdict cards (HTML outputs).
CARDS: dict[str, list[str]] = {
    "02_correct_backward": ["0.00301"],
    "03_why_float32_fails": ["precision", "1.01328", "0.0133", "0.00102"],
    "05_wrong_backward": ["1.5x numeric on every entry"],
}


@pytest.mark.parametrize("stem", STEMS)
def test_lesson_prints_what_its_prose_says(stem):
    nb = _run(stem)[0]
    text, cards = _text(nb), _html(nb)
    for expected in PRINTED[stem]:
        assert expected in text, f"{stem} no longer prints {expected!r}"
    for expected in CARDS.get(stem, []):
        assert expected in cards, f"{stem}'s verdict cards no longer show {expected!r}"


def test_01_prints_the_original_pages_gradients_exactly():
    assert _lines("01_nudging")[:2] == ["Numerical gradient: 4.0", "Exact gradient: 4.0"]


def test_02_prints_the_original_pages_pass():
    assert "Correct backward passes: True" in _lines("02_correct_backward")


@pytest.mark.parametrize("stem", ["03_why_float32_fails", "08_write_your_own"])
def test_torchs_float32_warning_shows_once_in_every_front_end(stem):
    """Printed, not left to stderr: Voila strips stderr (warnings) from the page unless it runs
    with --show_tracebacks, so a warning the prose mentions is caught and printed."""
    text = _text(_run(stem)[0])
    assert text.count("UserWarning: Input #0 requires gradient and is not a double precision") == 1


#: The longest printed line a page shows whole: Voila's and the static site's output boxes
#: wrap longer lines wherever they hit the edge, mid-word.
PRINTED_LINE_MAX = 120


def long_printed_lines(nb) -> list[str]:
    """The printed lines (stdout) longer than :data:`PRINTED_LINE_MAX` characters."""
    return [line for line in _text(nb).splitlines() if len(line) > PRINTED_LINE_MAX]


@pytest.mark.parametrize("stem", STEMS)
def test_printed_lines_fit_a_page_line(stem):
    nb = _run(stem)[0]
    lesson = nbformat.from_dict({**nb, "cells": nb.cells[:-1]})  # without the self-check
    assert long_printed_lines(lesson) == [], f"{stem}: wrap these (textwrap.fill) between words"


def test_the_line_guard_catches_torchs_warning_printed_whole():
    warning = (
        "UserWarning: Input #0 requires gradient and is not a double precision floating point"
        " or complex. This check will likely fail if all the inputs are not of double precision"
        " floating point or complex."
    )
    output = nbformat.v4.new_output("stream", name="stdout", text=f"short\n{warning}\n")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(w)", outputs=[output])])
    assert long_printed_lines(nb) == [warning]


@pytest.mark.parametrize("stem", STEMS)
def test_nothing_goes_to_stderr_where_voila_would_hide_it(stem):
    cells = _run(stem)[0].cells[:-1]  # the lesson, without the self-check
    stderr = [o.text for c in cells for o in c.get("outputs", []) if o.get("name") == "stderr"]
    assert stderr == [], f"{stem}: Voila would hide {stderr}"


def test_05_prints_the_original_pages_three_lines():
    lines = _lines("05_wrong_backward")
    start = lines.index("Correct backward passes: True")
    assert lines[start : start + 4] == [
        "Correct backward passes: True",
        "Wrong backward error type: GradcheckError",
        "Wrong backward passes: False",
        "False",  # raise_exception=False
    ]


def test_11_draws_a_figure_per_topic():
    nb = _run("11_appendix_beyond")[0]
    images = [
        o
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.output_type == "display_data" and "image/png" in o.get("data", {})
    ]
    assert len(images) == 4  # randomness, complex, second derivatives, TF32 (kinks: a widget)


def _figures(nb) -> list:
    """Every matplotlib figure a lesson shows, as an RGBA pixel array (rows, columns, 4)."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    return [
        np.asarray(Image.open(io.BytesIO(base64.b64decode(o.data["image/png"]))).convert("RGBA"))
        for c in nb.cells
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]


def figure_theme_faults(pixels) -> list[str]:
    """What keeps a figure (RGBA pixels) from reading on a white and on a dark (#111111) page:
    an opaque background (a white block on a dark page), or text in a colour that one of them
    hides. The text is the most common opaque grey pixel but white (glyphs, ticks, frames)."""
    import numpy as np

    from gradkit._palette import contrast_ratio

    faults = []
    corners = pixels[[0, 0, -1, -1], [0, -1, 0, -1], 3]
    if corners.any():
        faults.append(f"opaque corners (alpha {corners.tolist()})")
    opaque = pixels[pixels[..., 3] == 255][:, :3].astype(int)
    whiteish = (opaque.min(axis=1) > 235).sum()
    if whiteish > 0.02 * len(pixels.reshape(-1, 4)):
        faults.append(f"{whiteish} opaque near-white pixels: a white block on a dark page")
    grey = opaque[(opaque.max(axis=1) - opaque.min(axis=1) <= 2) & (opaque.min(axis=1) <= 235)]
    if len(grey):
        colours, counts = np.unique(grey, axis=0, return_counts=True)
        ink = "#{:02X}{:02X}{:02X}".format(*colours[counts.argmax()])
        for paper in ("#FFFFFF", "#111111"):
            if contrast_ratio(ink, paper) < 4.0:
                faults.append(f"text {ink} reads {contrast_ratio(ink, paper):.1f}:1 on {paper}")
    return faults


@pytest.mark.parametrize("stem", ["06_bug_zoo", "11_appendix_beyond"])
def test_figures_read_on_light_and_dark_pages(stem):
    """A PNG cannot follow the page's theme: it is see-through, with grey text that reads on
    JupyterLab's white and on its dark theme (#111111) alike."""
    figures = _figures(_run(stem)[0])
    assert figures, f"{stem} shows no figure"
    for k, pixels in enumerate(figures):
        assert figure_theme_faults(pixels) == [], f"{stem} figure {k}"


def test_the_figure_guard_catches_matplotlibs_default_look():
    import io

    import matplotlib
    import numpy as np
    from PIL import Image

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import gradkit

    def drawn(style) -> np.ndarray:
        with plt.style.context(style):
            fig, ax = plt.subplots(figsize=(3, 2))
            ax.plot([0, 1], [1, 0], label="a line")
            ax.set(xlabel="x", ylabel="y", title="a title")
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", facecolor=fig.get_facecolor())  # as IPython does
            plt.close(fig)
        return np.asarray(Image.open(buffer).convert("RGBA"))

    assert figure_theme_faults(drawn(gradkit.FIGURE_STYLE)) == []
    faults = figure_theme_faults(drawn("default"))
    assert any("opaque corners" in f for f in faults)
    assert any("white block" in f for f in faults)
    assert any("text #000000" in f for f in faults)


def test_11_tf32_imitation_costs_about_a_thousand_times_the_error():
    values = {}
    for line in _lines("11_appendix_beyond"):
        if "relative error" in line and not line.startswith("GPU"):
            name, _, value = line.partition(" relative error ")
            values[name.strip()] = float(value)
    assert values["float32"] < 1e-6
    assert 1e-4 < values["TF32-like"] < 1e-3
    assert 300 < values["TF32-like"] / values["float32"] < 3000


def test_11_skips_the_gpu_part_clearly_without_cuda():
    import torch

    text = _text(_run("11_appendix_beyond")[0])
    if torch.cuda.is_available():
        assert "GPU float32 matmul, allow_tf32=True" in text
    else:
        assert "No CUDA device here: the GPU TF32 comparison is skipped" in text
