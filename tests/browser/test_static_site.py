"""The exported site in chromium, opened from disk (``file://``) with every other request aborted.

The lessons of :data:`LESSONS` (every widget family among them) are exported once per session
(``gradkit export``, as a learner runs it: a fresh kernel per lesson). Every test that clicks,
types or picks opens the pages anew (the tests that only look share one opening of each page)
and works on what they draw, read from the widgets' ``data-drawn`` / ``data-paints`` and
readouts. On every lesson page every enabled control, used, changes what the learner sees, or is
greyed out under its line saying why (:mod:`site_controls`); what the lessons' prose asks of a
control works with no kernel (a new n, a hint, a verdict, another function, fast_mode). The
checks of one control kind run on every widget of :data:`POINT_LESSONS` that has it. Full-page
screenshots land in ``artifacts/screenshots/static-site/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gradkit.cli import lesson_files
from gradkit.cli.site import OFFLINE_NOTE

import harness as jp
from site_controls import use_every_control
from unfold import open_all, spoilers, walk

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "artifacts" / "screenshots" / "static-site"
#: Lessons exported: every widget family is among them (SlopeExplorer, JacobianBuilder,
#: ExercisePanel, FloatRuler, EpsilonLab, GradcheckLab, ZooHunt, Quiz, Predict), and a lesson
#: with two Predicts (07: opening the whole lesson from the first must quiet the second).
LESSONS = (
    "01_nudging",
    "02_correct_backward",
    "03_why_float32_fails",
    "04_choosing_eps",
    "05_wrong_backward",
    "06_bug_zoo",
    "07_cost_and_fast_mode",
    "08_write_your_own",
    "09_capstone_softmax",
    "10_beyond_the_jacobian",
)
#: The lessons the checks of one control kind (eps, dtype, x) scan: the point widgets'.
POINT_LESSONS = ("01_nudging", "03_why_float32_fails")
#: The lessons with a Predict.
PREDICT_LESSONS = ("01_nudging", "03_why_float32_fails", "04_choosing_eps", "07_cost_and_fast_mode")
PAGES = ("index", *LESSONS)
LIVE = ".gk-site-widget > .gradkit-widget"
SNAPSHOT = """(root) => {
  const f = root.querySelector('.gradkit-figure');
  const r = root.querySelector('.gradkit-readouts');
  return {paints: +((f && f.dataset.paints) || 0),
          drawn: JSON.parse((f && f.dataset.drawn) || '{}'),
          shown: !!f && !f.hidden, readouts: r ? r.innerText : ''};
}"""
INKED = """(root) => {
  const c = root.querySelector('.gradkit-figure canvas');
  if (!c || !c.width) return 0;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 28) {
    if (d[i + 3] && Math.min(d[i], d[i + 1], d[i + 2]) < 160) n++;
  }
  return n;
}"""


@pytest.fixture(scope="session")
def static_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lessons of :data:`LESSONS`, executed and exported by ``gradkit export`` (a
    subprocess)."""
    lessons = tmp_path_factory.mktemp("export-lessons")
    for path in lesson_files():
        if path.stem in LESSONS:
            shutil.copyfile(path, lessons / path.name)
    out = tmp_path_factory.mktemp("export") / "site"
    command = [sys.executable, "-m", "gradkit.cli", "export", str(lessons), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"wrote {len(LESSONS)} lesson page(s)" in done.stdout, done.stdout
    return out


@dataclass
class Opened:
    """A page of the site: the playwright page, its errors and the requests it tried."""

    page: object
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)


def _open(context, static_site: Path, name: str, unfold: bool = True) -> Opened:
    """The page ``name`` from disk in ``context``, offline, its widgets started and, with
    ``unfold``, the whole lesson open ("Open the whole lesson")."""
    opened = Opened(context.new_page())
    page = opened.page
    jp.files_only(page, opened.blocked, opened.errors)
    page.goto((static_site / f"{name}.html").as_uri())
    if name != "index":
        page.wait_for_selector("body[data-gk-site=ready]")
        if unfold:
            stale = open_all(page)
            assert stale == [], f"{name}: the whole lesson is open, yet a Predict says {stale}"
    return opened


