"""GradcheckLab's states: one check (fast_mode, dtype, eps) as the page shows it, kept,
computed ahead nearest first and packed for the page, each distinct matrix sent once."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np
import torch

from ..._args import DTYPES, EPS_GRID
from ...diagnosis import check
from ...report import CAUSES, CheckReport
from ..base.guard import InputError
from ..base.jacobians import difference_ratio
from .target import LabTargets

__all__ = [
    "AHEAD_BUDGET_S",
    "AHEAD_MAX_CELLS",
    "AHEAD_TORCH_ENTRIES",
    "LabState",
    "LabStates",
    "state_key",
]

#: Seconds one fill may spend computing states ahead (nearest first); the rest takes the kernel.
AHEAD_BUDGET_S = 1.0
#: Jacobians with more entries than this are not computed ahead: each move asks the kernel.
AHEAD_MAX_CELLS = 400
#: Up to this many input entries torch's own engine is the quicker one; above it the batched
#: engine (tested to decide as torch's slow mode does) computes the states ahead.
AHEAD_TORCH_ENTRIES = 8
#: Grid steps one click away: a slider step (arrow key) and ÷10 / ×10.
CLICK_STEPS = (0, -3, 3, -1, 1)
#: The worst entry's numbers the page reads out.
WORST_FIELDS = ("position", "numeric", "analytic", "error", "tolerance", "outside", "shown")

Grid = tuple[bool, str, int]  # a state on the grid: (fast_mode, dtype name, eps grid index)


def state_key(fast_mode: bool, dtype: str, eps: int | float) -> str:
    """The page's name of a state: ``"0|float32|15"`` (fast_mode, dtype, grid index)."""
    return f"{int(bool(fast_mode))}|{dtype}|{eps}"


@dataclass(frozen=True, eq=False)
class LabState:
    """One check as the page shows it: ``record`` (JSON) and the two Jacobians (or None)."""

    record: dict
    numeric: np.ndarray | None
    analytic: np.ndarray | None
    rows: tuple[int, ...] = ()
    cols: tuple[int, ...] = ()
    engine: str = "torch"
    report: CheckReport | None = field(default=None, compare=False, repr=False)


def _joined(jacobian: Sequence[Sequence[torch.Tensor]] | None) -> tuple:
    """(one float64 matrix, each output's rows, each input's columns), or (None, [], [])."""
    if jacobian is None:
        return None, [], []
    rows = [torch.cat([b.detach().double() for b in row], dim=1) for row in jacobian]
    return torch.cat(rows).numpy(), [r.shape[0] for r in rows], [b.shape[1] for b in jacobian[0]]


def _state_of(report: CheckReport, dtype: str, eps: float) -> LabState:
    """A report as the page shows it; no analytic Jacobian where its shape is not numeric's."""
    numeric, rows, cols = _joined(report.numeric)
    analytic, rows_a, cols_a = _joined(report.analytic)
    if numeric is None:
        rows, cols = rows_a, cols_a
    elif analytic is not None and analytic.shape != numeric.shape:
        analytic = None
    w = report.worst
    worst = None
    if w is not None:
        # the report's numbers as it writes them (shown) and gradcheck's test (outside): the
        # page never redoes either
        worst = {k: getattr(w, k) for k in WORST_FIELDS}
        cell = [sum(rows[: w.output]) + w.index[0], sum(cols[: w.input]) + w.index[1]]
        worst["cell"] = [int(c) for c in cell] if rows else None
    record = {
        "unavailable": "",
        **{
            k: getattr(report, k)
            for k in ("passed", "verdict", "cause", "explanation", "suggestion")
        },
        "message": report.torch_message,
        "warnings": list(report.warnings),
        "notes": list(report.notes),
        "dtypes": list(dict.fromkeys(report.dtypes)),
        "dtype": dtype,
        "eps": eps,
        "fast_mode": report.fast_mode,
        "worst": worst,
    }
    return LabState(record, numeric, analytic, tuple(rows), tuple(cols), report.engine, report)


def _unavailable(message: str, fast_mode: bool, dtype: str, eps: float) -> LabState:
    words = {"unavailable": message, "passed": False, "verdict": "", "cause": ""}
    setting = {"dtype": dtype, "eps": eps, "fast_mode": fast_mode}
    return LabState({**words, **setting, "worst": None}, None, None)


