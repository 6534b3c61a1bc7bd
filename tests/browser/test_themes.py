"""Readable in every theme (issue 30): one notebook with one widget of each family, report cards
and grader feedback, in JupyterLab 4 with its light and its dark theme, and the same notebook
exported as the static site, opened in a light and a dark ``prefers-color-scheme``.

In each theme: axe-core's WCAG 2.1 AA rules on gradkit's parts of the page (the whole page for
the static site), and the contrast of every visible text in every gradkit widget, report card
and feedback measured from the page's computed styles (its colour over the backgrounds it sits
on, opacity included): 4.5:1, or 3:1 for large text. The measurement is checked to catch a
planted fixed colour (``#222`` text in a report card), and every picture is painted on the
theme's paper (``data-theme``). axe-core comes from ``make test`` (npm, into the git-ignored
``tests/browser/.axe/``); the wheel needs no Node.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gradkit._palette import PALETTE, PALETTE_DARK

import harness as jp

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent
AXE = HERE / ".axe" / "node_modules" / "axe-core" / "axe.min.js"
NOTEBOOK = "_themes.ipynb"
THEMES = {"light": ("JupyterLab Light", PALETTE), "dark": ("JupyterLab Dark", PALETTE_DARK)}
#: One widget of each family, report cards (a pass; a failure with torch's warnings) and feedback.
CELLS = [
    "import torch\nimport gradkit\nfrom gradkit.exercises import grade\n"
    "from gradkit.widgets import (EpsilonLab, ExercisePanel, FloatRuler, GradcheckLab,\n"
    "    JacobianBuilder, Predict, Quiz, SlopeExplorer, ZooHunt)",
    "SlopeExplorer()",
    'EpsilonLab(f="x³", x=0.5)',
    "FloatRuler()",
    "GradcheckLab()",
    "JacobianBuilder(n=3)",
    'Quiz("00-what-gradcheck-compares")',
    'Predict("01-forward-slope", compute=lambda: 4.1)',
    'ExercisePanel("cube", namespace={})',
    'ZooHunt(["WrongSquareFn", "CubeFn"])',
    "gradkit.check(torch.sin, (torch.tensor([0.5], dtype=torch.float64, requires_grad=True),))",
    "gradkit.check(torch.square, (torch.tensor([0.5], dtype=torch.float32, requires_grad=True),))",
    'grade("cube", None)',
]
GRADKIT = ".gradkit-widget, .gradkit-report, .gradkit-feedback"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

#: Every visible text under the roots: its colour over the backgrounds it sits on (each ancestor's
#: background composited, opacities multiplied), the WCAG ratio and the ratio it needs.
CONTRAST_JS = r"""
(selector) => {
  const probe = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const rgba = (css) => {  // any CSS colour, as the browser paints it: [r, g, b, a 0..1]
    probe.clearRect(0, 0, 1, 1); probe.fillStyle = '#000'; probe.fillStyle = css;
    probe.fillRect(0, 0, 1, 1);
    const d = probe.getImageData(0, 0, 1, 1).data;
    if (!d[3]) return [0, 0, 0, 0];
    return [d[0] * 255 / d[3], d[1] * 255 / d[3], d[2] * 255 / d[3], d[3] / 255];
  };
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((c) => {
      const v = c / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => p - q);
    return (y + 0.05) / (x + 0.05);
  };
  const background = (el) => {  // composite the backgrounds from the page down to el
    const chain = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) chain.push(n);
    let bg = [255, 255, 255];
    for (const n of chain.reverse()) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) bg = over(c, bg);
    }
    return bg;
  };
  const opacity = (el) => {
    let o = 1;
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) o *= +getComputedStyle(n).opacity;
    return o;
  };
  const out = [];
  const roots = [...document.querySelectorAll(selector)]
    .filter((r) => !r.parentElement.closest(selector));
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const el = t.parentElement;
      if (!t.textContent.trim() || !el || el.closest('style, script')) continue;
      const range = document.createRange(); range.selectNodeContents(t);
      const box = range.getBoundingClientRect();
      const cs = getComputedStyle(el);
      if (!box.width || !box.height || cs.visibility !== 'visible') continue;
      const bg = background(el);
      const fg = rgba(cs.color);
      const painted = over([...fg.slice(0, 3), fg[3] * opacity(el)], bg);
      const size = parseFloat(cs.fontSize);
      const large = size >= 24 || (size >= 18.66 && +cs.fontWeight >= 700);
      out.push({text: t.textContent.trim().slice(0, 50),
                widget: root.className.split(' ').slice(-1)[0],
                ratio: +ratio(painted, bg).toFixed(2), needs: large ? 3 : 4.5,
                color: cs.color, background: `rgb(${bg.map(Math.round).join(',')})`});
    }
  }
  return out;
}
"""


def _axe(page, context: object) -> list[str]:
    """axe-core's WCAG 2.1 A/AA violations on ``context`` (a selector list or the page)."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async ([context, tags]) => (await axe.run(context, {runOnly: {type: 'tag', values: tags},"
        " resultTypes: ['violations']})).violations.map((v) => `${v.id}: ${v.help} `"
        " + v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' ' + (n.failureSummary || '')"
        ".replace(/\\s+/g, ' ').slice(0, 160)).join(' | '))",
        [context, AXE_TAGS],
    )
    return list(result)


