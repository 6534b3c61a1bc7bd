"""Numeric Jacobians by central differences: torch's slow-gradcheck numbers, in batches.

Jacobians use the mathematical layout: ``J[i, j] = d output_i / d input_j`` over the flattened
(real-view, for complex tensors) entries. torch's GradcheckError prints the transpose.
Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from typing import NamedTuple

import torch

from ._args import GRADCHECK_DEFAULTS, as_input_tuple, check_count, check_eps, check_function
from .batching import BatchedCaller
from .plan import differentiable_inputs, mirror_inputs, plan_check
from .realview import (
    as_output_tuple,
    batch_real_view,
    difference_dtype,
    from_real_view,
    is_floating,
    real_dtype,
    real_view,
    same_values,
)

__all__ = [
    "CHUNK_SCALARS",
    "MAX_JACOBIAN_ENTRIES",
    "NumericDetails",
    "check_size",
    "jacobian_entries",
    "numeric_jacobian",
    "numeric_jacobian_details",
    "too_large",
]

#: Inputs whose Jacobian would have more entries than this are refused (use fast_mode).
MAX_JACOBIAN_ENTRIES = 2**22
#: Bound on the number of scalars held by one batched evaluation (memory, not speed).
CHUNK_SCALARS = 2**24
#: Inputs with at most this many (real) entries are nudged one entry per call, like gradcheck:
#: batching saves well under a millisecond there, and single calls reproduce torch's numbers bit
#: for bit (a batched elementwise kernel may take a vectorised path where a small single call
#: takes a scalar one, and round differently in the last bit).
_SMALL_INPUT = 8
#: Batched rows are verified against single calls on a few rows only; the others are allowed
#: this many times the largest difference seen there.
_SPREAD_SAFETY = 4.0


def jacobian_entries(inputs: tuple, outputs: tuple[torch.Tensor, ...]) -> int:
    """Entries of the full Jacobian: nudged real numbers x floating output real numbers."""
    n_in = sum(_real_numel(inputs[i]) for i in differentiable_inputs(inputs))
    return n_in * sum(_real_numel(o) for o in outputs if is_floating(o))


def _real_numel(t: torch.Tensor) -> int:
    """Real numbers in ``t`` (a complex entry counts twice), for any layout."""
    return t.numel() * (2 if t.is_complex() else 1)


def too_large(inputs: tuple, outputs: tuple[torch.Tensor, ...]) -> int:
    """The full Jacobian's entries where they exceed MAX_JACOBIAN_ENTRIES, else 0."""
    entries = jacobian_entries(inputs, outputs)
    return entries if entries > MAX_JACOBIAN_ENTRIES else 0


def check_size(inputs: tuple, outputs: tuple[torch.Tensor, ...]) -> None:
    """Refuse a full Jacobian of more than MAX_JACOBIAN_ENTRIES entries, suggesting fast_mode."""
    entries = jacobian_entries(inputs, outputs)
    if entries > MAX_JACOBIAN_ENTRIES:
        raise ValueError(
            f"the full Jacobian would have {entries:,} entries (limit "
            f"{MAX_JACOBIAN_ENTRIES:,}); check smaller inputs, or pass fast_mode=True, which "
            "compares one random projection instead of every entry"
        )


