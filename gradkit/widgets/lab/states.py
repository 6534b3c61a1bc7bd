"""GradcheckLab's states: one check as the page shows it, and the states computed ahead.

A state is one setting of the lab's page controls: fast_mode, dtype and eps. :func:`report_state`
turns torch's report for it into a :class:`LabState` (the strings Python's report computes, the
worst entry's numbers, both Jacobians as matrices). :class:`LabStates` keeps the states of one
Function and tolerance, computes the ones one click away (÷10, ×10, a slider step, a dtype
switch, fast_mode) nearest first, and packs a window of them for the page: records as JSON, the
matrices in one buffer, each distinct matrix once.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..._args import DTYPES, EPS_GRID
from ...diagnosis import check
from ...report import CheckReport
from ..base.guard import InputError
from ..base.jacobians import difference_ratio
from .matrices import block_splits, report_matrices

__all__ = [
    "AHEAD_BUDGET_S",
    "AHEAD_MAX_CELLS",
    "AHEAD_TORCH_ENTRIES",
    "LabState",
    "LabStates",
    "report_state",
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

    @property
    def verdict(self) -> tuple:
        """What must agree with torch: passed, verdict, cause (or the reason it is unavailable)."""
        r = self.record
        return r["passed"], r["verdict"], r["cause"], r["unavailable"]


def report_state(report: CheckReport, dtype: str, eps: float) -> LabState:
    """A report as the page shows it: every string and number the readouts and heatmaps need.

    Parameters
    ----------
    report : CheckReport
        torch's verdict and gradkit's explanation for one state.
    dtype : str
        The inputs' dtype name, e.g. ``"float32"``.
    eps : float
        The step the report was computed with.

    Returns
    -------
    LabState
        ``record``: verdict, cause, explanation, suggestion, torch's message and warnings,
        notes, the worst entry (its numbers and its [row, col] in the joined matrix); the two
        Jacobians joined into matrices (None where the report has none).
    """
    numeric, analytic, rows, cols, worst = report_matrices(report)
    w = report.worst
    record = {
        "unavailable": "",
        "passed": report.passed,
        "verdict": report.verdict,
        "cause": report.cause,
        "explanation": report.explanation,
        "suggestion": report.suggestion,
        "message": report.torch_message,
        "warnings": list(report.warnings),
        "notes": list(report.notes),
        "dtypes": list(dict.fromkeys(report.dtypes)),
        "dtype": dtype,
        "eps": eps,
        "fast_mode": report.fast_mode,
        "worst": None
        if w is None
        else {
            "position": w.position,
            "numeric": w.numeric,
            "analytic": w.analytic,
            "error": w.error,
            "tolerance": w.tolerance,
            "outside": w.outside,  # gradcheck's test, Python's: the page never redoes it
            "shown": w.shown,  # the numbers as the report writes them: one format
            "cell": None if worst is None else [int(worst[0]), int(worst[1])],
        },
    }
    return LabState(record, numeric, analytic, tuple(rows), tuple(cols), report.engine, report)


def unavailable_state(message: str, dtype: str, eps: float, fast_mode: bool) -> LabState:
    """A state the lab cannot check (e.g. complex inputs in float16), with the reason."""
    record = {
        "unavailable": message,
        "passed": False,
        "verdict": "",
        "cause": "",
        "dtype": dtype,
        "eps": eps,
        "fast_mode": fast_mode,
        "worst": None,
    }
    return LabState(record, None, None)


class LabStates:
    """The states of one Function and tolerance: computed once, kept, packed for the page.

    Parameters
    ----------
    inputs_for : callable
        ``inputs_for(dtype)``: the Function's own inputs cast to that dtype (raises
        :class:`InputError` where it cannot be cast).
    fn : callable
        The function checked.
    atol, rtol : float
        gradcheck's tolerances of this scene.
    """

    #: States kept (a learner walking back reuses them).
    KEEP = 128

    def __init__(self, inputs_for: Callable, fn: Callable, atol: float, rtol: float) -> None:
        self.inputs_for, self.fn, self.atol, self.rtol = inputs_for, fn, atol, rtol
        self._kept: OrderedDict[tuple, LabState] = OrderedDict()
        self.ahead = True  # turned off once a Jacobian proves too large to send ahead
        self.checks: dict[str, bool] = {}  # gradcheck's other checks (GradcheckLab's checks=)

    def get(self, fast_mode: bool, dtype: str, eps: float, engine: str = "torch") -> LabState:
        """The state, computed now if needed (by torch itself unless ``engine`` says otherwise).

        A state kept from the batched engine is recomputed by torch when ``engine`` is "torch".
        An error is raised once; the state is then kept as unavailable, with the error's words.
        """
        key = (bool(fast_mode), dtype, float(eps))
        kept = self._kept.get(key)
        if kept is None or (engine == "torch" and kept.engine != "torch"):
            try:
                kept = self._compute(bool(fast_mode), dtype, float(eps), engine)
            except Exception as error:
                failed = f"{type(error).__name__}: {error}".splitlines()[0]
                self._keep(key, unavailable_state(failed, dtype, float(eps), bool(fast_mode)))
                raise
        return self._keep(key, kept)

    def _keep(self, key: tuple, kept: LabState) -> LabState:
        self._kept[key] = kept
        self._kept.move_to_end(key)
        while len(self._kept) > self.KEEP:
            self._kept.popitem(last=False)
        return kept

    def kept(self, fast_mode: bool, dtype: str, eps: float) -> LabState | None:
        """The state if it was computed, else None (nothing is computed)."""
        return self._kept.get((bool(fast_mode), dtype, float(eps)))

    def _compute(self, fast_mode: bool, dtype: str, eps: float, engine: str) -> LabState:
        try:
            inputs = self.inputs_for(DTYPES[dtype])
        except InputError as error:  # e.g. complex inputs in float16: the page says why
            return unavailable_state(str(error), dtype, eps, fast_mode)
        if engine == "batched" and (fast_mode or self.checks):
            engine = "torch"  # the batched engine: full Jacobians and the default checks only
        report = check(
            self.fn,
            inputs,
            eps=eps,
            atol=self.atol,
            rtol=self.rtol,
            fast_mode=fast_mode,
            engine=engine,
            **self.checks,
        )
        state = report_state(report, dtype, eps)
        if state.numeric is not None and state.numeric.size > AHEAD_MAX_CELLS:
            self.ahead = False
        return state

    def neighbours(self, fast_mode: bool, dtype: str, g: int) -> list[tuple[bool, str, int]]:
        """The states one click from (fast_mode, dtype, grid g), nearest first: ÷10 / ×10 and
        slider steps in every dtype, then fast_mode flipped."""
        grid = [g + d for d in CLICK_STEPS if 0 <= g + d < len(EPS_GRID)]
        near = sorted(
            ((fast_mode, name, k) for name in DTYPES for k in grid),
            key=lambda s: (abs(s[2] - g) % 3 != 0, abs(s[2] - g), s[1] != dtype),
        )
        return [*near, (not fast_mode, dtype, g)]

    def fill(self, wanted: Iterable[tuple[bool, str, int]], engine: str) -> int:
        """Compute the wanted grid states not kept yet, within AHEAD_BUDGET_S; how many were."""
        start, done = time.perf_counter(), 0
        for fast_mode, dtype, g in wanted:
            if not self.ahead or time.perf_counter() - start > AHEAD_BUDGET_S:
                break
            if self.kept(fast_mode, dtype, EPS_GRID[g]) is None:
                try:
                    self.get(fast_mode, dtype, EPS_GRID[g], engine)
                except Exception:  # noqa: BLE001 - the kernel shows it if the learner goes there
                    continue
                done += 1
        return done

    def pack(self, states: dict[str, LabState]) -> tuple[dict, dict[str, np.ndarray]]:
        """States by page key as the page reads them: each distinct matrix sent once.

        Returns
        -------
        tuple
            ``(part, arrays)``: ``part`` holds ``states`` (records whose ``numeric``,
            ``analytic`` and ``ratio`` are indices into the arrays, -1 where missing),
            ``shape`` [rows, cols] and the block lines ``row_splits`` / ``col_splits``;
            ``arrays`` holds ``matrices`` (float64, one per distinct Jacobian) and ``ratios``
            (float32, |analytic − numeric| ÷ allowed: drawn, never read out).
        """
        shaped = next(
            (s for s in states.values() if s.numeric is not None or s.analytic is not None), None
        )
        shape = (1, 1) if shaped is None else _shape_of(shaped)
        matrices: list[np.ndarray] = []
        ratios: list[np.ndarray] = []
        records = {}
        for key, s in states.items():
            record = dict(s.record)
            refs = [_index(matrices, m, shape) for m in (s.numeric, s.analytic)]
            record["numeric"], record["analytic"] = refs
            record["ratio"] = -1
            if min(refs) >= 0:
                ratio, _ = difference_ratio(s.numeric, s.analytic, self.atol, self.rtol)
                record["ratio"] = _index(ratios, ratio.astype(np.float32), shape)
            records[key] = record
        blocks = ([], []) if shaped is None else (shaped.rows, shaped.cols)
        part = {
            "states": records,
            "shape": list(shape),
            "row_splits": block_splits(blocks[0]),
            "col_splits": block_splits(blocks[1]),
        }
        arrays = {
            "matrices": np.stack(matrices) if matrices else np.zeros((0, *shape)),
            "ratios": np.stack(ratios) if ratios else np.zeros((0, *shape), np.float32),
        }
        return part, arrays


def _shape_of(state: LabState) -> tuple[int, int]:
    m = state.numeric if state.numeric is not None else state.analytic
    return int(m.shape[0]), int(m.shape[1])


def _index(found: list[np.ndarray], matrix: np.ndarray | None, shape: Sequence[int]) -> int:
    """The position of ``matrix`` in ``found`` (appended if new); -1 for None or another shape."""
    if matrix is None or tuple(matrix.shape) != tuple(shape):
        return -1
    for k, m in enumerate(found):
        if m.dtype == matrix.dtype and np.array_equal(m, matrix, equal_nan=True):
            return k
    found.append(matrix)
    return len(found) - 1
