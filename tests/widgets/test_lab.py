"""GradcheckLab: the states it sends are torch's verdicts and Jacobians, one click ahead."""

from __future__ import annotations

import dataclasses
import importlib
import math
import random

import numpy as np
import pytest
import torch
from planted import planted_matmul

from gradkit import check
from gradkit._args import DTYPES, EPS_GRID
from gradkit.widgets import GradcheckLab
from gradkit.widgets.base import InputError, schedule
from gradkit.widgets.base.tables import unpack
from gradkit.widgets.lab import lab as lab_module
from gradkit.widgets.lab import states as states_module
from gradkit.widgets.lab.target import cast_inputs
from gradkit.zoo import CATALOGUE, SquareFn
from tests.widgets.page_messages import numbers_asked, page_sends

_torch_gradcheck = importlib.import_module("torch.autograd.gradcheck")
G6 = EPS_GRID.index(1e-6)


def _key(w, **changes) -> str:
    s = {**w.state, **changes}
    return f"{int(s['fast_mode'])}|{s['dtype']}|{s['eps']}"


def _shown(w, key: str | None = None) -> tuple[dict, np.ndarray | None, ...]:
    """(record, numeric, analytic, ratio) the page draws for ``key`` (as lab.js labState)."""
    arrays = unpack(w.tables, w.scene["tables"])
    rec = w.scene["states"][key or _key(w)]
    parts = (("matrices", "numeric"), ("matrices", "analytic"), ("ratios", "ratio"))
    return rec, *(None if rec[k] < 0 else arrays[name][rec[k]] for name, k in parts)


def _torch_jacobians(fn, inputs, eps):
    """torch's own slow-mode Jacobians (one output), joined: rows output entries, cols inputs."""
    numeric = _torch_gradcheck._get_numerical_jacobian(fn, inputs, eps=eps)
    with torch.enable_grad():
        out = fn(*inputs)
    analytic = _torch_gradcheck._check_analytical_jacobian_attributes(inputs, out, math.inf, False)
    join = lambda blocks: np.hstack([b.T.detach().numpy() for b in blocks])  # noqa: E731
    return join([row[0] for row in numeric]), join(analytic)


PLANTED = "planted"  # x @ W whose batched calls sum in another order, on every CPU


def _lab(make, name, dtype="float64"):
    """(lab, function, inputs): a zoo Function, or the planted x @ W given as your own."""
    if name == PLANTED:
        f, x = planted_matmul(dtype=torch.float64)
        return make(GradcheckLab, f, inputs=(x,), dtype=dtype), f, lambda: (x,)
    entry = CATALOGUE[name]
    return make(GradcheckLab, name, dtype=dtype), entry.apply, entry.make_input


@pytest.mark.parametrize("name", ["WrongSquareFn", "MatmulFn", "OneEntryWrongSquareFn", PLANTED])
def test_the_picture_is_torchs_verdict_and_jacobians(make, name):
    w, fn, make_input = _lab(make, name)
    rec, numeric, analytic, ratio = _shown(w)
    inputs = make_input()
    want_n, want_a = _torch_jacobians(fn, inputs, 1e-6)
    np.testing.assert_array_equal(numeric, want_n)
    np.testing.assert_array_equal(analytic, want_a)
    passed = torch.autograd.gradcheck(fn, inputs, raise_exception=False)
    assert rec["passed"] is passed and w.report.passed is passed
    allowed = 1e-5 + 1e-3 * np.abs(want_n)
    np.testing.assert_allclose(ratio, np.abs(want_a - want_n) / allowed, rtol=1e-6)
    assert (ratio > 1).any() is not passed  # a failing entry is above 1, a pass has none
    r, c = rec["worst"]["cell"]
    assert ratio[r, c] == ratio.max()
    assert (rec["worst"]["numeric"], rec["worst"]["analytic"]) == (want_n[r, c], want_a[r, c])
    assert w.scene["shape"] == list(want_n.shape)


def test_wrong_square_reads_as_torch_and_gradkit_say(make, quiet_gradcheck):
    w = make(GradcheckLab, "WrongSquareFn")
    rec = _shown(w)[0]
    report = check(CATALOGUE["WrongSquareFn"].apply, CATALOGUE["WrongSquareFn"].make_input())
    assert (rec["verdict"], rec["cause"]) == ("GradcheckError", "bug")
    assert rec["explanation"] == report.explanation and rec["suggestion"] == report.suggestion
    assert rec["message"] == report.torch_message and "Jacobian mismatch" in rec["message"]
    assert rec["worst"]["position"] == report.worst.position
    assert w.scene["about"] == {
        "name": "WrongSquareFn",
        "yours": False,
        "correct": False,
        "description": CATALOGUE["WrongSquareFn"].description,
        "bug": CATALOGUE["WrongSquareFn"].bug,
    }
    w.dtype_buttons.value = torch.float32
    assert "requires gradient" in " ".join(_shown(w)[0]["warnings"])  # torch's warning, sent


