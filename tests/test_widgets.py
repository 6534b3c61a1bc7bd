"""The widgets, driven headless: set control values, read drawn data, tables and readout text.

The browser draws from the same tables and shows the same readout strings; these tests check the
Python side of that contract (tests/browser checks the drawing in chromium).
"""

from __future__ import annotations

import io
import math
import random
import re
import sys
from pathlib import Path

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from gradkit._args import EPS_GRID
from gradkit.widgets import (
    EpsilonLab,
    FloatRuler,
    Quiz,
    _base,
    _format,
    _stage,
    _theme,
)
from gradkit.widgets._epsilon_table import scene_cell, table_html


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&nbsp;", " ")


def _slope(line) -> float:
    x, y = line.get_data()
    return (y[-1] - y[0]) / (x[-1] - x[0])


# ------------------------------------------------------------------------- SlopeExplorer


# ---------------------------------------------------------------------------- EpsilonLab


def test_epsilon_lab_shows_the_seed_point_at_gradchecks_eps(make):
    w = make(EpsilonLab)
    assert w.function_dropdown.value == "x³" and w.x_slider.value == 0.5
    assert w.eps_slider.value == 1e-6
    tolerance = w.artists.tolerance.get_data()[1][0]
    eps, y32 = w.artists.curves["float32"].get_data()
    _, y64 = w.artists.curves["float64"].get_data()
    k = int(np.argmin(np.abs(np.log10(eps) + 6)))
    assert y32[k] > tolerance > y64[k]
    assert "fails" in _text(w.error_readout.value)
    assert "13" in _text(w.error_readout.value)  # about 13 times the tolerance
    table = _text(w.table_readout.value)
    assert re.search(r"float64.*passes", table) and re.search(r"float32.*fails", table)
    # the highlighted dtype is drawn thicker
    assert w.artists.curves["float32"].get_linewidth() > w.artists.curves["float64"].get_linewidth()
    # the marker sits on the float32 error measured at exactly this eps
    assert w.artists.eps_marker.get_data()[1][0] == pytest.approx(
        float(w.at_eps["float32"].error[0])
    )
    # float16 eps below its smallest number underflows: marked, not NaN on the curve
    assert len(w.artists.underflow["float16"].get_data()[0]) > 0
    stars = w.artists.optima["float32"].get_data()[0]
    assert stars[0] == pytest.approx(1.55e-3, rel=0.05)
    assert w.artists.ax.get_xscale() == "log"


def test_epsilon_lab_controls(make):
    w = make(EpsilonLab, f=torch.exp, x=1.0, dtype="float64")
    assert w.function_dropdown.value == "your exp"
    assert "float64 error" in _text(w.error_readout.value)
    w.eps_text.value = "3e-3"
    assert w.eps_slider.value == 3e-3
    assert list(w.artists.eps_line.get_xdata()) == [3e-3, 3e-3]
    w.dtype_buttons.value = torch.bfloat16
    assert w.artists.curves["bfloat16"].get_alpha() == 1.0
    assert w.artists.curves["float64"].get_alpha() < 1.0
    w.theory_checkbox.value = False
    assert not w.artists.rounding.get_visible()
    w.function_dropdown.value = "x²"  # no truncation arm: no theoretical optimum
    assert "no best eps" in _text(w.optimal_readout.value)
    w.scheme_buttons.value = "forward"
    assert w.sweep.scheme == "forward" and set(w.sweeps) == {"central", "forward"}
    assert w.error_area.value == ""


# ---------------------------------------------------------------------------- FloatRuler


