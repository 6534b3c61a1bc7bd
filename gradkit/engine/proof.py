"""What the batched engine must prove before its verdict can stand for torch's.

The batched engine calls the function in batches, with grad mode on and nudged inputs that
require grad (as torch calls it), and computes analytic rows in batches. That reaches torch's
verdict only when the function does not change its inputs, uses no autograd inside (checked by
a call without autograd at the base point), returns floating outputs only, and when
no batched number sits closer to torch's tolerance than batching can move it. Each check here
either passes or says, in one sentence, why the engine must compute torch's way instead.
Depends on torch and gradkit's argument rules only.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .._args import allowance
from ..batching import short_reason
from ..realview import as_output_tuple, is_floating, widened

__all__ = [
    "UnprovenError",
    "near_the_line",
    "prove_batchable",
    "snapshot",
    "what_changed",
]


class UnprovenError(Exception):
    """The batched engine cannot prove that it reaches torch's verdict; the message says why."""


def snapshot(inputs: tuple) -> list[tuple[int, torch.Tensor, torch.Tensor, bool]]:
    """(position, tensor, a copy of its values, requires_grad) of every input tensor."""
    return [
        (k, t, t.detach().clone(), t.requires_grad)
        for k, t in enumerate(inputs)
        if isinstance(t, torch.Tensor)
    ]


def _identical(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit-for-bit the same values (NaN where the other has NaN), shape and dtype."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    a, b = widened(a), widened(b)
    if not is_floating(a):
        return torch.equal(a, b)
    return bool(((a == b) | (a.isnan() & b.isnan())).all())


def what_changed(inputs: tuple, before: list) -> str | None:
    """Why the inputs differ from the snapshot (fn changed them), or None."""
    for k, t, values, flag in before:
        if t.requires_grad != flag:
            return f"fn switches requires_grad of input {k}"
        if not _identical(t.detach(), values):
            return f"fn changes input {k} in place"
    return None


def prove_batchable(fn: Callable, inputs: tuple, outputs: tuple, before: list) -> None:
    """Raise :class:`UnprovenError` where batched, detached calls may not reproduce torch's."""
    changed = what_changed(inputs, before)
    if changed:
        raise UnprovenError(changed)
    for k, o in enumerate(outputs):
        if not is_floating(o):
            raise UnprovenError(f"output {k} is a {str(o.dtype).removeprefix('torch.')} tensor")
    detached = tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in inputs)
    try:
        with torch.no_grad():
            plain = as_output_tuple(fn(*detached))
    except Exception as error:  # noqa: BLE001 - the engine nudges without autograd
        raise UnprovenError(
            f"fn fails without autograd ({short_reason(error)}): it uses autograd inside"
        ) from None
    if len(plain) == len(outputs) and all(
        _identical(p, o.detach()) for p, o in zip(plain, outputs, strict=True)
    ):
        return
    with torch.enable_grad():
        again = as_output_tuple(fn(*inputs))
    if all(_identical(a.detach(), o.detach()) for a, o in zip(again, outputs, strict=True)):
        raise UnprovenError("fn gives other numbers without autograd: it uses autograd inside")
    # not repeatable at all (random, or a call counter): the nudging loop handles that


def near_the_line(passes, inputs, slack, analytic_slack: float, atol, rtol) -> str | None:
    """A note where a batched number may sit on the other side of torch's tolerance, else None.

    ``passes`` are torch's comparisons (:func:`~gradkit.engine.slowmode.torch_passes`).
    Batched calls may round differently from torch's single calls: a numeric entry by up to
    ``slack[i]`` per real number, an analytic one by up to ``analytic_slack``. An entry whose
    ``|a - n|`` is that close to ``atol + rtol |n|`` could flip torch's verdict.
    """
    for _, position, numeric, analytic, _ in passes:
        for i, (n, a) in enumerate(zip(numeric, analytic, strict=True)):
            # a complex entry: two real numbers (a plain-number argument has no block to read)
            parts = 2 if isinstance(inputs[i], torch.Tensor) and inputs[i].is_complex() else 1
            bound = parts * (slack.get(i, 0.0) + analytic_slack)
            if bound == 0 or not n.numel():
                continue
            n64 = n.to(torch.complex128 if n.is_complex() else torch.float64)
            a64 = a.to(n64.dtype)
            # distance from torch's line |a - n| = atol + rtol |n|; n moves by up to bound
            distance = ((a64 - n64).abs() - allowance(n64, atol, rtol)).abs()
            if bool((distance <= bound * (1 + rtol)).any()):
                return (
                    f"batched calls round differently from single calls (by up to {bound:.2g} "
                    f"in output {position}'s Jacobian), which could move an entry across "
                    "torch's tolerance, so the batched engine recomputed the Jacobians one "
                    "entry per call, as torch does"
                )
    return None
