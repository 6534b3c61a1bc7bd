"""Unusual inputs as careless users write them: torch's verdict where torch works, else an error.

Every verdict here is compared with ``torch.autograd.gradcheck(..., raise_exception=False)`` on
the same inputs, for both engines; every error names the argument and the fix.
"""

from __future__ import annotations

import math
import re
import warnings

import pytest
import torch

import gradkit
from gradkit import check

ENGINES = ("torch", "batched")


def _x(*values: float, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def _torch_says(fn, inputs, **settings) -> bool:
    """torch's verdict on fresh copies; an error other than a mismatch counts as a failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=False, **settings))
        except Exception:  # noqa: BLE001 - torch raised: its verdict is "fail"
            return False


# ---------------------------------------------------------------------- what torch passes through


@pytest.mark.parametrize("engine", ENGINES)
def test_a_plain_number_among_the_inputs_is_passed_through(engine):
    x = _x(0.5, 1.5, 2.5)
    report = check(torch.pow, (x, 2.5), engine=engine)
    assert report.passed == _torch_says(torch.pow, (_x(0.5, 1.5, 2.5), 2.5)) is True
    assert report.cause == "pass"


@pytest.mark.parametrize("engine", ENGINES)
def test_none_among_the_inputs_is_passed_through(engine):
    def scaled(x, maybe_weight):
        return x * 2 if maybe_weight is None else x * maybe_weight

    assert check(scaled, (_x(0.5, 1.5), None), engine=engine).passed


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_tensor_beside_a_normal_one_is_fine(engine):
    def f(x, extra):
        return x.sin() + extra.sum()

    empty = torch.empty(0, dtype=torch.float64, requires_grad=True)
    report = check(f, (_x(0.5, 1.5), empty), engine=engine)
    assert report.passed == _torch_says(f, (_x(0.5, 1.5), empty)) is True


@pytest.mark.parametrize("engine", ENGINES)
def test_an_output_that_needs_no_gradient_is_skipped_like_torch(engine):
    def with_constant_mask(x):
        # the mask is a constant; its wrong "values" must not be compared with anything
        return x.exp(), torch.ones(3, dtype=torch.float64)

    report = check(with_constant_mask, (_x(0.5, 1.5, 2.5),), engine=engine)
    assert report.passed and report.cause == "pass"
    assert "every Jacobian entry agrees" in report.explanation
    assert report.worst is not None and report.worst.output == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_a_detached_output_is_not_compared(engine):
    def half_detached(x):
        return x * 2, (x * 5).detach()

    report = check(half_detached, (_x(0.5, 1.5),), engine=engine)
    assert report.passed == _torch_says(half_detached, (_x(0.5, 1.5),)) is True
    assert report.worst.output == 0  # the detached output never becomes "the worst entry"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_function_returning_nothing_gets_a_clear_message(engine):
    report = check(lambda x: (), (_x(0.5),), engine=engine)
    assert report.passed == _torch_says(lambda x: (), (_x(0.5),)) is True  # torch: vacuous
    assert "returned no outputs" in report.explanation
    assert "nothing to compare" in report.explanation
    assert "return the tensor" in report.suggestion


# ----------------------------------------------------------------------------- clear errors


def test_a_sparse_input_gets_torchs_verdict_and_the_to_dense_hint():
    sparse = torch.tensor([[0.0, 1.5]], dtype=torch.float64).to_sparse().requires_grad_()
    report = check(lambda s: s.to_dense().sin(), (sparse,), masked=True)
    assert report.passed and report.numeric is None
    assert any("sparse_coo tensor" in n and "to_dense()" in n for n in report.notes)


def test_a_meta_input_is_refused():
    meta = torch.empty(3, dtype=torch.float64, device="meta", requires_grad=True)
    with pytest.raises(ValueError, match=r"inputs\[0\] lives on the meta device.*cpu"):
        check(torch.sin, (meta,))


def test_eps_as_an_empty_list_is_refused():
    with pytest.raises(TypeError, match=r"eps must be a positive number.*got a list"):
        check(torch.sin, (_x(0.5),), eps=[])


def test_a_dict_of_inputs_is_refused_with_the_order_advice():
    with pytest.raises(TypeError, match=r"inputs is a dict; pass the values in the order"):
        check(torch.sin, {"x": _x(0.5)})


def test_a_float8_input_and_dtype_are_refused():
    x = torch.tensor([0.5]).to(torch.float8_e4m3fn).requires_grad_()
    with pytest.raises(ValueError, match=r"inputs\[0\].dtype=float8_e4m3fn is not supported"):
        check(torch.sin, (x,))
    with pytest.raises(ValueError, match=r"dtype=float8_e5m2 is not supported.*float64"):
        gradkit.numeric_slope(torch.sin, 1.0, 1e-3, dtype=torch.float8_e5m2)
    with pytest.raises(ValueError, match="float8_e4m3fn is not supported"):
        gradkit.sweep(torch.sin, 1.0, dtypes=[torch.float8_e4m3fn])


def test_sweep_refuses_a_complex_x_instead_of_dropping_its_imaginary_part():
    with pytest.raises(TypeError, match=r"x must be real.*x.real"):
        gradkit.sweep(torch.sin, torch.tensor([1.0 + 2.0j]))
    with pytest.raises(TypeError, match=r"x must be real"):
        gradkit.sweep(torch.sin, 1 + 2j)


@pytest.mark.parametrize("x", [math.nan, math.inf, [0.5, math.nan]])
def test_sweep_refuses_a_nan_or_infinite_x(x):
    with pytest.raises(ValueError, match="x must hold finite numbers"):
        gradkit.sweep(torch.sin, x)


@pytest.mark.parametrize(("f", "x"), [(torch.log, 0.0), (torch.exp, 800.0)])
def test_sweep_refuses_a_point_where_f_is_not_finite(f, x):
    with pytest.raises(ValueError, match=r"f\(x\) is not finite at x = .*domain"):
        gradkit.sweep(f, x)


@pytest.mark.parametrize("eps", [0.0, -1e-3, math.nan, math.inf])
def test_numeric_slopes_follows_the_eps_rule_of_numeric_slope(eps):
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        gradkit.numeric_slope(torch.sin, 1.0, eps)
    with pytest.raises(ValueError, match="eps must be a non-empty sequence of finite numbers > 0"):
        gradkit.numerics.numeric_slopes(torch.sin, 1.0, [1e-3, eps])


@pytest.mark.parametrize("argument", ["atol", "rtol", "nondet_tol"])
def test_nan_tolerances_are_refused(argument):
    with pytest.raises(ValueError, match=rf"{argument} must be a number >= 0.*got nan"):
        check(torch.sin, (_x(0.5),), **{argument: math.nan})


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_among_the_inputs_goes_to_torch_with_a_note(engine):
    def scaled(x, weights):
        return x * torch.tensor(weights, dtype=x.dtype)

    report = check(scaled, (_x(0.5, 1.5), [1.0, 2.0]), engine=engine)
    assert report.passed is _torch_says(scaled, (_x(0.5, 1.5), [1.0, 2.0])) is True
    assert any(re.search(r"inputs\[1\] is a list, not a tensor.*wrap it", n) for n in report.notes)
    refused = check(torch.mul, (_x(0.5, 1.5), [1.0, 2.0]), engine=engine)  # torch raises
    assert not refused.passed and refused.cause == "error"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_integer_index_tensor_among_the_inputs_is_passed_through(engine):
    def gather(x, index):
        return x[index] * 3

    index = torch.tensor([2, 0])
    report = check(gather, (_x(0.5, 1.5, 2.5), index), engine=engine)
    assert report.passed == _torch_says(gather, (_x(0.5, 1.5, 2.5), index)) is True


def test_the_callers_tensor_survives_a_function_that_raises_midway():
    # torch nudges its inputs in place and leaves the nudge in when fn raises; check() runs
    # torch on the caller's own tensor (for torch's verdict) and puts the values back
    calls = {"n": 0}

    def fails_on_its_third_call(x):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("the third call fails")
        return x * 2

    x = _x(0.5, 1.5)
    before = x.detach().clone()
    report = check(fails_on_its_third_call, (x,))
    assert not report.passed and report.cause == "error"
    assert "the third call fails" in report.explanation
    assert torch.equal(x.detach(), before) and x.grad is None and x.requires_grad