def numeric_jacobian(
    fn: Callable,
    inputs: Sequence[torch.Tensor] | torch.Tensor,
    *,
    eps: float = GRADCHECK_DEFAULTS["eps"],
    chunk_size: int | None = None,
) -> tuple[tuple[torch.Tensor, ...], ...]:
    """Central-difference Jacobians, the same numbers torch's slow gradcheck computes.

    For every entry k of every input that requires grad:
    ``J[:, k] = (f(x + eps e_k) - f(x - eps e_k)) / (2 eps)``, error O(eps^2), in the input's
    dtype and on the input's device. Unlike gradcheck, the perturbed inputs are evaluated in
    batches (``torch.func.vmap``, or a leading batch dimension; chunked to bound memory) instead
    of one call per entry; a function that cannot be batched (random forward, Python side
    effects, rows mixed together) is detected and evaluated one entry per call instead, in
    gradcheck's order. So are inputs of at most 8 entries, where that reproduces torch's numbers
    bit for bit at no real cost; batched kernels may round a value differently in its last bit,
    which moves a Jacobian entry by about ``ulp(f) / (2 eps)``. Inputs whose memory overlaps
    (an ``as_strided`` view, the same memory passed twice) are nudged in place, as torch does,
    so one nudge moves every entry that shares the memory.

    Parameters
    ----------
    fn : callable
        Takes the inputs, returns a tensor or a tuple of tensors.
    inputs : tensor or sequence of tensors
        Plain numbers and None may sit among them; they are passed through.
    eps : float
    chunk_size : int, optional
        Perturbed inputs per batched call; by default sized to hold about 16M scalars.

    Returns
    -------
    tuple of tuple of torch.Tensor
        ``J[o][i]`` of shape (outputs[o] real numel, inputs[i] real numel); inputs that do not
        require grad get an empty (numel_out, 0) matrix, and integer outputs (which torch leaves
        out) a matrix of zeros.
    """
    return numeric_jacobian_details(fn, inputs, eps=eps, chunk_size=chunk_size).jacobians


class NumericDetails(NamedTuple):
    """What :func:`numeric_jacobian_details` returns: the Jacobians and how they were made.

    Attributes
    ----------
    jacobians : tuple of tuple of torch.Tensor
        As :func:`numeric_jacobian` returns them.
    modes : dict[int, str]
        Per nudged input: ``"vmap"``, ``"broadcast"``, ``"loop"`` (batching refused;
        ``reasons[i]`` says why), ``"small"`` (at most 8 entries: one call per entry by
        choice), ``"exact"`` (one call per entry on request) or ``"in place"`` (overlapping
        memory, nudged as torch nudges it).
    reasons : dict[int, list[str]]
        Why batching was refused, per input.
    slack : dict[int, float]
        Per input, a bound on how far a batched Jacobian entry may sit from the one single calls
        give (0 where every entry came from single calls).
    """

    jacobians: tuple[tuple[torch.Tensor, ...], ...]
    modes: dict[int, str]
    reasons: dict[int, list[str]]
    slack: dict[int, float]


def numeric_jacobian_details(  # long: the numpy docstring; the body is 25 lines
    fn: Callable,
    inputs: Sequence[torch.Tensor] | torch.Tensor,
    *,
    eps: float,
    chunk_size: int | None = None,
    reference: tuple[torch.Tensor, ...] | None = None,
    exact: bool = False,
    like_torch: bool = False,
) -> NumericDetails:
    """:func:`numeric_jacobian`, plus how each input was evaluated (:class:`NumericDetails`).

    ``reference`` may hold the outputs of ``fn(*inputs)`` already computed (saves a call).
    ``exact=True`` nudges every input one entry per call, as torch's gradcheck does.
    ``like_torch=True`` calls ``fn`` as gradcheck does: with grad mode on, on inputs that
    require grad where the caller's do (:class:`~gradkit.batching.BatchedCaller`), so that a
    function that reads grad mode answers as it answers torch; by default ``fn`` runs under
    ``torch.no_grad()`` on detached inputs (faster).
    """
    fn, eps, inputs = check_function(fn), check_eps(eps), as_input_tuple(inputs)
    if chunk_size is not None:
        check_count(chunk_size, "chunk_size")
    details = NumericDetails((), {}, {}, {})
    with torch.enable_grad() if like_torch else torch.no_grad():
        detached = tuple(_detached(t, like_torch) for t in inputs)
        if reference is None:
            reference = as_output_tuple(fn(*detached))
        reference = tuple(o.detach() for o in reference)
        check_size(inputs, reference)
        plan = plan_check(inputs, reference)
        jac = [[None] * len(inputs) for _ in reference]
        for i in plan.differentiable:
            caller, blocks = _columns_of_input(
                fn, detached, i, plan, reference, eps, chunk_size, (exact, like_torch)
            )
            for o, block in zip(plan.floating, blocks, strict=True):
                jac[o][i] = block
            _describe(details, i, caller, eps)
        for o, out in enumerate(reference):
            for i, x in enumerate(detached):
                if jac[o][i] is None:  # not nudged, or an integer output: torch leaves it out
                    width = real_view(x).numel() if i in plan.differentiable else 0
                    jac[o][i] = out.new_zeros(
                        (real_view(out).numel(), width), dtype=difference_dtype(out)
                    )
    return details._replace(jacobians=tuple(tuple(row) for row in jac))


