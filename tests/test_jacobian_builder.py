"""JacobianBuilder: the widget that shows gradcheck building its two Jacobians."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest
import torch
from ipywidgets.widgets.widget import _instances

import gradkit
from gradkit import zoo
from gradkit.cost import count_calls
from gradkit.widgets._jacobian_steps import sample_input
from gradkit.widgets.jacobian_builder import Calls, JacobianBuilder


@pytest.fixture
def make(make):
    """conftest's ``make``, building a JacobianBuilder."""
    return functools.partial(make, JacobianBuilder)


def _reference(f, n):
    inputs = (sample_input(n).requires_grad_(True),)
    return (
        gradkit.numeric_jacobian(f, inputs)[0][0],
        gradkit.analytic_jacobian(f, inputs)[0][0],
    )


@pytest.mark.parametrize("f", [zoo.SigmoidFn, zoo.ForgotGradOutputSigmoidFn])
def test_jacobians_equal_gradkits_for_a_zoo_entry_and_its_twin(make, f):
    b = make(f=f, n=5)
    numeric, analytic = _reference(f.apply, 5)
    b.run_all()
    assert torch.equal(b.numeric, numeric), (b.numeric, numeric)
    assert torch.equal(b.analytic, analytic), (b.analytic, analytic)
    twin = not zoo.entry(f).correct
    assert ("differ" in b.verdict_html.value) is twin
    assert ("all 25 entries agree" in b.verdict_html.value) is not twin


def test_steps_fill_columns_then_rows_and_count_calls(make):
    n = 4
    b = make(f="WrongSquareFn", n=n)
    assert b.position == 0 and b.total_steps == 2 * n
    assert b.calls == Calls(1, 0)  # the plain run
    assert torch.isnan(b.numeric).all() and torch.isnan(b.analytic).all()
    for k in range(1, n + 1):
        assert b.step() == k
        assert b.calls == Calls(1 + 2 * k, 0)
        assert not torch.isnan(b.numeric[:, :k]).any() and torch.isnan(b.numeric[:, k:]).all()
        assert f"column {k - 1}" in b.status_html.value
    for i in range(1, n + 1):
        b.step()
        assert b.calls == Calls(2 * n + 1, i)
        assert not torch.isnan(b.analytic[:i]).any() and torch.isnan(b.analytic[i:]).all()
        assert f"row {i - 1}" in b.status_html.value
    assert b.step() == 2 * n  # the end stays the end
    # a passing slow-mode gradcheck: 2n nudged calls + the plain run + its undefined-grad check
    counted = count_calls(zoo.SquareFn.apply, (sample_input(n).requires_grad_(),))
    assert b.calls.forward + 1 == counted.forward
    assert b.calls.backward == n
    assert "forward calls</span>&nbsp; <b>9</b>" in b.calls_html.value
    b.reset()
    assert b.position == 0 and b.calls == Calls(1, 0) and b.verdict_html.value == ""


def test_buttons_and_the_browser_path_agree(make):
    b = make(f="SquareFn", n=3)
    b.step_button.click()
    assert b.position == 1
    b._set_values({"step": 4, "__seq": 7})  # what the browser sends after two more steps
    assert b.position == 4 and b.calls == Calls(7, 1) and b.ack >= 7
    b._set_values({"step": 99})  # out of range from a stale browser: clamped
    assert b.position == 6
    b.reset_button.click()
    assert b.position == 0
    b.run_button.click()
    assert b.position == 6 and "all 9 entries agree" in b.verdict_html.value


def test_changing_n_rebuilds_and_the_cost_grows(make):
    b = make(f="SquareFn", n=2)
    renders = b.render_count
    b.run_all()
    for n in (4, 8):
        b.n = n
        assert b.n == n and b.position == 0 and b.render_count > renders
        renders = b.render_count
        assert b.scene["n"] == n and len(b.table) == 3 * n * n * 8
        b.run_all()
        assert b.calls == Calls(2 * n + 1, n)
    assert [row["n"] for row in b.history] == [2, 4, 8]
    assert [row["forward"] for row in b.history] == [5, 9, 17]
    assert [row["backward"] for row in b.history] == [2, 4, 8]
    assert "<td>17</td>" in b.history_html.value
    b.n_slider.value = 5.4  # a drag between whole numbers lands on one
    assert b.n == 5 and b.scene["n"] == 5
    with pytest.raises(ValueError, match="n must be a whole number from 1 to 64"):
        b.n = 0
    assert b.error_area.value == ""


def test_table_holds_both_jacobians_and_where_they_differ(make):
    b = make(f="OneEntryWrongSquareFn", n=3)
    r = b.result
    table = np.frombuffer(b.table, dtype="<f8")
    mn = r.m * r.n
    assert np.array_equal(table[:mn], r.numeric.reshape(-1).numpy())
    assert np.array_equal(table[mn : 2 * mn], r.analytic.reshape(-1).numpy())
    close = table[2 * mn :].reshape(r.m, r.n)
    assert close[0, 0] == 0 and close.sum() == mn - 1  # the one wrong entry
    assert len(b.scene["status"]) == len(b.scene["calls"]) == r.steps + 1
    assert b.scene["numeric_text"][0] == "0.5"
    assert [a["name"] for a in b.axes] == ["numeric", "analytic"]


def test_own_input_and_plain_functions(make):
    b = make(f=lambda v: torch.softmax(v, 0), x=[0.0, 1.0, 2.0])
    assert b.n == 3 and b.label == "your f" and b.result.x.tolist() == [0.0, 1.0, 2.0]
    b.run_all()
    assert (b.numeric != 0).all()  # softmax mixes every entry: nothing is diagonal
    b.n = 5
    assert b.result.x.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]  # the same range, resized
    s = make(f=lambda v: (v * v).sum(), n=4)
    assert s.result.m == 1 and s.total_steps == 5


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"f": "MatmulFn"}, ValueError, "one-input zoo Function"),
        ({"f": 3}, TypeError, "f must be an autograd.Function"),
        ({"n": 0}, ValueError, "n must be a whole number"),
        ({"n": 2.5}, ValueError, "n must be a whole number"),
        ({"eps": -1}, ValueError, "eps"),
        ({"x": "abc"}, TypeError, "x must be"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    before = len(_instances)
    with pytest.raises(error, match=match):
        JacobianBuilder(**kwargs)
    assert len(_instances) == before


def test_a_function_that_fails_shows_in_the_error_area(make):
    state = {"fail": False}

    def flaky(v):
        if state["fail"] and v.numel() > 3:
            raise RuntimeError("forward exploded")
        return v * 2

    b = make(f=flaky, n=3)
    state["fail"] = True
    b.n_slider.value = 4
    assert "RuntimeError: forward exploded" in b.error_area.value
    assert not b.busy


def test_close_leaks_nothing():
    before = len(_instances)
    b = JacobianBuilder(f="SquareFn", n=3)
    b.run_all()
    b.close()
    assert b.closed and len(_instances) == before


def test_monkey(make):
    b = make(f="WrongSquareFn", n=3)
    rng = random.Random(3)
    actions = [
        lambda: b.step(),
        lambda: b.run_all(),
        lambda: b.reset(),
        lambda: setattr(b, "n", rng.randint(1, 6)),
        lambda: b._set_values({"step": rng.randint(-2, 20)}),
    ]
    for _ in range(200):
        rng.choice(actions)()
        assert 0 <= b.position <= b.total_steps == 2 * b.n
        assert b.calls.forward == 1 + 2 * min(b.position, b.n)
        assert b.error_area.value == ""
