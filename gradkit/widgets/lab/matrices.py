"""A report's Jacobians as GradcheckLab draws them: one matrix each, with its block boundaries.

A Jacobian comes as blocks ``J[o][i]`` (output o, input i); the heatmaps show them joined into
one matrix (row: output entry, column: input entry) with lines between the blocks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ...report import CheckReport

__all__ = ["block_splits", "combine_blocks", "report_matrices"]


def combine_blocks(jacobian: Sequence[Sequence[torch.Tensor]]) -> tuple[np.ndarray, list, list]:
    """One float64 matrix from the blocks ``J[o][i]``, with the block boundaries.

    Returns
    -------
    tuple
        ``(matrix, row sizes, column sizes)``: the rows of each output, the columns of each input.
    """
    rows = [torch.cat([b.detach().double() for b in row], dim=1) for row in jacobian]
    matrix = torch.cat(rows, dim=0)
    row_sizes = [r.shape[0] for r in rows]
    col_sizes = [b.shape[1] for b in jacobian[0]]
    return matrix.numpy(), row_sizes, col_sizes


def block_splits(sizes: Sequence[int]) -> list[int]:
    """Where lines go between blocks of these sizes (empty blocks draw no second line)."""
    out, total = [], 0
    for s in sizes[:-1]:
        total += s
        if total > 0 and (not out or out[-1] != total):
            out.append(total)
    return out


def report_matrices(report: CheckReport) -> tuple:
    """(numeric, analytic, row sizes, column sizes, worst [row, col]) of a report's Jacobians.

    ``numeric`` or ``analytic`` is None where the report has none (or the analytic one has
    another shape); ``worst`` is the report's worst entry in the joined matrix, or None.
    """
    numeric = analytic = None
    rows: list[int] = []
    cols: list[int] = []
    if report.numeric is not None:
        numeric, rows, cols = combine_blocks(report.numeric)
    if report.analytic is not None:
        analytic, rows_a, cols_a = combine_blocks(report.analytic)
        if numeric is None:
            rows, cols = rows_a, cols_a
        elif analytic.shape != numeric.shape:
            analytic = None
    worst = None
    w = report.worst
    if w is not None and rows:
        worst = (sum(rows[: w.output]) + w.index[0], sum(cols[: w.input]) + w.index[1])
    return numeric, analytic, rows, cols, worst
