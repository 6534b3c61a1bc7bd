"""FloatRuler: the scene it sends is torch's numbers in every dtype, for every place a control can
reach; only a typed eps off the grid and an x near the edge of what was sent reach the kernel."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch

from gradkit._args import DTYPES, EPS_GRID
from gradkit.widgets import EpsilonLab, FloatRuler
from gradkit.widgets.base import schedule
from gradkit.widgets.base.tables import unpack
from gradkit.widgets.ruler.scene import FLAGS, NEIGHBOURS
from tests.widgets.page_messages import numbers_asked, page_sends
from tests.widgets.test_base import check_bundle

INF = torch.tensor(math.inf)


def _arrays(w):
    return unpack(w.tables, w.scene["tables"])


def _slot(w, k: int) -> int:
    """The index of x position k among the positions sent (as ruler.js finds it)."""
    return k - w.scene["window"][0]


def _torch_landing(x: float, eps: float, dtype: torch.dtype) -> list[float]:
    """eps as stored, x − eps, x + eps: computed in the dtype, as gradcheck's nudge is."""
    x_t = torch.tensor(x, dtype=dtype)
    h = torch.tensor(eps, dtype=torch.float64).to(dtype)
    return [float(h), float(x_t - h), float(x_t + h)]


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def test_the_defaults_land_17_ulps_above_x(make):
    w = make(FloatRuler)
    r = w.ruler
    assert (w.x_value, w.eps_slider.value, w.dtype_buttons.value, w.panels) == (
        0.5,
        1e-6,
        torch.float32,
        ["landing", "spacing"],
    )
    assert r.ulp == 2.0**-24 and r.ulp_below == 2.0**-25  # 0.5 is a power of two
    assert r.upper == 0.5 + 17 * 2.0**-24 and r.lower == 0.5 - 34 * 2.0**-25
    assert not (r.collapsed or r.underflow or r.overflow)
    assert w.error == "" and w.scene["window"][1] == 2 * FloatRuler.RADIUS + 1


@pytest.mark.parametrize("x", [0.5, 0.1, -3.0])
def test_every_landing_sent_is_torchs_in_the_dtype(make, x):
    w = make(FloatRuler, x=x)
    arrays = _arrays(w)
    n = w.scene["window"][1]
    assert arrays["landing"].shape == (n, len(DTYPES), len(EPS_GRID), 3)
    assert arrays["point"].shape == (n, len(DTYPES), 3)
    rng = random.Random(7)
    for _ in range(30):
        k, g, d = rng.randrange(n), rng.randrange(len(EPS_GRID)), rng.randrange(len(DTYPES))
        at = w.x_at(w.scene["window"][0] + k)
        dtype = list(DTYPES.values())[d]
        assert arrays["landing"][k, d, g].tolist() == _torch_landing(at, EPS_GRID[g], dtype)
        x_t = torch.tensor(at, dtype=dtype)
        up, down = torch.nextafter(x_t, INF.to(dtype)), torch.nextafter(x_t, -INF.to(dtype))
        stored = [float(x_t), float(up) - float(x_t), float(x_t) - float(down)]
        assert arrays["point"][k, d].tolist() == stored, (at, dtype)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_the_neighbours_sent_are_the_next_representable_numbers(make, dtype):
    w = make(FloatRuler, x=0.5)
    arrays, k, d = _arrays(w), _slot(w, w.x), list(DTYPES).index(dtype)
    x64, ulp, _ = arrays["point"][k, d]
    near = arrays["near"][k, d].astype(np.float64)
    assert near.shape == (2 * NEIGHBOURS + 1,) and near[NEIGHBOURS] == 0.0
    for direction in (1, -1):
        v = torch.tensor(0.5, dtype=DTYPES[dtype])
        for j in range(1, NEIGHBOURS + 1):  # walked with nextafter, not the widget's bit keys
            v = torch.nextafter(v, direction * INF.to(v.dtype))
            assert x64 + near[NEIGHBOURS + direction * j] * ulp == float(v), (dtype, direction, j)


