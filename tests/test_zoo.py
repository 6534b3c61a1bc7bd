"""The zoo: one catalogue of Functions shared by tests, widgets and lessons."""

from __future__ import annotations

import pytest
import torch

from gradkit import zoo
from gradkit.zoo import CATALOGUE, SquareFn, WrongSquareFn

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


def test_square_and_wrong_square_behave_as_in_the_seed():
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
