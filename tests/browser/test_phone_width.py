"""Every widget family on a phone's 390-px screen (tools/widget_page.py's page, as the static site
plays it): no control is cut off at the right edge or wider than the widget, and no text of the
widgets' own (controls, readouts, legends) is under 11 px.

The pictures, on a phone and on a desktop (892 px: the pictures' 860-px design width): each is
drawn at the width it is shown (never shrunk), and no text drawn in it is under 11 px, past the
canvas' edges or over another text (widgets/README.md, "On a phone"). The page's canvases are
watched from before the widgets load (:data:`SPY_JS`): every ``fillText`` of the latest paint,
with its font size and its box on the canvas.
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


DESKTOP = {"width": 892, "height": 900}
#: Each canvas' texts of its latest paint (a paint starts by clearing the canvas): [font px, the
#: text, its box [left, top, right, bottom] in the canvas' own pixels, rotation included]; and
#: how many times it was painted.
SPY_JS = """(() => {
  const P = CanvasRenderingContext2D.prototype;
  const fill = P.fillText;
  const clear = P.clearRect;
  P.clearRect = function (...args) {
    this.canvas.__gkTexts = [];
    this.canvas.__gkPaints = (this.canvas.__gkPaints || 0) + 1;
    return clear.apply(this, args);
  };
  P.fillText = function (text, x, y, ...rest) {
    const m = this.measureText(text);
    const t = this.getTransform();
    const xs = [x - m.actualBoundingBoxLeft, x + m.actualBoundingBoxRight];
    const ys = [y - m.actualBoundingBoxAscent, y + m.actualBoundingBoxDescent];
    const at = (a, b) => [t.a * a + t.c * b + t.e, t.b * a + t.d * b + t.f];
    const corners = xs.flatMap((a) => ys.map((b) => at(a, b)));
    const box = [Math.min(...corners.map((c) => c[0])), Math.min(...corners.map((c) => c[1])),
      Math.max(...corners.map((c) => c[0])), Math.max(...corners.map((c) => c[1]))];
    const size = parseFloat((this.font.match(/([0-9.]+)px/) || [0, 0])[1]);
    (this.canvas.__gkTexts = this.canvas.__gkTexts || []).push([size, String(text), box]);
    return fill.call(this, text, x, y, ...rest);
  };
})();"""
#: What is wrong with the pictures on the page, one line each: a canvas drawn at another width
#: than it is shown, a text under 11 px, past the canvas' edges, or over another text.
PICTURES_JS = """() => {
  const problems = [];
  const dpr = window.devicePixelRatio || 1;
  for (const w of document.querySelectorAll('.gradkit-widget')) {
    const name = [...w.classList].find((c) => c !== 'gradkit-widget') || 'widget';
    const canvas = w.querySelector('.gradkit-figure canvas');
    if (!canvas || canvas.offsetParent === null || !canvas.height) continue;
    const shown = canvas.getBoundingClientRect().width;
    if (Math.abs(canvas.width / dpr - shown) > 1) {
      const drawn = canvas.width / dpr;
      problems.push(`${name}: drawn ${drawn} px wide, shown ${shown.toFixed(1)} px wide`);
    }
    const texts = canvas.__gkTexts || [];
    if (!texts.length) problems.push(`${name}: no text drawn`);
    const px = (v) => (v / dpr).toFixed(1);
    for (const [size, text, [l, t, r, b]] of texts) {
      if (size < 11) problems.push(`${name}: "${text}" is ${size} px`);
      if (l < -1 || t < -1 || r > canvas.width + 1 || b > canvas.height + 1) {
        const on = `${px(canvas.width)} x ${px(canvas.height)}`;
        problems.push(`${name}: "${text}" is cut off: [${[l, t, r, b].map(px)}] on ${on}`);
      }
    }
    const across = (p, q, k) => Math.min(p[k + 2], q[k + 2]) - Math.max(p[k], q[k]);
    const over = (p, q) => across(p, q, 0) > dpr && across(p, q, 1) > dpr;
    texts.forEach(([, a, p], i) => texts.slice(i + 1).forEach(([, b, q]) => {
      if (over(p, q)) problems.push(`${name}: "${a}" overlaps "${b}"`);
    }));
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def page_file(tmp_path_factory) -> Path:
    """One widget of each family on a page with no kernel (tools/widget_page.py), written once
    for both widths: the same file opens in each tab."""
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
            ZooHunt(["TransposedMatmulFn", "CubeFn"]),
            # pictures whose texts crowd: wide tick labels, no slope to draw, both landings
            # past the ruler's ends, a verdict in two lines, an 8 x 8 matrix
            SlopeExplorer(x=12345.678, dtype="float32"),
            EpsilonLab("log(x)", x=0.0),
            FloatRuler(x=1.0, dtype="float16", eps=0.01),
            GradcheckLab("WrongSquareFn", dtype="float32"),
            JacobianBuilder(n=8),
        ]
    path = write_page(widgets, tmp_path_factory.mktemp("phone") / "page.html")
    for w in widgets:
        w.close()
    return Path(path)


def widget_page(page_file: Path, browser, viewport: dict):
    """:func:`page_file` in a chromium tab of ``viewport``; yields the tab."""
    context = browser.new_context(viewport=viewport, device_scale_factor=2)
    context.add_init_script(SPY_JS)
    tab = context.new_page()
    tab.goto(page_file.resolve().as_uri())
    tab.wait_for_selector("body[data-gk-site=ready]")
    # the pictures are redrawn at the width the page gives them: wait for the frame after that
    tab.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    yield tab
    context.close()


@pytest.fixture(scope="module")
def phone_page(page_file, browser):
    """Every family in a 390-px wide tab."""
    yield from widget_page(page_file, browser, PHONE)


@pytest.fixture(scope="module")
def desktop_page(page_file, browser):
    """Every family in an 892-px wide tab: the pictures at their design width."""
    yield from widget_page(page_file, browser, DESKTOP)


def test_nothing_is_cut_off_or_too_small_on_a_phone(phone_page, screenshot_dir) -> None:
    phone_page.screenshot(path=str(screenshot_dir / "phone-390.png"), full_page=True)
    problems = phone_page.evaluate(MEASURE_JS)
    assert problems == [], "\n".join(problems)


def test_pictures_are_drawn_at_the_width_shown_with_no_text_under_11_px(phone_page) -> None:
    problems = phone_page.evaluate(PICTURES_JS)
    assert problems == [], "\n".join(problems)
    widths = phone_page.evaluate(
        "() => [...document.querySelectorAll('.gradkit-figure canvas')]"
        ".filter((c) => c.height).map((c) => c.getBoundingClientRect().width)"
    )
    assert len(widths) >= 10 and all(w <= 390 - 32 for w in widths), widths


def test_desktop_pictures_keep_their_design_width_and_fonts(desktop_page, screenshot_dir) -> None:
    desktop_page.screenshot(path=str(screenshot_dir / "desktop-892.png"), full_page=True)
    problems = desktop_page.evaluate(PICTURES_JS)
    assert problems == [], "\n".join(problems)
    widths = desktop_page.evaluate(
        "() => [...document.querySelectorAll('.gradkit-figure canvas')]"
        ".filter((c) => c.height).map((c) => c.getBoundingClientRect().width)"
    )
    assert len(widths) >= 10 and all(w == 860 for w in widths), widths


#: Per picture: [times painted (canvas clears), data-paints, drawn width, shown width].
PAINTS_JS = """() => [...document.querySelectorAll('.gradkit-figure canvas')]
  .filter((c) => c.height).map((c) => [c.__gkPaints || 0, +(c.parentElement.dataset.paints || 0),
    c.width / (window.devicePixelRatio || 1), c.getBoundingClientRect().width])"""


def test_a_narrower_window_redraws_each_picture_once_at_its_width(desktop_page) -> None:
    """From 892 px to 390 px and back: each picture is drawn again once per change, at the new
    width, with the same data (the learner's paint count, data-paints, stays)."""
    two_frames = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    before = desktop_page.evaluate(PAINTS_JS)
    try:
        desktop_page.set_viewport_size(PHONE)
        desktop_page.evaluate(two_frames)
        narrow = desktop_page.evaluate(PAINTS_JS)
        assert desktop_page.evaluate(PICTURES_JS) == []
    finally:
        desktop_page.set_viewport_size(DESKTOP)
    desktop_page.evaluate(two_frames)
    wide = desktop_page.evaluate(PAINTS_JS)
    for b, n, w in zip(before, narrow, wide, strict=True):
        assert n[0] == b[0] + 1 and w[0] == n[0] + 1, (b, n, w)
        assert b[1] == n[1] == w[1], (b, n, w)
        assert n[2] == n[3] == 390 - 32 and w[2] == w[3] == 860, (n, w)


#: Each widget whose content is wider than the widget (it would scroll sideways as a whole).
WIDER_JS = """() => [...document.querySelectorAll('.gradkit-widget > .gk-inner')]
  .filter((n) => n.scrollWidth > n.clientWidth + 1)
  .map((n) => `${n.parentElement.classList[1]}: ${n.scrollWidth} px in ${n.clientWidth}`)"""


def test_a_run_report_and_a_solution_keep_to_the_widget_on_a_phone(phone_page) -> None:
    """The hunt's report and an exercise's solution came 488 px wide in a 362-px widget: the
    report's words now wrap, and a long line of code scrolls in its own box. (Last in the file:
    it presses buttons on the module's page.)"""
    hunt = phone_page.locator(".gradkit-zoo-hunt")
    hunt.locator(".gradkit-prediction button[data-value=bug]").click()
    hunt.locator(".gradkit-run-gradcheck").click()
    assert "gradcheck" in hunt.locator(".gradkit-hunt-result").inner_text()
    solution = phone_page.locator(".gradkit-exercise .gradkit-exercise-solution")
    solution.click()
    solution.click()
    assert phone_page.locator(".gradkit-exercise-solution-code pre").count() == 1
    assert phone_page.evaluate(WIDER_JS) == []
