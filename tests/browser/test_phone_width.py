"""Every widget family on a phone's 390-px screen (tools/widget_page.py's page, as the static site
plays it): no control is cut off at the right edge or wider than the widget, and no text of the
widgets' own (controls, readouts, legends) is under 11 px.

The pictures are not held to 11 px here: they are drawn for their own width and shrunk whole to
the screen, so their text is smaller on a phone (widgets/README.md, "On a phone").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gradkit.widgets import (
    EpsilonLab,
    ExercisePanel,
    FloatRuler,
    GradcheckLab,
    JacobianBuilder,
    Predict,
    Quiz,
    SlopeExplorer,
    ZooHunt,
)
from tools.widget_page import write_page

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
#: The controls and text of every widget on the page that are cut off or too small, one line each.
MEASURE_JS = """() => {
  const problems = [];
  const screen = document.documentElement.clientWidth;
  for (const w of document.querySelectorAll('.gradkit-widget')) {
    const name = [...w.classList].find((c) => c !== 'gradkit-widget') || 'widget';
    const edge = Math.min(screen, w.getBoundingClientRect().right);
    for (const c of w.querySelectorAll('button, input, select, .gk-toggle, .gk-value')) {
      if (c.offsetParent === null) continue;
      const r = c.getBoundingClientRect();
      if (r.right > edge + 1) {
        const what = c.innerText || c.value || c.className;
        const past = Math.round(r.right - edge);
        problems.push(`${name}: ${c.tagName.toLowerCase()} "${what}" runs ${past} px past`);
      }
    }
    const walker = document.createTreeWalker(w, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const el = t.parentElement;
      if (!t.textContent.trim() || el.offsetParent === null) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (size < 11) problems.push(`${name}: "${t.textContent.trim().slice(0, 30)}" is ${size} px`);
    }
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def phone_page(tmp_path_factory, browser):
    """One widget of each family on a page with no kernel, in a 390-px wide chromium tab."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADKIT_QUIZ_ORDER", "fixed")
        widgets = [
            SlopeExplorer(),
            EpsilonLab(),
            FloatRuler(),
            JacobianBuilder(),
            GradcheckLab(),
            Quiz("01-central-error"),
            Predict("03-float32-slope", compute=lambda: 1.0132789611816406),
            ExercisePanel("cube", namespace={}),
            ZooHunt(["WrongSquareFn", "CubeFn"]),
        ]
    path = write_page(widgets, tmp_path_factory.mktemp("phone") / "page.html")
    for w in widgets:
        w.close()
    context = browser.new_context(viewport=PHONE, device_scale_factor=2)
    tab = context.new_page()
    tab.goto(Path(path).resolve().as_uri())
    tab.wait_for_selector("body[data-gk-site=ready]")
    yield tab
    context.close()


def test_nothing_is_cut_off_or_too_small_on_a_phone(phone_page, screenshot_dir) -> None:
    phone_page.screenshot(path=str(screenshot_dir / "phone-390.png"), full_page=True)
    problems = phone_page.evaluate(MEASURE_JS)
    assert problems == [], "\n".join(problems)
