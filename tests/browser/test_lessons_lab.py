"""The lessons in JupyterLab 4 (without ipympl by default): the fewest lessons that together show
every kind of output (:data:`lesson_checks.LAB_LESSONS`), each run top to bottom and checked as
in Notebook 7 (:func:`lesson_checks.check_lesson_run`); and ipympl is really gone there."""

from __future__ import annotations

import pytest
from conftest import FRONT_ENDS
from lesson_checks import case_ids, cases, check_ipympl_where_it_should_be, check_lesson_run

pytestmark = pytest.mark.browser

#: JupyterLab 4, with and without ipympl (whichever the suite runs).
CASES = cases(("lab", "lab-no-ipympl"))


@pytest.mark.parametrize(("front_end", "name"), CASES, ids=case_ids(CASES))
def test_lesson_runs_clean_in_lab(all_lessons, front_end: str, name: str) -> None:
    check_lesson_run(all_lessons, front_end, name)


@pytest.mark.parametrize("front_end", [f for f in FRONT_ENDS if f.endswith("no-ipympl")])
def test_ipympl_is_absent_where_it_should_be(all_lessons, front_end: str) -> None:
    """The no-ipympl runs prove something only if its kernel cannot import ipympl and its page
    has no ipympl plugin (in JupyterLab: the page the lessons ran in)."""
    check_ipympl_where_it_should_be(all_lessons, front_end)