def test_float_ruler_shows_where_x_plus_minus_eps_land(make):
    w = make(FloatRuler)
    r = w.ruler
    assert w.dtype_buttons.value is torch.float32
    assert r.ulp == 2.0**-24
    assert r.upper == pytest.approx(0.5 + 17 * 2.0**-24)
    _, upper = w.artists.landed.get_data()[0]
    assert upper == pytest.approx((r.upper - 0.5) / 1e-6)
    assert w.artists.zoom_right.get_visible()  # x + eps lands beyond the 8-ulp zoom
    assert "eps is 16.8 ulps" in _text(w.ulp_readout.value)
    assert "0.5000010132789612" in _text(w.landing_readout.value)
    assert "1.013" in _text(w.step_readout.value)
    assert "three different float32" in _text(w.collapse_readout.value)
    # just above a power of two the spacing below is half: ticks at -0.5, -1, ...
    assert -0.5 in list(w.artists.zoom_ticks.get_data()[0])

    w.eps_slider.value = 1e-8
    assert w.ruler.collapsed
    assert "exactly 0" in _text(w.collapse_readout.value)
    assert list(w.artists.landed.get_data()[0]) == [0.0, 0.0]

    w.dtype_buttons.value = torch.float64
    w.eps_slider.value = 1e-6
    assert w.artists.dense.get_visible()
    assert w.artists.dense_text.get_visible()
    assert "eps is 9.01e+09 ulps" in _text(w.ulp_readout.value)

    w.dtype_buttons.value = torch.float16
    w.eps_text.value = "1e-8"
    assert w.ruler.underflow
    assert "rounds to 0" in _text(w.collapse_readout.value)
    w.x_slider.value = 0.1
    assert "stored as 0.0999755859375" in _text(w.x_readout.value)
    assert w.error_area.value == ""


# ---------------------------------------------------------------------------------- Quiz


def test_quiz_gives_immediate_feedback(make):
    q = make(
        Quiz,
        "What does gradcheck do when a backward rule is wrong?",
        ["It returns False", "It raises GradcheckError", "It fixes the rule"],
        answer=1,
        explain={"It returns False": "Only with raise_exception=False."},
    )
    assert q.correct is None and q.feedback_html.value == ""
    q.choice_buttons.value = "It returns False"
    assert q.correct is False
    assert "Not quite" in q.feedback_html.value
    assert "raise_exception=False" in q.feedback_html.value
    q.choice_buttons.value = "It raises GradcheckError"
    assert q.correct is True and q.attempts == 2
    assert "Right" in q.feedback_html.value
    assert "gradkit-verdict" in q.feedback_html._dom_classes
    assert q.figure is None


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"choices": ["a"], "answer": 0}, ValueError, "at least two"),
        ({"choices": ["a", "a"], "answer": 0}, ValueError, "distinct"),
        ({"choices": ["a", "b"], "answer": 2}, ValueError, "not an index"),
        ({"choices": ["a", "b"], "answer": "c"}, ValueError, "not one of the choices"),
        ({"choices": "ab", "answer": 0}, TypeError, "list of strings"),
        ({"choices": ["a", "b"], "answer": 0, "explain": ["x"]}, ValueError, "one per choice"),
    ],
)
def test_quiz_rejects_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        Quiz("Q?", **kwargs)


# -------------------------------------------------------------------- shared behaviour


@pytest.mark.parametrize(
    ("cls", "css"),
    [
        (EpsilonLab, "gradkit-epsilon-lab"),
        (FloatRuler, "gradkit-float-ruler"),
    ],
)
def test_widgets_carry_the_css_classes_browser_tests_use(make, cls, css):
    w = make(cls)
    assert isinstance(w, widgets.DOMWidget)  # composes in VBox, works in Voila
    widgets.VBox([w]).close()
    assert {"gradkit-widget", css} <= set(w._dom_classes)
    assert "gradkit-eps" in w.eps_slider._dom_classes
    assert "gradkit-eps-down" in w.eps_down._dom_classes
    assert "gradkit-eps-up" in w.eps_up._dom_classes
    assert "gradkit-eps-text" in w.eps_text._dom_classes
    assert "gradkit-dtype" in w.dtype_buttons._dom_classes
    assert "gradkit-error" in w.error_area._dom_classes
    # the browser builds the step buttons from the eps control's spec, with these classes
    spec = next(c for c in w.controls if c["name"] == "eps")
    assert (spec["down"]["css"], spec["up"]["css"]) == ("gradkit-eps-down", "gradkit-eps-up")
    assert len(w.readouts) >= 4 and all(r["css"].startswith("gradkit-") for r in w.readouts)
    assert w.png[:4] == b"\x89PNG"
    assert int.from_bytes(w.png[16:20], "big") == 860  # as wide as a notebook's output area
    assert w.size[0] == 860
    css_text = (Path(_base.__file__).parent / "static" / "gradkit.css").read_text()
    assert re.search(r"\.gradkit-controls \{ min-width: 320px", css_text)
    for c in w.controls:
        assert c.get("tooltip") or c.get("label") or c.get("text"), c


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def test_figures_never_enter_pyplot_and_close_frees_them():
    before = plt.get_fignums()
    built = [cls() for cls in (EpsilonLab, FloatRuler)]
    assert plt.get_fignums() == before
    for w in built:
        w.close()
        assert w.closed and w.comm is None
        w.close()  # twice is fine
    assert plt.get_fignums() == before