def _context(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(20_000)
    return context


@pytest.fixture
def open_page(browser, static_site: Path) -> Iterator[Callable[[str], Opened]]:
    """``open_page(name)``: the page ``name`` from disk, offline, its widgets started and the
    whole lesson open ("Open the whole lesson"); ``open_page(name, unfold=False)`` leaves it as
    a learner first meets it, closed after its first Predict. A fresh page each time: for the
    tests that click, type or pick."""
    context = _context(browser)
    try:
        yield lambda name, unfold=True: _open(context, static_site, name, unfold)
    finally:
        context.close()


@pytest.fixture(scope="module")
def seen_page(browser, static_site: Path) -> Iterator[Callable[[str], Opened]]:
    """``seen_page(name)``: as ``open_page(name)``, but each page opened once for this file and
    shared by the tests that only look at it (nothing on it is clicked, typed or picked); its
    ``errors`` gather over all of them."""
    context = _context(browser)
    opened: dict[str, Opened] = {}

    def one(name: str) -> Opened:
        if name not in opened:
            opened[name] = _open(context, static_site, name)
        return opened[name]

    try:
        yield one
    finally:
        context.close()


def _live(open_page, control: str) -> list[tuple[Opened, object]]:
    """(page, widget root) for every live widget of :data:`POINT_LESSONS` with ``control``."""
    found = []
    for name in POINT_LESSONS:
        opened = open_page(name)
        for root in opened.page.locator(LIVE).all():
            if root.locator(control).count():
                found.append((opened, root))
    return found


def _clicked(root, control: str) -> tuple[dict, dict]:
    """The widget's snapshot before and after one click on ``control``."""
    before = root.evaluate(SNAPSHOT)
    root.locator(control).first.click()
    root.page.wait_for_function(
        "([el, n]) => +(el.querySelector('.gradkit-figure').dataset.paints || 0) > n",
        arg=[root.element_handle(), before["paints"]],
    )
    return before, root.evaluate(SNAPSHOT)


@pytest.mark.parametrize("name", PAGES)
def test_each_page_opens_from_disk_with_no_network_and_no_errors(seen_page, name: str) -> None:
    opened = seen_page(name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    opened.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    assert opened.errors == []
    assert opened.blocked == [], "the page asked the network"
    assert opened.page.locator(".gk-site-loading").count() == 0, "a widget never started"


def test_no_page_is_wider_than_a_phone(browser, static_site: Path) -> None:
    """At 390 px every page, the whole lesson open, fits the screen: code blocks, tables and
    widgets scroll inside themselves; nothing makes the page itself scroll sideways."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    wider = {}
    try:
        for name in PAGES:
            page = context.new_page()
            page.goto((static_site / f"{name}.html").as_uri())
            if name != "index":
                page.wait_for_selector("body[data-gk-site=ready]")
                open_all(page)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                wider[name] = width
            page.close()
    finally:
        context.close()
    assert wider == {}, f"pages wider than a 390-px phone: {wider}"


def test_every_widget_draws_or_says_it_needs_a_running_notebook(seen_page) -> None:
    drawn = 0
    for name in LESSONS:
        page = seen_page(name).page
        assert page.locator(".gradkit-widget").count() == page.locator(LIVE).count()
        for root in page.locator(LIVE).all():
            snap = root.evaluate(SNAPSHOT)
            if snap["shown"]:
                assert snap["paints"] >= 1 and snap["drawn"], f"{name}: nothing drawn"
                assert root.evaluate(INKED) > 500, f"{name}: a blank picture"
                drawn += 1
        for note in page.locator(".gk-site-note").all_inner_texts():
            assert "needs a running notebook" in note
    assert drawn >= 1, "no widget of the site draws"


def test_eps_down_changes_the_picture_and_the_readout(open_page) -> None:
    found = _live(open_page, ".gradkit-eps-down")
    assert found, "no widget with eps ÷10 in lessons 01 and 03"
    for opened, root in found:
        before, after = _clicked(root, ".gradkit-eps-down")
        assert after["paints"] == before["paints"] + 1
        assert after["drawn"] != before["drawn"] and after["readouts"] != before["readouts"]
        if "eps_value" in before["drawn"]:
            assert after["drawn"]["eps_value"] == pytest.approx(before["drawn"]["eps_value"] / 10)
        assert opened.errors == []


def test_a_dtype_switch_changes_the_readouts(open_page) -> None:
    button = ".gradkit-dtype button[data-value=float32]:not([disabled]):not([aria-pressed=true])"
    found = _live(open_page, button)
    assert found, "no widget with a float32 switch in lessons 01 and 03"
    for opened, root in found:
        before, after = _clicked(root, button)
        assert after["readouts"] != before["readouts"]
        assert after["drawn"].get("dtype", "float32") == "float32"
        assert "float32" in after["readouts"]
        assert opened.errors == []


def test_x_steps_move_the_point(open_page) -> None:
    found = _live(open_page, ".gradkit-x-up")
    assert found, "no widget with x steps in lessons 01 and 03"
    for opened, root in found:
        for _ in range(3):  # past the first picture's tables: the ones sent after it are there
            before, after = _clicked(root, ".gradkit-x-up")
            was, now = before["drawn"], after["drawn"]
            if "x" in was:  # a ruler of x's neighbours may look the same one step on
                assert now["x"] > was["x"] and after["readouts"] != before["readouts"]
                continue
            moved = [k for k in now if k.endswith("_px") and now[k] != was.get(k)]
            assert moved, "the point stayed where it was"
        assert opened.errors == []


def test_beyond_what_was_saved_the_page_stays_put_and_says_why(open_page) -> None:
    """With no kernel, an x past the positions saved with the page cannot be measured: its step
    button greys out under the widget's line saying why, and the slider ends at the last saved
    position (its tooltip says so): a key past it leaves the picture as it is. Each widget with
    x steps (01's SlopeExplorer, 03's FloatRuler: its slider spanned every x, and an x past the
    saved ones left it "computing..." for good)."""
    found = _live(open_page, ".gradkit-x-up")
    assert len(found) >= 2, "no SlopeExplorer and FloatRuler with x steps in lessons 01 and 03"
    for opened, root in found:
        up = root.locator(".gradkit-x-up").first
        for _ in range(30):  # far past any window saved with the page
            if up.is_disabled():
                break
            up.click()
        assert up.is_disabled(), "the x window never ended: no position was beyond what was saved"
        assert "gk-needs-kernel" in (up.get_attribute("class") or "")
        note = root.locator(".gk-greyed-note")
        assert note.is_visible() and note.inner_text() == OFFLINE_NOTE
        last = root.evaluate(SNAPSHOT)["drawn"]
        slider = root.locator("input.gradkit-x").first
        assert slider.input_value() == slider.get_attribute("max"), (
            "the slider goes past the saved x"
        )
        title = slider.get_attribute("title")
        assert "is not saved with this page: it needs a running notebook" in title
        slider.press("ArrowRight")
        assert root.evaluate(SNAPSHOT)["drawn"] == last, "an x beyond what was saved was drawn"
        busy = "n => n.classList.contains('gk-is-busy') || !!n.querySelector('.gk-is-busy')"
        assert not root.evaluate(busy), "left computing… with no kernel to answer"
        assert opened.errors == []


def test_sliders_offer_only_the_states_saved_with_the_page(open_page) -> None:
    """01's x slider went from -3 to 3 and 02's n from 1 to 64, with answers saved for a few
    values only. Now each spans the saved values next to the one shown and says so; x² from the
    menu (the same function as "your f", saved at x = 2 alone) greys the x slider out saying why."""
    opened = open_page("01_nudging")
    root = _widget(opened, "gradkit-slope-explorer")
    x = root.locator("input.gradkit-x")
    span = [float(x.get_attribute(k)) for k in ("min", "max")]
    assert span[0] < 0 < span[1] and span[1] - span[0] <= 20, span  # the saved window, not 120
    assert "this page holds x from 1.75 to 2.25; x = 1.7 is not saved" in x.get_attribute("title")
    root.locator("select.gradkit-function").select_option("x²")
    assert x.is_disabled() and "gk-needs-kernel" in x.get_attribute("class")
    assert "x = 1.95 is not saved with this page" in x.get_attribute("title")
    assert root.locator(".gk-greyed-note").is_visible()
    root.locator("select.gradkit-function").select_option("your f")
    assert x.is_enabled()
    builder = _widget(open_page("02_correct_backward"), "gradkit-jacobian-builder")
    n = builder.locator("input.gradkit-n")
    assert (n.get_attribute("min"), n.get_attribute("max")) == ("2", "5")
    assert "this page holds n from 2 to 5; n = 1 is not saved" in n.get_attribute("title")
    assert opened.errors == []


@pytest.mark.parametrize("name", POINT_LESSONS)
def test_a_typed_eps_off_the_grid_is_refused_and_the_box_shows_the_eps_drawn(open_page, name):
    """01 asked for 3e-4: the box kept it, the picture stayed and the message spoke of greyed-out
    controls. Now the box goes back to the eps drawn and the message names the steps around it."""
    page = open_page(name).page
    root = page.locator(LIVE).filter(has=page.locator("input.gradkit-eps-text")).first
    box = root.locator("input.gradkit-eps-text")
    shown, last = box.input_value(), root.evaluate(SNAPSHOT)["drawn"]
    box.fill("3e-4")
    box.press("Enter")
    assert box.input_value() == shown, "the box kept an eps the page cannot show"
    assert root.evaluate(SNAPSHOT)["drawn"] == last, "an eps off the grid changed the picture"
    message = root.locator(".gradkit-error").inner_text()
    assert "0.0003 lies between the eps steps this page holds (0.0002 and 0.0005)" in message
    assert "Greyed-out" not in message
    box.fill("2e-4")  # on the grid: drawn with no kernel
    box.press("Enter")
    assert root.evaluate(SNAPSHOT)["drawn"]["eps_label"] == "0.0002"
    assert root.locator(".gradkit-error").inner_text() == ""


def test_a_quiz_answer_is_marked(open_page) -> None:
    quizzes = _live(open_page, ".gradkit-controls button:not([disabled])")
    quizzes = [(o, r) for o, r in quizzes if "gradkit-quiz" in (r.get_attribute("class") or "")]
    if not quizzes:
        pytest.skip("Quiz is not on the new widget base yet (issue 18): its page shows a note")
    for opened, root in quizzes:
        before = root.evaluate(SNAPSHOT)["readouts"]
        root.locator(".gradkit-controls button:not([disabled])").first.click()
        root.page.wait_for_function(
            "([el, t]) => (el.querySelector('.gradkit-readouts') || {}).innerText !== t",
            arg=[root.element_handle(), before],
        )
        assert root.evaluate(SNAPSHOT)["readouts"].strip()
        assert opened.errors == []


@pytest.mark.parametrize("name", LESSONS)
def test_every_control_changes_what_is_seen_or_is_greyed_out_saying_why(open_page, name) -> None:
    """Every enabled control of every widget, used once (site_controls.py), changes what the
    learner sees; every greyed-out one sits under the widget's line saying why."""
    opened = open_page(name)
    result = use_every_control(opened.page)
    assert result["dead"] == [], f"{name}: controls that change nothing: {result['dead']}"
    assert result["unexplained"] == [], f"{name}: greyed out with no line: {result['unexplained']}"
    assert result["used"], f"{name}: no control to use"
    assert opened.errors == []


def test_a_control_that_does_nothing_is_caught(open_page) -> None:
    """The check above, on a page where one button's handler is taken away (the button is swapped
    for a copy without listeners): that button is reported."""
    page = open_page("08_write_your_own").page
    page.evaluate("""() => {
      const b = document.querySelector('.gk-site-widget button.gradkit-exercise-hint');
      b.replaceWith(b.cloneNode(true));
    }""")
    dead = use_every_control(page)["dead"]
    assert len(dead) == 1 and "gradkit-exercise-hint" in dead[0], dead


def test_what_needs_python_is_greyed_out_under_its_line(seen_page) -> None:
    """What only Python can do (check the learner's code, a new tolerance) is greyed out, and
    the widget's line says why; nothing else is."""
    greyed = set()
    for name in LESSONS:
        for root in seen_page(name).page.locator(LIVE).all():
            for control in root.locator(".gk-needs-kernel input, .gk-needs-kernel button").all():
                assert control.is_disabled(), f"{name}: a control needing the kernel is enabled"
                greyed.add(control.get_attribute("class"))
                # it looks disabled (09's atol and rtol looked like boxes to type in) and says why
                look = control.evaluate(DISABLED_LOOK)
                assert look == {"face": "transparent", "frame": "dashed"}, (name, look)
                assert "running notebook" in (control.get_attribute("title") or "")
            if root.locator(".gk-needs-kernel").count():
                note = root.locator(".gk-greyed-note")
                assert note.is_visible() and note.inner_text() == OFFLINE_NOTE
    assert greyed == {"gradkit-exercise-check", "gradkit-atol", "gradkit-rtol"}, greyed


#: How a control is drawn: its face (transparent: no face) and its frame's style.
DISABLED_LOOK = """(n) => { const cs = getComputedStyle(n);
  return {face: cs.backgroundColor === 'rgba(0, 0, 0, 0)' ? 'transparent' : cs.backgroundColor,
          frame: cs.borderTopStyle}; }"""


def _widget(opened: Opened, css: str, k: int = 0):
    """The k-th live widget of the page with root class ``css``."""
    return opened.page.locator(f"{LIVE}.{css}").nth(k)


def _drawn(root) -> dict:
    return root.evaluate(SNAPSHOT)["drawn"]


def test_raising_n_builds_jacobians_of_the_new_size_with_no_kernel(open_page) -> None:
    """02 asks to raise n: the grids grow to 4 columns and step goes on (it stopped at 3 x 3)."""
    opened = open_page("02_correct_backward")
    root = _widget(opened, "gradkit-jacobian-builder")
    assert _drawn(root)["n"] == 3
    root.locator(".gradkit-n-up").click()
    assert {k: _drawn(root)[k] for k in ("n", "steps", "step")} == {"n": 4, "steps": 8, "step": 1}
    root.locator("button.gradkit-step").click()
    assert _drawn(root)["columns"] == 2
    history = root.locator(".gradkit-jb-history tr").all_inner_texts()[1:]
    assert [row.split()[0] for row in history] == ["3", "4"]  # every n built
    root.locator(".gradkit-n-down").click()
    assert _drawn(root)["n"] == 3 and root.locator(".gradkit-error").inner_text() == ""
    assert opened.errors == []


def test_hints_and_the_solution_show_with_no_kernel(open_page) -> None:
    """02, 08 and 09: each panel's hints come one at a time, the solution after a second ask."""
    panels = 0
    for name in ("02_correct_backward", "08_write_your_own", "09_capstone_softmax"):
        opened = open_page(name)
        for root in opened.page.locator(f"{LIVE}.gradkit-exercise").all():
            hint, hints = root.locator(".gradkit-exercise-hint"), root.locator(".gradkit-hints")
            hint.click()
            assert root.locator(".gk-hint-line").count() == 1
            assert root.locator(".gk-hint-line").first.inner_text().startswith("Hint 1 of ")
            while hint.is_enabled():
                hint.click()
            assert hint.inner_text() == "No more hints" and not hints.count()
            solution = root.locator(".gradkit-exercise-solution")
            solution.click()
            assert solution.inner_text() == "Sure? Click again"
            assert root.locator(".gradkit-exercise-solution-code pre").count() == 0
            solution.click()
            assert "class " in root.locator(".gradkit-exercise-solution-code pre").inner_text()
            assert solution.is_disabled() and solution.inner_text() == "Solution shown"
            panels += 1
        assert opened.errors == []
    assert panels == 4


def test_the_hunt_runs_gradcheck_on_every_specimen_with_no_kernel(open_page) -> None:
    """06: each of the nine specimens, predicted and run, shows gradcheck's verdict, the bug and
    the score; a new specimen clears the prediction, as in a notebook."""
    opened = open_page("06_bug_zoo")
    root = _widget(opened, "gradkit-zoo-hunt")
    menu = root.locator("select.gradkit-specimen")
    labels = menu.locator("option").all_inner_texts()
    assert len(labels) == 9
    for label in labels:
        menu.select_option(label)
        assert root.locator(".gradkit-prediction button[aria-pressed=true]").count() == 0
        root.locator(".gradkit-prediction button[data-value=bug]").click()
        root.locator(".gradkit-run-gradcheck").click()
        result = root.locator(".gradkit-hunt-result").inner_text()
        assert "the cause is" in result and "is the zoo's" in result, result
    score = root.locator(".gradkit-hunt-score").inner_text()
    assert "out of 9 predicted (9 Functions in the hunt)" in score, score
    assert opened.errors == []


@pytest.mark.parametrize(
    ("name", "css", "pick", "shows"),
    [
        ("01_nudging", "gradkit-slope-explorer", "x³", "12.000"),
        ("09_capstone_softmax", "gradkit-gradcheck-lab", "SigmoidFn", "✔ pass"),
    ],
)
def test_a_function_picked_from_the_menu_is_drawn_with_no_kernel(
    open_page, name: str, css: str, pick: str, shows: str
) -> None:
    """01 asks for x³ (slope 12 at x = 2), 06 for WrongSquareFn and ForgotGradOutputSigmoidFn."""
    opened = open_page(name)
    root = _widget(opened, css)
    before = root.evaluate(SNAPSHOT)
    root.locator("select.gradkit-function").select_option(pick)
    after = root.evaluate(SNAPSHOT)
    assert after["paints"] == before["paints"] + 1 and after["drawn"] != before["drawn"]
    assert shows in after["readouts"], after["readouts"]
    assert root.locator(".gradkit-error").inner_text() == ""
    assert opened.errors == []


@pytest.mark.parametrize("name", ["09_capstone_softmax"])
def test_fast_mode_is_checked_and_said_with_no_kernel(open_page, name: str) -> None:
    """fast_mode looked enabled and changed nothing: now torch's fast check is drawn and said."""
    opened = open_page(name)
    root = _widget(opened, "gradkit-gradcheck-lab")
    root.locator("input.gradkit-fast-mode").check()
    snap = root.evaluate(SNAPSHOT)
    assert snap["drawn"]["fast_mode"] is True
    assert "fast_mode: one random projection" in snap["readouts"]
    assert root.locator(".gradkit-error").inner_text() == ""
    assert opened.errors == []


def test_the_index_lists_each_lesson_with_its_first_words(open_page, static_site: Path) -> None:
    page = open_page("index").page
    links = page.locator(".gk-site-lessons li a")
    assert links.evaluate_all("(a) => a.map((x) => x.getAttribute('href'))") == [
        f"{name}.html" for name in LESSONS
    ]
    for text in page.locator(".gk-site-lessons li p").all_inner_texts():
        assert text.startswith("After this lesson you will be able to")
    links.first.click()
    page.wait_for_selector("body[data-gk-site=ready]")
    assert page.title().startswith("Lesson 1")
    assert json.loads(page.locator("#gk-site-widgets").text_content())["models"]


TINY_ESM = """
let initialized = 0;
export default {
  initialize({ model }) { initialized += 1; },
  render({ model, el }) {
    const out = document.createElement("span");
    out.className = "tiny-out";
    const show = () => {
      const tables = model.get("tables");
      const n = model.get("n");
      out.textContent = `${n} ${tables.byteLength} ${tables.getUint8(3)} ${initialized}`;
    };
    const add = document.createElement("button");
    add.className = "tiny-add";
    add.onclick = () => {
      model.set("n", model.get("n") + 1);
      model.save_changes();
    };
    const ask = document.createElement("button");
    ask.className = "tiny-ask";
    ask.onclick = () => model.send({ type: "click", name: "anything" });
    model.on("change:n", show);
    show();
    el.append(add, ask, out);
  },
};
"""


def test_the_loader_plays_the_model_for_any_module_on_the_contract(
    browser, tmp_path, monkeypatch
) -> None:
    """A tiny widget of the test's own, on the contract's traits: its module gets the saved
    state (bytes as a DataView), set fires change events in every view, initialize runs once
    per model, _dom_classes and _css apply, and send says it needs a running notebook. (A page
    plays only gradkit's own modules: here the tiny one is made one of them.)"""
    from gradkit.cli.site import export_site
    from gradkit.cli.site import widgets as site_widgets

    tiny_css = ".tiny-out { color: rgb(1, 2, 3); }"
    monkeypatch.setattr(site_widgets, "installed_modules", lambda: {(TINY_ESM, tiny_css)})
    contract = {"control_state": {}, "scene": {}, "error": "", "busy": False}
    state = {"_esm": TINY_ESM, "_css": tiny_css,
             "_dom_classes": ["tiny-root"], "spec": {"title": "Tiny", "state": ["n"]},
             "n": 0, **contract}  # fmt: skip
    tables = [{"path": ["tables"], "encoding": "base64", "data": "AAECAwQFBgc="}]  # bytes 0..7
    view = {"output_type": "display_data", "metadata": {}, "data": {
        "application/vnd.jupyter.widget-view+json": {"model_id": "t1"}}}  # fmt: skip
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "t",
            "outputs": [view]}  # fmt: skip
    notebook = {"nbformat": 4, "nbformat_minor": 5, "cells": [cell, cell], "metadata": {
        "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {
            "t1": {"model_name": "AnyModel", "state": state, "buffers": tables}}}}}}  # fmt: skip
    (tmp_path / "tiny.ipynb").write_text(json.dumps(notebook))
    export_site([tmp_path / "tiny.ipynb"], tmp_path / "site", log=lambda _line: None)
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto((tmp_path / "site" / "tiny.html").as_uri())
        page.wait_for_selector("body[data-gk-site=ready]")
        views = page.locator(".gk-site-widget > .tiny-root")
        assert views.count() == 2
        assert views.locator(".tiny-out").all_inner_texts() == ["0 8 3 1", "0 8 3 1"]
        views.first.locator(".tiny-add").click()
        assert views.locator(".tiny-out").all_inner_texts() == ["1 8 3 1", "1 8 3 1"]
        colour = views.first.locator(".tiny-out").evaluate("(e) => getComputedStyle(e).color")
        assert colour == "rgb(1, 2, 3)"
        lines = page.locator(".gk-site-kernel-line")
        assert lines.count() == 2 and not lines.first.is_visible()
        views.first.locator(".tiny-ask").click()
        assert lines.all_inner_texts() == [OFFLINE_NOTE, OFFLINE_NOTE]  # in both views
        assert errors == []
    finally:
        page.close()


