"""Real-world-style Functions (tests/realworld/): check() gives torch's verdict on each, with
both engines, never raising; the batched engine decides plain-number and nested arguments
itself, and hands state that changes between calls to torch with a note.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from realworld.functions import (
    ClampFn,
    ComplexMultiply,
    EverySeventhCall,
    GradReverse,
    LinearFunction,
    MemoryEfficientSwish,
    Sparsemax,
    StraightThroughRound,
    StraightThroughSign,
    inplace_relu,
)

import gradkit

ENGINES = ("torch", "batched")
HANDED_OVER = "so torch's own gradcheck decided"


def _x(n: int = 6, low: float = -1.3, high: float = 1.7, dtype=torch.float64):
    """Inputs clear of every kink the Functions have (0, ±0.5 and the .5 of round)."""
    return torch.linspace(low, high, n, dtype=dtype).add(0.013).requires_grad_(True)


def _complex(n: int, seed: int):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, dtype=torch.complex128, generator=gen).requires_grad_(True)


def _linear_inputs(bias: bool):
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(3, 4, dtype=torch.float64, generator=gen).requires_grad_(True)
    w = torch.randn(2, 4, dtype=torch.float64, generator=gen).requires_grad_(True)
    b = torch.randn(2, dtype=torch.float64, generator=gen).requires_grad_(True)
    return (x, w, b if bias else None)


def _pair_fn(x, pair):
    return x * pair[0] + pair[1]


def _listed_fn(x, weights):
    return sum(w * x.sin() for w in weights)


#: (id, function, inputs, does the batched engine decide itself?)
CASES = [
    ("grad-reverse-lambda", GradReverse.apply, lambda: (_x(), 0.5), True),
    (
        "sparsemax-dim",
        Sparsemax.apply,
        lambda: (_x(12).reshape(3, 4).detach().requires_grad_(), 1),
        True,
    ),
    ("clamp-float-bounds", ClampFn.apply, lambda: (_x(), -0.4, 0.9), True),
    ("straight-through-round", StraightThroughRound.apply, lambda: (_x(),), True),
    ("straight-through-sign", StraightThroughSign.apply, lambda: (_x(),), True),
    ("memory-efficient-swish", MemoryEfficientSwish.apply, lambda: (_x(10),), True),
    ("custom-linear", LinearFunction.apply, lambda: _linear_inputs(True), True),
    ("custom-linear-no-bias", LinearFunction.apply, lambda: _linear_inputs(False), True),
    ("complex-multiply", ComplexMultiply.apply, lambda: (_complex(4, 0), _complex(4, 1)), True),
    ("inplace-relu", inplace_relu, lambda: (_x(),), True),
    ("tuple-argument", _pair_fn, lambda: (_x(), (2.0, 3.0)), True),
    ("list-argument", _listed_fn, lambda: (_x(), [torch.tensor(2.0, dtype=torch.float64)]), True),
    ("every-seventh-call", EverySeventhCall, lambda: (_x(10),), False),
]


def _torch_says(fn, inputs) -> bool:
    try:
        return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=False))
    except Exception:  # noqa: BLE001 - torch raised: its verdict is a failure
        return False


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("name", "fn", "make", "own"), CASES, ids=[c[0] for c in CASES])
def test_check_gives_torchs_verdict_on_real_world_functions(name, fn, make, own, engine):
    fresh = fn() if isinstance(fn, type) and not hasattr(fn, "apply") else fn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _torch_says(fresh, make())
        fresh = fn() if isinstance(fn, type) and not hasattr(fn, "apply") else fn
        report = gradkit.check(fresh, make(), engine=engine)
    assert report.passed is expected, report
    if engine == "batched":
        handed = [n for n in report.notes if HANDED_OVER in n]
        assert not handed if own else handed, report.notes


def test_the_cases_hold_passes_and_failures():
    """Straight-through and reversed gradients fail gradcheck; the honest rules pass it."""
    verdicts = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn, make, _ in CASES:
            fresh = fn() if isinstance(fn, type) and not hasattr(fn, "apply") else fn
            verdicts[name] = _torch_says(fresh, make())
    assert not verdicts["grad-reverse-lambda"] and not verdicts["straight-through-round"]
    assert not verdicts["every-seventh-call"]
    assert verdicts["sparsemax-dim"] and verdicts["custom-linear"] and verdicts["complex-multiply"]
    assert verdicts["clamp-float-bounds"] and verdicts["inplace-relu"]


def test_a_drifting_function_is_handed_to_torch_with_the_reason():
    report = gradkit.check(EverySeventhCall(), (_x(10),), engine="batched")
    assert not report.passed
    assert any("changes Python state it can reach" in n for n in report.notes)
