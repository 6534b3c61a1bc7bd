"""A catalogue of custom ``torch.autograd.Function`` classes: correct rules and their buggy twins.

Each buggy twin is named after its bug and subclasses its correct Function, overriding only
``backward``: the forward is inherited, so the twins differ from the right rule in exactly one
place (the random forward is the one standalone exception). Tests, widgets and lessons all draw from
:data:`CATALOGUE`, so a learner meets the same examples everywhere.

- :mod:`gradkit.zoo.correct`: the correct rules (``SquareFn``, ``CubeFn``, ...).
- :mod:`gradkit.zoo.twins`: the buggy twins (``WrongSquareFn``, ...).
- :mod:`gradkit.zoo.checks`: Functions for gradcheck's other checks (vmap, forward mode,
  undefined gradients): ``SinFn`` and twins that pass the Jacobian comparison and fail exactly
  one check, in their own catalogue :data:`CHECK_SPECIMENS`.
- :mod:`gradkit.zoo.catalogue`: :class:`ZooEntry` and the ``@zoo_entry(...)`` decorator that
  each class carries its metadata in (the name comes from the class's ``__name__``).

Depends on torch and gradkit._args (the argument rules, themselves torch only).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .catalogue import CATALOGUE, ZooEntry, hunt_specimens, zoo_entry
from .checks import (
    CHECK_SPECIMENS,
    OTHER_CHECKS,
    CheckSpecimen,
    EntryLoopSinFn,
    ForgotTangentSinFn,
    NoNoneGuardSinFn,
    SinCosFn,
    SinFn,
)
from .correct import (
    AbsFn,
    BroadcastAddFn,
    ComplexSquareFn,
    CubeFn,
    ExpFn,
    LogFn,
    MatmulFn,
    ReluFn,
    SigmoidFn,
    SoftplusFn,
    SquareFn,
    TanhFn,
)
from .twins import (
    ForgotGradOutputSigmoidFn,
    InplaceSavedExpFn,
    MissingConjComplexSquareFn,
    NoisyBackwardTanhFn,
    OneEntryWrongSquareFn,
    RandomForwardFn,
    SignErrorTanhFn,
    TransposedMatmulFn,
    UnreducedBroadcastAddFn,
    WrongConstantCubeFn,
    WrongSquareFn,
)

__all__ = [
    "CATALOGUE",
    "CHECK_SPECIMENS",
    "OTHER_CHECKS",
    "AbsFn",
    "BroadcastAddFn",
    "CheckSpecimen",
    "ComplexSquareFn",
    "CubeFn",
    "EntryLoopSinFn",
    "ExpFn",
    "ForgotGradOutputSigmoidFn",
    "ForgotTangentSinFn",
    "InplaceSavedExpFn",
    "LogFn",
    "MatmulFn",
    "MissingConjComplexSquareFn",
    "NoNoneGuardSinFn",
    "NoisyBackwardTanhFn",
    "OneEntryWrongSquareFn",
    "RandomForwardFn",
    "ReluFn",
    "SigmoidFn",
    "SignErrorTanhFn",
    "SinCosFn",
    "SinFn",
    "SoftplusFn",
    "SquareFn",
    "TanhFn",
    "TransposedMatmulFn",
    "UnreducedBroadcastAddFn",
    "WrongConstantCubeFn",
    "WrongSquareFn",
    "ZooEntry",
    "entry",
    "hunt_specimens",
    "scalar_functions",
    "zoo_entry",
]


def entry(name_or_function: str | type[torch.autograd.Function]) -> ZooEntry:
    """Look up a zoo entry by class name or by the Function class itself."""
    if isinstance(name_or_function, str):
        if name_or_function not in CATALOGUE:
            raise KeyError(
                f"no zoo entry named {name_or_function!r}; choose from {sorted(CATALOGUE)}"
            )
        return CATALOGUE[name_or_function]
    for e in CATALOGUE.values():
        if e.function is name_or_function:
            return e
    raise KeyError(f"{name_or_function!r} is not in the zoo")


def scalar_functions() -> dict[str, Callable[[torch.Tensor], torch.Tensor]]:
    """Plain elementwise functions for the 1-D widgets: x^2, x^3, sin, exp, and the zoo's."""
    functions: dict[str, Callable] = {
        "x²": lambda v: v * v,
        "x³": lambda v: v**3,
        "sin(x)": torch.sin,
        "exp(x)": torch.exp,
    }
    for e in CATALOGUE.values():
        if e.correct and e.scalar is not None and e.formula not in functions:
            functions[e.formula] = e.scalar
    return functions
