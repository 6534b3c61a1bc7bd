"""check().passed equals torch.autograd.gradcheck's verdict, for both engines, by construction.

First over ``autograd.Function`` classes written the way torch's own test suite writes them
(several outputs, integer outputs, ``mark_non_differentiable``, ``once_differentiable``,
``setup_context`` with ``generate_vmap_rule``), right and wrong; then over random small
functions, shapes, memory layouts and dtypes drawn by hypothesis.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch.autograd import Function
from torch.autograd.function import once_differentiable

from gradkit import check
from gradkit.zoo import OneEntryWrongSquareFn, WrongSquareFn

ENGINES = ("torch", "batched")


def _torch_says(fn, inputs) -> bool:
    """torch's slow-mode verdict; an error other than a mismatch counts as a failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=False))
        except Exception:  # noqa: BLE001 - torch raised: its verdict is "fail"
            return False


def _gkit_says(fn, inputs, engine: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check(fn, inputs, engine=engine).passed


# ------------------------------------------------------------- Functions in torch's test style


class SinCos(Function):
    """Two outputs, each with its own grad_output."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos() - grad_cos * x.sin()


class SinCosWrongSign(SinCos):
    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos() + grad_cos * x.sin()


class SortWithIndices(Function):
    """An integer output, marked non-differentiable, as torch's tests for sort and max do."""

    @staticmethod
    def forward(ctx, x):
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, _grad_indices):
        (indices,) = ctx.saved_tensors
        return torch.zeros_like(grad_values).scatter_(0, indices, grad_values)


class SortWithWrongScatter(SortWithIndices):
    @staticmethod
    def backward(ctx, grad_values, _grad_indices):
        return grad_values  # forgets to put each gradient back in its place


class ExpWithMask(Function):
    """A floating output marked non-differentiable (a mask): torch does not compare it."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        mask = (x > 1.0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(y)
        return y, mask

    @staticmethod
    def backward(ctx, grad_y, _grad_mask):
        (y,) = ctx.saved_tensors
        return grad_y * y


class ExpOnce(Function):
    """A backward that cannot itself be differentiated."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


class CubeVmap(Function):
    """setup_context style with generate_vmap_rule=True: the batched engine may vmap it."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * grad_output * x**2


class CubeVmapWrong(CubeVmap):
    generate_vmap_rule = True

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * grad_output * x**2


class ScaledProduct(Function):
    """setup_context style, two tensors and a plain number; None for the number's gradient."""

    @staticmethod
    def forward(x, y, alpha):
        return x * y * alpha

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y, alpha = inputs
        ctx.save_for_backward(x, y)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        return grad_output * y * ctx.alpha, grad_output * x * ctx.alpha, None


def _v(n: int = 5) -> torch.Tensor:
    return torch.linspace(0.3, 1.7, n, dtype=torch.float64).requires_grad_()


_FUNCTIONS = {
    "SinCos": (SinCos.apply, lambda: (_v(),), True),
    "SinCosWrongSign": (SinCosWrongSign.apply, lambda: (_v(),), False),
    "SortWithIndices": (
        SortWithIndices.apply,
        lambda: (_v().detach().flip(0).requires_grad_(),),
        True,
    ),
    "SortWithWrongScatter": (
        SortWithWrongScatter.apply,
        lambda: (_v().detach().flip(0).requires_grad_(),),
        False,
    ),
    "ExpWithMask": (ExpWithMask.apply, lambda: (_v(),), True),
    "ExpOnce": (ExpOnce.apply, lambda: (_v(12),), True),
    "CubeVmap": (CubeVmap.apply, lambda: (_v(12),), True),
    "CubeVmapWrong": (CubeVmapWrong.apply, lambda: (_v(12),), False),
    "ScaledProduct": (
        ScaledProduct.apply,
        lambda: (_v(), _v().detach().sin().requires_grad_(), 2.5),
        True,
    ),
    "argmax and values": (lambda x: (x * 2, x.max(), x.argmax()), lambda: (_v(),), True),
    "integer output first": (lambda x: (x.argmax(), x * 2), lambda: (_v(),), False),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", list(_FUNCTIONS))
def test_torch_style_functions_get_torchs_verdict(name, engine):
    fn, make_inputs, expected = _FUNCTIONS[name]
    assert _torch_says(fn, make_inputs()) is expected, "the test's own premise"
    assert _gkit_says(fn, make_inputs(), engine) is expected


def test_the_batched_engine_vmaps_a_function_with_a_generated_vmap_rule():
    report = check(CubeVmap.apply, (_v(12),), engine="batched")
    assert report.passed and not report.notes  # batched, no fallback to one call per entry


# ------------------------------------------------------------------ random functions (property)


def _sum_of_squares(x):
    return (x * x).sum()


def _outer_sin(x):
    flat = x.reshape(-1)
    return torch.outer(flat, flat.sin())


def _sorted_values_and_indices(x):
    return torch.sort(x.reshape(-1))


def _exp_and_mask(x):
    return x.exp(), (x > 0).to(x.dtype)


#: name -> (function, elementwise: also drawn in float32)
_DRAWN = {
    "sin": (torch.sin, True),
    "square": (lambda x: x * x, True),
    "tanh": (torch.tanh, True),
    "WrongSquareFn": (WrongSquareFn.apply, True),
    "OneEntryWrongSquareFn": (OneEntryWrongSquareFn.apply, False),
    "sum of squares": (_sum_of_squares, False),
    "cumsum": (lambda x: x.cumsum(0), False),
    "outer": (_outer_sin, False),
    "sort": (_sorted_values_and_indices, False),
    "exp and mask": (_exp_and_mask, False),
}
_LAYOUTS = ("contiguous", "transposed", "expanded", "strided slice", "overlapping")


def _make_input(values: torch.Tensor, shape: tuple[int, int], layout: str) -> torch.Tensor:
    rows, cols = shape
    if layout == "transposed":
        x = values[: rows * cols].reshape(cols, rows).t()
    elif layout == "expanded":
        x = values[:cols].expand(rows, cols)
    elif layout == "strided slice":
        x = values[: 2 * rows * cols].reshape(rows, 2 * cols)[:, ::2]
    elif layout == "overlapping":
        x = values.as_strided((rows, cols), (1, 1))
    else:
        x = values[: rows * cols].reshape(rows, cols)
    return x.detach().requires_grad_()


@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    name=st.sampled_from(sorted(_DRAWN)),
    shape=st.tuples(st.integers(1, 3), st.integers(1, 4)),
    layout=st.sampled_from(_LAYOUTS),
    single=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_random_functions_layouts_and_dtypes_get_torchs_verdict(name, shape, layout, single, seed):
    fn, elementwise = _DRAWN[name]
    dtype = torch.float32 if (single and elementwise) else torch.float64
    generator = torch.Generator().manual_seed(seed)
    values = (torch.rand(64, generator=generator, dtype=torch.float64) * 3 - 1.5).to(dtype)
    for engine in ENGINES:
        expected = _torch_says(fn, (_make_input(values, shape, layout),))
        got = _gkit_says(fn, (_make_input(values, shape, layout),), engine)
        assert got == expected, f"{engine} engine: {name}, {shape}, {layout}, {dtype}"
