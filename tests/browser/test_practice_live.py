"""ExercisePanel and ZooHunt in Notebook 7 with their kernel: the presses the page makes itself
(a hint, the solution asked twice, a run) are state the kernel receives, and a run's verdict comes
back from Python in the scene (the page's busy mark shows until it does); checking code is the
kernel's press. The same page code draws them on a page with no kernel (test_practice_page.py).
"""

from __future__ import annotations

import pytest

import harness as jp

pytestmark = pytest.mark.browser

PRACTICE = "_practice.ipynb"  # written next to the lessons by conftest (EXTRA_NOTEBOOKS)


@pytest.fixture(scope="module")
def page(browser_context, servers):
    """``_practice.ipynb`` (an ExercisePanel and a ZooHunt) in Notebook 7, run."""
    with jp.notebook_run(browser_context, servers["notebook"], PRACTICE) as page:
        assert page.widgets["rendered"] == page.widgets["expected"] == 2, page.widgets
        yield page
        assert page.errors == []  # while the notebook is open (closing it is Jupyter's business)


def _python(page, expression: str) -> str:
    """The kernel's repr of ``expression`` (after the page's last message has landed)."""
    jp.wait_quiet(page, 300)
    return jp.kernel_execute(page, expression)["data"]


def test_hints_and_the_solution_are_the_pages_state_that_python_reads(page):
    panel = page.locator(".gradkit-exercise")
    hint = panel.locator("button.gradkit-exercise-hint")
    hint.click()
    assert panel.locator(".gk-hint-line").count() == 1
    assert _python(page, "panel.hints_shown") == "1"
    solution = panel.locator("button.gradkit-exercise-solution")
    solution.click()
    assert solution.inner_text() == "Sure? Click again"
    solution.click()
    assert solution.inner_text() == "Solution shown" and solution.is_disabled()
    assert "class MyCube" in panel.locator(".gradkit-exercise-solution-code pre").inner_text()
    assert _python(page, "panel.solution_step") == "2"  # the label is the page's (buttonText)
    panel.locator("button.gradkit-exercise-check").click()  # the kernel's press: it grades
    assert "No class named MyCube" in panel.locator(".gradkit-exercise-feedback").inner_text()
    assert panel.locator(".gradkit-error").inner_text() == ""


def test_a_run_in_the_page_brings_python_s_verdict_and_score(page):
    hunt = page.locator(".gradkit-zoo-hunt")
    assert _python(page, "hunt.scene['verdicts']") == "{}"  # none before a run: no giveaway
    hunt.locator(".gradkit-prediction button[data-value=bug]").click()
    hunt.locator("button.gradkit-run-gradcheck").click()
    result = hunt.locator(".gradkit-hunt-result")
    result.filter(has_text="Right: the cause is bug.").wait_for(timeout=30_000)
    assert "the zoo's WrongSquareFn" in result.inner_text()
    score = hunt.locator(".gradkit-hunt-score").inner_text()
    assert "Score: 1 right at the first try, out of 1 predicted" in score
    assert _python(page, "list(hunt.scene['verdicts']), hunt.last.cause") == (
        "(['Specimen 1: x²'], 'bug')"
    )
    assert _python(page, "hunt.first_guesses") == "{'Specimen 1: x²': 'bug'}"
    hunt.locator("select.gradkit-specimen").select_option(index=1)  # a new specimen: no guess
    assert hunt.locator(".gradkit-prediction button[aria-pressed=true]").count() == 0
    assert _python(page, "hunt.prediction, hunt.entry_dropdown.value") == "(None, 'CubeFn')"
    assert hunt.locator(".gradkit-error").inner_text() == ""