def test_eps_dtype_and_near_x_moves_send_nothing_and_a_far_x_refills(make):
    w = make(FloatRuler)
    scene_id, key = w.scene["id"], w.scene["key"]
    page_sends(w, eps=w.eps - 3)
    page_sends(w, eps=w.eps + 3)
    w.dtype_buttons.value = "float16"
    w.eps_slider.value = 1e-3
    for _ in range(FloatRuler.RADIUS - FloatRuler.RADIUS // 2):  # up to the refill margin
        page_sends(w, x=w.x + 1)
    assert w.scene["id"] == scene_id and w.request_here() is None  # all of it was sent ahead
    page_sends(w, x=w.x + 1)  # within RADIUS // 2 of the edge: the kernel refills around x
    assert w.scene["id"] > scene_id and w.scene["key"] == key  # more of the same scene
    assert _slot(w, w.x) == FloatRuler.RADIUS
    w.x_slider.value = -3.9
    assert _slot(w, w.x) == FloatRuler.RADIUS and w.ruler.x == float(torch.tensor(w.x_value).half())


def test_a_typed_eps_off_the_grid_is_measured_for_every_dtype_at_this_x(make):
    w = make(FloatRuler)
    w.eps_slider.value = 3e-7
    assert w.eps_slider.value == 3e-7 and w.request_here() == {
        "key": w.scene["key"],
        "eps": 3e-7,
        "x": 0,  # x's position: the slider's grid runs through x = 0.5
    }
    landing = numbers_asked(w)[1]["landing"]  # one x position, every dtype, one eps
    for d, dtype in enumerate(DTYPES.values()):
        assert list(landing[0, d, 0]) == _torch_landing(0.5, 3e-7, dtype)
    page_sends(w, x=w.x + 1)  # the page asks for this x's answer: the kernel sends it
    assert w.request_here()["x"] == w.x == 1
    landing = numbers_asked(w)[1]["landing"]
    assert list(landing[0, 1, 0]) == _torch_landing(w.x_value, 3e-7, torch.float32)
    assert make(FloatRuler, eps=3e-7).request_here()["eps"] == 3e-7  # from the start too


@pytest.mark.parametrize(("x", "dtype"), [(70000.0, "float16"), (1e300, "float32")])
def test_issue_19_15_an_x_that_overflows_is_sent_as_inf_never_as_a_collapse(make, x, dtype):
    w = make(FloatRuler, x=x, dtype=dtype)
    r = w.ruler
    assert r.overflow and math.isinf(r.x)
    assert not (r.collapsed or r.lower_collapsed or r.upper_collapsed)
    arrays, d = _arrays(w), list(DTYPES).index(dtype)
    x_s, ulp, below = arrays["point"][_slot(w, w.x), d]
    assert math.isinf(x_s) and math.isnan(ulp) and math.isnan(below)
    assert np.isnan(arrays["near"][_slot(w, w.x), d]).all()
    assert np.isinf(arrays["landing"][_slot(w, w.x), d, :, 1:]).all()
    assert w.error == ""
    w.dtype_buttons.value = "float64"  # a wide enough dtype: x is a number again
    assert not w.ruler.overflow and math.isfinite(w.ruler.ulp)


@pytest.mark.parametrize("x", [0.5, 70000.0])
def test_the_flags_sent_are_the_rulers_for_every_dtype_and_eps(make, x):
    """The page reads each flag from the table Python sent (scene.landing_flags), in the
    order the scene names them; they are the Ruler's own flags, the typed eps's too."""
    w = make(FloatRuler, x=x)
    flags = _arrays(w)["flags"][_slot(w, w.x)]
    assert w.scene["flags"] == list(FLAGS)
    for d, dtype in enumerate(DTYPES):
        w.update_state({"dtype": dtype})
        for g in range(0, len(EPS_GRID), 4):
            w.eps_slider.value = EPS_GRID[g]
            want = [getattr(w.ruler, name) for name in w.scene["flags"]]
            assert flags[d, g].tolist() == [float(f) for f in want], (dtype, EPS_GRID[g])
        w.eps_slider.value = 3e-7  # off the grid: the kernel's answer carries its flags
        want = [float(getattr(w.ruler, name)) for name in w.scene["flags"]]
        assert list(numbers_asked(w)[1]["flags"][0, d, 0]) == want, dtype


def test_underflow_collapse_and_one_side_are_torchs_flags(make):
    w = make(FloatRuler, dtype="float16", eps=1e-8)
    assert w.ruler.underflow and w.ruler.h == 0.0
    w.eps_slider.value = 1e-6
    assert w.ruler.collapsed and not w.ruler.underflow
    w.update_state({"dtype": "float32"})
    w.eps_slider.value = 2e-8  # below x = 0.5 the spacing is 2⁻²⁵: x − eps moves, x + eps stays
    assert w.ruler.upper_collapsed and not w.ruler.lower_collapsed
    assert not w.ruler.collapsed  # one side only: the central difference still moves


@pytest.mark.parametrize(
    ("cls", "changes", "message"),
    [
        (FloatRuler, {"dtype": "float8"}, "must be one of"),
        (FloatRuler, {"eps": 99}, "position 99"),
        (FloatRuler, {"x": 50.0}, "x=50.0: no position of the x slider"),
        (FloatRuler, {"x": 451}, "x=451: no position of the x slider, which takes a whole number"),
        (FloatRuler, {"panels": ["zoom"]}, "pick one or more"),
        (EpsilonLab, {"shown": []}, "must list some of"),
        (EpsilonLab, {"shown": ["f8"]}, "some of"),
        (EpsilonLab, {"scheme": "sideways"}, "must be one of"),
        (EpsilonLab, {"theory": 1}, "true or"),
        (EpsilonLab, {"panels": ["chart"]}, "pick one or more"),
    ],
)
def test_a_bad_page_state_is_refused_by_the_ruler_and_the_lab(make, cls, changes, message):
    w = make(cls)
    before = {k: w.state[k] for k in changes}
    page_sends(w, **changes)
    assert message in w.error and {k: w.state[k] for k in changes} == before
    page_sends(w, eps=EPS_GRID.index(1e-7))  # the widget keeps working
    assert w.error == "" and w.eps_slider.value == 1e-7


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"x": math.nan}, ValueError, "x must be"),
        ({"eps": 1e-20}, ValueError, "eps"),
        ({"dtype": "float8"}, ValueError, "dtype"),
        ({"panels": ["zoom"]}, ValueError, "panels"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        FloatRuler(**kwargs)


def test_panels_and_the_first_picture_first(make):
    assert make(FloatRuler, panels="spacing").panels == ["spacing"]
    with schedule.deferring(True):
        w = make(FloatRuler)
        assert w.busy and w.scene["window"][1] == 1  # the first picture: x alone
        schedule.run_pending()
    assert not w.busy and w.scene["window"][1] == 2 * FloatRuler.RADIUS + 1


def test_monkey_moves_always_leave_the_scene_row_equal_to_torch(make):
    w = make(FloatRuler)
    rng = random.Random(3)
    moves = [
        lambda: page_sends(w, eps=rng.randrange(len(EPS_GRID)), eps_exact=None),
        lambda: page_sends(w, x=rng.randint(w.x_slider.spec["lo"], w.x_slider.spec["hi"])),
        lambda: setattr(w.x_slider, "value", rng.uniform(-4, 4)),
        lambda: setattr(w.dtype_buttons, "value", rng.choice(list(DTYPES))),
        lambda: setattr(w.eps_slider, "value", rng.choice([1e-6, 3e-5, 0.2])),
    ]  # fmt: skip
    for _ in range(80):
        rng.choice(moves)()
        assert "traceback" not in w.error
        if w.state["eps_exact"] is None:
            d = list(DTYPES).index(w.state["dtype"])
            row = _arrays(w)["landing"][_slot(w, w.x), d, w.state["eps"]].tolist()
            r = w.ruler
            assert all(map(_same, row, [r.h, r.lower, r.upper])), (w.state, row, r)


@pytest.mark.parametrize("cls", [FloatRuler, EpsilonLab])
def test_the_family_bundle_parses_and_names_each_thing_once(cls):
    check_bundle(cls._esm)


def test_the_ruler_readout_reads_what_was_sent_and_is_torchs(make, monkeypatch):
    """``.ruler`` is the page's numbers (the x position's arrays, or a typed eps's answer), the
    same as torch in the dtype measures now; reading it runs no torch."""
    from gradkit.widgets.ruler import scene

    w = make(FloatRuler, x=0.5)
    states = [("float32", None, 0.5), ("float16", None, 0.5), ("bfloat16", 3e-3, 0.5)]
    states += [("float64", 1e-9, 0.5), ("float32", None, 1.25)]
    for dtype, typed, x in states:
        w.dtype_buttons.value = dtype
        if typed:
            w.eps_slider.value = typed
        w.x_slider.value = x
        landing = _torch_landing(w.x_value, w.eps_slider.value, DTYPES[dtype])
        fresh = scene.Ruler.of(scene.neighbours(w.x_value, DTYPES[dtype], 1)[:3], landing)
        w.numbers_here()  # the page's request for a typed eps, answered (by torch) once

        def measured(*_args, **_kwargs):
            raise AssertionError("the ruler readout measured again")

        with monkeypatch.context() as patch:
            patch.setattr(scene, "landings", measured)
            patch.setattr(scene, "neighbours", measured)
            shown = w.ruler
        assert shown == fresh, (dtype, typed, x)
