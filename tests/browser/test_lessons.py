"""Every lesson as a learner meets it, in Notebook 7: run top to bottom; no error on the page;
every picture drawn; no answer given away (:func:`lesson_checks.check_lesson_run`). JupyterLab 4
runs its lessons in ``test_lessons_lab.py``, Voila in ``test_lessons_voila.py``."""

from __future__ import annotations

import re

import pytest
from lesson_checks import (
    LAB_LESSONS,
    LESSONS,
    case_ids,
    cases,
    check_ipympl_where_it_should_be,
    check_lesson_run,
    covering_lessons,
    kinds_shown,
)

from gradkit.cli import lesson_files

from unfold import answer_shown, spoilers

pytestmark = pytest.mark.browser

#: The lesson whose wrong backward must fail gradcheck with cause "bug".
WRONG_BACKWARD = next((n for n in LESSONS if "wrong_backward" in n), "05_wrong_backward.ipynb")
FAILS_WITH_BUG = re.compile(r"GradcheckError[\s\S]*\bbug\b|\bbug\b[\s\S]*GradcheckError")
#: Notebook 7, with and without ipympl (whichever the suite runs).
CASES = cases(("notebook", "no-ipympl"))


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


@pytest.mark.parametrize(("front_end", "name"), CASES, ids=case_ids(CASES))
def test_lesson_runs_clean(all_lessons, front_end: str, name: str) -> None:
    check_lesson_run(all_lessons, front_end, name)


def test_ipympl_is_there_in_notebook(all_lessons) -> None:
    """Plain Notebook 7 has ipympl (``test_lessons_lab.py`` checks it is gone where it should)."""
    check_ipympl_where_it_should_be(all_lessons, "notebook")


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