@pytest.mark.parametrize(
    ("name", "start"),
    [
        ("SquareFn", "float64"),
        ("WrongSquareFn", "float64"),
        ("MatmulFn", "float64"),
        ("TransposedMatmulFn", "float32"),
        ("OneEntryWrongSquareFn", "float64"),
        (PLANTED, "float64"),
        (PLANTED, "float32"),
    ],
)
def test_states_ahead_equal_a_fresh_check(make, quiet_gradcheck, monkeypatch, name, start):
    """Every state sent ahead (batched engine above 8 entries) reads as gradkit.check with torch
    at that eps, dtype and fast_mode, on the Function's own inputs cast to that dtype: the
    same verdict, words and numbers, bit for bit."""
    monkeypatch.setattr(states_module, "AHEAD_BUDGET_S", math.inf)  # every state, however slow
    w, fn, make_input = _lab(make, name, dtype=start)
    assert len(w.scene["states"]) == 21  # 5 grid positions x 4 dtypes, and fast_mode flipped
    for key in w.scene["states"]:
        fast, dtype, g = key.split("|")
        rec, numeric, analytic, _ = _shown(w, key)
        inputs = cast_inputs(make_input(), DTYPES[dtype])
        report = check(fn, inputs, eps=EPS_GRID[int(g)], fast_mode=fast == "1")
        where = f"{name} at {key}"
        assert (rec["passed"], rec["verdict"], rec["cause"]) == (
            report.passed,
            report.verdict,
            report.cause,
        ), where
        assert rec["explanation"] == report.explanation, where
        assert rec["eps"] == EPS_GRID[int(g)] and rec["dtype"] == dtype, where
        want = np.hstack([b.detach().double().numpy() for b in report.analytic[0]])
        np.testing.assert_array_equal(analytic, want, err_msg=where)
        want = np.hstack([b.detach().double().numpy() for b in report.numeric[0]])
        np.testing.assert_array_equal(numeric, want, err_msg=where)
        worst = report.worst
        assert rec["worst"] == {
            **rec["worst"],
            "numeric": worst.numeric,
            "analytic": worst.analytic,
            "outside": worst.outside,
            "shown": worst.shown,
        }, where


def test_first_picture_first_then_the_states_ahead(make):
    with schedule.deferring(True):
        waiting = schedule.pending()
        w = make(GradcheckLab, "SquareFn")
        assert w.busy and schedule.pending() == waiting + 1
        assert list(w.scene["states"]) == [_key(w)]  # the first picture: one state
        key = w.scene["key"]
        schedule.run_pending()
    assert not w.busy and len(w.scene["states"]) == 21
    assert w.scene["key"] == key  # more of the same scene: the page repaints nothing


def test_clicks_land_on_states_sent_and_refill_around_them(make):
    w = make(GradcheckLab, "SquareFn")
    key = w.scene["key"]
    sent = set(w.scene["states"])
    for move in (
        lambda: page_sends(w, eps=w.eps - 3),
        lambda: setattr(w.dtype_buttons, "value", "float32"),
        lambda: page_sends(w, eps=w.eps + 3),
        lambda: setattr(w.fast_mode_checkbox, "value", True),
    ):
        before = set(w.scene["states"])
        move()
        assert _key(w) in before, "the page had to wait for the kernel"
        assert w.scene["key"] == key  # no repaint from the kernel's answer
        assert _key(w) in w.scene["states"]
        report = check(
            SquareFn.apply,
            cast_inputs(CATALOGUE["SquareFn"].make_input(), w.dtype_buttons.value),
            eps=w.eps_slider.value,
            fast_mode=w.state["fast_mode"],
        )
        assert w.report.passed == report.passed and w.report.cause == report.cause
    assert set(w.scene["states"]) != sent  # refilled around the new state
    assert len(w.scene["states"]) == 21


