"""Fast-mode suite: ``gradkit.check(fast_mode=True)`` against torch's own fast gradcheck.

torch's fast mode compares one random projection ``u^T J v`` of each Jacobian: a few forward
calls and one backward, whatever the input's size. ``check(fast_mode=True)`` must cost about
the same (goal: within 2x of ``torch.autograd.gradcheck(fast_mode=True)`` timed in the same run,
calls interleaved), for both engines: a passing report computes its full Jacobians only when
its numbers are first read. The function, ``x.sin() * x`` summed in groups of 16, has a full
Jacobian small enough to hold (3,088 x 193 entries), which a report computed eagerly before
(one call per nudge: about 200x torch's fast mode). Sizes: a passing 3,088-entry input, and
6,176 with ``full``. One intra-op thread, as in the engine suite (``GRADKIT_BENCH_THREADS``).
"""

from __future__ import annotations

import os
import warnings

import torch

import gradkit

from . import Row, summarize
from .engine import _interleaved

__all__ = ["fast_check_rows", "run"]

SUITE = "fastmode"
_SIZES = (3088,)
_FULL_SIZES = (3088, 6176)
_GOAL = 2.0


def _passing(n: int) -> tuple:
    """(f, x): a passing check of an ``n``-entry input (n a multiple of 16)."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, generator=gen, dtype=torch.float64).requires_grad_(True)
    return (lambda v: (v.sin() * v).reshape(-1, 16).sum(1)), x


def fast_check_rows(n: int, repeat: int = 30) -> list[Row]:
    """One row per engine: check(fast_mode=True) against gradcheck(fast_mode=True) at size n."""
    f, x = _passing(n)
    candidates = {
        "gradcheck": lambda: torch.autograd.gradcheck(f, (x,), fast_mode=True),
        "torch": lambda: gradkit.check(f, (x,), fast_mode=True),
        "batched": lambda: gradkit.check(f, (x,), fast_mode=True, engine="batched"),
    }
    for name, call in candidates.items():
        verdict = call()
        if not (verdict if isinstance(verdict, bool) else verdict.passed):
            raise SystemExit(f"benchmarks: fast mode: {name} fails the passing input (n={n})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples = _interleaved(candidates, repeat)
    anchor = summarize(samples["gradcheck"])
    rows = []
    for engine in ("torch", "batched"):
        median, p95 = summarize(samples[engine])
        rows.append(
            Row(
                SUITE,
                f"check(fast_mode, engine={engine}) n={n}",
                median,
                p95,
                "gradcheck(fast_mode=True)",
                *anchor,
                f"<= {_GOAL:g}x gradcheck's time",
                median <= _GOAL * anchor[0],
            )
        )
    return rows


def run(full: bool = False, device: str = "cpu") -> list[Row]:
    """The fast-mode rows (CPU only: torch's fast mode is a handful of calls anywhere)."""
    del device
    threads = torch.get_num_threads()
    torch.set_num_threads(int(os.environ.get("GRADKIT_BENCH_THREADS", "1")))
    try:
        return [row for n in (_FULL_SIZES if full else _SIZES) for row in fast_check_rows(n)]
    finally:
        torch.set_num_threads(threads)
