"""The zoo: one catalogue of Functions shared by tests, widgets and lessons."""

from __future__ import annotations

import pytest
import torch

from gradkit import zoo
from gradkit.zoo import CATALOGUE, SquareFn, WrongSquareFn, catalogue, correct, twins
from gradkit.zoo.catalogue import vector, zoo_entry

CORRECT = {
    "SquareFn",
    "CubeFn",
    "SigmoidFn",
    "TanhFn",
    "ExpFn",
    "LogFn",
    "SoftplusFn",
    "MatmulFn",
    "BroadcastAddFn",
    "ReluFn",
    "AbsFn",
    "ComplexSquareFn",
}
BUGGY = {
    "WrongSquareFn",
    "ForgotGradOutputSigmoidFn",
    "SignErrorTanhFn",
    "TransposedMatmulFn",
    "UnreducedBroadcastAddFn",
    "WrongConstantCubeFn",
    "MissingConjComplexSquareFn",
    "InplaceSavedExpFn",
    "RandomForwardFn",
}
CAUSES = {"pass", "precision", "bug", "kink", "nondeterministic", "error"}


def test_catalogue_holds_the_promised_entries():
    assert {n for n, e in CATALOGUE.items() if e.correct} >= CORRECT
    assert {n for n, e in CATALOGUE.items() if not e.correct} >= BUGGY
    assert len(CATALOGUE) >= 14


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_every_entry_is_complete(name):
    entry = CATALOGUE[name]
    assert entry.name == entry.function.__name__ == name
    assert issubclass(entry.function, torch.autograd.Function)
    assert entry.description.endswith(".")
    assert (entry.bug == "") == entry.correct
    if not entry.correct:
        assert entry.bug.endswith(".") and ":" in entry.bug  # "Wrong constant: ..."
    assert set(entry.expected_cause) == {"float64", "float32"}
    assert set(entry.expected_cause.values()) <= CAUSES
    inputs = entry.make_input()
    assert all(t.dtype in (torch.float64, torch.complex128) and t.requires_grad for t in inputs)
    fresh = entry.make_input()
    assert all(a is not b and torch.equal(a, b) for a, b in zip(inputs, fresh, strict=True))
    f32 = entry.inputs(torch.float32)
    assert all(t.dtype in (torch.float32, torch.complex64) and t.requires_grad for t in f32)


def test_square_and_wrong_square_behave_as_on_the_original_page():
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    for fn, factor in ((SquareFn, 2), (WrongSquareFn, 3)):
        y = fn.apply(x)
        assert torch.equal(y, x * x)
        (g,) = torch.autograd.grad(y.sum(), x)
        assert torch.equal(g, factor * x.detach())


def test_scalar_entries_match_their_forward():
    x = torch.linspace(0.2, 1.8, 5, dtype=torch.float64)
    for entry in CATALOGUE.values():
        if entry.scalar is not None:
            assert torch.allclose(entry.scalar(x), entry.apply(x)), entry.name


def test_scalar_functions_for_the_widgets():
    functions = zoo.scalar_functions()
    assert list(functions)[:4] == ["x²", "x³", "sin(x)", "exp(x)"]
    assert {"tanh(x)", "sigmoid(x)", "log(x)"} <= set(functions)
    x = torch.tensor([0.5], dtype=torch.float64)
    assert functions["x³"](x).item() == pytest.approx(0.125)


def test_lookup_by_name_or_class():
    assert zoo.entry("WrongSquareFn").function is WrongSquareFn
    assert zoo.entry(SquareFn).name == "SquareFn"
    with pytest.raises(KeyError, match="no zoo entry named 'Nope'"):
        zoo.entry("Nope")
    with pytest.raises(KeyError, match="is not in the zoo"):
        zoo.entry(torch.autograd.Function)


# ------------------------------------------------------------------ metadata on the class


@pytest.fixture
def empty_catalogue(monkeypatch):
    """A fresh catalogue for the decorator to fill, so these tests leave the zoo as it was."""
    fresh: dict = {}
    monkeypatch.setattr(catalogue, "CATALOGUE", fresh)
    return fresh


def test_zoo_entry_takes_the_name_from_the_class_and_returns_it_unchanged(empty_catalogue):
    @zoo_entry(description="x + 1 with backward 1.", formula="x + 1", inputs=vector(0.5))
    class PlusOneFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x + 1

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    assert isinstance(PlusOneFn, type) and issubclass(PlusOneFn, torch.autograd.Function)
    (entry,) = empty_catalogue.values()
    assert entry.name == "PlusOneFn" and entry.function is PlusOneFn
    assert entry.correct and entry.bug == ""
    assert entry.expected_cause == {"float64": "pass", "float32": "precision"}
    assert entry.scalar is None
    assert torch.equal(entry.inputs()[0], torch.tensor([0.5], dtype=torch.float64))


def test_zoo_entry_with_a_bug_is_a_buggy_twin(empty_catalogue):
    @zoo_entry(
        description="x * x whose backward returns x.",
        formula="x²",
        inputs=vector(1.0),
        bug="Half the slope: the backward returns x instead of 2x.",
        float64="bug",
        float32="bug",
        scalar=lambda v: v * v,
    )
    class HalfSquareFn(SquareFn):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * x

    entry = empty_catalogue["HalfSquareFn"]
    assert not entry.correct
    assert entry.expected_cause == {"float64": "bug", "float32": "bug"}
    assert entry.formula == "x²" and entry.scalar is not None


def test_zoo_entry_refuses_duplicates_and_non_functions(empty_catalogue):
    def plain(**kwargs):
        return zoo_entry(description="d.", formula="f", inputs=vector(1.0), **kwargs)

    @plain()
    class TwiceFn(torch.autograd.Function):
        pass

    with pytest.raises(ValueError, match="already has an entry named 'TwiceFn'"):

        @plain()
        class TwiceFn(torch.autograd.Function):
            pass

    with pytest.raises(TypeError, match="decorates Function classes"):

        @plain()
        class NotAFunction:
            pass


def test_every_zoo_class_is_in_the_catalogue_in_definition_order():
    classes = [
        value
        for module in (correct, twins)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, torch.autograd.Function)
        and value.__module__ == module.__name__
    ]
    assert [c.__name__ for c in classes] == list(CATALOGUE)
    assert all(CATALOGUE[c.__name__].function is c for c in classes)
    assert [n for n, e in CATALOGUE.items() if e.correct] == list(CATALOGUE)[: len(CORRECT)]
    other_checks = set(zoo.CHECK_SPECIMENS)  # their own catalogue: gradkit.zoo.checks
    assert {n for n in zoo.__all__ if n.endswith("Fn")} == set(CATALOGUE) | other_checks
    assert not other_checks & set(CATALOGUE)


@pytest.mark.parametrize("name", sorted(n for n, e in CATALOGUE.items() if not e.correct))
def test_each_twin_overrides_only_backward(name):
    twin = CATALOGUE[name].function
    if name == "RandomForwardFn":  # the one standalone twin: its forward is the bug
        assert twin.__bases__ == (torch.autograd.Function,)
        return
    (base,) = twin.__bases__
    assert CATALOGUE[base.__name__].correct
    own = {k for k in vars(twin) if not k.startswith("_")}  # torch adds _backward_cls
    assert own == {"backward"}, own
    assert CATALOGUE[name].formula == CATALOGUE[base.__name__].formula
