"""The practice widgets in chromium on a page with no kernel (a static export's situation): a quiz
answers, a prediction locks in and reveals, from the keyboard too; what needs the kernel says so.

The page is tools/widget_page.py's: the static site's page and loader (it plays anywidget's model
over the widgets' saved state, and each widget's own stand-in answers from what was saved).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradkit.widgets import ExercisePanel, Predict, Quiz, ZooHunt
from tools.widget_page import NOTE, write_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def no_kernel_page(tmp_path_factory, browser):
    """The practice widgets on a page with no kernel, in the suite's chromium."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADKIT_QUIZ_ORDER", "fixed")
        widgets = [
            Quiz("Which is `float64`?", ["single", "double"], 1, explain=["32 bits.", "64 bits."]),
            Predict("03-float32-slope", compute=lambda: 1.0132789611816406),
            Predict("07-fast-mode-catches", compute=lambda: True),
            ExercisePanel("cube", namespace={}),
            ZooHunt(["WrongSquareFn", "CubeFn"]),
        ]
    path = write_page(widgets, tmp_path_factory.mktemp("page") / "page.html")
    for w in widgets:
        w.close()
    errors: list[str] = []
    context = browser.new_context()
    tab = context.new_page()
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(Path(path).resolve().as_uri())
    tab.wait_for_selector("body[data-gk-site=ready]")
    yield tab
    context.close()
    assert errors == []


def _text(locator):
    return " ".join(locator.inner_text().replace("\xa0", " ").split())


def _drawn(root):
    return json.loads(root.locator(".gradkit-figure").get_attribute("data-drawn"))


def test_a_quiz_marks_and_explains_with_no_kernel(no_kernel_page):
    page = no_kernel_page
    quiz = page.locator(".gradkit-quiz")
    assert quiz.locator(".gk-title code").inner_text() == "float64"
    quiz.locator(".gk-option", has_text="single").click()
    single = quiz.locator(".gk-option", has_text="single")
    assert single.get_attribute("aria-pressed") == "true" and "gk-wrong" in single.get_attribute(
        "class"
    )
    feedback = quiz.locator("[aria-live=polite] .gradkit-feedback")
    assert feedback.inner_text().endswith("Not quite. Try another answer. 32 bits.")
    quiz.locator(".gk-option", has_text="double").focus()
    page.keyboard.press("Space")  # a button in the Tab order: the keyboard answers too
    assert _drawn(quiz) == {"choice": "double", "correct": True, "order": ["single", "double"]}
    assert feedback.inner_text().endswith("Right. 64 bits.")
    assert single.get_attribute("aria-pressed") == "false"
    assert not quiz.locator(".gk-greyed-note").is_visible()  # it needs no kernel: no note


def test_a_number_prediction_locks_in_and_reveals_with_no_kernel(no_kernel_page):
    predict = no_kernel_page.locator(".gradkit-predict").first
    result = predict.locator(".gradkit-predict-result")
    from gradkit.quiz_bank import as_bank

    tolerance = as_bank(None).predict("03-float32-slope").tolerance
    assert "1.01328" not in result.inner_text()
    assert f"Within {tolerance * 100:g} %" in result.inner_text()
    box = predict.locator("input.gradkit-guess")
    box.fill("one")
    box.press("Enter")
    assert "“one” is not a number" in predict.locator(".gradkit-error").inner_text()
    assert _drawn(predict)["locked"] is False
    box.fill("1")
    box.press("Enter")
    # wrong: a hint that gives nothing away, and a second try before the true value
    assert _drawn(predict) == {"guess": "1", "locked": True}
    assert "1.01" not in _text(predict)
    assert "Not yet. The true value is higher than your guess." in _text(predict)
    again = predict.locator("input.gradkit-second-guess")
    again.fill("1.0133")
    again.press("Enter")
    assert _drawn(predict) == {
        "guess": "1",
        "locked": True,
        "actual": 1.0132789611816406,
        "right": False,
        "second": "1.0133",
    }
    assert "· true value 1.01328 (1.3 % below the true value" in _text(result)
    assert "Right on the second try" in _text(predict)
    assert predict.locator(".gradkit-feedback").inner_text().startswith("✘ Not quite.")
    assert box.is_disabled() and predict.locator(".gradkit-lock").inner_text() == "Locked in"
    assert predict.locator(".gradkit-error").inner_text() == ""


def test_a_choice_prediction_marks_the_guess_with_no_kernel(no_kernel_page):
    predict = no_kernel_page.locator(".gradkit-predict").nth(1)
    predict.locator(".gk-option", has_text="passes").click()
    predict.locator(".gradkit-lock").click()
    assert _drawn(predict)["right"] is True
    assert "gk-right" in predict.locator(".gk-option", has_text="passes").get_attribute("class")
    assert predict.locator(".gradkit-feedback").inner_text().startswith("✔ Right.")


def test_what_needs_the_kernel_is_disabled_and_says_so(no_kernel_page):
    """Checking code needs the kernel: greyed out, the note says so. The hints and the solution
    are in the panel's scene and its buttons are counters the page presses itself; the hunt's
    runs are the page's too, its verdicts saved with it: they work as in a notebook."""
    panel = no_kernel_page.locator(".gradkit-exercise")
    assert panel.locator("button.gradkit-exercise-check").is_disabled()
    assert panel.locator(".gk-greyed-note").inner_text() == NOTE
    hint = panel.locator("button.gradkit-exercise-hint")
    assert hint.is_enabled()
    hint.click()
    assert panel.locator(".gk-hint-line").count() == 1
    assert _drawn(panel) == {"hints_shown": 1, "solution_step": 0}
    solution = panel.locator("button.gradkit-exercise-solution")
    solution.click()
    assert solution.inner_text() == "Sure? Click again" and solution.is_enabled()
    solution.click()
    assert solution.inner_text() == "Solution shown" and solution.is_disabled()
    assert "class MyCube" in panel.locator(".gradkit-exercise-solution-code pre").inner_text()
    # the feedback the page was saved with graded no code of the reader's: it says why not instead
    feedback = panel.locator(".gradkit-exercise-feedback").inner_text()
    assert "This page has no Python, so it cannot check code" in feedback
    assert "No class named MyCube" not in feedback
    hunt = no_kernel_page.locator(".gradkit-zoo-hunt")
    run = hunt.locator("button.gradkit-run-gradcheck")
    assert run.is_enabled()  # the verdicts were saved with the hunt: the page runs it itself
    hunt.locator(".gradkit-prediction button[data-value=bug]").click()
    run.click()
    result = hunt.locator(".gradkit-hunt-result")
    assert "Right: the cause is bug." in _text(result) and "WrongSquareFn" in _text(result)
    assert "Score: 1 right at the first try, out of 1 predicted" in _text(hunt)
    code = hunt.locator(".gradkit-specimen-code")
    assert "class Specimen1Fn" in code.inner_text()
    hunt.locator("select.gradkit-specimen").select_option(index=1)  # specimens switch in the page
    assert "class Specimen2Fn" in code.inner_text()
    assert hunt.locator(".gradkit-prediction button[aria-pressed=true]").count() == 0
    assert "Read the code, choose a prediction" in _text(result)
    assert hunt.locator(".gradkit-error").inner_text() == ""