@pytest.mark.parametrize(
    ("cls", "control", "values"),
    [
        (EpsilonLab, "eps_slider", [1e-4, 1e-9]),
        (EpsilonLab, "dtype_buttons", [torch.float16]),
        (EpsilonLab, "scheme_buttons", ["forward"]),
        (EpsilonLab, "theory_checkbox", [False]),
    ],
)
def test_moves_along_the_table_never_render_the_static_image(make, cls, control, values):
    w = make(cls)
    renders, png = w.render_count, w.png
    for value in values:
        getattr(w, control).value = value
    w.eps_down.click()
    w.eps_up.click()
    assert w.render_count == renders and w.png is png
    assert w.error_area.value == ""
    w.x_slider.value = 1.0  # a new scene: one new static image
    assert w.render_count == renders + 1


def test_no_module_uses_ipympl():
    root = Path(_base.__file__).parents[1]
    for path in [*root.glob("widgets/*.py"), *root.glob("plots/*.py")]:
        assert "import ipympl" not in path.read_text() and "from ipympl" not in path.read_text()
    assert "ipympl" not in sys.modules or "gradkit.widgets" not in str(
        sys.modules["ipympl"].__dict__.get("__spec__")
    )


def test_theme_colours_are_the_css_variables():
    css_text = (Path(_base.__file__).parent / "static" / "gradkit.css").read_text()
    for name, value in _theme.THEME.items():
        if value.startswith("#"):
            assert f"--gk-{name}: {value};" in css_text, name


# ------------------------------------------------------------------- tables and transforms


def test_epsilon_lab_scene_strings_are_the_readouts_python_shows(make):
    w = make(EpsilonLab, f="sin(x)", x=0.7, dtypes=("float64", "float16"))
    scene = w.scene
    assert len(set(scene["strings"])) == len(scene["strings"])  # each string sent once
    rng = random.Random(12)
    for _ in range(20):
        s, d, g = rng.randrange(2), rng.randrange(2), rng.randrange(len(EPS_GRID))
        name = ("float64", "float16")[d]
        w.scheme_buttons.value = scene["schemes"][s]
        w.dtype_buttons.value = name
        w.eps_slider.value = EPS_GRID[g]
        sent = scene_cell(scene, s, scene["dtypes"].index(name), g)
        cells = [scene_cell(scene, s, k, g) for k in range(len(scene["dtypes"]))]
        table = table_html([{g: c} for c in cells], g, w.shown, name)  # as the browser does
        assert w.readout_html == {**sent["r"], "table": table}, (s, name, g)


def test_scene_renders_match_a_full_draw(make):
    from PIL import Image

    for w in (make(EpsilonLab),):
        w.x_slider.value = 1.3  # a second scene: drawn over the cached background
        cached = np.asarray(Image.open(io.BytesIO(w.png)))
        full = np.asarray(Image.open(io.BytesIO(_stage.Stage.png(w._stage))))
        assert cached.shape == full.shape
        differ = int(np.any(cached != full, axis=-1).sum())
        assert differ == 0, f"{type(w).__name__}: {differ} pixels differ from a full draw"