@pytest.mark.parametrize("name", PREDICT_LESSONS)
def test_no_predict_gives_its_answer_before_the_commit(open_page, name: str) -> None:
    """The page shows every cell's output, yet nothing after a Predict is on screen before its
    guess is locked in, and the cells follow once it is (the site plays the Predict itself)."""
    opened = open_page(name, unfold=False)
    records = walk(opened.page)
    assert records, f"{name} has no Predict on the site"
    assert spoilers(records, f"{name} on the static site") == []
    assert opened.page.locator(".gk-unfold-hidden").count() == 0, "a cell stayed hidden"


def test_script_planted_in_markdown_or_a_file_name_never_runs(browser, tmp_path) -> None:
    """A page whose markdown, code output and notebook's name carry script: opened from disk, none
    of it runs (each planted piece would set window.__pwned), and its link still leads to it."""
    from gradkit.cli.site import export_site

    planted = (
        "# Planted\n\n<script>window.__pwned = 1</script>\n\n"
        '<img src="missing.png" onerror="window.__pwned = 2"> <svg onload="window.__pwned = 3">'
        '</svg> <a href="javascript:window.__pwned = 4" id="bad">link</a>\n'
    )
    cell = {"cell_type": "markdown", "metadata": {}, "source": planted}
    shown = (
        '<script>window.__pwned = 6</script><img src="missing.png" onerror="window.__pwned = 7">'
        '<details open ontoggle="window.__pwned = 8">x</details>'
    )
    output = {"output_type": "display_data", "metadata": {}, "data": {"text/html": shown}}
    ran = {"cell_type": "code", "metadata": {}, "source": "show()", "outputs": [output]}
    ran["execution_count"] = 1
    notebook = {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [cell, ran]}
    name = 'x" autofocus onfocus="window.__pwned = 5" y="'
    (tmp_path / f"{name}.ipynb").write_text(json.dumps(notebook))
    export_site([tmp_path / f"{name}.ipynb"], tmp_path / "site", log=lambda _line: None)
    page = browser.new_page()
    try:
        page.goto((tmp_path / "site" / "index.html").as_uri())
        page.locator(".gk-site-lessons a").first.focus()
        page.locator(".gk-site-lessons a").first.click()
        page.wait_for_selector("h1")
        assert page.url.endswith(".html") and "Planted" in page.inner_text("h1")
        page.locator("main a", has_text="link").click()
        page.wait_for_function("[...document.images].every((i) => i.complete)")  # errors fired
        assert page.evaluate("window.__pwned") is None
    finally:
        page.close()