def test_a_verdict_torch_does_not_give_is_redrawn(make, monkeypatch):
    """The kernel checks the state shown with torch; a state sent ahead that disagrees (planted
    here) is replaced under a new scene key, so the page redraws it once."""
    w = make(GradcheckLab, "SquareFn")
    target = (False, "float64", EPS_GRID[G6 - 3])
    kept = w._states._kept[target]
    wrong = dataclasses.replace(
        kept, record={**kept.record, "passed": False, "cause": "bug"}, engine="batched"
    )
    w._states._kept[target] = wrong
    w._sent[_key(w, eps=G6 - 3)] = wrong
    key = w.scene["key"]
    page_sends(w, eps=G6 - 3)
    assert w.scene["key"] != key
    assert _shown(w)[0]["passed"] is True and w.report.passed


def test_a_typed_eps_off_the_grid_is_checked_by_the_kernel(make, quiet_gradcheck):
    w = make(GradcheckLab, "WrongSquareFn")
    w.eps_slider.value = 3e-7
    assert w.eps_slider.value == 3e-7
    request = {"key": w.scene["key"], "eps": 3e-7, "dtype": "float64", "fast_mode": False}
    assert w.request_here() == request
    answer, arrays = numbers_asked(w)  # one state, packed as the scene's states are
    rec = answer["states"]["0|float64"]
    assert set(answer["states"]) == {"0|float64"}
    assert rec["eps"] == 3e-7 and rec["cause"] == "bug"
    numeric = arrays["matrices"][rec["numeric"]]
    want = _torch_jacobians(
        CATALOGUE["WrongSquareFn"].apply, CATALOGUE["WrongSquareFn"].make_input(), 3e-7
    )[0]
    np.testing.assert_array_equal(numeric, want)
    w.dtype_buttons.value = "float32"  # another dtype: another request, another answer
    assert w.request_here() == {**request, "dtype": "float32"}
    assert set(numbers_asked(w)[0]["states"]) == {"0|float32"}
    assert numbers_asked(w, {**request, "dtype": "float128"})[0]["error"]  # no such dtype
    page_sends(w, eps=EPS_GRID.index(2e-8), eps_exact=None)  # ÷10: back on the grid
    assert w.state["eps_exact"] is None and _key(w) in w.scene["states"]


def test_tolerances_and_functions_make_new_scenes(make, quiet_gradcheck):
    w = make(GradcheckLab, "MatmulFn")
    key = w.scene["key"]
    assert w.scene["row_splits"] == [] and w.scene["col_splits"] == [6]  # two inputs
    w.atol_text.value = "0"
    w.rtol_text.value = "0"
    assert w.scene["key"] != key and (w.report.atol, w.report.rtol) == (0.0, 0.0)
    assert not w.report.passed and not _shown(w)[0]["passed"]  # nothing survives zero tolerance
    key = w.scene["key"]
    w.atol_text.value = "lots"
    assert "atol must be a number" in w.error
    assert w.atol_text.value == "0" and w.scene["key"] == key  # the box reverts, nothing redrawn
    w.rtol_text.value = "-1"
    assert "rtol must be between 0 and 1e+06" in w.error
    w.function_dropdown.value = "UnreducedBroadcastAddFn"
    rec, numeric, analytic, ratio = _shown(w)
    assert w.scene["function"] == "UnreducedBroadcastAddFn" and w.error == ""
    assert rec["verdict"] == "RuntimeError" and numeric is not None and analytic is None
    assert ratio is None


def test_retry_fast_mode_and_complex_inputs(make, quiet_gradcheck):
    w = make(GradcheckLab, "ComplexSquareFn", dtype="float16")
    rec = _shown(w)[0]
    assert "complex" in rec["unavailable"] and w.report is None
    page_sends(w, dtype="float64")  # the page's retry press (buttonPress: tests/js)
    assert w.dtype_buttons.value is torch.float64 and _shown(w)[0]["passed"]
    spec = next(c for c in w.spec["controls"] if c["name"] == "retry")
    assert spec["set"] == ["dtype", "float64"]  # the page switches by itself
    w.fast_mode_checkbox.value = True
    assert w.report.fast_mode and _shown(w)[0]["fast_mode"] is True


