"""JacobianBuilder: every step gradcheck's slow mode takes, sent ahead; torch's count beside it."""

from __future__ import annotations

import functools
import importlib
import random

import numpy as np
import pytest
import torch
import traitlets
from ipywidgets.widgets.widget import _instances
from planted import planted_matmul

import gradkit
from gradkit import zoo
from gradkit.cost import count_calls
from gradkit.widgets import GradcheckLab, JacobianBuilder
from gradkit.widgets.base import schedule
from gradkit.widgets.base.jacobians import difference_ratio
from gradkit.widgets.base.tables import unpack
from gradkit.widgets.jacobian.steps import (
    N_MAX,
    as_function,
    as_input,
    jacobian_steps,
    sample_input,
)
from tests.widgets.page_messages import page_sends
from tests.widgets.test_base import check_bundle


@pytest.fixture
def build(make):
    """conftest's ``make``, building a JacobianBuilder."""
    return functools.partial(make, JacobianBuilder)


def _arrays(b):
    return unpack(b.tables, b.scene["tables"])


_torch_gradcheck = importlib.import_module("torch.autograd.gradcheck")
inf = float("inf")


def _reference(f, x):
    """torch's own slow-mode Jacobians of ``f`` at ``x``, (m, n) each, as float64."""
    inputs = (x.clone().requires_grad_(True),)
    numeric = _torch_gradcheck._get_numerical_jacobian(f, inputs, eps=1e-6)[0][0].T
    with torch.enable_grad():
        out = f(*inputs)
    (analytic,) = _torch_gradcheck._check_analytical_jacobian_attributes(inputs, out, inf, False)
    return numeric.double(), analytic.T.double()


# ------------------------------------------------------------------------------- the steps


@pytest.mark.parametrize("name", ["SquareFn", "WrongSquareFn", "ForgotGradOutputSigmoidFn"])
@pytest.mark.parametrize("n", [1, 5, 8, 20])
def test_steps_build_torchs_own_jacobians(name, n):
    f, label = as_function(name)
    steps = jacobian_steps(f, sample_input(n))
    numeric, analytic = _reference(f, sample_input(n))
    assert torch.equal(steps.numeric, numeric) and torch.equal(steps.analytic, analytic)
    assert label == name and (steps.n, steps.m) == (n, n)


def test_steps_are_torchs_where_batched_calls_round_differently():
    f, x = planted_matmul()
    steps = jacobian_steps(f, x.detach())
    numeric, analytic = _reference(f, x.detach())
    assert torch.equal(steps.numeric, numeric) and torch.equal(steps.analytic, analytic)
    assert not torch.equal(gradkit.numeric_jacobian(f, (x,))[0][0], numeric)  # batched: not


def test_steps_call_f_with_grad_mode_on_as_torch_does():
    """A function that answers differently without grad mode reads as torch reads it."""
    f = lambda v: v * 2 if torch.is_grad_enabled() else v * v  # noqa: E731
    steps = jacobian_steps(f, sample_input(3))
    numeric, analytic = _reference(f, sample_input(3))
    assert torch.equal(steps.numeric, numeric) and torch.equal(steps.analytic, analytic)


def test_the_build_counts_its_real_calls():
    calls = {"forward": 0, "backward": 0}

    class Counted(zoo.CubeFn):
        @staticmethod
        def forward(ctx, x):
            calls["forward"] += 1
            return zoo.CubeFn.forward(ctx, x)

        @staticmethod
        def backward(ctx, grad_output):
            calls["backward"] += 1
            return zoo.CubeFn.backward(ctx, grad_output)

    steps = jacobian_steps(Counted.apply, sample_input(3))
    assert (calls["forward"], calls["backward"]) == (7, 3)
    # one reference run, then 2 forward calls per numeric column, then 1 backward per row
    assert steps.forward_calls == (1, 3, 5, 7, 7, 7, 7)
    assert steps.backward_calls == (0, 0, 0, 0, 1, 2, 3)
    assert all(b >= a for a, b in zip(steps.seconds, steps.seconds[1:], strict=False))


def test_non_square_jacobians_and_functions_of_no_input():
    x = sample_input(4)
    softmax = jacobian_steps(lambda v: torch.softmax(v, 0), x)
    expected = torch.autograd.functional.jacobian(lambda v: torch.softmax(v, 0), x)
    torch.testing.assert_close(softmax.analytic, expected, rtol=0, atol=1e-15)
    total = jacobian_steps(lambda v: (v * v).sum(), x)
    assert (total.m, total.n, total.steps) == (1, 4, 5) and total.backward_calls[-1] == 1
    constant = jacobian_steps(lambda v: torch.ones(2, dtype=torch.float64), sample_input(3))
    assert torch.equal(constant.analytic, torch.zeros(2, 3, dtype=torch.float64))


