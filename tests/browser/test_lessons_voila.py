"""The lessons as Voila apps: every lesson, run top to bottom and checked as in Notebook 7
(:func:`lesson_checks.check_lesson_run`), with no menu instructions and the words a page without
code needs."""

from __future__ import annotations

import pytest
from lesson_checks import case_ids, cases, check_lesson_run

pytestmark = pytest.mark.browser

CASES = cases(("voila",))


@pytest.mark.parametrize(("front_end", "name"), CASES, ids=case_ids(CASES))
def test_lesson_runs_clean_in_voila(all_lessons, front_end: str, name: str) -> None:
    check_lesson_run(all_lessons, front_end, name)
