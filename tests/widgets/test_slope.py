"""SlopeExplorer: the scene it sends is torch's numbers, for every place a control can reach."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch

from gradkit._args import DTYPES, EPS_GRID, WIDGET_SCHEMES
from gradkit.numerics import analytic_slope, numeric_slope
from gradkit.widgets import SlopeExplorer
from gradkit.widgets.base.tables import unpack
from gradkit.widgets.slope.scene import FIELDS, HALF_WIDTH, ZOOM_POINTS
from gradkit.zoo import WrongSquareFn
from tests.widgets.page_messages import numbers_asked, page_sends


def _arrays(w):
    return unpack(w.tables, w.scene["tables"])


def _row(w, k, s, d, g):
    """Row of the scene for x position k, scheme s, dtype d, eps index g (as slope.js)."""
    return dict(zip(FIELDS, _arrays(w)["rows"][k - w.scene["window"][0], s, d, g], strict=True))


def test_defaults_read_four_and_four(make):
    w = make(SlopeExplorer)
    assert w.x_slider.value == 2.0 and w.eps_slider.value == 1e-3
    assert w.dtype_buttons.value is torch.float64
    assert w.numeric == pytest.approx(4.0, abs=1e-9) and w.analytic == 4.0
    assert w.scene["function"] == "x²" and w.scene["custom"] is False
    assert w.error == ""


def test_every_row_sent_is_torchs_numeric_slope(make):
    w = make(SlopeExplorer, f="sin(x)", x=0.7)
    arrays = _arrays(w)
    n = 2 * SlopeExplorer.RADIUS + 1
    shape = (n, len(WIDGET_SCHEMES), len(DTYPES), len(EPS_GRID), len(FIELDS))
    assert arrays["rows"].shape == shape
    assert arrays["zoom"].shape == (n, len(DTYPES), len(EPS_GRID), ZOOM_POINTS)
    rng = random.Random(0)
    for _ in range(25):
        k = rng.randrange(n)
        x = w.x_at(w.scene["window"][0] + k)
        s, d, g = rng.randrange(2), rng.randrange(4), rng.randrange(len(EPS_GRID))
        dtype = list(DTYPES.values())[d]
        want = numeric_slope(torch.sin, x, EPS_GRID[g], dtype=dtype, scheme=WIDGET_SCHEMES[s])
        got = _row(w, w.scene["window"][0] + k, s, d, g)["numeric"]
        assert got == want or (math.isnan(got) and math.isnan(want)), (x, s, d, g)
        assert arrays["analytic"][k] == analytic_slope(torch.sin, x)


def test_float32_parts_ways_and_the_half_precisions_collapse(make):
    w = make(SlopeExplorer, x=0.5, eps=1e-6)
    w.dtype_buttons.value = "float32"
    assert w.numeric == pytest.approx(1.0133, abs=1e-4)
    w.dtype_buttons.value = torch.float16
    row = _row(w, w.x, 0, 2, EPS_GRID.index(1e-6))
    assert row["collapsed"] == 1.0 and w.numeric == 0.0
    w.eps_slider.value = 1e-9
    assert _row(w, w.x, 0, 2, EPS_GRID.index(1e-9))["underflow"] == 1.0
    assert math.isnan(w.numeric)
    w.scheme_buttons.value = "forward"
    w.dtype_buttons.value = "float64"
    w.eps_slider.value = 0.1
    assert w.numeric == pytest.approx(1.1)  # (f(x+eps) - f(x)) / eps = 2x + eps


def test_zoom_is_f_in_the_dtype_in_units_of_eps(make):
    w = make(SlopeExplorer, x=0.5, eps=1e-6)
    g, d = EPS_GRID.index(1e-6), list(DTYPES).index("float32")
    zoom = _arrays(w)["zoom"][SlopeExplorer.RADIUS, d, g]
    u = np.linspace(-HALF_WIDTH, HALF_WIDTH, ZOOM_POINTS)
    x32 = torch.tensor(0.5, dtype=torch.float32)
    t = x32 + torch.tensor(u * 1e-6).to(torch.float32)
    want = ((t * t - x32 * x32).double() / 1e-6).numpy()
    assert np.allclose(zoom, want, rtol=1e-6)
    assert len(set(zoom.tolist())) < ZOOM_POINTS  # a staircase: float32 rounds


def test_steps_move_along_the_grids_and_typed_eps_is_exact(make):
    w = make(SlopeExplorer)
    page_sends(w, eps=EPS_GRID.index(1e-4))  # ÷10
    assert w.eps_slider.value == 1e-4 and w.state["eps"] == EPS_GRID.index(1e-4)
    page_sends(w, eps=EPS_GRID.index(1e-2))
    assert w.eps_slider.value == 1e-2
    page_sends(w, x=1)
    assert (w.x, w.x_value) == (1, 2.0 + 0.05) and w.analytic == pytest.approx(4.1)
    page_sends(w, x=-1)
    assert (w.x, w.x_value) == (-1, 2.0 - 0.05)
    page_sends(w, eps=EPS_GRID.index(2e-7), eps_exact=3e-7)  # typed: the nearest, and exactly
    assert w.eps_slider.value == 3e-7 and w.eps_slider.value == 3e-7
    assert w.numeric == numeric_slope(lambda v: v * v, w.x_value, 3e-7)
    _, arrays = numbers_asked(w)  # the page's request: one x position, every scheme and dtype
    assert arrays["rows"].shape == (1, 2, 4, 1, len(FIELDS))
    page_sends(w, eps=EPS_GRID.index(2e-8), eps_exact=None)  # ÷10: back on the grid
    assert w.eps_slider.value == 2e-8 and w.state["eps_exact"] is None


def test_x_moves_within_the_positions_sent_and_refills_near_their_edge(make):
    w = make(SlopeExplorer)
    key, scene_id = w.scene["key"], w.scene["id"]
    page_sends(w, x=w.x + 1)
    assert w.scene["id"] == scene_id  # inside: nothing sent
    for _ in range(SlopeExplorer.RADIUS):
        page_sends(w, x=w.x + 1)
    assert w.scene["id"] > scene_id and w.scene["key"] == key  # more of the same scene
    first, count = w.scene["window"]
    assert first <= w.x < first + count and w.x - first >= SlopeExplorer.RADIUS // 2
    w.x_slider.value = -2.7  # far away: snapped to the grid, a window around it
    assert w.x == round((-2.7 - 2.0) / 0.05) and w.x_value == 2.0 + w.x * 0.05
    assert w.numeric == pytest.approx(2 * w.x_value, abs=1e-6)


def test_a_new_function_is_a_new_scene(make):
    w = make(SlopeExplorer)
    key = w.scene["key"]
    w.function_dropdown.value = "x³"
    assert w.scene["key"] != key and w.scene["function"] == "x³"
    assert w.analytic == pytest.approx(12.0)


def test_your_function_shows_its_backward(make):
    w = make(SlopeExplorer, f=WrongSquareFn, x=2.0, eps=1e-3)
    assert w.function_dropdown.value == "your WrongSquareFn"
    assert w.scene["custom"] is True
    assert w.analytic == pytest.approx(6.0) and w.numeric == pytest.approx(4.0)
    assert make(SlopeExplorer, f=WrongSquareFn.apply).analytic == pytest.approx(6.0)
    assert make(SlopeExplorer, f=lambda v: v**3, x=1.0).function_dropdown.value == "your f"


def test_a_huge_x_is_measured_without_overflowing_the_readouts(make):
    w = make(SlopeExplorer, x=1e300)
    assert w.x_value == 1e300 and w.error == ""
    assert math.isinf(w.analytic) or abs(w.analytic) > 1e299
    row = _row(w, w.x, 0, 1, EPS_GRID.index(1e-3))
    assert math.isinf(row["fx"]) and math.isinf(row["xs"])  # 1e300 overflows float32


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"scheme": "sideways"}, ValueError, "scheme"),
        ({"dtype": "float8"}, ValueError, "dtype"),
        ({"eps": 1e-20}, ValueError, "eps"),
        ({"f": "tan(x)"}, ValueError, "f="),
        ({"f": 3}, TypeError, "f must be"),
        ({"x": math.nan}, ValueError, "x must be"),
        ({"panels": ["chart"]}, ValueError, "panels"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        SlopeExplorer(**kwargs)


def test_monkey_random_moves_never_break_it(make):
    w = make(SlopeExplorer)
    rng = random.Random(1)
    moves = [
        lambda: page_sends(w, eps=rng.randrange(len(EPS_GRID)), eps_exact=None),
        lambda: page_sends(w, x=rng.randint(w.x_slider.spec["lo"], w.x_slider.spec["hi"])),
        lambda: setattr(w.dtype_buttons, "value", rng.choice(list(DTYPES))),
        lambda: setattr(w.scheme_buttons, "value", rng.choice(WIDGET_SCHEMES)),
        lambda: setattr(w.eps_slider, "value", rng.choice([1e-6, 3e-5, 0.2])),
        lambda: setattr(w.function_dropdown, "value", rng.choice(w.function_dropdown.options)),
    ]  # fmt: skip
    for _ in range(60):
        rng.choice(moves)()
        assert "traceback" not in w.error  # only slips, never a crash
        assert isinstance(w.numeric, float)


def test_a_typed_eps_at_construction_is_answered_at_once(make):
    w = make(SlopeExplorer, eps=3e-7)
    assert w.request_here() == {"key": w.scene["key"], "eps": 3e-7, "x": 0}  # x's position
    assert w.numeric == numeric_slope(lambda v: v * v, 2.0, 3e-7)


def test_the_numbers_at_a_typed_eps_are_for_what_the_request_names(make):
    """numbers_at answers for the eps and x position its request names, whatever the kernel
    holds: a request that overtook the page's change (held back by ipywidgets while the kernel
    was busy) gets the numbers it asked for, in a buffer packed as the scene's tables."""
    w = make(SlopeExplorer)
    assert w.state["eps_exact"] is None  # the typed eps has not reached the kernel yet
    request = {"key": w.scene["key"], "eps": 3e-7, "x": 1}  # one step up: x = 2.05
    answer, arrays = numbers_asked(w, request)
    assert set(answer) == {"tables"} and arrays["rows"].shape == (1, 2, 4, 1, len(FIELDS))
    numeric = arrays["rows"][0, 0, 0, 0, FIELDS.index("numeric")]
    assert numeric == numeric_slope(lambda v: v * v, 2.05, 3e-7)
    assert numbers_asked(w, request, key="('an older scene',)")[0] == {"stale": True}


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"x": 2.0}, "x=2.0: no position of the x slider"),
        ({"x": 21}, "x=21: no position of the x slider, which takes a whole number -100 … 20"),
        ({"x": True}, "x=True: no position"),
        ({"eps": -1}, "eps must be a finite number > 0"),
        ({"eps": "3e-7"}, "it must be a number"),
        ({"key": 7}, "it must be a text"),
        ({"dtype": "float32"}, "it must send"),
    ],
)
def test_a_request_no_control_could_make_is_refused_with_words(make, changes, words):
    w = make(SlopeExplorer)
    request = {"key": w.scene["key"], "eps": 3e-7, "x": 0}
    answer, arrays = numbers_asked(w, request, **changes)
    assert words in answer["error"] and arrays == {}
    assert w.state["eps_exact"] is None and w.error == ""  # nothing changed


