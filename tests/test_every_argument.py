"""Every argument torch's gradcheck accepts gets torch's verdict from check(), with both engines.

gradcheck's switches (fast mode, forward mode, vmap, undefined gradients, gradient dtypes,
``masked``), conjugate and negative views, every floating dtype (complex32 included), sparse
inputs and partial views. A fast-mode pass costs what the verdict costs: its Jacobians are
computed when first read.
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch

import gradkit
from gradkit import diagnosis
from gradkit.zoo import CHECK_SPECIMENS, WrongSquareFn

ENGINES = ("torch", "batched")
HANDED_OVER = "so torch's own gradcheck decided"


def _torch_says(fn, inputs, **settings) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(torch.autograd.gradcheck(fn, inputs, raise_exception=False, **settings))
        except Exception:  # noqa: BLE001 - torch raised: its verdict is a failure
            return False


def _check(fn, inputs, engine, **settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gradkit.check(fn, inputs, engine=engine, **settings)


SWITCHES = {
    "defaults": {},
    "batched-grad": {"check_batched_grad": True},
    "forward-ad": {"check_forward_ad": True},
    "forward-only": {"check_forward_ad": True, "check_backward_ad": False},
    "no-undefined-grad": {"check_undefined_grad": False},
    "grad-dtypes": {"check_grad_dtypes": True},
    "batched-forward": {"check_forward_ad": True, "check_batched_forward_grad": True},
    "fast-mode": {"fast_mode": True},
}
FUNCTIONS = {
    **{name: spec.function.apply for name, spec in CHECK_SPECIMENS.items()},
    "WrongSquareFn": WrongSquareFn.apply,
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("switches", SWITCHES.values(), ids=SWITCHES)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_switch_gets_torchs_verdict(name, switches, engine):
    (x,) = CHECK_SPECIMENS["SinFn"].make_input()
    expected = _torch_says(FUNCTIONS[name], (x,), **switches)
    assert _check(FUNCTIONS[name], (x,), engine, **switches).passed is expected


def test_the_switches_split_the_specimens():
    """Each buggy twin fails its own switch and passes the defaults: the cases can fail."""
    (x,) = CHECK_SPECIMENS["SinFn"].make_input()
    for spec in CHECK_SPECIMENS.values():
        if spec.fails:
            on = {spec.fails: spec.fails != "check_undefined_grad"}
            assert _torch_says(spec.function.apply, (x,), **on) is (
                spec.fails == "check_undefined_grad"
            )


def test_batched_engine_says_who_decided():
    (x,) = CHECK_SPECIMENS["SinFn"].make_input()
    sin = CHECK_SPECIMENS["SinFn"].function.apply
    forward = _check(sin, (x,), "batched", check_forward_ad=True)
    assert forward.passed and any("forward mode" in n for n in forward.notes)
    assert not any(HANDED_OVER in n for n in forward.notes)  # the backward was the engine's
    for settings, words in (
        ({"fast_mode": True}, "fast_mode=True"),
        ({"check_backward_ad": False, "check_forward_ad": True}, "check_backward_ad=False"),
    ):
        notes = _check(sin, (x,), "batched", **settings).notes
        assert any(words in n and HANDED_OVER in n for n in notes), notes


# ------------------------------------------------------------------------- fast mode's cost


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fast_mode_pass_computes_its_jacobians_only_when_read(engine, monkeypatch):
    computed = []
    real = diagnosis.torch_jacobians
    monkeypatch.setattr(diagnosis, "torch_jacobians", lambda *a: computed.append(1) or real(*a))
    x = torch.linspace(-1, 1, 40, dtype=torch.float64, requires_grad=True)
    report = _check(torch.sin, (x,), engine, fast_mode=True)
    assert report.passed and report.cause == "pass" and report.fast_mode
    assert not computed  # the verdict, cause and notes cost no Jacobian
    assert report.numeric[0][0].shape == (40, 40) and computed == [1]
    assert report.worst is not None and "fast_mode" in report.suggestion + report.explanation


# -------------------------------------------------------------- views, dtypes and layouts


def _complex(n: int = 4, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, dtype=torch.complex128, generator=gen)


VIEWS = {
    "returns-conj": (lambda t: t.conj(), lambda: (_complex().requires_grad_(),)),
    "conj-view-input": (lambda t: t * 2, lambda: (_complex().conj().requires_grad_(),)),
    "conj-input-conj-output": (
        lambda t: (t * t).conj(),
        lambda: (_complex().conj().requires_grad_(),),
    ),
    "negative-view-output": (lambda t: t.conj().imag, lambda: (_complex().requires_grad_(),)),
    "vdot": (torch.vdot, lambda: (_complex().requires_grad_(), _complex(seed=1).requires_grad_())),
}


class _TimesThreeWrongRule(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 3

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2  # wrong: 3


def _reads_the_conjugate_bit(t):
    """Right on a conjugate view, wrong on plain values: torch hands fn the view itself, so
    an engine that hands fn resolved copies would see the wrong rule."""
    return t * 2 if t.is_conj() else _TimesThreeWrongRule.apply(t)


VIEWS["reads-the-conj-bit"] = (
    _reads_the_conjugate_bit,
    lambda: (_complex().conj().requires_grad_(),),
)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("fn", "make"), VIEWS.values(), ids=VIEWS)
def test_conjugate_and_negative_views_get_torchs_verdict(fn, make, engine):
    assert _check(fn, make(), engine).passed is _torch_says(fn, make())


DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.complex32, torch.complex64]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_floating_dtype_gets_torchs_verdict(dtype, engine):
    def make():
        return (torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64).to(dtype).requires_grad_(),)

    for fn in (lambda t: t * 2, lambda t: t.chalf() if not t.is_complex() else t.chalf() * 2):
        assert _check(fn, make(), engine).passed is _torch_says(fn, make())


def test_a_complex32_output_keeps_torchs_message_and_blames_precision():
    """Parts of the explanation cannot compare complex32 values: the verdict and torch's own
    message stand, and the cause is the output's precision, not the rule."""
    x = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float64, requires_grad=True)
    report = _check(lambda t: t.chalf(), (x,), "torch")
    assert not report.passed and report.cause == "precision"
    assert "Jacobian mismatch" in report.explanation and "complex32" in report.suggestion


