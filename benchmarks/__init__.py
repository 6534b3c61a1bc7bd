"""Benchmarks: every figure is a ratio against an anchor measured in the same run.

Run them all with ``make bench`` (``python -m benchmarks`` from the repository root); ``--full``
adds the large sizes, ``--only engine,widgets`` picks suites, ``--device cuda`` runs the engine
suite on a GPU; ``--only classroom`` is N learners pressing Run All together on one server
(:mod:`benchmarks.classroom`); ``--only fastmode`` is ``check(fast_mode=True)`` against torch's
fast gradcheck; ``--only opinfo`` (opt-in: never in the default run) checks torch's whole OpInfo
operator table with both engines (many minutes: it counts verdicts that differ from torch's and
checks that raise).
Nothing here is a timed test: these machines are shared and noisy, so only ratios mean much.

Each suite is a module in this package with ``run(full: bool, device: str) -> list[Row]``.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["OPT_IN", "SUITES", "Row", "format_table", "summarize", "time_calls"]

#: Suite modules, in the order they run.
SUITES = ("engine", "fastmode", "widgets", "browser", "classroom", "opinfo")
#: Suites that run only when named with ``--only`` (they take many minutes).
OPT_IN = ("opinfo",)


@dataclass
class Row:
    """One line of the table: a figure, its anchor from the same run, and its goal."""

    suite: str
    name: str
    median_ms: float
    p95_ms: float
    anchor: str
    anchor_median_ms: float
    anchor_p95_ms: float
    goal: str
    met: bool | None

    @property
    def ratio(self) -> float:
        """How many times faster than the anchor (anchor median / figure median)."""
        return self.anchor_median_ms / self.median_ms if self.median_ms > 0 else float("inf")


def summarize(samples_ms: list[float]) -> tuple[float, float]:
    """Median and 95th percentile (nearest rank) of a list of milliseconds."""
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return statistics.median(ordered), p95


def time_calls(
    fn: Callable[[], object], repeat: int, warmup: int = 2, sync: Callable[[], None] | None = None
) -> list[float]:
    """Wall time of ``repeat`` calls of ``fn`` in milliseconds, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    samples = []
    gc.collect()
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        if sync:
            sync()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def format_table(rows: list[Row]) -> str:
    """The one table ``make bench`` prints."""
    header = (
        f"{'suite':8} {'figure':44} {'median':>9} {'p95':>9}  {'anchor':34} "
        f"{'a.median':>9} {'a.p95':>9} {'ratio':>8}  goal"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        verdict = "" if r.met is None else ("  ok" if r.met else "  MISSED")
        lines.append(
            f"{r.suite:8} {r.name[:44]:44} {r.median_ms:8.2f}ms {r.p95_ms:8.2f}ms  "
            f"{r.anchor[:34]:34} {r.anchor_median_ms:8.2f}ms {r.anchor_p95_ms:8.2f}ms "
            f"{r.ratio:7.1f}x  {r.goal}{verdict}"
        )
    return "\n".join(lines)