def test_difference_ratio_is_gradchecks_rule():
    numeric = np.array([[1.0, 0.0], [0.0, 2.0]])
    analytic = np.array([[1.0 + 2e-5, 0.0], [0.0, 2.0 + 4.1e-3]])
    ratio, outside = difference_ratio(numeric, analytic, 1e-5, 1e-3)
    np.testing.assert_allclose(ratio, [[2e-5 / 1.01e-3, 0], [0, 4.1e-3 / 2.01e-3]])
    assert outside.tolist() == [[False, False], [False, True]]
    ratio, outside = difference_ratio(numeric, analytic, 0.0, 0.0)
    assert ratio[0, 0] == np.inf and ratio[0, 1] == 0
    assert outside.tolist() == [[True, False], [False, True]]
    assert difference_ratio(np.array([np.nan]), np.array([1.0]), 1e-5, 1e-3)[1].tolist() == [True]


@pytest.mark.parametrize(
    ("x", "error", "match"),
    [
        ([], ValueError, "from 1"),
        (list(range(N_MAX + 1)), ValueError, "from 1 to 64"),
        (torch.tensor([1, 2]), TypeError, "real floating"),
        ([1.0, float("nan")], ValueError, "finite"),
        ("12", TypeError, "1-D tensor or a list"),
        (["a"], TypeError, "list of numbers"),
    ],
)
def test_as_input_refuses_clearly(x, error, match):
    with pytest.raises(error, match=match):
        as_input(x)


def test_as_function_takes_every_form():
    for f in ("WrongSquareFn", zoo.WrongSquareFn, zoo.WrongSquareFn.apply):
        assert as_function(f)[1] == "WrongSquareFn"
    assert as_function("x²")[1] == "x²" and as_function(lambda v: v)[1] == "your f"
    assert as_function(torch.sin)[1] == "sin"
    assert sample_input(5, torch.tensor([-1.0, 0.0, 3.0])).tolist() == [-1.0, 0.0, 1.0, 2.0, 3.0]
    own = torch.tensor([0.0, 3.0, 1.0], dtype=torch.float64)  # of n entries: x itself
    assert sample_input(3, own).tolist() == [0.0, 3.0, 1.0] and sample_input(3, own) is not own
    one_entry = torch.tensor([0.5])  # n entries at its one value; n = 1: the range's start
    assert sample_input(2, one_entry).tolist() == [0.5, 0.5] and sample_input(1).tolist() == [0.25]


# ------------------------------------------------------------------------------ the widget


@pytest.mark.parametrize("f", [zoo.SigmoidFn, zoo.ForgotGradOutputSigmoidFn])
def test_the_scene_holds_both_jacobians_and_where_they_differ(build, f):
    b = build(f=f, n=5)
    arrays = _arrays(b)
    numeric, analytic = _reference(f.apply, sample_input(5))
    np.testing.assert_array_equal(arrays["numeric"], numeric.numpy())
    np.testing.assert_array_equal(arrays["analytic"], analytic.numpy())
    wrong = np.abs(arrays["analytic"] - arrays["numeric"]) > 1e-5 + 1e-3 * np.abs(arrays["numeric"])
    np.testing.assert_array_equal(arrays["outside"], wrong.astype(float))
    assert wrong.any() is not zoo.entry(f).correct
    np.testing.assert_array_equal(arrays["x"], sample_input(5).numpy())


def test_one_count_of_gradchecks_calls_beside_the_builds(build):
    b = build(f="SquareFn", n=4)
    counted = count_calls(zoo.SquareFn.apply, (sample_input(4).requires_grad_(),))
    g = b.scene["gradcheck"]
    assert (g["forward"], g["backward"], g["passed"]) == (
        counted.forward,
        counted.backward,
        counted.passed,
    )
    assert b.gradcheck_calls == counted
    arrays = _arrays(b)
    assert arrays["forward"].tolist() == [1, 3, 5, 7, 9, 9, 9, 9, 9]  # the build: 1 + 2n
    assert arrays["backward"].tolist() == [0, 0, 0, 0, 0, 1, 2, 3, 4]  # one per output entry
    failing = build(f="WrongSquareFn", n=3).scene["gradcheck"]
    assert failing["passed"] is False  # torch's own verdict, counted on the same input


def test_steps_move_in_the_page_and_start_with_a_column_built(build):
    b = build(f="WrongSquareFn", n=3)
    assert b.position == 1  # the first column built (the page shows it: stepParts, node --test)
    spec = {s["name"]: s for s in b.spec["steps"]}
    assert [spec[k]["css"] for k in spec] == ["gradkit-step", "gradkit-run-all", "gradkit-reset"]
    b.step_button.click()
    assert b.position == 2
    b.run_button.click()
    assert b.position == 6 == b.total_steps
    assert b.next_step() == 6  # the end stays the end
    b.reset_button.click()
    assert b.position == 0
    scene = b.scene["id"]
    for k in (3, 5, 0):  # what the page sends for its own steps: nothing new is computed
        page_sends(b, step=k)
        assert b.position == k and b.scene["id"] == scene


