"""The lessons' widgets driven through the page in Notebook 7: dtype, eps slider, verdicts."""

from __future__ import annotations

import re

import pytest

from gradkit.bench import _jupyter as jp

pytestmark = pytest.mark.browser

FLOAT32_NOISE = "03_float32_noise.ipynb"
WRONG_BACKWARD = "04_wrong_backward.ipynb"

FAILS_WITH_BUG = re.compile(r"GradcheckError[\s\S]*\bbug\b|\bbug\b[\s\S]*GradcheckError")


def eps_value(lab) -> float:
    """The eps the widget shows: its slider's readout, else its eps text box."""
    readout = lab.locator(".gradkit-eps .widget-readout")
    if readout.count():
        return float(readout.first.text_content().strip())
    return float(lab.locator(".gradkit-eps-text input").first.input_value())


def change_and_compare(page, lab, act) -> tuple[float, float]:
    """Do ``act``, wait for the plot to repaint and settle; assert the pixels changed.

    Returns the eps shown before and after.
    """
    jp.wait_settled(lab)
    before_pixels, before_eps = jp.canvas_images(lab), eps_value(lab)
    since = jp.last_input(page)
    act()
    jp.wait_for_paint(lab, since)
    jp.wait_quiet(page)
    jp.wait_settled(lab)
    after_pixels, after_eps = jp.canvas_images(lab), eps_value(lab)
    assert before_pixels, "no canvas inside the widget"
    assert after_pixels != before_pixels, "the plot did not change"
    return before_eps, after_eps


@pytest.fixture(scope="module")
def float32_noise(lessons):
    """The 03 lesson's page, run (shared with test_lessons)."""
    run = lessons.run(FLOAT32_NOISE)
    assert not run.problems, "\n".join(run.problems)
    return run.page


def test_gradcheck_lab_dtype_switch(float32_noise, check_dtype_switch, screenshot_dir) -> None:
    lab = float32_noise.locator(".gradkit-gradcheck-lab").first
    check_dtype_switch(lab, screenshot_dir / "03_gradcheck_lab_float32.png")
    assert jp.problems(float32_noise) == []


def test_epsilon_lab_step_buttons_move_the_plot(float32_noise) -> None:
    lab = float32_noise.locator(".gradkit-epsilon-lab").first
    lab.scroll_into_view_if_needed()
    before, after = change_and_compare(
        float32_noise, lab, lambda: lab.locator(".gradkit-eps-up").first.click()
    )
    assert after > before, f"the up step button moved eps from {before:g} to {after:g}"
    before, after = change_and_compare(
        float32_noise, lab, lambda: lab.locator(".gradkit-eps-down").first.click()
    )
    assert after < before, f"the down step button moved eps from {before:g} to {after:g}"
    assert jp.problems(float32_noise) == []


def test_epsilon_lab_typed_eps_moves_the_plot(float32_noise, screenshot_dir) -> None:
    lab = float32_noise.locator(".gradkit-epsilon-lab").first
    lab.scroll_into_view_if_needed()
    box = lab.locator(".gradkit-eps-text input").first
    target = 1e-9 if eps_value(lab) > 1e-8 else 1e-4

    def type_eps() -> None:
        box.fill(f"{target:g}")
        box.press("Enter")

    _, after = change_and_compare(float32_noise, lab, type_eps)
    assert after == pytest.approx(target, rel=0.05), f"typed {target:g}, eps shows {after:g}"
    lab.screenshot(path=str(screenshot_dir / "03_epsilon_lab_typed_eps.png"))
    assert jp.problems(float32_noise) == []


def test_wrong_backward_fails_with_cause_bug(lessons) -> None:
    run = lessons.run(WRONG_BACKWARD)
    try:
        verdicts = run.page.locator(
            ".jp-OutputArea-output .gradkit-verdict, .jp-OutputArea-output .gradkit-report"
        )
        texts = [verdicts.nth(i).inner_text() for i in range(verdicts.count())]
        assert any(FAILS_WITH_BUG.search(text) for text in texts), (
            f"no verdict on the page reads GradcheckError with cause bug; verdicts: {texts}"
        )
    finally:
        lessons.release(WRONG_BACKWARD)
