"""EpsilonLab: the scene it sends is gradkit.sweep's numbers, for every place a control can reach;
only a typed eps off the grid, a new function and an x near the edge reach the kernel."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch

from gradkit import sweep
from gradkit._args import DTYPES, EPS_GRID, EPS_MIN, WIDGET_SCHEMES
from gradkit.widgets import EpsilonLab
from gradkit.widgets.base import schedule
from gradkit.widgets.base.tables import unpack
from gradkit.widgets.epsilon.scene import FLAGS, OPTIMA, THEORY
from tests.widgets.page_messages import numbers_asked, page_sends


def _arrays(w):
    return unpack(w.tables, w.scene["tables"])


def _slot(w, k: int) -> int:
    """The index of x position k among the positions sent (as words.js finds it)."""
    return k - w.scene["window"][0]


def _equal(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=True))


def test_at_gradchecks_eps_float32_fails_and_float64_passes(make):
    w = make(EpsilonLab)
    assert (w.function_dropdown.value, w.x_value, w.eps_slider.value, w.dtype_buttons.value) == (
        "x³",
        0.5,
        1e-6,
        torch.float32,
    )
    arrays, k, g = _arrays(w), _slot(w, w.x), EPS_GRID.index(1e-6)
    tolerance = arrays["point"][k][1]
    assert tolerance == pytest.approx(1e-5 + 1e-3 * 0.75)
    error32, error64 = arrays["error"][k, 0, 1, g], arrays["error"][k, 0, 0, g]
    assert error32 / tolerance == pytest.approx(13.1, abs=0.05) and error64 < tolerance
    assert arrays["flags"][k, 0, 1, g].tolist() == [0.0, 0.0, 0.0]  # measured, moved, fails
    assert arrays["flags"][k, 0, 0, g, FLAGS.index("passes")] == 1.0
    assert arrays["optima"][k, 0, 1, OPTIMA.index("optimal_eps")] == pytest.approx(
        1.55e-3, rel=0.02
    )
    assert w.error == "" and w.panels == ["curves", "theory", "table"]


@pytest.mark.parametrize(("f", "x"), [("x³", 0.5), ("sin(x)", 0.7), ("exp(x)", -1.2)])
def test_every_number_sent_is_gradkit_sweeps(make, f, x):
    w = make(EpsilonLab, f=f, x=x)
    arrays, n = _arrays(w), w.scene["window"][1]
    assert arrays["error"].shape == (n, len(WIDGET_SCHEMES), len(DTYPES), len(EPS_GRID))
    for k in random.Random(1).sample(range(n), 3):
        at = w.x_at(w.scene["window"][0] + k)
        for s, scheme in enumerate(WIDGET_SCHEMES):
            result = sweep(w.f, at, eps=EPS_GRID, scheme=scheme)
            assert arrays["point"][k].tolist()[:2] == [float(result.analytic[0]), result.tolerance]
            for d, curve in enumerate(result.dtypes.values()):
                assert _equal(arrays["error"][k, s, d], curve.error.numpy()), (at, scheme, d)
                flags = np.stack([getattr(curve, f).numpy() for f in FLAGS], -1)
                assert _equal(arrays["flags"][k, s, d], flags.astype(np.float32))
                theory = np.stack([getattr(curve, t).numpy() for t in THEORY], -1)
                assert _equal(arrays["theory"][k, s, d], theory.astype(np.float32))
                assert _equal(
                    arrays["optima"][k, s, d], np.array([getattr(curve, o) for o in OPTIMA])
                )


def test_moves_on_the_grid_send_nothing_and_x_refills_near_the_edge(make):
    w = make(EpsilonLab)
    scene_id, key = w.scene["id"], w.scene["key"]
    page_sends(w, eps=w.eps - 3)
    w.dtype_buttons.value = "float16"
    w.scheme_buttons.value = "forward"
    w.theory_checkbox.value = False
    w.reveal("float16")
    for _ in range(EpsilonLab.RADIUS - EpsilonLab.RADIUS // 2):  # up to the refill margin
        page_sends(w, x=w.x - 1)
    assert w.scene["id"] == scene_id and w.request_here() is None  # on the grid: nothing to ask
    page_sends(w, x=w.x - 1)  # within RADIUS // 2 of the edge: the kernel refills around x
    assert w.scene["id"] > scene_id and w.scene["key"] == key
    assert _slot(w, w.x) == EpsilonLab.RADIUS
    assert w.sweep.scheme == "forward" and set(w.sweeps) == set(WIDGET_SCHEMES)
    assert float(w.sweep.x[0]) == w.x_value
    w.function_dropdown.value = "x²"
    assert w.scene["key"] != key and w.scene["function"] == "x²"


def test_a_typed_eps_off_the_grid_is_measured_at_this_x(make):
    w = make(EpsilonLab, f="sin(x)", x=0.7)
    w.eps_slider.value = 3e-7
    assert w.eps_slider.value == 3e-7 and w.request_here() == {
        "key": w.scene["key"],
        "eps": 3e-7,
        "x": 0,  # x's position: the slider's grid runs through x = 0.7
    }
    error = numbers_asked(w)[1]["error"]  # one x position, every scheme and dtype, one eps
    for s, scheme in enumerate(WIDGET_SCHEMES):
        result = sweep(torch.sin, 0.7, eps=[3e-7], scheme=scheme)
        errors = [float(c.error[0]) for c in result.dtypes.values()]
        assert list(error[0, s, :, 0]) == errors
    assert float(w.at_eps["float32"].error[0]) == error[0, 0, 1, 0]
    assert make(EpsilonLab, eps=3e-7).request_here()["eps"] == 3e-7  # from the start too


def test_reveal_adds_the_half_precisions(make):
    w = make(EpsilonLab, dtypes=("float64", "float32"))
    assert w.shown == ["float64", "float32"] and w.state["shown"] == w.shown
    assert w.reveal_button.spec["set"] == ["shown", list(DTYPES)]  # the page reveals by itself
    assert w.dtype_buttons.spec["shown_key"] == "shown"  # only shown dtypes get a button
    w.reveal("float16")
    assert w.shown == ["float64", "float32", "float16"]
    page_sends(w, shown=list(DTYPES))  # the page's press (buttonPress: tests/js/base.test.mjs)
    assert w.shown == list(DTYPES) and w.error == ""
    # a toggle (aria-pressed in the page): pressed again, back to the first dtypes; a highlighted
    # half precision moves to float32
    assert w.reveal_button.spec["unset"] == [["float64", "float32"], {"dtype": "float32"}]
    w.dtype_buttons.value = torch.float16
    page_sends(w, shown=["float64", "float32"], dtype="float32")
    assert w.shown == ["float64", "float32"] and w.dtype_buttons.value is torch.float32
    assert w.state["dtype"] == "float32" and w.error == ""
    every = make(EpsilonLab)  # all four first: the toggle starts pressed and hides the halves
    assert every.shown == every.reveal_button.spec["set"][1]
    assert every.reveal_button.spec["unset"][0] == ["float64", "float32"]
    assert (
        make(EpsilonLab, dtypes=("float16",)).dtype_buttons.value is torch.float16
    )  # the first shown one
    with pytest.raises(ValueError, match="dtypes"):
        EpsilonLab(dtypes=("float8",))
    with pytest.raises(ValueError, match="not among dtypes"):
        EpsilonLab(dtype="float16", dtypes=("float64",))


@pytest.mark.parametrize(("f", "x"), [("log(x)", 0.0), ("log(x)", -1.0), ("exp(x)", 800.0)])
def test_where_f_has_no_slope_the_page_is_told_with_numbers_not_an_error(make, f, x):
    w = make(EpsilonLab, f=f, x=x)
    arrays, k = _arrays(w), _slot(w, w.x)
    _, tolerance, fx = arrays["point"][k]
    assert not math.isfinite(fx) and math.isnan(tolerance)
    assert np.isnan(arrays["error"][k]).all() and w.sweep is None
    assert w.error == ""
    w.eps_slider.value = 3e-7  # nothing to measure: the answer holds no arrays
    assert numbers_asked(w) == ({"tables": {}}, {}) and w.error == ""
    w.function_dropdown.value = "x²"  # a slope everywhere: measured again
    assert w.sweep is not None and numbers_asked(w)[1]["error"].shape == (1, 2, len(DTYPES), 1)


def test_issue_19_16_at_x_0_theorys_best_eps_is_sent_as_the_number_it_is(make):
    w = make(EpsilonLab, x=0.0)
    optima = _arrays(w)["optima"][_slot(w, w.x)]
    best = optima[..., OPTIMA.index("optimal_eps")]
    assert (best[0, 1:] < EPS_MIN).all()  # far below the eps range: the page says so (JS test)
    assert w.sweep.dtypes["float32"].optimal_eps == best[0, 1]


def test_the_theory_switch_belongs_to_the_theory_panel(make):
    w = make(EpsilonLab, panels=["curves"])
    assert w.theory_checkbox.hidden
    w.panels = ["curves", "theory"]
    assert not w.theory_checkbox.hidden and w.panels == ["curves", "theory"]
    assert not make(EpsilonLab).theory_checkbox.hidden


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"scheme": "sideways"}, ValueError, "scheme"),
        ({"eps": 5.0}, ValueError, "eps"),
        ({"f": "tan(x)"}, ValueError, "f="),
        ({"x": math.inf}, ValueError, "x must be"),
        ({"panels": ["chart"]}, ValueError, "panels"),
        ({"dtypes": ()}, ValueError, "dtypes"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        EpsilonLab(**kwargs)


def test_the_first_picture_is_the_current_x_alone(make):
    with schedule.deferring(True):
        w = make(EpsilonLab)
        assert w.busy and w.scene["window"][1] == 1
        schedule.run_pending()
    assert not w.busy and w.scene["window"][1] == 2 * EpsilonLab.RADIUS + 1


def test_random_moves_keep_the_scene_equal_to_a_fresh_measurement(make):
    """After any sequence of moves the numbers the page reads for its state are what gradkit
    measures at exactly that x, eps and scheme (and a slip is a message, never a crash)."""
    w = make(EpsilonLab, f="sin(x)", x=0.4)
    rng = random.Random(5)
    moves = [
        lambda: page_sends(w, eps=rng.randrange(len(EPS_GRID)), eps_exact=None),
        lambda: page_sends(w, x=rng.randint(w.x_slider.spec["lo"], w.x_slider.spec["hi"])),
        lambda: setattr(w.x_slider, "value", rng.uniform(-3, 3)),
        lambda: setattr(w.scheme_buttons, "value", rng.choice(WIDGET_SCHEMES)),
        lambda: setattr(w.eps_slider, "value", rng.choice([1e-6, 3e-5, 0.2])),
        lambda: setattr(w.function_dropdown, "value", rng.choice(["sin(x)", "x³", "exp(x)"])),
    ]  # fmt: skip
    for _ in range(40):
        rng.choice(moves)()
        assert "traceback" not in w.error
        s = WIDGET_SCHEMES.index(w.state["scheme"])
        if w.state["eps_exact"] is None:
            sent = _arrays(w)["error"][_slot(w, w.x), s, :, w.state["eps"]]
        else:
            sent = numbers_asked(w)[1]["error"][0, s, :, 0]
        fresh = [float(c.error[0]) for c in w.at_eps.dtypes.values()]
        assert _equal(sent, np.array(fresh)), (w.state, sent, fresh)


def test_readouts_read_what_was_sent_and_never_measure_again(make):
    """sweeps, sweep and at_eps are the arrays sent (the window's, or a typed eps's answer):
    reading them calls f no more, and their numbers are gradkit.sweep's own."""
    calls = []

    def f(v):
        calls.append(v.numel())
        return v**3

    w = make(EpsilonLab, f=f, x=0.5)
    for typed in (None, 3e-7):
        if typed:
            w.eps_slider.value = typed
            numbers_asked(w)  # the page asks: f is measured
        before = len(calls)
        read = [(w.sweeps, w.sweep, w.at_eps) for _ in range(3)]
        assert len(calls) == before, "a readout measured f again"
        sweeps, current, at = read[-1]
        assert current.scheme == w.scheme_buttons.value and float(at.eps[0]) == w.eps_slider.value
        for scheme, result in sweeps.items():
            fresh = sweep(f, 0.5, eps=EPS_GRID, scheme=scheme)
            assert result.tolerance == fresh.tolerance and float(result.x[0]) == 0.5
            for name, curve in fresh.dtypes.items():
                mine = result[name]
                for field in ("numeric", "error", "underflow", "collapsed", "passes"):
                    assert _equal(getattr(mine, field).numpy(), getattr(curve, field).numpy())
                assert (mine.optimal_eps, mine.best_eps) == (curve.optimal_eps, curve.best_eps)
        fresh = sweep(f, 0.5, eps=[w.eps_slider.value], scheme=w.scheme_buttons.value)
        for name, curve in fresh.dtypes.items():
            assert _equal(at[name].error.numpy(), curve.error.numpy()), (typed, name)
            assert _equal(at[name].numeric.numpy(), curve.numeric.numpy()), (typed, name)
