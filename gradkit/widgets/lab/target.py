"""What GradcheckLab checks: the Function named by ``fn=``, and its inputs in the chosen dtype.

One place resolves what the lab's ``fn`` may be (:func:`resolve_function`); :class:`LabTargets`
holds the menu and gives each entry's callable and inputs in a dtype (:func:`cast_inputs`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ..._args import as_input_tuple, complex_counterpart, dtype_name
from ...realview import is_floating
from ...zoo import CATALOGUE, ZooEntry
from ..base.guard import InputError

__all__ = ["COMPLEX_INPUT_DTYPES", "LabTargets", "cast_inputs", "resolve_function"]

#: The dtypes in which the lab checks complex inputs (as their complex counterparts, complex128
#: and complex64); torch's complex32 has too few kernels for the zoo's Functions.
COMPLEX_INPUT_DTYPES = (torch.float64, torch.float32)


def resolve_function(fn: object) -> tuple[str, ZooEntry | None, Callable | None]:
    """The lab's label, zoo entry and callable for its ``fn`` argument.

    Parameters
    ----------
    fn : str, ZooEntry, torch.autograd.Function subclass, its ``apply``, callable or None
        None means the zoo's ``SquareFn``.

    Returns
    -------
    tuple
        ``(label, entry, callable)``: a zoo entry comes with ``callable`` None; a Function or
        function outside the zoo with ``entry`` None and a label ending in ``(yours)``.
    """
    if fn is None:
        return "SquareFn", CATALOGUE["SquareFn"], None
    if isinstance(fn, ZooEntry):
        return fn.name, fn, None
    if isinstance(fn, str):
        if fn not in CATALOGUE:
            raise ValueError(f"fn={fn!r} is not a zoo entry; choose from {sorted(CATALOGUE)}")
        return fn, CATALOGUE[fn], None
    if isinstance(fn, type) and issubclass(fn, torch.autograd.Function):
        for e in CATALOGUE.values():
            if e.function is fn:
                return e.name, e, None
        return f"{fn.__name__} (yours)", None, fn.apply
    if callable(fn):
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
            return resolve_function(owner)
        name = getattr(fn, "__name__", "") or "fn"
        return f"{name if name != '<lambda>' else 'fn'} (yours)", None, fn
    raise TypeError(
        f"fn must be a zoo name, a torch.autograd.Function (or its .apply) or a function of "
        f"tensors, got {type(fn).__name__}"
    )


def cast_inputs(inputs: Sequence, dtype: torch.dtype) -> tuple:
    """Fresh copies of the floating inputs in ``dtype`` (complex ones in its complex counterpart).

    Other entries (integer tensors, numbers, None) pass through unchanged; each copy keeps its
    ``requires_grad``.

    Raises
    ------
    InputError
        For a complex input when ``dtype`` is not in :data:`COMPLEX_INPUT_DTYPES`.
    """
    out = []
    for k, t in enumerate(inputs):
        if not is_floating(t):
            out.append(t)
            continue
        if t.is_complex():
            if dtype not in COMPLEX_INPUT_DTYPES:
                raise InputError(
                    f"input {k} is complex: complex tensors come as complex128 (choose float64) "
                    f"or complex64 (choose float32), not {dtype_name(dtype)}"
                )
            target = complex_counterpart(dtype)
        else:
            target = dtype
        out.append(t.detach().to(target).requires_grad_(t.requires_grad))
    return tuple(out)


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
        """The targets for GradcheckLab's ``fn`` and ``inputs`` arguments, both checked."""
        label, _entry, custom = resolve_function(fn)
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
        """The callable named ``label``, its inputs cast to ``dtype``, and its zoo entry.

        The entry is None for your own Function; a zoo entry named by ``fn=`` with ``inputs=``
        is checked on those inputs, every other one on its own.
        """
        if self.custom is not None and label == self.label:
            return self.custom, cast_inputs(self.given, dtype), None
        entry = CATALOGUE[label]
        mine = self.given is not None and label == self.label
        return entry.apply, cast_inputs(self.given if mine else entry.make_input(), dtype), entry
