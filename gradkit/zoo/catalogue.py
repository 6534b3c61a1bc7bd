"""The zoo's machinery: :class:`ZooEntry`, the :func:`zoo_entry` class decorator, sample inputs.

Every zoo Function carries its metadata where it is defined::

    @zoo_entry(description="x * x with backward 2x.", formula="x²", inputs=vector(0.5, 1.5))
    class SquareFn(torch.autograd.Function): ...

The decorator takes the entry's name from the class's ``__name__`` and adds the entry to
:data:`CATALOGUE`, in definition order. Depends on torch and the argument rules
(:mod:`gradkit._args`) only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import torch

from .._args import complex_counterpart

__all__ = [
    "CATALOGUE",
    "ZooEntry",
    "complex_input",
    "random_pair",
    "vector",
    "zoo_entry",
]

FunctionClass = TypeVar("FunctionClass", bound=type)


@dataclass(frozen=True)
class ZooEntry:
    """One Function of the zoo.

    Attributes
    ----------
    name : str
        The class name, e.g. ``"WrongSquareFn"``.
    function : type[torch.autograd.Function]
    correct : bool
        Whether the backward rule is right.
    description : str
        What it computes.
    bug : str
        One sentence naming the bug ("" for correct entries).
    make_input : callable
        Returns a fresh tuple of sample inputs (float64 or complex128, requires_grad).
    expected_cause : dict[str, str]
        The cause :func:`gradkit.check` reports at gradcheck's defaults, by input precision
        ("float64" and "float32"; complex inputs use complex128 and complex64).
    formula : str
        The forward, for labels.
    scalar : callable or None
        For one-input elementwise entries, the forward as a plain function of a tensor (for
        SlopeExplorer and EpsilonLab).
    """

    name: str
    function: type[torch.autograd.Function]
    correct: bool
    description: str
    bug: str
    make_input: Callable[[], tuple[torch.Tensor, ...]]
    expected_cause: dict[str, str]
    formula: str
    scalar: Callable[[torch.Tensor], torch.Tensor] | None = None

    @property
    def apply(self) -> Callable:
        """The Function's ``apply``, the callable gradcheck takes."""
        return self.function.apply

    def inputs(self, dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, ...]:
        """Fresh sample inputs cast to ``dtype`` (complex inputs to the matching complex dtype)."""
        return tuple(_cast(t, dtype) for t in self.make_input())


def _cast(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``t`` in ``dtype`` (a complex ``t`` in its complex counterpart: never its real part)."""
    if t.is_complex():
        dtype = complex_counterpart(dtype)
    return t.detach().to(dtype).requires_grad_(t.requires_grad)


#: Every zoo entry by class name, in the order the classes are defined (correct rules first).
CATALOGUE: dict[str, ZooEntry] = {}


def zoo_entry(
    *,
    description: str,
    formula: str,
    inputs: Callable[[], tuple[torch.Tensor, ...]],
    bug: str = "",
    float64: str = "pass",
    float32: str = "precision",
    scalar: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> Callable[[FunctionClass], FunctionClass]:
    """Class decorator: describe a zoo Function and add it to :data:`CATALOGUE`.

    Parameters
    ----------
    description : str
        What it computes, one sentence ending with a full stop.
    formula : str
        The forward, for labels (``"x²"``).
    inputs : callable
        Returns fresh sample inputs (float64 or complex128, requiring grad).
    bug : str, optional
        ``"Name of the bug: one sentence."`` for a buggy twin; empty (the default) for a correct
        rule.
    float64, float32 : str, optional
        The cause :func:`gradkit.check` reports at gradcheck's defaults with inputs of that
        precision (default ``"pass"`` and ``"precision"``, a correct rule's).
    scalar : callable, optional
        For one-input elementwise entries, the forward as a plain function of a tensor.

    Returns
    -------
    callable
        The decorator; it returns the class unchanged.
    """

    def register(function: FunctionClass) -> FunctionClass:
        if not (isinstance(function, type) and issubclass(function, torch.autograd.Function)):
            raise TypeError(f"zoo_entry decorates Function classes, not {function!r}")
        name = function.__name__
        if name in CATALOGUE:
            raise ValueError(f"the zoo already has an entry named {name!r}; rename the class")
        CATALOGUE[name] = ZooEntry(
            name=name,
            function=function,
            correct=not bug,
            description=description,
            bug=bug,
            make_input=inputs,
            expected_cause={"float64": float64, "float32": float32},
            formula=formula,
            scalar=scalar,
        )
        return function

    return register


# ----------------------------------------------------------------------------- sample inputs


def vector(*values: float) -> Callable[[], tuple[torch.Tensor, ...]]:
    """Sample inputs: one float64 vector of ``values`` that requires grad."""

    def make() -> tuple[torch.Tensor, ...]:
        return (torch.tensor(values, dtype=torch.float64, requires_grad=True),)

    return make


def random_pair(
    shape_a: tuple[int, ...], shape_b: tuple[int, ...], seed: int
) -> Callable[[], tuple[torch.Tensor, ...]]:
    """Sample inputs: two float64 normal random tensors, the same on every call (``seed``)."""

    def make() -> tuple[torch.Tensor, ...]:
        gen = torch.Generator().manual_seed(seed)
        a = torch.randn(shape_a, generator=gen, dtype=torch.float64).requires_grad_(True)
        b = torch.randn(shape_b, generator=gen, dtype=torch.float64).requires_grad_(True)
        return a, b

    return make


def complex_input() -> tuple[torch.Tensor, ...]:
    """Sample input: three complex128 numbers off the real axis, requiring grad."""
    z = torch.tensor([0.5 + 1.0j, -1.5 + 0.25j, 0.75 - 0.5j], dtype=torch.complex128)
    return (z.requires_grad_(True),)


def hunt_specimens(leave_out: Iterable[str] = (), order: int = 37) -> list[str]:
    """The names of a zoo hunt's specimens: buggy twins and correct look-alikes, mixed.

    Every buggy twin of :data:`CATALOGUE` not in ``leave_out``, and a few correct Functions
    whose buggy look-alikes are among them (how many is lesson 6's question, so the lesson's
    code does not say it), in an order fixed by ``order``: the same mix on every run.

    Parameters
    ----------
    leave_out : iterable of str
        Names of buggy twins to keep out of the hunt (bugs a lesson does not teach).
    order : int
        Picks the fixed order (a ``random.Random`` state), so look-alikes stand apart.

    Returns
    -------
    list of str
        Names in :data:`CATALOGUE`.
    """
    skipped = set(leave_out)
    unknown = sorted(skipped - set(CATALOGUE))
    if unknown:
        raise KeyError(
            f"leave_out: {unknown} are not in the zoo; use names of gradkit.zoo.CATALOGUE"
        )
    bugs = [name for name, entry in CATALOGUE.items() if not entry.correct and name not in skipped]
    look_alikes = [name for name, entry in CATALOGUE.items() if entry.correct][1:3]
    names = bugs + look_alikes
    random.Random(order).shuffle(names)
    return names