def test_your_function_on_your_tensors(make, quiet_gradcheck):
    x = torch.tensor([0.25, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    w = make(GradcheckLab, lambda v: SquareFn.apply(v) * 3, (x,))
    assert w.function_dropdown.value == "fn (yours)" and w.scene["about"]["yours"]
    assert w.report.passed and w.scene["shape"] == [3, 3]
    w.dtype_buttons.value = torch.float32
    assert w.report.cause == "precision"
    assert x.dtype is torch.float64 and x.grad is None  # the caller's tensor is untouched


def test_the_fill_keeps_to_its_time_budget(make, monkeypatch):
    monkeypatch.setattr(states_module, "AHEAD_BUDGET_S", 0.0)
    w = make(GradcheckLab, "SquareFn")
    assert list(w.scene["states"]) == [_key(w)]  # the state shown, nothing ahead
    page_sends(w, eps=w.eps - 3)  # the kernel answers the move: the page waited, then drew it
    assert _key(w) in w.scene["states"]


def test_large_jacobians_are_not_sent_ahead(make, monkeypatch):
    monkeypatch.setattr(states_module, "AHEAD_MAX_CELLS", 3)
    w = make(GradcheckLab, "SquareFn")  # 2 x 2 = 4 entries > 3
    first = _key(w)
    assert list(w.scene["states"]) == [first]
    page_sends(w, eps=w.eps - 3)  # each move asks the kernel; only states seen are sent again
    assert set(w.scene["states"]) == {_key(w), first}


def test_an_error_shows_and_the_page_stops_waiting(make):
    def fragile(v):
        if v.dtype == torch.float32:
            raise RuntimeError("no float32 here")
        return v * v

    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    w = make(GradcheckLab, fragile, (x,))
    w.dtype_buttons.value = "float32"
    rec = _shown(w)[0]
    assert rec["unavailable"] or rec["cause"] == "error"
    w.dtype_buttons.value = "float64"
    assert _shown(w)[0]["passed"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"fn": "NoSuchFn"}, ValueError, "not a zoo entry"),
        ({"fn": lambda v: v * v}, TypeError, "inputs= is needed"),
        ({"fn": 3}, TypeError, "fn must be"),
        ({"dtype": "float8"}, ValueError, "dtype"),
        ({"eps": 1e-20}, ValueError, "eps"),
        ({"atol": -1.0}, ValueError, "atol"),
        ({"fast_mode": "yes"}, TypeError, "fast_mode"),
        ({"panels": ["heatmap"]}, ValueError, "panels"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        GradcheckLab(**kwargs)
    assert GradcheckLab.check_panels(["difference", "verdict"]) == ["verdict", "difference"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dtype": "float8"}, "must be one of"),
        ({"eps": 999}, "eps position 999"),
        ({"fast_mode": "yes"}, "true or false"),
        ({"function": "Nope"}, "must be one of"),
        ({"panels": ["heatmap"]}, "pick one or more"),
    ],
)
def test_a_bad_page_state_is_refused(make, changes, message):
    w = make(GradcheckLab)
    before = dict(w.state)
    page_sends(w, **changes)
    assert message in w.error
    assert {k: w.state[k] for k in changes} == {k: before[k] for k in changes}


def test_parse_tolerance_is_one_rule():
    assert lab_module.parse_tolerance(" 1e-5 ", "atol") == 1e-5
    assert lab_module.parse_tolerance("−0", "atol") == 0.0
    slips = {"nan": "“nan” is not one", "inf": "“inf” is not one", "x": "written like 1e-5"}
    for bad, words in {**slips, "-1": "between 0 and", "1e7": "between 0 and"}.items():
        with pytest.raises(InputError, match=f"atol must be .*{words}"):
            lab_module.parse_tolerance(bad, "atol")


def test_monkey_random_moves_never_break_it(make, quiet_gradcheck, monkeypatch):
    monkeypatch.setattr(states_module, "AHEAD_BUDGET_S", 0.02)  # the same moves, cheaper
    w = make(GradcheckLab)
    rng = random.Random(4)
    moves = [
        lambda: page_sends(w, eps=rng.randrange(len(EPS_GRID)), eps_exact=None),
        lambda: setattr(w.dtype_buttons, "value", rng.choice(list(DTYPES))),
        lambda: setattr(w.eps_slider, "value", rng.choice([1e-6, 3e-5])),
        lambda: setattr(w.function_dropdown, "value", rng.choice(w.function_dropdown.options)),
        lambda: setattr(w.atol_text, "value", rng.choice(["1e-5", "0", "bad"])),
        lambda: setattr(w.fast_mode_checkbox, "value", rng.random() < 0.5),
        lambda: page_sends(w, dtype="float64"),  # the page's retry press
    ]  # fmt: skip
    for _ in range(60):
        rng.choice(moves)()
        assert "traceback" not in w.error, w.error
        if w.state["eps_exact"] is None:
            assert _key(w) in w.scene["states"]  # the page never waits for a state on the grid