@pytest.mark.parametrize("bad", [99, -1, 2.5, "3", True])
def test_a_bad_step_from_the_page_is_refused(build, bad):
    b = build(f="SquareFn", n=2)
    page_sends(b, step=bad)
    assert "the page sent step=" in b.error and b.position == 1


def test_a_new_n_is_a_new_scene_and_the_cost_grows(build):
    b = build(f="SquareFn", n=2)
    key = b.scene["key"]
    for n in (4, 8):
        b.n = n
        assert b.scene["key"] != key and b.scene["n"] == n and b.position == 1
        key = b.scene["key"]
        assert b.run_all() == 2 * n
    assert [(h["n"], h["forward"], h["backward"]) for h in b.history] == [
        (2, 5, 2),
        (4, 9, 4),
        (8, 17, 8),
    ]
    assert [h["gradcheck_forward"] for h in b.history] == [
        count_calls(zoo.SquareFn.apply, (sample_input(n).requires_grad_(),)).forward
        for n in (2, 4, 8)
    ]
    assert b.scene["history"] == b.history
    b.n_slider.value = 5.4  # a drag between whole numbers lands on one
    assert b.n == 5 and b.scene["n"] == 5
    with pytest.raises(ValueError, match="n must be a whole number from 1 to 64"):
        b.n = 0
    with pytest.raises(traitlets.TraitError, match=r"expected an int, not the float 4\.5"):
        b.n = 4.5  # n is the slider's position: a whole number (the handle snaps a float)
    assert b.n == 5 and b.n_slider.value == 5


def test_own_input_keeps_its_range(build):
    b = build(f=lambda v: torch.softmax(v, 0), x=[0.0, 1.0, 2.0])
    assert b.n == 3 and b.label == "your f" and _arrays(b)["x"].tolist() == [0.0, 1.0, 2.0]
    b.n = 5
    assert _arrays(b)["x"].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_an_error_in_f_shows_in_the_error_area(build):
    b = build(f=lambda v: 1 / 0)  # issue 19, item 19: no exception from the constructor
    assert "ZeroDivisionError" in b.error and b.scene["failed"] is True
    assert b.result is None and b.total_steps == 0 and b.position == 0
    state = {"fail": False}

    def flaky(v):
        if state["fail"] and v.numel() > 3:
            raise RuntimeError("forward exploded")
        return v * 2

    c = build(f=flaky, n=3)
    state["fail"] = True
    c.n_slider.value = 4
    assert "RuntimeError: forward exploded" in c.error and c.scene["failed"]
    c.n_slider.value = 3
    assert c.error == "" and not c.scene["failed"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"f": "MatmulFn"}, ValueError, "one-input zoo Function"),
        ({"f": 3}, TypeError, "f must be an autograd.Function"),
        ({"n": 0}, ValueError, "n must be a whole number"),
        ({"n": 2.5}, ValueError, "whole number"),
        ({"eps": -1}, ValueError, "eps"),
        ({"x": "abc"}, TypeError, "x must be"),
        ({"panels": ["both"]}, ValueError, "panels"),
    ],
)
def test_bad_arguments_raise(kwargs, error, match):
    before = len(_instances)
    with pytest.raises(error, match=match):
        JacobianBuilder(**kwargs)
    assert len(_instances) == before


def test_first_picture_needs_no_later_work_and_close_leaks_nothing():
    before, queued = len(_instances), schedule.pending()  # another test's leftovers aside
    with schedule.deferring(True):
        b = JacobianBuilder(f="SquareFn", n=3)
        assert not b.busy and schedule.pending() == queued  # every step is in the first scene
    b.close()
    assert b.closed and len(_instances) == before


def test_monkey(build):
    b = build(f="WrongSquareFn", n=3)
    rng = random.Random(3)
    actions = [
        lambda: b.next_step(), lambda: b.run_all(), lambda: b.reset(),
        lambda: setattr(b, "n", rng.randint(1, 6)), lambda: page_sends(b, n=rng.randint(1, 6)),
    ]  # fmt: skip
    for _ in range(120):
        rng.choice(actions)()
        assert 0 <= b.position <= b.total_steps == 2 * b.n
        assert b.result.forward_calls[b.position] == 1 + 2 * min(b.position, b.n)
        assert b.error == ""


@pytest.mark.parametrize("cls", [JacobianBuilder, GradcheckLab])
def test_each_family_bundle_parses_with_unique_names(cls):
    check_bundle(cls._esm)
