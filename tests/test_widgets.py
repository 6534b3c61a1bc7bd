"""The widgets, driven headless: set control values, read drawn data, tables and readout text.

The browser draws from the same tables and shows the same readout strings; these tests check the
Python side of that contract (tests/browser checks the drawing in chromium).
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from gradkit.widgets import (
    GradcheckLab,
    _base,
    _format,
    _theme,
)
from gradkit.widgets import _lab_ahead as gradcheck_lab_module
from gradkit.zoo import SquareFn


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&nbsp;", " ")


def _slope(line) -> float:
    x, y = line.get_data()
    return (y[-1] - y[0]) / (x[-1] - x[0])


# ------------------------------------------------------------------------- SlopeExplorer


# -------------------------------------------------------------------------- GradcheckLab


def test_gradcheck_lab_verdicts(make, quiet_gradcheck):
    w = make(GradcheckLab)
    assert w.function_dropdown.value == "SquareFn"
    assert "pass" in _text(w.verdict_html.value)
    assert "gradkit-verdict" in w.verdict_html._dom_classes
    assert w.retry_button.disabled

    w.dtype_buttons.value = torch.float32
    verdict = _text(w.verdict_html.value)
    assert "GradcheckError" in verdict and "precision" in verdict
    assert not w.retry_button.disabled
    assert "float64" in _text(w.suggestion_html.value)
    assert "requires gradient" in _text(w.message_html.value)  # torch's warning, shown
    w.retry_button.click()
    assert w.dtype_buttons.value is torch.float64
    assert "pass" in _text(w.verdict_html.value)

    w.function_dropdown.value = "WrongSquareFn"
    verdict = _text(w.verdict_html.value)
    assert "GradcheckError" in verdict and "bug" in verdict
    assert "Jacobian mismatch" in w.message_html.value
    assert "worst entry" in _text(w.worst_readout.value)
    # heatmaps: numeric diag(1, 3), analytic diag(1.5, 4.5), worst entry boxed
    np.testing.assert_allclose(np.diag(w.artists.images[0].get_array()), [1.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(np.diag(w.artists.images[1].get_array()), [1.5, 4.5])
    r, c = w.report.worst.index
    assert w.artists.worst[2].get_visible() and w.artists.worst[2].get_xy() == (c - 0.5, r - 0.5)
    assert w.error_area.value == ""


def test_gradcheck_lab_settings_and_other_entries(make, quiet_gradcheck):
    w = make(GradcheckLab, "MatmulFn")
    assert w.report.passed
    assert len(w.artists.separators) == 3  # two inputs: one line per heatmap
    w.atol_text.value = "0"
    w.rtol_text.value = "0"
    assert not w.report.passed  # nothing survives a zero tolerance
    w.atol_text.value = "lots"
    assert "atol must be a number" in w.error_area.value
    w.atol_text.value = "1e-5"
    w.rtol_text.value = "1e-3"
    assert w.error_area.value == "" and w.report.passed
    w.fast_mode_checkbox.value = True
    assert w.report.fast_mode
    w.function_dropdown.value = "UnreducedBroadcastAddFn"
    assert "RuntimeError" in _text(w.verdict_html.value)
    assert "no analytic Jacobian" in w.artists.notes[1].get_text()
    w.function_dropdown.value = "ComplexSquareFn"
    w.dtype_buttons.value = torch.float16
    assert "complex" in w.error_area.value
    w.dtype_buttons.value = torch.float32
    assert w.error_area.value == ""
    assert "precision" in _text(w.verdict_html.value)


def test_gradcheck_lab_takes_your_function(make, quiet_gradcheck):
    x = torch.tensor([0.25, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    w = make(GradcheckLab, lambda v: SquareFn.apply(v) * 3, (x,))
    assert w.function_dropdown.value == "fn (yours)"
    assert w.report.passed and w.artists.images[0].get_array().shape == (3, 3)
    w.dtype_buttons.value = torch.float32
    assert "precision" in _text(w.verdict_html.value)
    assert x.dtype is torch.float64  # the caller's tensor is untouched
    w2 = make(GradcheckLab, SquareFn)
    assert w2.function_dropdown.value == "SquareFn"
    with pytest.raises(TypeError, match="inputs= is needed"):
        GradcheckLab(lambda v: v * v)
    with pytest.raises(ValueError, match="not a zoo entry"):
        GradcheckLab("NoSuchFn")


# -------------------------------------------------------------------- shared behaviour


@pytest.mark.parametrize(
    ("cls", "css"),
    [
        (GradcheckLab, "gradkit-gradcheck-lab"),
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
    built = [cls() for cls in (GradcheckLab,)]
    assert plt.get_fignums() == before
    for w in built:
        w.close()
        assert w.closed and w.comm is None
        w.close()  # twice is fine
    assert plt.get_fignums() == before


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


_DTYPES = [torch.float64, torch.float32, torch.float16, torch.bfloat16]


def test_monkey_gradcheck_lab(make, quiet_gradcheck, monkeypatch):
    # compute ahead only the first state of each scene: the moves stay the same 1,000, each cheaper
    monkeypatch.setattr(gradcheck_lab_module, "AHEAD_BUDGET_S", 0.0)
    w = make(GradcheckLab)
    names = list(w.function_dropdown.options)

    def bad_tolerance(r) -> None:
        w.rtol_text.value = "-1"
        assert "rtol must be between" in w.error_area.value
        w.rtol_text.value = "1e-3"
        assert "rtol" not in w.error_area.value

    actions = [a for a in _eps_actions(w) if a[0] not in ("eps", "eps text")] + [
        ("eps", lambda r: setattr(w.eps_slider, "value", r.choice([1e-8, 1e-6, 1e-4, 1e-2])), True),
        ("f", lambda r: setattr(w.function_dropdown, "value", r.choice(names)), True),
        ("atol", lambda r: setattr(w.atol_text, "value", r.choice(["1e-5", "1e-3", "0"])), True),
        ("rtol", lambda r: setattr(w.rtol_text, "value", r.choice(["1e-3", "0.1", "0"])), True),
        ("bad tol", bad_tolerance, None),
        ("fast", lambda r: setattr(w.fast_mode_checkbox, "value", r.random() < 0.5), True),
        ("retry", lambda r: w.retry_button.click(), True),
    ]

    def complex_in_half(w) -> bool:
        return "complex" in w.error_area.value and w.dtype in (torch.float16, torch.bfloat16)

    _monkey(w, actions, 1000, seed=4, allowed_error=complex_in_half)