class LabStates:
    """The states of the Function ``label`` of the menu, at gradcheck's ``atol``, ``rtol`` and
    other ``checks``: computed once, kept, packed."""

    #: States kept (a learner walking back reuses them).
    KEEP = 128

    def __init__(
        self, targets: LabTargets, label: str, atol: float, rtol: float, checks: dict[str, bool]
    ) -> None:
        self.fn, own, entry = targets.target(label, torch.float64)
        self.inputs_for = lambda dtype: targets.target(label, dtype)[1]
        entries = sum(t.numel() for t in own if isinstance(t, torch.Tensor))
        self.engine = "torch" if entries <= AHEAD_TORCH_ENTRIES else "batched"  # of the fill
        self.label, self.atol, self.rtol, self.checks = label, atol, rtol, checks
        self.settings = {"atol": atol, "rtol": rtol, **checks}  # gradcheck's, for every check
        self.about = {"name": label, "yours": entry is None}  # the page's words on the Function
        if entry is not None:
            self.about.update(correct=entry.correct, description=entry.description, bug=entry.bug)
        self._kept: OrderedDict[tuple, LabState] = OrderedDict()
        self.ahead = True  # turned off once a Jacobian proves too large to send ahead

    def get(self, fast_mode: bool, dtype: str, eps: float, engine: str = "torch") -> LabState:
        """The state, computed now if needed, or if kept from another engine than torch when
        ``engine`` is "torch"; an error is raised once, then kept as the state's words."""
        key = (bool(fast_mode), dtype, float(eps))
        kept = self._kept.pop(key, None)
        try:
            if kept is None or (engine == "torch" and kept.engine != "torch"):
                kept = self._compute(*key, engine)
        except Exception as error:
            kept = _unavailable(f"{type(error).__name__}: {error}".splitlines()[0], *key)
            raise
        finally:
            self._kept[key] = kept  # the newest last: the oldest goes first
            if len(self._kept) > self.KEEP:
                self._kept.popitem(last=False)
        return kept

    def _compute(self, fast_mode: bool, dtype: str, eps: float, engine: str) -> LabState:
        try:
            inputs = self.inputs_for(DTYPES[dtype])
        except InputError as error:  # e.g. complex inputs in float16: the page says why
            return _unavailable(str(error), fast_mode, dtype, eps)
        if fast_mode or self.checks:
            engine = "torch"  # the batched engine: full Jacobians and the default checks only
        report = check(
            self.fn, inputs, eps=eps, fast_mode=fast_mode, engine=engine, **self.settings
        )
        state = _state_of(report, dtype, eps)
        if state.numeric is not None and state.numeric.size > AHEAD_MAX_CELLS:
            self.ahead = False
        return state

    def neighbours(self, fast_mode: bool, dtype: str, g: int) -> list[Grid]:
        """The states one click from (fast_mode, dtype, grid g), nearest first: ÷10 / ×10 and
        slider steps in every dtype, then fast_mode flipped."""
        grid = [g + d for d in CLICK_STEPS if 0 <= g + d < len(EPS_GRID)]
        near = sorted(
            ((fast_mode, name, k) for name in DTYPES for k in grid),
            key=lambda s: (abs(s[2] - g) % 3 != 0, abs(s[2] - g), s[1] != dtype),
        )
        return [*near, (not fast_mode, dtype, g)]

    def fill(
        self, wanted: Iterable[Grid], engine: str = "torch", deadline: float | None = None
    ) -> None:
        """Compute the wanted states in order until ``deadline`` (AHEAD_BUDGET_S from now)."""
        if deadline is None:
            deadline = time.perf_counter() + AHEAD_BUDGET_S
        for fast_mode, dtype, g in wanted:
            if not self.ahead or time.perf_counter() > deadline:
                return
            try:
                self.get(fast_mode, dtype, EPS_GRID[g], engine)
            except Exception:  # noqa: BLE001 - kept as unavailable: the kernel shows it if asked
                continue

    def window(self, wanted: Iterable[Grid]) -> dict[str, LabState]:
        """The wanted states computed already, by page key (nothing is computed)."""
        found = {state_key(f, d, g): self._kept.get((f, d, EPS_GRID[g])) for f, d, g in wanted}
        return {key: state for key, state in found.items() if state is not None}

    def scene(self, window: dict[str, LabState]) -> tuple[dict, dict[str, np.ndarray]]:
        """The page's scene for a window of states: the Function, the words and the states."""
        part, arrays = self.pack(window)
        return {"function": self.label, "about": self.about, "causes": CAUSES, **part}, arrays

    def pack(self, states: dict[str, LabState]) -> tuple[dict, dict[str, np.ndarray]]:
        """States by page key as ``(part, arrays)``: records whose ``numeric``, ``analytic`` and
        ``ratio`` index ``matrices`` (float64) and ``ratios`` (float32, drawn, never read out),
        -1 where missing; the block lines ``row_splits`` / ``col_splits``."""
        shaped = next((s for s in states.values() if s.rows), LabState({}, None, None, (1,), (1,)))
        shape = (sum(shaped.rows), sum(shaped.cols))
        matrices: dict[bytes, np.ndarray] = {}  # each distinct matrix once, by its bytes
        ratios: dict[bytes, np.ndarray] = {}
        records = {}
        for key, s in states.items():
            refs = [_index(matrices, m, shape) for m in (s.numeric, s.analytic)]
            ratio = -1
            if min(refs) >= 0:
                r, _ = difference_ratio(s.numeric, s.analytic, self.atol, self.rtol)
                ratio = _index(ratios, r.astype(np.float32), shape)
            records[key] = {**s.record, "numeric": refs[0], "analytic": refs[1], "ratio": ratio}
        part = {"states": records, "shape": list(shape)}
        for name, sizes in (("row_splits", shaped.rows), ("col_splits", shaped.cols)):
            part[name] = sorted({total for total in accumulate(sizes[:-1]) if total > 0})
        arrays = {
            "matrices": np.stack([*matrices.values()]) if matrices else np.zeros((0, *shape)),
            "ratios": np.stack([*ratios.values()]) if ratios else np.zeros((0, *shape), np.float32),
        }
        return part, arrays


def _index(found: dict[bytes, np.ndarray], matrix: np.ndarray | None, shape: tuple) -> int:
    """The position of ``matrix`` in ``found`` (added if new); -1 for None or another shape."""
    if matrix is None or matrix.shape != shape:
        return -1
    key = matrix.tobytes()
    found.setdefault(key, matrix)
    return list(found).index(key)
