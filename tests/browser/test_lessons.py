"""Every lesson as a learner meets it: in Notebook 7 and Voila every lesson, in JupyterLab 4
without ipympl the fewest lessons that show every kind of output. Run top to bottom; no error on
the page; every picture drawn."""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import nbformat
import pytest
from conftest import FRONT_ENDS
from test_voila import voila_text_problems

from gradkit import widgets
from gradkit.cli import lesson_files

import harness as jp
from unfold import answer_shown, spoilers

pytestmark = pytest.mark.browser

LESSONS = [path.name for path in lesson_files()]
#: The lesson whose wrong backward must fail gradcheck with cause "bug".
WRONG_BACKWARD = next((n for n in LESSONS if "wrong_backward" in n), "05_wrong_backward.ipynb")
#: A one-cell notebook next to the lessons (written by the ``lesson_copy`` fixture).
PROBE = "_probe.ipynb"
FAILS_WITH_BUG = re.compile(r"GradcheckError[\s\S]*\bbug\b|\bbug\b[\s\S]*GradcheckError")
#: Menu instructions that make no sense in a Voila app (it has no menus and no cells to run).
MENU_INSTRUCTIONS = re.compile(r"Run All|Run\s*>|Run\s*▸|Run\s*→")

#: What a lesson can put on the page that a front end must render: each widget class, a
#: matplotlib figure, gradkit's report card.
PAGE_KINDS = {name: re.compile(rf"\b{name}\(") for name in widgets.__all__} | {
    "matplotlib figure": re.compile(r"\bplt\.(show|subplots|figure)\("),
    "report card": re.compile(r"\bgradkit\.check\("),
}


def kinds_shown(path: Path) -> set[str]:
    """The :data:`PAGE_KINDS` a lesson's code cells make."""
    code = "\n".join(
        cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"
    )
    return {kind for kind, made in PAGE_KINDS.items() if made.search(code)}


def covering_lessons(kinds: dict[str, set[str]]) -> list[str]:
    """The fewest lessons that together show every kind any lesson shows (the first such set in
    lesson order; a dozen lessons make a few thousand sets to try)."""
    every = set().union(*kinds.values())
    for size in range(1, len(kinds) + 1):
        for chosen in itertools.combinations(sorted(kinds), size):
            if set().union(*(kinds[name] for name in chosen)) == every:
                return list(chosen)
    return sorted(kinds)


#: JupyterLab renders what Notebook 7 renders (the same widget manager and output areas): every
#: lesson runs in Notebook 7 and Voila, and in JupyterLab the few that together show every kind
#: of output (``GRADKIT_BROWSER_ALL_LESSONS=1`` runs every lesson everywhere).
LAB_LESSONS = (
    LESSONS
    if os.environ.get("GRADKIT_BROWSER_ALL_LESSONS") == "1"
    else covering_lessons({path.name: kinds_shown(path) for path in lesson_files()})
)

#: (front end, lesson) in the order the suite runs them: one front end after the other.
CASES = [
    (front_end, name)
    for front_end in FRONT_ENDS
    for name in (LAB_LESSONS if front_end.startswith("lab") else LESSONS)
]


def test_there_are_lessons() -> None:
    assert len(LESSONS) >= 11, f"expected the lessons 00..10 in notebooks/, found {LESSONS}"


def test_the_jupyterlab_lessons_show_every_kind_of_output() -> None:
    kinds = {path.name: kinds_shown(path) for path in lesson_files()}
    assert {"SlopeExplorer", "GradcheckLab", "matplotlib figure"} <= set().union(*kinds.values())
    shown = set().union(*(kinds[name] for name in LAB_LESSONS))
    assert shown == set().union(*kinds.values())
    assert len(covering_lessons(kinds)) < len(kinds)
    planted = {**kinds, "99_new.ipynb": {"a new widget"}}
    assert "99_new.ipynb" in covering_lessons(planted), "a lesson alone in its kind must run"