def test_asking_for_a_typed_eps_keeps_the_error_area(make):
    """A request for the numbers is not a new action of the learner's: a message the change
    before it put in the error area stays, and a failing answer is said once per request."""
    w = make(SlopeExplorer)

    def fails(_change):
        raise ValueError("planted listener error")

    w.observe(w.guard(fails), names=["eps", "eps_exact"])
    page_sends(w, eps=EPS_GRID.index(2e-7), eps_exact=3e-7)
    assert "planted listener error" in w.error
    numbers_asked(w)
    numbers_asked(w)
    assert "planted listener error" in w.error, "the request wiped the error area"

    def no_answer(_eps, _x):
        raise ValueError("planted answer error")

    w.exact_of = no_answer
    for _ in range(3):
        assert "error" in numbers_asked(w, eps=4e-7)[0]
    assert w.error.count("ValueError: planted answer error<br>") == 1  # said once


def test_a_dtype_switch_at_a_typed_eps_measures_nothing_again(make):
    """The answer for a typed eps holds every dtype and scheme: a dtype or scheme switch asks
    the same request (the page keeps its answer; asked again, the kernel answers from what it
    kept), calling f no more."""
    calls = []

    def f(v):
        calls.append(v.numel())
        return v * v

    w = make(SlopeExplorer, f=f, eps=3e-7)
    request = w.request_here()
    first = numbers_asked(w)[1]
    before = len(calls)
    page_sends(w, dtype="float32")
    page_sends(w, scheme="forward")
    assert w.request_here() == request
    again = numbers_asked(w)[1]
    assert len(calls) == before, "a dtype or scheme switch measured f again"
    assert np.array_equal(again["rows"], first["rows"], equal_nan=True)


def test_readouts_read_what_was_sent_and_never_measure_again(make):
    """numeric and analytic are the rows sent (the window's, or the typed eps's answer): reading
    them calls f no more, and they are the very numbers the page reads."""
    calls = []

    def f(v):
        calls.append(v.numel())
        return v * v

    w = make(SlopeExplorer, f=f, x=0.5)
    w.dtype_buttons.value = "float32"
    s, d = 0, list(DTYPES).index("float32")
    for typed in (None, 3e-7):
        if typed:
            w.eps_slider.value = typed
            asked = numbers_asked(w)[1]  # the page asks: f is measured
        before = len(calls)
        readouts = [(w.numeric, w.analytic) for _ in range(3)]
        assert len(calls) == before, "a readout measured f again"
        sent = asked["rows"][0, s, d, 0] if typed else _row(w, w.x, s, d, w.state["eps"])
        numeric = sent[FIELDS.index("numeric")] if typed else sent["numeric"]
        analytic = float(_arrays(w)["analytic"][w.x - w.scene["window"][0]])
        assert readouts == [(numeric, analytic)] * 3
