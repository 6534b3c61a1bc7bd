"""What torch's gradcheck checks, decided in one place for both engines and the diagnosis.

- :func:`validate_inputs`: the inputs check() accepts (plain numbers and None pass through to
  the function, as in torch; sparse tensors go to torch's own gradcheck, meta tensors are
  refused with advice). :func:`dense_inputs`: whether gradkit can read every input's values.
- :func:`mirror_inputs`: fresh tensors with the caller's values *and* memory layout (strides,
  stride 0, overlapping views, inputs sharing memory), so every engine sees what torch sees while
  the caller's tensors stay untouched. :func:`preserved` guards the caller's tensors that torch's
  own gradcheck receives.
- :func:`torch_input_checks`: torch's own refusals (stride-0 inputs, nothing requires grad) and
  its precision warning.
- :class:`CheckPlan` / :func:`plan_check`: which inputs are nudged (and which of them must be
  nudged in place, as torch does, because their memory overlaps), which outputs get a numeric
  Jacobian (floating ones) and which are compared (those that require grad).

Depends on torch only.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from ._args import as_dtype, as_input_tuple
from .realview import is_floating

__all__ = [
    "CheckPlan",
    "dense_inputs",
    "differentiable_inputs",
    "input_notes",
    "mirror_inputs",
    "overlapping_itself",
    "plan_check",
    "preserved",
    "torch_input_checks",
    "validate_inputs",
]

_WRAP = "torch.tensor(..., dtype=torch.float64, requires_grad=True)"


def differentiable_inputs(inputs: tuple) -> list[int]:
    """Indices of the inputs torch nudges: tensors that require grad."""
    return [i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.requires_grad]


def dense_inputs(inputs: tuple) -> bool:
    """Whether every tensor input is dense (strided): sparse ones only torch's gradcheck nudges."""
    return all(t.layout == torch.strided for t in inputs if isinstance(t, torch.Tensor))


def _refuse_tensor(k: int, t: torch.Tensor) -> None:
    """Tensors no gradcheck can nudge: the meta device, integer tensors that require grad."""
    if t.device.type == "meta":
        raise ValueError(
            f"inputs[{k}] lives on the meta device, which holds shapes but no numbers, so "
            "nothing can be nudged; create it on 'cpu' or 'cuda' (e.g. x.to_empty(device='cpu') "
            "and fill it)"
        )
    if t.is_floating_point():
        as_dtype(t.dtype, f"inputs[{k}].dtype")  # float8 and friends: refused, with advice
    if t.requires_grad and not is_floating(t):
        raise TypeError(
            f"inputs[{k}] has dtype {t.dtype}; only floating or complex tensors can require grad"
        )


def validate_inputs(inputs: object) -> tuple:
    """The inputs as a tuple, refusing what no gradcheck can use, with the fix in the message.

    What torch's gradcheck accepts is accepted (an empty input, a list passed through to the
    function); :func:`input_notes` says what gradkit would have warned about.
    """
    inputs = as_input_tuple(inputs)
    tensors = [(k, t) for k, t in enumerate(inputs) if isinstance(t, torch.Tensor)]
    if not tensors:
        for k, t in enumerate(inputs):
            if isinstance(t, (bool, int, float, list)):
                raise TypeError(
                    f"inputs[{k}] is a {type(t).__name__}, not a tensor; wrap it with {_WRAP}"
                )
        raise TypeError(f"inputs holds no tensors; make one with {_WRAP}")
    for k, t in tensors:
        _refuse_tensor(k, t)
    if not differentiable_inputs(inputs):
        ints = [k for k, t in tensors if not is_floating(t)]
        if ints:
            raise TypeError(
                f"inputs[{ints[0]}] is an integer tensor ({inputs[ints[0]].dtype}); gradients "
                f"need floating point: use {_WRAP}"
            )
        raise ValueError(
            "no input requires grad, so there is nothing to check; create the input with "
            "requires_grad=True (or call x.requires_grad_())"
        )
    return inputs