@pytest.mark.parametrize("engine", ENGINES)
def test_sparse_inputs_get_torchs_verdict_with_a_note(engine):
    dense = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], dtype=torch.float64)
    weight = torch.linspace(-1, 1, 6, dtype=torch.float64).reshape(3, 2)

    def make():
        return (dense.to_sparse_csr().requires_grad_(), weight.clone().requires_grad_())

    fn = torch.sparse.mm
    report = _check(fn, make(), engine)
    assert report.passed is _torch_says(fn, make())
    assert any("sparse_csr tensor" in n for n in report.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_partial_view_read_through_its_memory_gets_torchs_verdict(engine):
    """as_strided with storage_offset=0 reads base[0:5] around the view base[5:15]: only a
    nudge in the input's own memory (torch's) sees what the function reads. The batched
    engine sees that a fresh copy answers otherwise, and nudges in place itself."""

    def make():
        base = torch.linspace(-1, 1, 20, dtype=torch.float64)
        return (base[5:15].requires_grad_(),)

    def fn(t):
        return torch.as_strided(t, (3, 3), (1, 2), storage_offset=0)

    expected = _torch_says(fn, make())
    report = _check(fn, make(), engine)
    assert expected and report.passed is expected
    assert not any(HANDED_OVER in n for n in report.notes)


# ------------------------------------------------------------------ state that stays the same


class _Scaled:
    """A callable with attributes that never change: NaN among them, which equals nothing."""

    def __init__(self) -> None:
        self.unused = math.nan
        self.factor = 2.0

    def __call__(self, x):
        return x.sin() * self.factor


class _Guarded(_Scaled):
    """An object whose ``__dict__`` cannot be read: it counts by identity."""

    def __getattribute__(self, name):
        if name == "__dict__":
            raise RuntimeError("no attributes to read")
        return object.__getattribute__(self, name)


@pytest.mark.parametrize("make", [_Scaled, _Guarded], ids=["nan-attribute", "unreadable"])
def test_state_that_stays_the_same_keeps_the_batched_engine(make):
    x = torch.linspace(0.1, 1.0, 12, dtype=torch.float64, requires_grad=True)
    report = _check(make(), (x,), "batched")
    assert report.passed is _torch_says(make(), (x,)) and not report.notes