def _detached(t: object, like_torch: bool) -> object:
    """A tensor input without its graph (requiring grad again where torch's would)."""
    if not isinstance(t, torch.Tensor):
        return t
    if like_torch and t.requires_grad:
        return t.detach().requires_grad_(True)
    return t.detach()


def _describe(details: NumericDetails, i: int, caller, eps: float) -> None:
    """Record how input ``i`` was nudged: its mode, why batching was refused, its slack."""
    if not isinstance(caller, BatchedCaller):
        details.modes[i], details.reasons[i], details.slack[i] = caller, [], 0.0
        return
    details.modes[i] = caller.mode or "loop"
    details.reasons[i] = caller.reasons
    batched = details.modes[i] in ("vmap", "broadcast")
    # each of f(x + eps), f(x - eps) may be off by the spread: |error| <= 2 spread / (2 eps)
    details.slack[i] = _SPREAD_SAFETY * caller.spread / eps if batched else 0.0


def _columns_of_input(fn, detached, i, plan, reference, eps, chunk_size, how):
    """(how, blocks): the floating outputs' Jacobians with respect to nudged input ``i``.

    ``how`` is ``(exact, like_torch)`` (:func:`numeric_jacobian_details`).
    """
    exact, like_torch = how
    if i in plan.in_place or _layout_matters(fn, detached, i, plan.floating, reference):
        return "in place", in_place_columns(fn, detached, i, eps, plan.floating)
    caller = BatchedCaller(fn, detached, i, reference, keep=plan.floating, like_torch=like_torch)
    return caller, numeric_columns(caller, detached[i], eps, chunk_size, exact=exact)


def _layout_matters(fn, detached: tuple, i: int, keep: tuple, reference: tuple) -> bool:
    """Whether ``fn`` reads input ``i``'s memory layout, not only its values.

    Nudged copies are fresh contiguous tensors; torch nudges the input in its own memory. A
    function that reads memory around a view (``as_strided`` on ``base[5:15]``) or its strides
    answers a fresh copy with other numbers: then input ``i`` is nudged in place, as torch does.
    Only an input that is not a plain contiguous tensor of its own memory costs this extra call.
    """
    x = detached[i]
    whole = x.untyped_storage().nbytes() == x.numel() * x.element_size()
    lazy = x.is_conj() or x.is_neg()  # a fresh copy holds the values, not the view's bit
    if x.is_contiguous() and x.storage_offset() == 0 and whole and not lazy:
        return False
    args = list(detached)
    args[i] = (
        x.detach().clone(memory_format=torch.contiguous_format).requires_grad_(x.requires_grad)
    )
    try:
        out = as_output_tuple(fn(*args))
    except Exception:  # noqa: BLE001 - a function that refuses a fresh copy reads its layout
        return True
    return len(out) != len(reference) or not all(
        same_values(out[k].detach(), reference[k]) for k in keep
    )