def test_eps_is_shown_exactly_as_on_the_grid(make):
    w = make(EpsilonLab)
    w.eps_down.click()  # 1e-6 / 10
    assert w.eps == 1e-07 and w.eps_text.value == "1e-07"
    assert re.fullmatch(r"eps\s+1e-07 = 0\.0000001", _text(w.eps_readout.value))
    labels = next(c for c in w.controls if c["name"] == "eps")["labels"]
    assert labels[w.values["eps"]] == "1e-07"
    assert all(float(label) == value for label, value in zip(labels, EPS_GRID, strict=True))


def test_transforms_map_data_to_the_pixels_matplotlib_drew(make):
    for w, points in (
        (make(EpsilonLab), {"main": [(1e-9, 1e-5), (0.1, 1e-2)], "strip": [(1e-3, 2.0)]}),
    ):
        height = w.size[1]
        for spec in w.axes:
            ax = w._stage.axes[spec["name"]]
            left, top, width, hgt = spec["box"]
            for x, y in points.get(spec["name"], []):
                X, Yb = ax.transData.transform((x, y))

                def unit(v, lim, scale):
                    if scale == "log":
                        return (math.log10(v) - math.log10(lim[0])) / (
                            math.log10(lim[1]) - math.log10(lim[0])
                        )
                    return (v - lim[0]) / (lim[1] - lim[0])

                px = left + unit(x, spec["xlim"], spec["xscale"]) * width
                py = top + (1 - unit(y, spec["ylim"], spec["yscale"])) * hgt
                assert px == pytest.approx(X, abs=1e-6)
                assert py == pytest.approx(height - Yb, abs=1e-6)


def test_epsilon_lab_reveals_the_half_precisions(make):
    w = make(EpsilonLab, dtypes=("float64", "float32"))
    assert w.shown == ["float64", "float32"]
    table = _text(w.table_readout.value)
    assert "float32" in table and "float16" not in table
    assert np.isnan(w.artists.curves["float16"].get_data()[1]).all()  # not drawn yet
    assert w.reveal_button.spec["set"] == ["shown", ["float64", "float32", "float16", "bfloat16"]]
    w.reveal("float16", "bfloat16")
    assert w.shown == ["float64", "float32", "float16", "bfloat16"]
    assert "bfloat16" in _text(w.table_readout.value)
    assert not np.isnan(w.artists.curves["float16"].get_data()[1]).all()
    # the strip lists only the shown dtypes, one row each, labelled by the browser
    strip = w._stage.axes["strip"]
    assert not any(tick.label1.get_visible() for tick in strip.yaxis.get_major_ticks())
    w3 = make(EpsilonLab, dtypes=("float64", "float16"))
    marks = w3.artists.underflow
    assert set(marks["float16"].get_data()[1]) == {1}  # the second shown row, not float16's 2
    assert len(marks["bfloat16"].get_data()[0]) == 0 and len(marks["float32"].get_data()[0]) == 0
    w3.reveal()
    assert set(marks["float16"].get_data()[1]) == {2}
    w2 = make(EpsilonLab, dtypes=("float64",))
    w2.reveal_button.click()
    assert len(w2.shown) == 4
    with pytest.raises(ValueError, match="dtypes"):
        EpsilonLab(dtypes=("float8",))


def test_epsilon_lab_marks_rounding_to_zero_off_the_error_axis(make):
    w = make(EpsilonLab)
    marks = w.artists.underflow["float16"]
    assert marks.axes is not w.artists.ax  # a strip below the plot, not the error axis
    assert len(marks.get_data()[0]) > 0
    assert set(marks.get_data()[1]) == {2}  # float16's row of the strip


