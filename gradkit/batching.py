"""Calling a function on a whole batch of nudged inputs at once, verified against single calls.

Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .realview import as_output_tuple, same_values, widened

__all__ = ["BatchedCaller", "short_reason"]


class BatchedCaller:
    """Calls ``fn`` with one input replaced by a batch of values; remembers how it managed.

    Strategies, in order: ``torch.func.vmap`` (exact semantics for plain tensor code) and a
    leading batch dimension (seed-style ``autograd.Function`` classes cannot be vmapped). Each is
    verified on its first batch, whose row 0 holds the unperturbed input: that row must reproduce
    ``reference`` (an earlier single call), which catches Python side effects (a call counter)
    and random forwards; three perturbed rows must reproduce single calls too, which catches a
    forward that mixes rows (``x - x.mean()`` over everything). When neither holds, ``mode``
    becomes ``"loop"`` and :meth:`batched` returns None: the caller then nudges one entry per
    call, as torch's gradcheck does. ``reasons`` says why.

    Batched kernels may round differently from single calls (a matrix-matrix product sums in
    another order), so the verification allows a few dozen roundings; ``spread`` keeps the
    largest difference it saw, ``max |batched - single|``, so that the engine can tell whether
    a difference that small could change torch's verdict.

    Only the outputs listed in ``keep`` (by default all) are returned and verified: integer
    outputs have no numeric Jacobian, so they are left out.

    ``like_torch=True`` calls ``fn`` as torch's gradcheck does (the caller turns grad mode on):
    a single call gets the nudged input as a leaf that requires grad, a broadcast batch too
    (vmap hides ``requires_grad`` from ``fn``, so a function that reads it fails the
    verification against single calls there); outputs come back detached.
    """

    def __init__(
        self,
        fn: Callable,
        inputs: tuple,
        index: int,
        reference: tuple[torch.Tensor, ...],
        keep: tuple[int, ...] | None = None,
        like_torch: bool = False,
    ) -> None:
        self.fn, self.inputs, self.index = fn, inputs, index
        self.like_torch = like_torch
        self.keep = tuple(range(len(reference))) if keep is None else keep
        self.reference = tuple(reference[k] for k in self.keep)
        self.mode: str | None = None
        self.reasons: list[str] = []
        self.spread = 0.0

    def single(self, value: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The kept outputs of ``fn`` with the input at ``index`` replaced by ``value``."""
        if self.like_torch:
            value = value.detach().requires_grad_(True)
        return self._call(value)

    def _call(self, value: torch.Tensor) -> tuple[torch.Tensor, ...]:
        args = list(self.inputs)
        args[self.index] = value
        out = as_output_tuple(self.fn(*args))
        return tuple(out[k].detach() if self.like_torch else out[k] for k in self.keep)

    def _run(self, mode: str, batch: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if mode == "vmap":
            return tuple(torch.func.vmap(self._call)(batch))
        return self.single(batch)

    def batched(self, batch: torch.Tensor) -> tuple[torch.Tensor, ...] | None:
        """Outputs for every row of ``batch`` (row 0 unperturbed on the first call), or None."""
        if self.mode == "loop":
            return None
        if self.mode is not None:
            return self._run(self.mode, batch)
        for mode in ("vmap", "broadcast"):
            try:
                out = self._run(mode, batch)
            except Exception as error:  # noqa: BLE001 - any failure means: try the next strategy
                self.reasons.append(f"{mode}: {short_reason(error)}")
                continue
            problem = self._verify(mode, batch, out)
            if problem is None:
                self.mode = mode
                return out
            self.reasons.append(f"{mode}: {problem}")
        self.mode = "loop"
        return None

    def _verify(self, mode: str, batch: torch.Tensor, out: tuple[torch.Tensor, ...]) -> str | None:
        size = batch.shape[0]
        if len(out) != len(self.reference) or any(
            o.shape != (size, *r.shape) for o, r in zip(out, self.reference, strict=False)
        ):
            return "the outputs changed shape"
        if not all(same_values(o[0], r) for o, r in zip(out, self.reference, strict=True)):
            return (
                "the unperturbed row differs from a single call (Python side effects, a random "
                "forward, or a batched kernel of lower precision such as TF32)"
            )
        pairs = list(zip((o[0] for o in out), self.reference, strict=True))
        for row in sorted({1, size // 2, size - 1} - {0, size}):
            single = self.single(batch[row])
            if len(single) != len(out) or not all(
                same_values(o[row], s) for o, s in zip(out, single, strict=True)
            ):
                return f"row {row} differs from a single call (the forward mixes batch rows)"
            pairs += zip((o[row] for o in out), single, strict=True)
        self.spread = max(_largest_gap(b, s) for b, s in pairs) if pairs else 0.0
        return None


def _largest_gap(batched: torch.Tensor, single: torch.Tensor) -> float:
    """max |batched - single| over the entries (0 for equal tensors and empty ones)."""
    batched, single = widened(batched), widened(single)
    if batched.numel() == 0 or torch.equal(batched, single):
        return 0.0
    gap = torch.sub(batched, single).abs().nan_to_num_(nan=0.0)  # NaN in both: same_values
    return float(gap.max())


def short_reason(error: Exception) -> str:
    text = str(error)
    if "autograd.Function" in text:
        return "this autograd.Function has no vmap rule"
    if "random" in text.lower():
        return "vmap refuses random operations"
    first = text.strip().splitlines()[0] if text.strip() else ""
    first = first if len(first) <= 80 else first[:77] + "..."
    return f"{type(error).__name__}: {first}" if first else type(error).__name__