@pytest.mark.parametrize(("front_end", "name"), CASES, ids=[f"{f}-{n[:2]}" for f, n in CASES])
def test_lesson_runs_clean(all_lessons, front_end: str, name: str) -> None:
    """Run the lesson: no error output or error box, every widget rendered, every picture drawn
    (nonzero size, drawn content), no uncaught JavaScript error; in Voila, no menu instructions."""
    lessons = all_lessons[front_end]
    try:
        run = lessons.run(name)
        where = f"{name} in {front_end} (screenshot {run.screenshot})"
        assert not run.problems, f"{where} shows errors:\n" + "\n".join(run.problems)
        widgets = run.widgets
        assert widgets["failed"] == 0, f"{where}: 'Error displaying widget' on the page"
        assert widgets["rendered"] == widgets["expected"], (
            f"{where}: {widgets['expected']} widget outputs but {widgets['rendered']} rendered"
        )
        assert not run.picture_problems, f"{where}: pictures missing:\n" + "\n".join(
            run.picture_problems
        )
        assert run.console_errors == [], f"{where}: uncaught JavaScript errors {run.console_errors}"
        assert spoilers(run.unfold, where) == [], "the lesson gives an answer away"
        if front_end == "voila":
            shown = sorted(set(MENU_INSTRUCTIONS.findall(run.text)))
            assert not shown, f"{where}: the Voila app tells the learner to use menus: {shown}"
            assert voila_text_problems(name, run.text) == [], where
        else:
            _notebook_only_notes_show_in_the_notebook(run, where)
    finally:
        lessons.release(name)


def _notebook_only_notes_show_in_the_notebook(run, where: str) -> None:
    """In Notebook 7 and JupyterLab the notebook-only note is there, the note meant for a page
    without code (Voila) is not, and the CSS that switches them in Voila never shows as text."""
    text = run.page.locator("body").inner_text()
    assert "Live widgets" in text, f"{where}: the note on running cells is missing"
    assert "open the lesson in Jupyter" not in text, f"{where} shows the Voila-only note"
    assert "celltag_" not in text and "gradkit-voila-only" not in text, f"{where} shows CSS"


@pytest.mark.parametrize("front_end", ["lab-no-ipympl", "notebook"])
def test_ipympl_is_absent_only_where_it_should_be(servers, browser_context, front_end: str) -> None:
    """The no-ipympl runs above prove something only if ipympl is really gone there: its kernel
    cannot import it and its page has no ipympl plugin, while plain Notebook 7 has both."""
    absent = front_end.endswith("no-ipympl")
    page = browser_context.new_page()
    try:
        jp.open_notebook(page, servers[front_end], PROBE)
        plugin = page.evaluate(f"() => window.jupyterapp.hasPlugin('{jp.IPYMPL_PLUGIN}')")
        assert plugin is not absent, f"{front_end}: ipympl plugin loaded is {plugin}"
        found = jp.kernel_execute(
            page,
            "import importlib.util\n"
            "try:\n    import ipympl\n    print('imported')\n"
            "except ModuleNotFoundError as error:\n    print(error)",
        )["stdout"]
        expected = "No module named 'ipympl'" if absent else "imported"
        assert expected in found, f"{front_end}: import ipympl printed {found!r}"
    finally:
        jp.shutdown_kernel(page)
        page.close()


def test_wrong_backward_fails_with_cause_bug(all_lessons) -> None:
    run = all_lessons["notebook"].run(WRONG_BACKWARD)
    assert any(FAILS_WITH_BUG.search(text) for text in run.verdicts), (
        f"no verdict on the page reads GradcheckError with cause bug; verdicts: {run.verdicts}"
    )


def test_a_planted_spoiler_is_caught(all_lessons) -> None:
    """A Predict whose own cell prints the answer (no gate can hide it) fails the unfold check,
    while the cell after it stays out of sight until the guess is locked in."""
    lessons = all_lessons["notebook"]
    try:
        run = lessons.run("_spoiler.ipynb")
        [record] = run.unfold
        assert record["hidden"] >= 1 and record["after"] == 0, record
        found = spoilers(run.unfold, "the planted page")
        assert len(found) == 1 and "on screen before the commit" in found[0], found
    finally:
        lessons.release("_spoiler.ipynb")


@pytest.mark.parametrize(
    ("value", "text", "found"),
    [
        (22, "forward calls for n = 10: 22", ["22"]),
        (4.1, "eps=0.1 forward=4.100000", ["4.100000"]),
        (0.0015528, "float32: eps* = 0.0016", ["0.0016"]),
        (1.0127e-06, "the nudge 1.013e-06 happened", ["1.013e-06"]),
        (4.1, "the slope of x² at 2 is 4, and 2x is its rule", []),
        (22, "lesson 12 has 21 cells", []),
        (1.01328, "at x = 1.0 and 10 nudges", []),
        (4, "the explorer reads 4.000", ["4.000"]),
        (20, "n = 20 inputs", []),
    ],
)
def test_an_answer_is_found_in_any_rounding_a_cell_prints(value, text, found) -> None:
    assert answer_shown(value, text) == found
