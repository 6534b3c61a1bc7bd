"""The widget base: the eps rule, the page's state never trusted, errors shown, scenes, bundles."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import ipywidgets as widgets
import pytest

from gradkit._args import EPS_GRID
from gradkit._palette import PALETTE
from gradkit.widgets import EpsilonLab, ExercisePanel, GradcheckLab, SlopeExplorer
from gradkit.widgets.base import bundle, eps, guard, schedule, tables
from gradkit.widgets.base.controls import grid_position, grid_value
from gradkit.widgets.base.guard import InputError
from gradkit.widgets.base.rows import slider, toggle
from tests.widgets.page_messages import page_sends
from tools import js_fixtures

WIDGETS = Path(bundle.__file__).parents[1]


# ------------------------------------------------------------------------------- the eps rule


@pytest.mark.parametrize("value", [math.nan, -1.0, 0.0, 1e-20, 5.0, math.inf])
def test_one_eps_rule_refuses_what_no_control_can_show(value):
    with pytest.raises(ValueError, match=r"eps"):
        eps.eps_state(value)


def test_eps_state_keeps_a_value_off_the_grid_exactly():
    assert eps.eps_state(1e-6) == {"eps": EPS_GRID.index(1e-6), "eps_exact": None}
    assert eps.eps_state(3e-7) == {"eps": EPS_GRID.index(2e-7), "eps_exact": 3e-7}
    assert eps.eps_of(eps.eps_state(3e-7)) == 3e-7


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ("1e-6", "must be a number"),
        (True, "must be a number"),
        (-1e-6, "finite number > 0"),
        (0.0, "finite number > 0"),
        (1e-20, "outside"),
        (math.nan, "finite number > 0"),
    ],
)
def test_an_eps_the_page_sends_is_checked_with_gradkits_words(sent, message):
    with pytest.raises(InputError, match=message):
        eps.page_eps(sent)
    assert eps.page_eps(3e-7) == 3e-7 and eps.page_eps(1) == 1.0


def test_the_javascript_fixtures_are_what_python_gives_now():
    """tests/js/*.test.mjs check the browser against these files; they must be Python's own (the
    same text or, where another zlib compresses the same tables otherwise, the same content)."""
    for name in js_fixtures.FIXTURE_MAKERS:
        committed = (js_fixtures.FIXTURES / name).read_text(encoding="utf-8")
        fresh = js_fixtures.render(name)
        assert committed == fresh or js_fixtures.meaning(committed) == js_fixtures.meaning(fresh), (
            f"tests/js/fixtures/{name} is stale: run python tools/js_fixtures.py"
        )


def test_the_javascript_fixtures_stay_small():
    """Issue 37: the fixtures together stay under js_fixtures.FIXTURES_MAX_BYTES (a few states of
    a scene each, not all its numbers), so that a change to them can be read in a diff."""
    sizes = {p.name: p.stat().st_size for p in sorted(js_fixtures.FIXTURES.iterdir())}
    total = sum(sizes.values())
    assert total < js_fixtures.FIXTURES_MAX_BYTES, (
        f"tests/js/fixtures holds {total} bytes, over {js_fixtures.FIXTURES_MAX_BYTES}: {sizes}"
    )


# -------------------------------------------------------------------------------- bundles


def test_bundles_join_modules_without_imports_or_exports():
    text = bundle.strip_module(
        'import { a, b } from "./x.js";\nimport {\n  c,\n} from "../y.js";\n'
        "export function f() {}\nexport const k = 1;\nexport { h };\nconst z = 2;\n"
    )
    assert "import" not in text and "export" not in text
    assert "function f() {}" in text and "const k = 1;" in text and "const z = 2;" in text


def test_bundles_drop_whole_lines_and_keep_the_rest_as_written():
    """Only an import or export at a line's start goes (an import with its lines, an export list
    with its line, the keyword alone before a declaration); the first line and the last count."""
    source = (
        'import { a } from "./x.js";\nimport {\n  c,\n} from "../y.js";\n\n'
        "export async function f() {}\nexport { h };\nexport{ g }\n  export const inner = 1;\n"
        'const s = "import x from y;";\nexport let k = 1; // export const no\nexport default k;\n'
        'import { last } from "./z.js";'
    )
    assert bundle.strip_module(source) == (
        '\nasync function f() {}\n  export const inner = 1;\nconst s = "import x from y;";\n'
        'let k = 1; // export const no\nexport default k;\nimport { last } from "./z.js";'
    )


def check_bundle(source: str, need_node: bool = False) -> None:
    """A family's bundle (one ES module) defines each top-level name once and parses in node
    (where node is installed; ``need_node``: it must be)."""
    names = re.findall(
        r"(?m)^(?:async\s+)?(?:function|const|let|class)\s+([A-Za-z_$][\w$]*)", source
    )
    repeated = sorted({n for n in names if names.count(n) > 1})
    assert not repeated, f"names defined twice in the bundle: {repeated}"
    if need_node or shutil.which("node"):
        done = subprocess.run(
            ["node", "--input-type=module", "--check"],
            input=source,
            text=True,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr


def test_each_bundle_defines_every_top_level_name_once_and_parses():
    source = SlopeExplorer._esm
    check_bundle(source)
    tail = source[source.rindex("export default {") :]
    assert "initialize: (args) => initialize(args)," in tail  # once per model: what views share
    assert "render: (args) => render(args, slopeView)," in tail
    # a page with no kernel: the family's view answers for the model the site plays
    assert "standIn: (model, refused) => standIn(model, slopeView, refused)," in tail
    assert tail.rstrip().endswith("};")


def test_theme_holds_the_palette_and_follows_the_notebook_theme():
    css = (WIDGETS / "base" / "theme.css").read_text(encoding="utf-8")
    for name, value in PALETTE.items():
        assert f"--gk-{name}: {value};" in css, name
    assert "var(--jp-layout-color0" in css and "var(--jp-ui-font-color0" in css
    assert SlopeExplorer._css == css


# --------------------------------------------------------------------- the page's state


def test_the_page_changes_only_the_keys_it_changed(make):
    w = make(SlopeExplorer)
    page_sends(w, dtype="float32")
    assert w.dtype_buttons.value.is_floating_point and w.state["dtype"] == "float32"
    page_sends(w, scheme="forward")  # only the value changed travels: dtype stays
    assert w.state["dtype"] == "float32" and w.state["scheme"] == "forward"


def test_each_value_is_a_typed_trait_declared_on_the_class(make):
    """ipywidgets syncs one trait per value, declared on the class under the page's name (none
    made at run time), each with its type and its help; the spec lists the names."""
    w = make(SlopeExplorer)
    names = w.spec["state"]
    assert set(names) == set(w.state) >= {"x", "eps", "eps_exact", "dtype", "scheme", "panels"}
    # the class's own: a trait made at run time (add_traits) would be the instance's alone
    assert set(SlopeExplorer.class_traits(state=True)) == set(w.traits(state=True)) == set(names)
    assert all(name in w.keys for name in names)  # synced: ipywidgets sends them
    assert all(w.trait_metadata(name, "help") for name in names)  # each says what it holds
    kinds = {name: type(w.traits()[name]).__name__ for name in names}
    assert kinds["x"] == "Int" and kinds["eps"] == "Int" and kinds["dtype"] == "Enum"
    assert kinds["eps_exact"] == "Float" and kinds["panels"] == "List"


def test_a_control_needs_its_trait_declared(make):
    """A maker registers a control on a trait the class declares: none declared, a TypeError
    names the class and the line to add."""
    w = make(SlopeExplorer)
    with pytest.raises(TypeError, match=r"SlopeExplorer has no state trait 'colour'.*Unicode\("):
        toggle(w, "colour", ["red", "blue"], value="red")
    with pytest.raises(TypeError, match=r"'level'.*traitlets\.Int\("):
        slider(w, "level", value=1.0, origin=0.0, step=1.0, lo=0, hi=3)
    assert "colour" not in w.state and "level" not in w.state


@pytest.mark.parametrize(
    ("family", "args", "handle", "words"),
    [
        (
            ExercisePanel,
            ("cube", {}),
            "hint_button",
            "ExercisePanel: 'hint' is a button the page presses; from Python set w.hints_shown "
            "instead",
        ),
        (
            EpsilonLab,
            (),
            "reveal_button",
            "EpsilonLab: 'reveal' is a button the page presses; from Python set w.shown instead",
        ),
        (
            GradcheckLab,
            (),
            "retry_button",
            "GradcheckLab: 'retry' is a button the page presses; from Python set w.dtype instead",
        ),
    ],
)
def test_a_button_the_page_presses_tells_python_which_value_to_set(
    make, family, args, handle, words
):
    """The page's buttonPress is the press's one copy: Python's .click() of such a button
    changes nothing and names the value Python sets instead."""
    w = make(family, *args)
    before = w.state
    with pytest.raises(TypeError, match=f"^{re.escape(words)}$"):
        getattr(w, handle).click()
    assert w.state == before and w.error == ""


def test_panels_are_validated_by_their_rule(make):
    """``panels`` is checked by the rule of ``check_panels``: some of PANELS, in their order."""
    w = make(SlopeExplorer)
    w.panels = ["zoom", "curve"]
    assert w.panels == ["curve", "zoom"]
    for bad in (["curve", "sideways"], []):
        with pytest.raises(ValueError, match="pick one or more of"):
            w.panels = bad
    assert w.panels == ["curve", "zoom"]


def test_a_refused_value_is_sent_back_as_python_has_it(make, monkeypatch):
    """The page drew a value Python refused (or wrote otherwise, by the eps rule): Python sends
    its own value of exactly those traits back, so the page never keeps showing what Python
    does not hold."""
    w = make(SlopeExplorer)
    sent: list = []  # the values sent back (a list of traits; one trait alone is Python's own)
    monkeypatch.setattr(
        w, "send_state", lambda key=None: sent.append(key) if isinstance(key, list) else None
    )
    page_sends(w, x=3.5, dtype="float32")  # one bad value: the message is refused whole
    assert sent == [["x", "dtype"]] and w.x == 0 and w.state["dtype"] == "float64"
    sent.clear()
    page_sends(w, eps=3, eps_exact=EPS_GRID[27])  # typed on the grid: eps is its position
    assert w.state["eps"] == 27 and w.state["eps_exact"] is None
    assert sent == [["eps", "eps_exact"]], sent
    sent.clear()
    page_sends(w, scheme="forward")  # a good value: nothing comes back
    assert sent == []


def test_a_page_may_change_only_the_values(make, monkeypatch):
    """A tampered page sending the scene, the tables, the error area or the module: none of it
    lands (Python's readouts read what Python sent, torch's numbers), and Python's own is sent
    back; a value in the same message still lands."""
    w = make(SlopeExplorer)
    scene, tables, numeric, esm = w.scene, w.tables, w.numeric, w._esm
    sent: list = []
    monkeypatch.setattr(
        w, "send_state", lambda key=None: sent.append(key) if isinstance(key, list) else None
    )
    forged = {"scene": {"key": "forged"}, "tables": b"\0" * 8, "error": "<b>hi</b>", "_esm": "x"}
    w.set_state({**forged, "panels": ["curve"]})
    assert (w.scene, w.tables, w.numeric, w._esm) == (scene, tables, numeric, esm)
    assert w.error == "" and w.panels == ["curve"]
    assert sorted(sent[0]) == sorted(forged), sent


def test_values_changed_together_notify_each_trait_once(make):
    """A message with several values notifies each trait's observers once, after all of them
    landed (traitlets' observe is the listener system)."""
    w = make(SlopeExplorer)
    heard: list = []
    w.observe(lambda change: heard.append((change["name"], dict(w.state))), names=w.state_names())
    page_sends(w, eps=10, eps_exact=3e-7, dtype="float32")
    assert sorted(name for name, _ in heard) == ["dtype", "eps", "eps_exact"]
    assert all(st["eps_exact"] == 3e-7 and st["dtype"] == "float32" for _, st in heard)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"eps": 999}, "eps position 999"),
        ({"eps": -1}, "eps position -1"),
        ({"eps": 3, "eps_exact": 5.0}, "outside the range"),
        ({"scheme": "sideways"}, "must be one of"),
        ({"dtype": "float8"}, "must be one of"),
        ({"x": 10**9}, "x=1000000000: no position of the x slider"),
        ({"x": 21}, "x=21: no position of the x slider, which takes a whole number -100 … 20"),
        ({"x": -101}, "x=-101: no position"),
        ({"x": 0.7123}, "x=0.7123: no position"),
        ({"x": 3.0}, "x=3.0: no position"),
        ({"x": True}, "x=True"),
        ({"panels": ["nope"]}, "pick one or more"),
    ],
)
def test_a_bad_page_state_is_refused_with_a_message(make, changes, message):
    w = make(SlopeExplorer)
    before = dict(w.state)
    page_sends(w, **changes)
    assert message in w.error
    assert {k: w.state[k] for k in changes} == {k: before[k] for k in changes}
    page_sends(w, eps=EPS_GRID.index(1e-4))  # the widget keeps working
    assert w.error == "" and w.eps_slider.value == 1e-4


def test_x_travels_as_its_position_and_python_reads_its_value(make):
    """The page sends x's whole position; Python reads the value there (the slider's grid), so
    numeric and analytic are measured at that one x. A position outside lo … hi, or a value
    in place of a position, is refused and changes nothing shown."""
    w = make(SlopeExplorer, f="sin(x)", x=0.7)
    spec = w.x_slider.spec
    assert w.x == 0 and w.x_slider.value == w.x_value == 0.7
    numeric, analytic = w.numeric, w.analytic
    for bad in (0.75, spec["hi"] + 1, spec["lo"] - 1):
        page_sends(w, x=bad)
        assert "no position of the x slider" in w.error
        assert (w.x, w.numeric, w.analytic) == (0, numeric, analytic)
    page_sends(w, x=5)  # what the page's slider sends at position 5
    assert w.error == "" and w.x == 5
    assert w.x_value == grid_value(spec, 5) == spec["values"][5 - spec["lo"]]
    assert w.analytic == pytest.approx(math.cos(w.x_value), rel=1e-6)
    with pytest.raises(ValueError, match=r"x=47: no position of the x slider.*-74 … 46"):
        w.x = spec["hi"] + 1  # Python's own setter is held to the same range
    assert w.x == 5


def test_a_python_handle_snaps_a_value_to_the_nearest_position(make):
    """Python owns the grid's rule (base/controls.py): setting a handle's ``.value`` snaps to
    the nearest position, a value half-way between two going to the even one (Math.round would
    give 3 for 2.5 and -1 for -1.5); the trait holds the position."""
    grid = {"origin": 0.0, "step": 0.5}
    assert [grid_position(grid, v) for v in (1.25, 0.75, -0.75, 1.3)] == [2, 2, -2, 3]
    from gradkit.widgets import JacobianBuilder

    w = make(JacobianBuilder, n=3)
    for tie, even in ((4.5, 4), (5.5, 6)):
        w.n_slider.value = tie
        assert w.n == even and w.n_slider.value == grid_value(w.n_slider.spec, even)
    x = make(SlopeExplorer, x=2.0)
    x.x_slider.value = 2.0 + 0.05 * 3.4  # 3.4 steps up: position 3, x as the slider shows it
    assert x.x == 3 and x.x_value == x.x_slider.spec["values"][3 - x.x_slider.spec["lo"]]


def test_a_fractional_n_from_the_page_is_refused(make):
    from gradkit.widgets import JacobianBuilder

    w = make(JacobianBuilder, n=4)
    page_sends(w, n=4.5)
    assert "n=4.5: no position of the n slider, which takes a whole number 1 … 64" in (w.error)
    assert w.state["n"] == 4 and w.n_slider.value == 4
    page_sends(w, n=5)
    assert w.error == "" and w.n_slider.value == 5 == w.n


@pytest.mark.parametrize(("value", "end"), [(1e308, "hi"), (-1e308, "lo"), (1e300, "hi")])
def test_a_huge_slider_value_from_python_is_the_sliders_end(make, value, end):
    w = make(SlopeExplorer, f="sin(x)", x=0.7)
    w.x_slider.value = value  # no OverflowError: clamped to the slider's end
    spec = w.x_slider.spec
    assert w.x == spec[end] and w.x_value == spec["origin"] + spec[end] * spec["step"]
    assert w.error == ""
    for bad in (float("inf"), float("nan")):
        with pytest.raises(ValueError, match="x must be a finite number"):
            w.x_slider.value = bad


def test_callback_errors_land_in_the_error_area(make):
    def fragile(v):
        if float(v.detach().reshape(-1)[0]) > 2.5:
            raise RuntimeError("boom at large x")
        return v * v

    w = make(SlopeExplorer, f=fragile, x=2.0)
    for _ in range(12):
        page_sends(w, x=w.x + 1)
    assert "RuntimeError: boom at large x" in w.error
    assert isinstance(w.last_error, RuntimeError)
    assert "traceback" in w.error
    w.x_slider.value = 1.0
    assert w.error == "" and w.numeric == pytest.approx(2.0)


def test_the_page_alone_steps_and_reads_typed_eps_python_sets_values(make):
    """÷10, ×10, − / + and the typed box have one copy, the page's (eps.js, controls.js):
    from Python they raise a TypeError naming the value to set, and change nothing."""
    w = make(SlopeExplorer)
    before = dict(w.state)
    presses = [w.eps_down.click, w.eps_up.click, w.x_down.click, w.x_up.click]
    for press, instead in zip(presses, ["w.eps_slider.value"] * 2 + ["w.x"] * 2, strict=True):
        with pytest.raises(TypeError, match=re.escape(f"presses; from Python set {instead}")):
            press()
    with pytest.raises(TypeError, match=r"'eps_text' is a box the page reads; from Python set w\."):
        w.eps_text.value = "3e-7"
    assert w.state == before and w.eps_text.value == "0.001"
    w.eps_slider.value = 3e-7  # any eps in range, kept exactly, as a typed one is
    assert w.eps_text.value == "3e-07" and (w.eps, w.eps_exact) == (EPS_GRID.index(2e-7), 3e-7)


def test_panels_are_checked_and_can_change(make):
    w = make(SlopeExplorer, panels=["zoom"])
    assert w.panels == ["zoom"] and w.state["panels"] == ["zoom"]
    w.panels = ["zoom", "curve"]
    assert w.panels == ["curve", "zoom"]  # always in the widget's own order
    for bad in ([], ["nope"], ["curve", "chart"]):
        with pytest.raises(ValueError, match="pick one or more of"):
            SlopeExplorer(panels=bad)


# -------------------------------------------------------------------------------- lifecycle


def test_rerunning_a_cell_closes_the_previous_widgets(monkeypatch):
    context = {"value": ("cell-a", "run-1", ())}
    monkeypatch.setattr(guard, "_cell_context", lambda: context["value"])
    first, second = SlopeExplorer(), SlopeExplorer()  # one run may build several widgets
    context["value"] = ("cell-b", "run-2", ())
    other = SlopeExplorer()  # another cell: nothing closes
    assert not first.closed
    context["value"] = ("cell-a", "run-3", ())  # cell a re-run
    again = SlopeExplorer()
    assert first.closed and second.closed and not again.closed and not other.closed
    context["value"] = ("cell-c", "run-4", ("cell-b",))  # cell b deleted
    last = SlopeExplorer()
    assert other.closed and not last.closed
    for w in (again, last):
        w.close()
        w.close()  # twice is fine
        assert w.closed and w.comm is None
    guard._BY_CELL.clear()


def test_widgets_compose_in_ipywidgets_layouts(make):
    w = make(SlopeExplorer)
    assert isinstance(w, widgets.DOMWidget)
    widgets.VBox([w]).close()
    assert {"gradkit-widget", "gradkit-slope-explorer"} <= set(w._dom_classes)
    assert w.spec["css"] == "gradkit-slope-explorer"  # the page adds it in every front end


def test_later_runs_after_the_first_picture_and_marks_busy(make):
    with schedule.deferring(True):
        waiting = schedule.pending()
        w = make(SlopeExplorer)
        assert w.busy and schedule.pending() == waiting + 1
        assert w.scene["window"][1] == 1  # the first picture: one x position
        schedule.run_pending()
    assert not w.busy and w.scene["window"][1] == 2 * SlopeExplorer.RADIUS + 1


def test_tables_pack_and_unpack_float64_and_float32():
    import numpy as np

    buffer, layout = tables.pack({"a": np.arange(3.0), "b": np.ones((2, 2), np.float32)})
    assert layout["b"] == {"offset": 24, "shape": [2, 2], "dtype": "float32"}
    back = tables.unpack(buffer, layout)
    assert back["a"].tolist() == [0.0, 1.0, 2.0] and back["b"].dtype == np.float32
    assert tables.json_safe({"v": [math.nan, 1.0, math.inf]}) == {"v": [None, 1.0, None]}


def test_a_widget_reaches_the_page_in_two_messages(make, monkeypatch):
    """A constructor's traits go to the page held together: after the comm opens, the spec
    and the root classes in one message, everything the constructor set in one more (the work
    after the cell, the positions around x, comes later)."""
    sent: list[list[str]] = []
    real = widgets.Widget._send

    def counted(self, msg, buffers=None):
        if getattr(self, "comm", None) is not None and isinstance(self, SlopeExplorer):
            sent.append(sorted(msg.get("state") or {}))
        return real(self, msg, buffers)

    monkeypatch.setattr(widgets.Widget, "_send", counted)
    with schedule.deferring(True):
        w = make(SlopeExplorer)
    w.close()
    schedule.run_pending()  # the closed widget's work after the cell: none left for later tests
    assert schedule.pending() == 0
    assert len(sent) == 2, sent
    # (x starts at position 0, the trait's default: the comm's opening state holds it)
    assert {"spec", "_dom_classes"} <= set(sent[0]) and {"scene", "eps"} <= set(sent[1])


@pytest.mark.parametrize("name", ["id", "key", "tables", "for"])
def test_a_scene_may_not_hold_what_send_scene_writes(make, name):
    """A family's own field named as one send_scene writes would be overwritten without a word
    (a Predict's question id under "id" became the count of scenes sent): refused instead."""
    w = make(SlopeExplorer)
    with pytest.raises(ValueError, match=f"may not hold .*'{name}'"):
        w.send_scene({name: "mine"})
