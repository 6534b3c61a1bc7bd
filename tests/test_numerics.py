"""numerics against closed forms, against torch's own gradcheck internals, and against theory."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.autograd.gradcheck import _get_numerical_jacobian

import gradkit
from gradkit.numerics import (
    DTYPES,
    numeric_slopes,
    optimal_eps,
    rounding_error,
    truncation_error,
    unit_roundoff,
)
from gradkit.numerics.theory import derivatives


def square(v):
    return v * v


def cube(v):
    return v**3


# ------------------------------------------------------------------------------ numeric_slope


def test_seed_nudge_gives_four():
    assert round(gradkit.numeric_slope(square, 2.0, 1e-3), 3) == 4.0


@pytest.mark.parametrize(
    ("scheme", "expected"),
    [
        # x^2: central has no truncation error; forward is 2x + h; backward is 2x - h
        ("central", 4.0),
        ("forward", 4.0 + 1e-3),
        ("backward", 4.0 - 1e-3),
    ],
)
def test_schemes_match_closed_forms(scheme, expected):
    assert gradkit.numeric_slope(square, 2.0, 1e-3, scheme=scheme) == pytest.approx(
        expected, abs=1e-9
    )


def test_central_truncation_error_is_eps_squared_over_six_times_f3():
    # x^3: central slope = 3x^2 + h^2 exactly (f''' = 6, so h^2 * 6 / 6)
    h = 1e-2
    assert gradkit.numeric_slope(cube, 0.5, h) == pytest.approx(0.75 + h**2, rel=1e-10)


def test_x_and_eps_are_cast_to_the_dtype():
    # float32 at eps = 1e-6: the seed's point, 1.0133 instead of 1
    assert gradkit.numeric_slope(square, 0.5, 1e-6, dtype=torch.float32) == pytest.approx(
        1.0132789611816406
    )
    # float16 / bfloat16: x +- 1e-6 rounds back to x, so the slope is exactly zero
    assert gradkit.numeric_slope(square, 0.5, 1e-6, dtype=torch.float16) == 0.0
    assert gradkit.numeric_slope(square, 0.5, 1e-6, dtype="bfloat16") == 0.0


def test_eps_that_underflows_is_refused_with_advice():
    with pytest.raises(ValueError, match=r"eps=1e-08 rounds to 0 in float16.*larger eps"):
        gradkit.numeric_slope(square, 0.5, 1e-8, dtype=torch.float16)


@pytest.mark.parametrize("eps", [0, -1e-3, math.nan, math.inf])
def test_bad_eps_is_named(eps):
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        gradkit.numeric_slope(square, 2.0, eps)


def test_bad_dtype_scheme_and_x_are_named():
    with pytest.raises(TypeError, match="dtype must be a floating torch dtype"):
        gradkit.numeric_slope(square, 2.0, 1e-3, dtype=torch.int32)
    with pytest.raises(ValueError, match="dtype='float8'"):
        gradkit.numeric_slope(square, 2.0, 1e-3, dtype="float8")
    with pytest.raises(ValueError, match="scheme='left'"):
        gradkit.numeric_slope(square, 2.0, 1e-3, scheme="left")
    with pytest.raises(TypeError, match="x must be a single number"):
        gradkit.numeric_slope(square, [1.0, 2.0], 1e-3)
    with pytest.raises(TypeError, match="eps must be a positive number"):
        gradkit.numeric_slope(square, 2.0, "1e-3")


def test_numeric_slopes_marks_underflow_with_nan_and_matches_single_calls():
    grid = [1e-12, 1e-8, 1e-4, 1e-2]
    slopes = numeric_slopes(square, 0.5, grid, dtype=torch.float16)
    assert torch.isnan(slopes[:2]).all()
    assert slopes[2].item() == gradkit.numeric_slope(square, 0.5, 1e-4, dtype=torch.float16)
    assert slopes[3].item() == gradkit.numeric_slope(square, 0.5, 1e-2, dtype=torch.float16)


def test_a_function_that_does_not_broadcast_is_evaluated_point_by_point():
    calls = []

    def scalar_only(v):
        calls.append(v.shape)
        if v.dim():
            raise ValueError("scalars only")
        return torch.sin(v)

    slopes = numeric_slopes(scalar_only, 0.3, [1e-3, 1e-4])
    assert slopes == pytest.approx(torch.tensor([math.cos(0.3)] * 2, dtype=torch.float64), abs=1e-6)


def test_analytic_slope_is_autograd_in_float64():
    assert gradkit.analytic_slope(torch.sin, 0.3) == pytest.approx(math.cos(0.3), abs=1e-15)
    assert gradkit.analytic_slope(lambda v: v * 0 + 1, 0.3) == 0.0
    with pytest.raises(ValueError, match=r"torch.sin\(v\), not math.sin\(v\)"):
        gradkit.analytic_slope(lambda v: math.sin(v.detach().item()), 0.3)


def test_a_function_returning_python_floats_keeps_float64():
    slope = gradkit.numeric_slope(lambda v: float(v) ** 2, 2.0, 1e-3)
    assert slope == pytest.approx(4.0, abs=1e-9)


# ------------------------------------------------------------------------- theory and sweeps


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        # numerics.md's table for x^3 at 0.5: h* = (3u|f|/|f'''|)^(1/3)
        (torch.float64, 1.9e-6),
        (torch.float32, 1.55e-3),
        (torch.float16, 3.1e-2),
        (torch.bfloat16, 6.3e-2),
    ],
)
def test_optimal_eps_matches_the_table(dtype, expected):
    derivs = (0.125, 0.75, 3.0, 6.0)
    assert optimal_eps(derivs, dtype, "central") == pytest.approx(expected, rel=0.02)


def test_unit_roundoff():
    assert unit_roundoff(torch.float64) == 2.0**-53
    assert unit_roundoff("float32") == 2.0**-24
    assert unit_roundoff(torch.float16) == 2.0**-11
    assert unit_roundoff(torch.bfloat16) == 2.0**-8


def test_sweep_default_grid_and_v_shape():
    result = gradkit.sweep(cube, 0.5)
    assert result.eps.numel() == 61
    assert result.eps[0].item() == pytest.approx(1e-12)
    assert result.eps[-1].item() == pytest.approx(1.0)
    assert result.analytic.item() == pytest.approx(0.75)
    assert result.tolerance == pytest.approx(1e-5 + 1e-3 * 0.75)
    for name in DTYPES:
        curve = result[name]
        # the minimum sits near theory's optimum (within a factor of ~8 on the grid)
        assert curve.best_eps == pytest.approx(curve.optimal_eps, rel=7)
        # V shape: error falls then rises around the best eps
        best = result.nearest(curve.best_eps)
        left = torch.nan_to_num(curve.error[:best], nan=0.0)
        assert left.max() > 10 * curve.best_error
        assert curve.error[-1] > 10 * curve.best_error
    f64, f32 = result["float64"], result["float32"]
    i = result.nearest(1e-6)
    assert f64.passes[i] and not f32.passes[i]
    assert f64.error[i] < result.tolerance < f32.error[i]


def test_sweep_marks_underflow_and_keeps_theory_finite():
    result = gradkit.sweep(square, 0.5)
    f16 = result[torch.float16]
    assert f16.underflow.any() and not result["float64"].underflow.any()
    assert torch.equal(torch.isnan(f16.error), f16.underflow)
    assert torch.equal(f16.underflow, result.eps.to(torch.float16) == 0)
    for curve in result.dtypes.values():
        assert torch.isfinite(curve.theory).all()
        assert torch.isfinite(curve.rounding).all()
    # collapsed: x +- eps round back onto x, the slope is exactly 0 and the error is |analytic| = 1
    collapsed = f16.collapsed
    assert collapsed.any()
    assert torch.all(f16.numeric[collapsed] == 0)
    # x^2 with the central scheme has no truncation error: optimum is unbounded
    assert math.isinf(result["float64"].optimal_eps)


def test_sweep_reproduces_the_measured_float32_failure():
    # numerics.md: x^2 at 0.5, eps = 1e-6: error 1.33e-2 in float32, about 13x the tolerance
    result = gradkit.sweep(square, 0.5)
    err = result["float32"].error_at(1e-6)
    assert err == pytest.approx(1.33e-2, rel=0.01)
    assert 12 < err / result.tolerance < 14


def test_sweep_vector_input_reports_the_worst_entry():
    x = torch.tensor([0.25, 0.5, 2.0], dtype=torch.float64)
    result = gradkit.sweep(torch.exp, x, dtypes=[torch.float64, torch.float32])
    i = result.nearest(1e-2)
    errors = [
        abs(gradkit.numeric_slope(torch.exp, float(v), float(result.eps[i])) - math.exp(v))
        for v in x.tolist()
    ]
    assert result["float64"].error[i].item() == pytest.approx(max(errors), rel=1e-6)


def test_sweep_bad_input():
    with pytest.raises(ValueError, match="elementwise f"):
        gradkit.sweep(lambda v: v.sum(), torch.ones(3))
    with pytest.raises(ValueError, match="eps must be a non-empty sequence"):
        gradkit.sweep(square, 0.5, eps=[1e-3, -1.0])
    with pytest.raises(ValueError, match="atol must be a finite number >= 0"):
        gradkit.sweep(square, 0.5, atol=-1)


def test_truncation_and_rounding_curves():
    eps = torch.tensor([1e-3, 1e-2], dtype=torch.float64)
    derivs = (0.125, 0.75, 3.0, 6.0)
    assert truncation_error(eps, derivs, "central").tolist() == pytest.approx([1e-6, 1e-4])
    assert truncation_error(eps, derivs, "forward").tolist() == pytest.approx([1.5e-3, 1.5e-2])
    u = unit_roundoff(torch.float32)
    assert rounding_error(eps, 0.125, torch.float32, "central").tolist() == pytest.approx(
        [u * 0.125 / 1e-3, u * 0.125 / 1e-2]
    )


@pytest.mark.parametrize(
    ("f", "x", "exceeded"), [(cube, 0.5, True), (torch.sin, 3.0, True), (torch.exp, 1.0, False)]
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_textbook_rounding_term_is_a_typical_size_and_both_roundings_a_bound(
    f, x, exceeded, dtype
):
    """Lesson 4's words: E(eps) = truncation + rounding_error (f's rounding, u|f|/eps) is no
    bound, the measured error rises above it at some of the lab's steps (x³, the lesson's case;
    sin at 3, where |x f'| is about 20 times |f|), though not for every f; with the landing of
    x ± eps too, u(|f| + |x f'|)/eps, it is one: never exceeded left of eps* (where rounding
    is the larger arm; beyond it the leading truncation term alone is a first-order estimate)."""
    steps = [m * 10.0**k for k in range(-12, 0) for m in (1, 2, 5)]
    derivs = derivatives(f, x)
    result = gradkit.sweep(f, x, eps=steps, dtypes=[dtype])[dtype]
    grid = torch.tensor(steps, dtype=torch.float64)
    truncation = truncation_error(grid, derivs, "central")
    textbook = truncation + rounding_error(grid, derivs[0], dtype, "central")
    bound = truncation + unit_roundoff(dtype) * (abs(derivs[0]) + abs(x * derivs[1])) / grid
    left = grid <= result.optimal_eps
    shelf = result.error >= abs(derivs[1])  # x ± eps round to x: the whole slope, no more
    assert bool((result.error[left & ~shelf] <= bound[left & ~shelf]).all())
    assert bool((result.error[left] > textbook[left] * 1.05).any()) is exceeded


# ------------------------------------------------------------------- property: error <= theory


def _bound(x: float, h: float, dtype: torch.dtype) -> float:
    # exp: every derivative is exp. Truncation h^2 |f'''| / 6 (max over [x-h, x+h]) plus rounding:
    # each f evaluation off by ~u|f|, and x +- h itself rounded (off by u|x|, times |f'|), over 2h.
    u = unit_roundoff(dtype)
    top = math.exp(x + h)
    truncation = h * h * top / 6
    rounding = (2 * u * top + 2 * u * (abs(x) + h) * top) / (2 * h)
    return 4 * (truncation + rounding) + 4 * u * top


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-1.0, 1.0), log_h=st.floats(-7.0, -1.0))
def test_float64_error_within_theoretical_bound(x, log_h):
    h = 10.0**log_h
    err = abs(gradkit.numeric_slope(torch.exp, x, h) - math.exp(x))
    assert err <= _bound(x, h, torch.float64)


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-1.0, 1.0), log_h=st.floats(-4.0, -1.0))
def test_float32_error_within_theoretical_bound(x, log_h):
    h = 10.0**log_h
    x32 = float(torch.tensor(x, dtype=torch.float32))
    err = abs(gradkit.numeric_slope(torch.exp, x, h, dtype=torch.float32) - math.exp(x32))
    assert err <= _bound(x, h, torch.float32)


# --------------------------------------------------------------------------------- Jacobians


def _torch_numeric(fn, inputs, eps=1e-6):
    """torch's slow-mode numeric Jacobians, transposed to (output, input) layout: J[o][i]."""
    per_input = _get_numerical_jacobian(fn, inputs, eps=eps)
    n_out = len(per_input[0])
    return [[per_input[i][o].T for i in range(len(per_input))] for o in range(n_out)]