def input_notes(inputs: tuple) -> list[str]:
    """What gradkit would warn about in inputs torch accepts: empty, non-finite, lists."""
    notes = []
    diff = differentiable_inputs(inputs)
    for k, t in enumerate(inputs):
        if isinstance(t, torch.Tensor) and t.layout != torch.strided:
            notes.append(
                f"input {k} is a {str(t.layout).removeprefix('torch.')} tensor: torch's own "
                "gradcheck nudged its stored entries and gave the verdict; the report shows no "
                f"Jacobian numbers (check inputs[{k}].to_dense() to see them)"
            )
    diff = [i for i in diff if inputs[i].layout == torch.strided]
    if diff and all(inputs[i].numel() == 0 for i in diff):
        notes.append(
            f"nothing was checked: input {diff[0]} has no entries (shape "
            f"{tuple(inputs[diff[0]].shape)}), so gradcheck passes without nudging anything; "
            "give it at least one entry"
        )
    for i in diff:
        bad = int((~torch.isfinite(inputs[i].detach())).sum()) if inputs[i].numel() else 0
        if bad:
            notes.append(
                f"input {i} holds {bad} NaN or inf value(s): no slope can be measured there; "
                "check the function at finite inputs"
            )
    for k, t in enumerate(inputs):
        if isinstance(t, list):  # torch passes the list through untouched and nudges nothing
            notes.append(
                f"inputs[{k}] is a list, not a tensor: gradcheck passes it to the function "
                f"untouched and checks no gradient for it; to check it, wrap it with {_WRAP}"
            )
    return notes


def _storage_key(t: torch.Tensor) -> tuple[str, int] | None:
    """(device, address) of the memory under ``t``; None for no memory (an empty tensor)."""
    storage = t.untyped_storage()
    return (str(t.device), storage.data_ptr()) if storage.nbytes() else None


def mirror_inputs(inputs: tuple, dtype_map=None) -> tuple:
    """Fresh leaves with the caller's values, strides and memory sharing; others as they are.

    The same tensor passed twice becomes the same new tensor; inputs that share memory share the
    copied memory. ``dtype_map`` (a tensor -> dtype function) changes the precision instead,
    which gives ordinary contiguous copies.
    """
    storages: dict[tuple[str, int], torch.UntypedStorage] = {}
    made: dict[int, torch.Tensor] = {}
    out = []
    for t in inputs:
        if not isinstance(t, torch.Tensor):
            out.append(t)
            continue
        if id(t) not in made:
            made[id(t)] = _mirror_one(t, storages, dtype_map)
        out.append(made[id(t)])
    return tuple(out)


def _mirror_one(t: torch.Tensor, storages: dict, dtype_map) -> torch.Tensor:
    """One copy: a view with ``t``'s size, strides and offset onto a copy of its memory."""
    key = _storage_key(t) if t.layout == torch.strided else None
    if dtype_map is not None and is_floating(t):
        copy = t.detach().to(dtype_map(t), copy=True)
    elif t.is_conj() or t.is_neg():
        copy = _lazy_copy(t)
    elif key is None:
        copy = t.detach().clone()
    else:
        if key not in storages:
            storages[key] = t.untyped_storage().clone()
        copy = torch.empty((0,), dtype=t.dtype, device=t.device)
        copy.set_(storages[key], t.storage_offset(), t.size(), t.stride())
    return copy.requires_grad_(t.requires_grad)


def _lazy_copy(t: torch.Tensor) -> torch.Tensor:
    """A copy of a conjugate or negative view that is such a view too (``fn`` may read the bit).

    ``clone()`` resolves the lazy conjugate or negation into new values; torch's gradcheck
    hands ``fn`` the view itself, so the copy's memory holds the view's memory, viewed alike.
    """
    memory = t.detach()
    conj, neg = memory.is_conj(), memory.is_neg()
    if conj:
        memory = memory.conj()  # the conjugate of a conjugate view: its memory, as it is
    if neg:
        memory = torch._neg_view(memory)
    copy = memory.clone()
    if neg:
        copy = torch._neg_view(copy)
    return copy.conj() if conj else copy


@contextmanager
def preserved(inputs: tuple) -> Iterator[None]:
    """Give ``inputs`` to code that may change them; restore them when the block ends.

    torch's gradcheck nudges its inputs in place (and leaves a nudge in when the function raises
    midway); a function may also write into ``x.data``, rebind it, call ``backward()`` (which
    fills ``x.grad``) or flip ``requires_grad``. Whatever happens, each tensor holds its old
    memory, values, ``.grad`` and ``requires_grad`` afterwards.
    """
    saved, seen = [], set()
    for t in inputs:
        if isinstance(t, torch.Tensor) and t.layout == torch.strided and t.device.type != "meta":
            key = _storage_key(t)
            if key is not None and key not in seen:
                seen.add(key)
                saved.append((t.untyped_storage(), t.untyped_storage().clone()))
    states = [_TensorState(t) for t in dict.fromkeys(_tensors(inputs)) if t.layout == torch.strided]
    try:
        yield
    finally:
        for state in states:
            state.restore()
        for storage, copy in saved:
            storage.copy_(copy)