@pytest.mark.parametrize(("f", "x", "words"), [("log(x)", 0.0, "−∞"), ("exp(x)", 800.0, "∞")])
def test_epsilon_lab_outside_the_domain_gives_a_message(make, f, x, words):
    before = plt.get_fignums()
    w = make(EpsilonLab, f=f, x=x)
    assert "Could not update" in w.error_area.value and words in w.error_area.value
    assert "Traceback" not in w.error_area.value and "traceback" not in w.error_area.value
    assert w.png[:4] == b"\x89PNG"  # the empty picture is still drawn
    w.x_slider.value = 1.0
    assert w.error_area.value == "" and w.sweep is not None
    assert plt.get_fignums() == before


# ------------------------------------------------------------------------ monkey tests


def _monkey(w, actions, n: int, seed: int, allowed_error=lambda w: False) -> None:
    """Random control changes: valid ones raise nothing, bad typing gives a message."""
    rng = random.Random(seed)
    before = plt.get_fignums()
    bad = 0
    for step in range(n):
        name, act, valid = rng.choice(actions)
        previous = w.last_error
        act(rng)
        if valid is None:  # the action checks itself
            continue
        if valid:
            fresh = w.last_error is not previous
            assert not fresh or allowed_error(w), (step, name, w.last_traceback)
        elif w.last_error is not previous:
            bad += 1
            assert isinstance(w.last_error, _format.InputError)
            assert "must be" in w.error_area.value
        if step % 250 == 249:
            w._stage.flush()  # render now and then: drawing must not fail either
    assert bad > 0  # the bad inputs were exercised
    assert plt.get_fignums() == before


def _eps_actions(w):
    return [
        ("eps", lambda r: setattr(w.eps_slider, "value", 10 ** r.uniform(-12, 0)), True),
        ("eps down", lambda r: w.eps_down.click(), True),
        ("eps up", lambda r: w.eps_up.click(), True),
        (
            "eps text",
            lambda r: setattr(w.eps_text, "value", f"{10 ** r.uniform(-12, 0):.2e}"),
            True,
        ),
        (
            "bad text",
            lambda r: setattr(w.eps_text, "value", r.choice(["x", "1e-30", "", "5"])),
            False,
        ),
        ("dtype", lambda r: setattr(w.dtype_buttons, "value", r.choice(_DTYPES)), True),
    ]


def _x_actions(w):
    return [
        (
            "x",
            lambda r: setattr(w.x_slider, "value", r.uniform(w.x_slider.min, w.x_slider.max)),
            True,
        ),
        ("x down", lambda r: w.x_down.click(), True),
        ("x up", lambda r: w.x_up.click(), True),
    ]


_DTYPES = [torch.float64, torch.float32, torch.float16, torch.bfloat16]


def _function_and_scheme_actions(w):
    """Random picks of the function dropdown and the scheme buttons."""
    return [
        (
            "f",
            lambda r: setattr(w.function_dropdown, "value", r.choice(w.function_dropdown.options)),
            True,
        ),
        (
            "scheme",
            lambda r: setattr(w.scheme_buttons, "value", r.choice(["central", "forward"])),
            True,
        ),
    ]


def test_monkey_epsilon_lab(make):
    w = make(EpsilonLab)
    actions = (
        _eps_actions(w)
        + _x_actions(w)
        + _function_and_scheme_actions(w)
        + [("theory", lambda r: setattr(w.theory_checkbox, "value", r.random() < 0.5), True)]
    )

    def outside_the_domain(w) -> bool:  # log(x) at x <= 0: a clear message, no traceback
        return isinstance(w.last_error, _format.InputError) and "domain" in str(w.last_error)

    _monkey(w, actions, 1000, seed=2, allowed_error=outside_the_domain)


def test_monkey_float_ruler(make):
    w = make(FloatRuler)
    _monkey(w, _eps_actions(w) + _x_actions(w), 1000, seed=3)


def test_monkey_quiz(make):
    q = make(Quiz, "Q?", ["a", "b", "c"], "b", explain=["no", "yes", "no"])
    before = plt.get_fignums()
    rng = random.Random(5)
    for _ in range(1000):
        choice = rng.choice(["a", "b", "c", None])
        q.choice_buttons.value = choice
        assert q.correct == (None if choice is None else choice == "b")
        assert q.error_area.value == ""
    assert plt.get_fignums() == before