def _two_outputs(a, b):
    return torch.sin(a) * b.sum(), a @ b.reshape(3, 2)


@pytest.mark.parametrize("case", ["matmul", "two_in_two_out", "complex"])
def test_numeric_jacobian_agrees_with_torch_to_1e12(case):
    gen = torch.Generator().manual_seed(7)
    if case == "matmul":
        w = torch.randn(5, 4, dtype=torch.float64, generator=gen)
        fn, inputs = (lambda x: x @ w), (torch.randn(3, 5, dtype=torch.float64, generator=gen),)
    elif case == "two_in_two_out":
        fn = _two_outputs
        inputs = (
            torch.randn(4, 3, dtype=torch.float64, generator=gen),
            torch.randn(6, dtype=torch.float64, generator=gen),
        )
    else:
        fn = lambda z: z * z.conj() + 2 * z  # noqa: E731
        inputs = (torch.randn(3, dtype=torch.complex128, generator=gen),)
    inputs = tuple(t.requires_grad_(True) for t in inputs)
    ours = gradkit.numeric_jacobian(fn, inputs)
    if case == "complex":
        # torch reports complex Jacobians through the Wirtinger split; compare the real view instead
        analytic = gradkit.analytic_jacobian(fn, inputs)
        assert torch.allclose(ours[0][0], analytic[0][0], atol=1e-8)
        return
    theirs = _torch_numeric(fn, inputs)
    for o, row in enumerate(theirs):
        for i, expected in enumerate(row):
            assert ours[o][i].shape == expected.shape
            assert torch.allclose(ours[o][i], expected, atol=1e-12, rtol=0)


def test_numeric_jacobian_chunking_gives_the_same_numbers():
    x = torch.linspace(-1, 1, 37, dtype=torch.float64, requires_grad=True)
    whole = gradkit.numeric_jacobian(torch.tanh, (x,))
    chunked = gradkit.numerics.numeric_jacobian(torch.tanh, (x,), chunk_size=5)
    assert torch.equal(whole[0][0], chunked[0][0])


def test_analytic_jacobian_matches_autograd_functional():
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(2, 3, dtype=torch.float64, generator=gen, requires_grad=True)
    b = torch.randn(3, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    ours = gradkit.analytic_jacobian(gradkit.zoo.MatmulFn.apply, (a, b))
    ja, jb = torch.autograd.functional.jacobian(torch.matmul, (a, b))
    assert torch.allclose(ours[0][0], ja.reshape(8, 6))
    assert torch.allclose(ours[0][1], jb.reshape(8, 12))
