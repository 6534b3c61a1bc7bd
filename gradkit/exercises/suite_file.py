"""gradcheck in a test suite: a Function and a module, on inputs chosen on purpose.

Written by gradkit's lesson 12; yours to edit. Run it from its folder:
    python -m pytest -q --durations=3 test_my_function.py
Put your own Function in place of SignedSquare and keep the rest: the inputs, the budget, the
module check and the float32 check. (gradkit never imports this file; it copies it.)
"""

import os
import time

import pytest
import torch
from torch.autograd import gradcheck
from torch.func import functional_call

#: Seconds one test may take (a slower machine may set GRADCHECK_BUDGET_S). gradcheck runs the
#: function 2n + 2 times for n input entries: a test past its budget has grown too large.
BUDGET_S = float(os.environ.get("GRADCHECK_BUDGET_S", "5"))


class SignedSquare(torch.autograd.Function):
    """x·|x|: on positive inputs alone, its slope 2·|x| cannot be told from 2·x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x.abs()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x.abs()


def f64(values):
    return torch.tensor(values, dtype=torch.float64)


#: Inputs chosen on purpose: each shape and value a backward may trip on.
INPUTS = {
    "0-d": f64(-0.7),
    "empty": f64([]),
    "negative entries": f64([-1.5, 0.5, -2.0]),
    "a zero entry": f64([0.5, 0.0, 2.0]),
    "transposed": f64([[0.5, -1.0, 1.5], [2.0, -0.5, 1.25]]).T,
    "random 4 x 5": torch.randn(
        4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0)
    ),
}


@pytest.fixture
def budget():
    """Fails a test that took longer than BUDGET_S (measured around the whole test)."""
    start = time.perf_counter()
    yield
    spent = time.perf_counter() - start
    assert spent <= BUDGET_S, f"took {spent:.2f} s, over its budget of {BUDGET_S} s"


@pytest.mark.parametrize("name", INPUTS)
def test_signed_square(name, budget):
    x = INPUTS[name].detach().requires_grad_()  # its own leaf, its strides kept
    assert gradcheck(SignedSquare.apply, (x,))


def test_module_parameters(budget):
    """Every parameter of a module, checked as gradcheck's inputs through functional_call."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh()).double()
    x = f64([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    names = [name for name, _ in model.named_parameters()]
    params = tuple(p.detach().requires_grad_() for p in model.parameters())

    def run(*values):
        return functional_call(model, dict(zip(names, values, strict=True)), (x,))

    assert gradcheck(run, params)


def test_float32_against_float64(budget):
    """A float32 kernel (here torch.sin) against its float64 reference, with float32's own
    tolerances: compared as float64, assert_close would use float64's 1e-7. atol covers the
    entries near zero (sin at pi), where rtol alone asks for more digits than float32 has."""
    x = torch.linspace(0, 2 * torch.pi, 13, dtype=torch.float64)
    got = torch.sin(x.float())  # put your float32 kernel here
    torch.testing.assert_close(got.double(), torch.sin(x), rtol=1.3e-6, atol=1e-5)
