"""Analytic Jacobians: what the backward rules claim, one backward pass per output entry.

Rows are computed in batches (``torch.autograd.grad(..., is_grads_batched=True)``), verified
against one plain backward, and computed one row per call where batching fails, as torch's
gradcheck does. Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from ._args import as_input_tuple, check_function
from .jacobian import CHUNK_SCALARS, check_size
from .plan import differentiable_inputs
from .realview import (
    as_output_tuple,
    batch_real_view,
    from_real_view,
    real_dtype,
    real_view,
    same_values,
)

__all__ = ["AnalyticRows", "analytic_jacobian"]


def analytic_jacobian(
    fn: Callable,
    inputs: Sequence[torch.Tensor] | torch.Tensor,
    *,
    batched: bool = True,
) -> tuple[tuple[torch.Tensor, ...], ...]:
    """Jacobians that the backward rules claim, one backward pass per output entry.

    With ``batched=True`` all rows are computed in one call of ``torch.autograd.grad`` with
    ``is_grads_batched=True`` (chunked to bound memory; checked against one plain backward, and
    falling back to a loop where the backward cannot be batched). Complex tensors use the real
    view: rows for real and imaginary parts of each output entry. Results live on the outputs'
    device.

    Returns
    -------
    tuple of tuple of torch.Tensor
        ``J[o][i]`` of shape (outputs[o] real numel, inputs[i] real numel).
    """
    fn, inputs = check_function(fn), as_input_tuple(inputs)
    with torch.enable_grad():
        outputs = as_output_tuple(fn(*inputs))
    check_size(inputs, outputs)
    runner = AnalyticRows(inputs, batched)
    return tuple(runner.jacobian(out) for out in outputs)


class AnalyticRows:
    """Analytic Jacobian rows of one output at a time, by batched (or looped) backward passes.

    The first batched backward is compared, on its first row, with a plain backward; a backward
    that cannot be batched (it raises under vmap, or gives other numbers) is run one row per
    call from then on, as torch's gradcheck does. ``slack`` bounds how far a batched row may sit
    from a plain backward's (the largest difference seen on the first row, times 4; 0 when
    every row came from a plain backward).
    """

    def __init__(self, inputs: tuple, batched: bool) -> None:
        self.inputs = inputs
        self.diff = differentiable_inputs(inputs)
        self.diff_inputs = [inputs[i] for i in self.diff]
        self.batched = batched
        self.verified = False
        self.slack = 0.0

    def jacobian(self, out: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``J[i]`` for every input: (out real numel, input real numel), zeros where unused."""
        return self.jacobians(out, 1)[0]

    def jacobians(self, out: torch.Tensor, runs: int) -> list[tuple[torch.Tensor, ...]]:
        """The Jacobian ``runs`` times from the same graph and seeds (torch's reentrancy test)."""
        m = real_view(out).numel()
        real = real_dtype(out)
        parts: list[list[list[torch.Tensor]]] = [[[] for _ in self.diff] for _ in range(runs)]
        if out.requires_grad and m:
            per_row = m + sum(real_view(t).numel() for t in self.diff_inputs)
            size = max(1, CHUNK_SCALARS // max(1, per_row))
            for start in range(0, m, size):
                stop = min(m, start + size)
                eye = out.new_zeros((stop - start, m), dtype=real)
                eye[:, start:stop].diagonal().fill_(1)
                seeds = from_real_view(eye, out)  # e_k, or i*e_k for imaginary parts
                for run in parts:
                    for k, g in enumerate(self._rows(out, seeds)):
                        if g is not None:
                            run[k].append(batch_real_view(g).to(real))
        results = []
        for run in parts:
            row = []
            for i, t in enumerate(self.inputs):
                k = self.diff.index(i) if i in self.diff else None
                if k is not None and run[k]:
                    row.append(run[k][0] if len(run[k]) == 1 else torch.cat(run[k]))
                else:
                    width = real_view(t).numel() if k is not None else 0
                    row.append(out.new_zeros((m, width), dtype=real))
            results.append(tuple(row))
        return results

    def _rows(self, out, seeds):
        if self.batched:
            try:
                grads = torch.autograd.grad(
                    out,
                    self.diff_inputs,
                    seeds,
                    retain_graph=True,
                    allow_unused=True,
                    is_grads_batched=True,
                )
            except Exception:  # noqa: BLE001 - the row-by-row loop below is torch's own way:
                self.batched = False  # it reproduces the backward's real error, if it has one
            else:
                if self.verified or self._agrees(out, seeds[0], grads):
                    self.verified = True
                    return grads
                self.batched = False
        rows = [
            torch.autograd.grad(out, self.diff_inputs, s, retain_graph=True, allow_unused=True)
            for s in seeds
        ]
        return tuple(
            None if rows[0][k] is None else torch.stack([r[k] for r in rows])
            for k in range(len(self.diff_inputs))
        )

    def _agrees(self, out, seed, grads) -> bool:
        single = torch.autograd.grad(
            out, self.diff_inputs, seed, retain_graph=True, allow_unused=True
        )
        gaps = [0.0]
        for g, s in zip(grads, single, strict=True):
            if (g is None) != (s is None):
                return False
            if g is not None and not same_values(g[0], s):
                return False
            if g is not None and g[0].numel():
                gaps.append(float(torch.sub(g[0], s).abs().nan_to_num_(nan=0.0).max()))
        self.slack = 4.0 * max(gaps)  # rows other than the first: up to 4x the gap seen
        return True