def _unreadable(page, selector: str = GRADKIT) -> tuple[list[dict], int]:
    """Texts below the contrast they need, and how many texts were measured."""
    texts = page.evaluate(CONTRAST_JS, selector)
    return [t for t in texts if t["ratio"] < t["needs"]], len(texts)


@pytest.fixture(scope="module")
def axe_script() -> Path:
    if not AXE.is_file():
        pytest.fail(
            f"axe-core is missing ({AXE}); run `make test` "
            f"(or `make {AXE.relative_to(HERE.parents[1])}`)",
            pytrace=False,
        )
    return AXE


@pytest.fixture(scope="module")
def themes_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """``site()``: the folder of the notebook exported as the static site by ``gradkit export``,
    in a subprocess started when the module starts (it runs while the JupyterLab checks do)."""
    folder = tmp_path_factory.mktemp("themes-lesson")
    jp.write_notebook(folder / NOTEBOOK, CELLS)
    out = tmp_path_factory.mktemp("themes-export") / "site"
    command = [sys.executable, "-m", "gradkit.cli", "export", str(folder), "--out", str(out)]
    export = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def site() -> Path:
        stdout, stderr = export.communicate(timeout=300)
        assert export.returncode == 0, (stdout + stderr)[-3000:]
        return out

    try:
        yield site
    finally:
        if export.poll() is None:
            jp.stop_tree(export.pid)
        export.communicate()


@pytest.fixture(scope="module")
def lab_page(browser_context, servers, lesson_copy: Path, themes_site, axe_script: Path):
    """The notebook in JupyterLab 4, run, with the quiz answered and the guess locked in."""
    jp.write_notebook(lesson_copy / NOTEBOOK, CELLS)
    page = browser_context.new_page()
    jp.open_notebook(page, servers["lab"], NOTEBOOK)
    widgets = jp.run_all(page)
    assert widgets["failed"] == 0 and widgets["rendered"] >= 9, widgets
    page.locator(".gradkit-quiz .gk-option").first.click()
    predict = page.locator(".gradkit-predict").first
    predict.locator("input.gradkit-guess").fill("4")
    predict.locator("button.gradkit-lock").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.gradkit-predict button.gradkit-lock')]"
        ".some((b) => b.disabled)"
    )
    # wrong: a hint and a second try, which reveals (both verdicts' colours are on the page)
    predict.locator("input.gradkit-second-guess").fill("4.1")
    predict.locator("button.gradkit-lock-second").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.gradkit-predict button.gradkit-lock-second')]"
        ".some((b) => b.disabled)"
    )
    jp.wait_quiet(page, 300)
    try:
        yield page
    finally:
        page.evaluate(
            "async () => await window.jupyterapp.commands.execute('apputils:change-theme',"
            " {theme: 'JupyterLab Light'})"
        )
        jp.shutdown_kernel(page)
        page.close()


def _switch(page, theme: str) -> None:
    name, palette = THEMES[theme]
    page.evaluate(
        "async (name) => await window.jupyterapp.commands.execute('apputils:change-theme',"
        " {theme: name})",
        name,
    )
    light = "true" if theme == "light" else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'")
    # every picture repainted on the theme's paper
    page.wait_for_function(
        "(paper) => [...document.querySelectorAll('.gradkit-figure:not([hidden])')]"
        ".every((f) => !f.dataset.paints || f.dataset.theme === paper)",
        arg=palette["paper"],
        timeout=10_000,
    )


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_jupyterlab_theme_every_text_reads(lab_page, theme: str, screenshot_dir: Path) -> None:
    page = lab_page
    _switch(page, theme)
    bad, measured = _unreadable(page)
    page.wait_for_function("() => !document.querySelector('#jupyterlab-splash')")
    (screenshot_dir / "themes").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(screenshot_dir / "themes" / f"jupyterlab-{theme}.png"))
    assert measured > 150, f"only {measured} texts measured"
    assert not bad, json.dumps(bad[:12], ensure_ascii=False, indent=1)
    kinds = page.evaluate(
        "(sel) => [...new Set([...document.querySelectorAll(sel)].map((e) => [...e.classList]"
        ".find((c) => c.startsWith('gradkit-') && c !== 'gradkit-widget')))]",
        GRADKIT,
    )
    assert len(kinds) >= 10, kinds
    violations = _axe(page, {"include": [[s.strip()] for s in GRADKIT.split(",")]})
    assert not violations, "\n".join(violations)
    assert _card_look(page) == CARD_LOOK
    if theme == "dark":
        # the measurement catches a planted fixed colour: #222 text in a report card
        page.evaluate(
            "() => { const card = document.querySelector('.gradkit-report');"
            " const li = document.createElement('div'); li.className = 'planted';"
            " li.style.color = '#222'; li.textContent = 'planted fixed colour'; card.append(li); }"
        )
        try:
            planted, _ = _unreadable(page)
            assert [p["text"] for p in planted] == ["planted fixed colour"], planted
        finally:
            page.evaluate("() => document.querySelectorAll('.planted').forEach((e) => e.remove())")


