"""What GradcheckLab checks: the Functions on its menu, and their inputs in the chosen dtype."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ..._args import as_input_tuple, complex_counterpart, dtype_name
from ...realview import is_floating
from ...zoo import CATALOGUE, ZooEntry
from ..base.functions import function_owner
from ..base.guard import InputError

__all__ = ["COMPLEX_INPUT_DTYPES", "LabTargets", "cast_inputs"]

#: The dtypes in which the lab checks complex inputs (as their complex counterparts, complex128
#: and complex64); torch's complex32 has too few kernels for the zoo's Functions.
COMPLEX_INPUT_DTYPES = (torch.float64, torch.float32)


def cast_inputs(inputs: Sequence, dtype: torch.dtype) -> tuple:
    """Fresh copies of the floating inputs in ``dtype`` (complex ones in its complex counterpart,
    InputError outside :data:`COMPLEX_INPUT_DTYPES`), keeping ``requires_grad``; the rest as is."""
    out = []
    for k, t in enumerate(inputs):
        if not is_floating(t):
            out.append(t)
            continue
        if t.is_complex() and dtype not in COMPLEX_INPUT_DTYPES:
            raise InputError(
                f"input {k} is complex: complex tensors come as complex128 (choose float64) "
                f"or complex64 (choose float32), not {dtype_name(dtype)}"
            )
        target = complex_counterpart(dtype) if t.is_complex() else dtype
        out.append(t.detach().to(target).requires_grad_(t.requires_grad))
    return tuple(out)


def _named(fn: object) -> tuple[str, Callable | None]:
    """The menu's label for GradcheckLab's ``fn`` and its callable (None for a zoo entry)."""
    owner = function_owner(fn)
    if owner is not None:
        zoo = [e.name for e in CATALOGUE.values() if e.function is owner]
        return (zoo[0], None) if zoo else (f"{owner.__name__} (yours)", owner.apply)
    if fn is None:
        return "SquareFn", None
    if isinstance(fn, ZooEntry):
        return fn.name, None
    if isinstance(fn, str):
        if fn not in CATALOGUE:
            raise ValueError(f"fn={fn!r} is not a zoo entry; choose from {sorted(CATALOGUE)}")
        return fn, None
    if callable(fn):
        name = getattr(fn, "__name__", "") or "fn"
        return f"{name if name != '<lambda>' else 'fn'} (yours)", fn
    raise TypeError(
        f"fn must be a zoo name, a torch.autograd.Function (or its .apply) or a function of "
        f"tensors, got {type(fn).__name__}"
    )


@dataclass(frozen=True)
class LabTargets:
    """The Functions on GradcheckLab's menu, and the inputs each is checked on.

    ``label`` is the Function ``fn=`` named; ``custom`` its callable when it is not a zoo entry
    (it then heads the menu); ``given`` the inputs passed with it (None: the zoo's own inputs).
    """

    label: str
    custom: Callable | None
    given: tuple | None

    @classmethod
    def of(cls, fn: object, inputs: object) -> LabTargets:
        """The targets for GradcheckLab's ``fn`` (a zoo name or entry, a Function, its
        ``apply`` or a function of tensors; None: ``SquareFn``) and ``inputs``, both checked."""
        label, custom = _named(fn)
        given = None if inputs is None else as_input_tuple(inputs)
        if custom is not None and given is None:
            raise TypeError(
                f"inputs= is needed for {label}: pass e.g. "
                "inputs=(torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True),)"
            )
        return cls(label, custom, given)

    @property
    def names(self) -> list[str]:
        """The menu: your own Function first, then every zoo entry."""
        return ([self.label] if self.custom is not None else []) + list(CATALOGUE)

    def target(self, label: str, dtype: torch.dtype) -> tuple[Callable, tuple, ZooEntry | None]:
        """The callable named ``label``, its inputs cast to ``dtype``, and its zoo entry (None
        for your own Function); the Function ``fn=`` named is checked on ``inputs=`` if given."""
        if self.custom is not None and label == self.label:
            return self.custom, cast_inputs(self.given, dtype), None
        entry = CATALOGUE[label]
        mine = self.given is not None and label == self.label
        return entry.apply, cast_inputs(self.given if mine else entry.make_input(), dtype), entry