def _tensors(inputs: tuple) -> list[torch.Tensor]:
    return [t for t in inputs if isinstance(t, torch.Tensor)]


class _TensorState:
    """A tensor's binding (``x.data``), ``.grad`` (its values too) and ``requires_grad``."""

    def __init__(self, t: torch.Tensor) -> None:
        self.tensor, self.alias, self.flag = t, t.detach(), t.requires_grad
        self.grad = t.grad if t.is_leaf else None  # a non-leaf's .grad is never filled
        self.grad_values = None if self.grad is None else self.grad.detach().clone()

    def restore(self) -> None:
        t, alias = self.tensor, self.alias
        if (t.untyped_storage().data_ptr(), t.shape, t.stride(), t.storage_offset()) != (
            alias.untyped_storage().data_ptr(),
            alias.shape,
            alias.stride(),
            alias.storage_offset(),
        ):
            t.data = alias  # the function rebound x.data
        if t.is_leaf:
            if t.requires_grad != self.flag:
                t.requires_grad_(self.flag)
            t.grad = self.grad
            if self.grad is not None:
                with torch.no_grad():
                    self.grad.copy_(self.grad_values)  # backward() accumulates in place


def torch_input_checks(inputs: tuple) -> None:
    """torch's own input checks: a precision warning, stride-0 inputs, nothing to check."""
    diff = differentiable_inputs(inputs)
    for idx in diff:
        t = inputs[idx]
        if t.dtype not in (torch.float64, torch.complex128):
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                stacklevel=3,
            )
        if not all(st > 0 or sz <= 1 for st, sz in zip(t.stride(), t.size(), strict=True)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck."
            )
    if not diff:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )


@dataclass(frozen=True)
class CheckPlan:
    """What torch's slow gradcheck nudges and compares for one call of the function.

    Attributes
    ----------
    differentiable : tuple of int
        Inputs torch nudges (tensors that require grad).
    in_place : frozenset of int
        Of those, inputs whose memory overlaps itself or another input: torch's in-place nudge
        moves several entries at once there, so the engines nudge them in place too.
    floating : tuple of int
        Outputs with a numeric Jacobian (floating or complex); integer outputs are left out.
    checked : tuple of int
        Outputs torch compares (those that require grad), in torch's order.
    """

    differentiable: tuple[int, ...]
    in_place: frozenset[int]
    floating: tuple[int, ...]
    checked: tuple[int, ...]


def overlapping_itself(t: object) -> bool:
    """Whether some entries of ``t`` share memory (an ``as_strided`` view, a stride of 0)."""
    return (
        isinstance(t, torch.Tensor)
        and t.layout == torch.strided
        and torch._debug_has_internal_overlap(t) != 0  # 1: yes, 2: too hard to tell
    )


def _overlapping(inputs: tuple, diff: list[int]) -> frozenset[int]:
    """Nudged inputs whose memory overlaps itself or the memory of another input (or itself
    passed twice): torch's in-place nudge moves every entry that shares the memory."""
    users: dict[tuple[str, int], int] = {}  # storage -> how many input positions use it
    for t in inputs:
        if isinstance(t, torch.Tensor) and t.layout == torch.strided:
            key = _storage_key(t)
            if key is not None:
                users[key] = users.get(key, 0) + 1
    found = set()
    for i in diff:
        key = _storage_key(inputs[i])
        if overlapping_itself(inputs[i]) or (key is not None and users.get(key, 0) > 1):
            found.add(i)
    return frozenset(found)


def plan_check(inputs: tuple, outputs: tuple[torch.Tensor, ...]) -> CheckPlan:
    """Decide, as torch's slow gradcheck does, what is nudged and what is compared."""
    diff = differentiable_inputs(inputs)
    floating = tuple(k for k, o in enumerate(outputs) if is_floating(o))
    checked = tuple(k for k, o in enumerate(outputs) if o.requires_grad)
    return CheckPlan(tuple(diff), _overlapping(inputs, diff), floating, checked)