def numeric_columns(
    caller: BatchedCaller, x, eps, chunk_size, *, exact: bool = False
) -> list[torch.Tensor]:
    """Every kept output's Jacobian with respect to input ``x`` (one per output), chunk by chunk.

    Small inputs, and every input when ``exact``, are nudged one entry per call.
    """
    flat = real_view(x)
    n = flat.numel()
    reference = caller.reference
    per_sample = n + sum(real_view(out).numel() for out in reference)
    size = chunk_size or max(1, CHUNK_SCALARS // max(1, 2 * per_sample))
    if n <= _SMALL_INPUT or exact:
        caller.mode = "exact" if exact else "small"
        return looped_columns(caller, x, 0, eps)

    jac = [
        out.new_empty((real_view(out).numel(), n), dtype=difference_dtype(out)) for out in reference
    ]
    for start in range(0, n, size):
        stop = min(n, start + size)
        c = stop - start
        skip = 1 if start == 0 else 0  # row 0 of the first batch: the unperturbed input
        rows = flat.expand(skip + 2 * c, n).clone()
        # the same arithmetic as gradcheck's entry.copy_(orig -+ eps), in the input's dtype
        rows[skip : skip + c, start:stop].diagonal().sub_(eps)
        rows[skip + c :, start:stop].diagonal().add_(eps)
        outs = caller.batched(from_real_view(rows, x))
        del rows
        if outs is None:
            for j, block in zip(jac, looped_columns(caller, x, start, eps), strict=True):
                j[:, start:].copy_(block)
            break
        for j, b in zip(jac, outs, strict=True):
            b = batch_real_view(b)
            # (f(x + eps) - f(x - eps)) / (2 eps), error O(eps^2), in place where possible
            # (fresh large buffers cost page faults on CPU)
            j[:, start:stop].copy_(torch.sub(b[skip + c :], b[skip : skip + c]).div_(2 * eps).T)
    return jac


def looped_columns(caller: BatchedCaller, x, start, eps) -> list[torch.Tensor]:
    """Columns ``start..n``, one entry per call in gradcheck's order (x - eps, then x + eps)."""
    flat = real_view(x)
    cols: list[list[torch.Tensor]] = [[] for _ in caller.reference]
    for k in range(start, flat.numel()):
        sides = []
        for value in (flat[k] - eps, flat[k] + eps):
            nudged = flat.clone()
            nudged[k] = value
            sides.append(caller.single(from_real_view(nudged[None], x)[0]))
        for o, (a, b) in enumerate(zip(*sides, strict=True)):
            cols[o].append((real_view(b) - real_view(a)) / (2 * eps))
    if start >= flat.numel():  # nothing to nudge (an empty input): (numel_out, 0) blocks
        return [
            out.new_zeros((real_view(out).numel(), 0), dtype=difference_dtype(out))
            for out in caller.reference
        ]
    return [torch.stack(c, dim=1) for c in cols]


def in_place_columns(fn, inputs, index, eps, keep) -> list[torch.Tensor]:
    """torch's own way: nudge each entry of input ``index`` in its memory, one call per side.

    Used where memory overlaps, so a nudge moves every entry (of any input) sharing it, exactly
    as in gradcheck. Runs on copies that keep the layout (:func:`mirror_inputs`), never on the
    caller's tensors.
    """
    args = tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in mirror_inputs(inputs))
    x = args[index]
    if x.is_conj() or x.is_neg():
        raise NotImplementedError(
            f"input {index} is a conjugate or negative view whose bit fn reads: only torch's "
            "nudge of the view itself answers as torch does"
        )
    memory = torch.view_as_real(x) if x.is_complex() else x  # real and imaginary parts in turn
    cols: list[list[torch.Tensor]] = [[] for _ in keep]
    for position in product(*(range(s) for s in memory.shape)):
        entry = memory[position]
        original = entry.clone()
        sides = []
        for nudged in (original - eps, original + eps):
            entry.copy_(nudged)
            out = as_output_tuple(fn(*args))
            sides.append([out[k].detach().clone() for k in keep])  # may be a view of its input
        entry.copy_(original)
        for o, (a, b) in enumerate(zip(*sides, strict=True)):
            cols[o].append((real_view(b) - real_view(a)) / (2 * eps))
    return [
        torch.stack(c, dim=1) if c else torch.zeros((0, 0), dtype=real_dtype(x), device=x.device)
        for c in cols
    ]
