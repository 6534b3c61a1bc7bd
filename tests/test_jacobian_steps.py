"""The compute side of JacobianBuilder: gradcheck's two Jacobians, a step at a time."""

from __future__ import annotations

import pytest
import torch

import gradkit
from gradkit import zoo
from gradkit.cost import count_calls
from gradkit.widgets._jacobian_steps import (
    N_MAX,
    as_function,
    as_input,
    close_entries,
    fmt_entry,
    jacobian_steps,
    sample_input,
)


@pytest.mark.parametrize("name", ["SquareFn", "WrongSquareFn", "ForgotGradOutputSigmoidFn"])
@pytest.mark.parametrize("n", [1, 5, 8])
def test_jacobians_equal_gradkits(name, n):
    f, label = as_function(name)
    x = sample_input(n)
    steps = jacobian_steps(f, x)
    inputs = (x.clone().requires_grad_(True),)
    numeric = gradkit.numeric_jacobian(f, inputs)[0][0]
    analytic = gradkit.analytic_jacobian(f, inputs)[0][0]
    # up to 8 entries gradkit evaluates one entry per call, as gradcheck and this module do
    assert torch.equal(steps.numeric, numeric), (steps.numeric, numeric)
    assert torch.equal(steps.analytic, analytic), (steps.analytic, analytic)
    assert label == name and (steps.n, steps.m) == (n, n)


def test_a_buggy_twin_differs_where_its_bug_is():
    right = jacobian_steps(*_f("SquareFn"), sample_input(4))
    twin = jacobian_steps(*_f("WrongSquareFn"), sample_input(4))
    assert torch.equal(right.numeric, twin.numeric)  # same forward
    assert close_entries(right).all()
    bad = ~close_entries(twin)
    assert bad.equal(torch.eye(4, dtype=torch.bool)), bad  # the diagonal 3x against 2x


def _f(name):
    return (as_function(name)[0],)


def test_call_counts_are_gradchecks():
    n = 6
    steps = jacobian_steps(zoo.SquareFn.apply, sample_input(n))
    # one reference run, then 2 forward calls per numeric column, then 1 backward per row
    assert steps.forward_calls == (1, *range(3, 2 * n + 2, 2), *([2 * n + 1] * n))
    assert steps.backward_calls == (0, *([0] * n), *range(1, n + 1))
    assert len(steps.seconds) == steps.steps + 1 == 2 * n + 1
    assert all(b >= a for a, b in zip(steps.seconds, steps.seconds[1:], strict=False))
    # gradcheck itself makes one more forward call (its undefined-gradient check)
    counted = count_calls(zoo.SquareFn.apply, (sample_input(n).requires_grad_(),))
    assert counted.forward == steps.forward_calls[-1] + 1


def test_counts_come_from_real_calls():
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
    assert (steps.forward_calls[-1], steps.backward_calls[-1]) == (7, 3)


def test_non_square_and_non_diagonal_jacobians():
    x = sample_input(4)
    softmax = jacobian_steps(lambda v: torch.softmax(v, 0), x)
    expected = torch.autograd.functional.jacobian(lambda v: torch.softmax(v, 0), x)
    torch.testing.assert_close(softmax.analytic, expected, rtol=0, atol=1e-15)
    torch.testing.assert_close(softmax.numeric, expected, rtol=0, atol=1e-9)
    total = jacobian_steps(lambda v: (v * v).sum(), x)
    assert (total.m, total.n) == (1, 4) and total.backward_calls[-1] == 1
    assert total.steps == 5


def test_a_function_of_no_input_has_zero_analytic_rows():
    steps = jacobian_steps(lambda v: torch.ones(2, dtype=torch.float64), sample_input(3))
    assert torch.equal(steps.analytic, torch.zeros(2, 3, dtype=torch.float64))
    assert torch.equal(steps.numeric, torch.zeros(2, 3, dtype=torch.float64))


def test_as_function_accepts_every_form():
    x = sample_input(3)
    for f in ("WrongSquareFn", zoo.WrongSquareFn, zoo.WrongSquareFn.apply):
        fn, label = as_function(f)
        assert label == "WrongSquareFn"
        assert torch.equal(fn(x.clone().requires_grad_()), x * x)
    assert as_function("x²")[1] == "x²"
    assert as_function(lambda v: v)[1] == "your f"
    assert as_function(torch.sin)[1] == "sin"


@pytest.mark.parametrize(
    ("f", "error", "match"),
    [
        ("MatmulFn", ValueError, "not a one-input zoo Function"),
        ("ComplexSquareFn", ValueError, "not a one-input zoo Function"),
        (3, TypeError, "f must be an autograd.Function"),
    ],
)
def test_as_function_refuses_clearly(f, error, match):
    with pytest.raises(error, match=match):
        as_function(f)


@pytest.mark.parametrize(
    ("x", "error", "match"),
    [
        ([], ValueError, "number of entries of x must be a whole number from 1"),
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


def test_bad_functions_are_named():
    x = sample_input(2)
    with pytest.raises(TypeError, match="complex"):
        jacobian_steps(lambda v: v.to(torch.complex128), x)
    with pytest.raises(TypeError, match="must return a tensor"):
        jacobian_steps(lambda v: 3.0, x)
    with pytest.raises(ValueError, match="eps"):
        jacobian_steps(torch.sin, x, eps=0)


def test_sample_input_resizes_over_the_same_range():
    assert sample_input(3).tolist() == [0.25, 1.125, 2.0]
    like = torch.tensor([-1.0, 0.0, 3.0])
    assert sample_input(5, like).tolist() == [-1.0, 0.0, 1.0, 2.0, 3.0]
    assert sample_input(1, like).tolist() == [-1.0]
    with pytest.raises(ValueError, match="n must be a whole number"):
        sample_input(0)


def test_entries_print_short():
    assert [fmt_entry(v) for v in (0.0, 0.25, -1.5, 2e-7, 123456.0)] == [
        "0",
        "0.25",
        "-1.5",
        "2e-07",
        "1e+05",
    ]