#: What a report card looks like wherever it shows: a 2 px border, its rows read left to right.
CARD_LOOK = {"border": "2px", "th": "left", "td": "left"}


def _card_look(page) -> dict:
    """The first report card's border width and its table cells' alignment, as drawn."""
    return page.evaluate(
        """() => {
      const card = document.querySelector('.gradkit-report');
      const align = (sel) => getComputedStyle(card.querySelector(sel)).textAlign;
      return {border: getComputedStyle(card).borderTopWidth, th: align('th'), td: align('td')};
    }"""
    )


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_static_site_scheme_every_text_reads(
    browser, themes_site, axe_script: Path, scheme
) -> None:
    lesson = themes_site() / f"{Path(NOTEBOOK).stem}.html"
    assert lesson.is_file(), f"gradkit export wrote no {lesson.name}"
    # axe goes in as a script tag of the test's own: past the page's policy, which stops any
    # script that is not the site's (gradkit/cli/site/pages.py CONTENT_SECURITY_POLICY)
    context = browser.new_context(
        color_scheme=scheme, viewport={"width": 1200, "height": 900}, bypass_csp=True
    )
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("http*://**", lambda route: route.abort())
        page.goto(lesson.as_uri())
        page.wait_for_function(
            "() => document.querySelectorAll('.gradkit-figure[data-paints]').length >= 4"
        )
        paper = THEMES[scheme][1]["paper"]
        page.wait_for_function(
            "(paper) => [...document.querySelectorAll('.gradkit-figure[data-paints]')]"
            ".every((f) => f.dataset.theme === paper)",
            arg=paper,
        )
        bad, measured = _unreadable(page, f".gk-site-main, {GRADKIT}")
        assert measured > 150, f"only {measured} texts measured"
        assert not bad, json.dumps(bad[:12], ensure_ascii=False, indent=1)
        violations = _axe(page, "body")
        assert not violations, "\n".join(violations)
        assert _card_look(page) == CARD_LOOK  # the site's stylesheet carries the cards' rules
        assert errors == []
    finally:
        context.close()


#: A code cell's face as drawn: its background's WCAG luminance, and its texts under 4.5:1.
CODE_FACE_JS = """() => {
  const block = document.querySelector('.gk-site-source .highlight');
  const probe = document.createElement('canvas').getContext('2d');
  probe.fillStyle = getComputedStyle(block).backgroundColor; probe.fillRect(0, 0, 1, 1);
  const lin = (c) => (c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
  return {background: getComputedStyle(block).backgroundColor,
          luminance: 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)};
}"""


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_static_site_code_cells_follow_the_scheme(
    browser, themes_site, scheme: str, screenshot_dir: Path
) -> None:
    """A code cell is dark on a dark page (it was a light block), light on a light one, and
    every token reads 4.5:1 on it."""
    lesson = themes_site() / f"{Path(NOTEBOOK).stem}.html"
    for width in (1200, 390):
        context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.route("http*://**", lambda route: route.abort())
            page.goto(lesson.as_uri())
            face = page.evaluate(CODE_FACE_JS)
            if scheme == "dark":
                assert face["luminance"] < 0.05, face
            else:
                assert face["luminance"] > 0.8, face
            bad, measured = _unreadable(page, ".gk-site-source")
            assert measured > 20 and not bad, json.dumps(bad[:12], ensure_ascii=False, indent=1)
            (screenshot_dir / "themes").mkdir(parents=True, exist_ok=True)
            shot = screenshot_dir / "themes" / f"site-code-{scheme}-{width}.png"
            page.locator(".gk-site-source").first.screenshot(path=str(shot))
        finally:
            context.close()
