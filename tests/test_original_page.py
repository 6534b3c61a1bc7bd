"""The original page's programs, run for real: the one-page lesson this kit grew from must hold."""

from __future__ import annotations

import contextlib
import io
import warnings

import pytest
import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

from gradkit.zoo import SquareFn, WrongSquareFn

ORIGINAL_EXAMPLE = """
good_input = torch.tensor([0.5, 1.5], dtype=torch.float64,
                          requires_grad=True)
try:
    good_ok = gradcheck(SquareFn.apply, (good_input,), raise_exception=True)
except Exception:
    good_ok = False
print("Correct backward passes:", good_ok)

bad_input = torch.tensor([0.5, 1.5], dtype=torch.float64,
                         requires_grad=True)
try:
    gradcheck(WrongSquareFn.apply, (bad_input,), raise_exception=True)
    bad_ok = True
except Exception as error:
    bad_ok = False
    print("Wrong backward error type:", type(error).__name__)
print("Wrong backward passes:", bad_ok)
"""


def _run(source: str) -> str:
    out = io.StringIO()
    namespace = {
        "torch": torch,
        "gradcheck": gradcheck,
        "SquareFn": SquareFn,
        "WrongSquareFn": WrongSquareFn,
    }
    with contextlib.redirect_stdout(out):
        exec(source, namespace)
    return out.getvalue()


def test_original_example_prints_the_three_lines():
    assert _run(ORIGINAL_EXAMPLE).splitlines() == [
        "Correct backward passes: True",
        "Wrong backward error type: GradcheckError",
        "Wrong backward passes: False",
    ]


def test_original_nudge_section():
    source = (
        "def f(v):\n    return v * v\n\neps = 0.001\n"
        "numeric = (f(2.0 + eps) - f(2.0 - eps)) / (2 * eps)\n"
        'print("Numerical gradient:", round(numeric, 3))\nprint("Exact gradient:", 4.0)\n'
    )
    assert _run(source).splitlines() == ["Numerical gradient: 4.0", "Exact gradient: 4.0"]


def test_original_correct_backward_section():
    good = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    assert gradcheck(SquareFn.apply, (good,)) is True


def test_original_float32_section_raises_gradcheck_error_with_a_warning():
    bad32 = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(GradcheckError, match="Jacobian mismatch"):
            gradcheck(SquareFn.apply, (bad32,))
    assert any("not a double precision" in str(w.message) for w in caught)
