"""torch's OpInfo operator table: check() gives torch's gradcheck verdict, both engines, no raise.

The default run checks the ops the verdicts once went wrong on (conjugate views, complex32,
sparse CSR inputs, partial views, plain-number arguments) and a fixed draw of the others
(:func:`benchmarks.opinfo.sample_of`), each in float64 and complex128 with torch's own flags
for the op. ``GRADKIT_OPINFO=all`` checks the whole table (minutes; also
``python -m benchmarks --only opinfo``). The default run keeps samples of at most 64 nudged
numbers, to stay within seconds. torch's table needs ``expecttest``.
"""

from __future__ import annotations

import os
import random

import pytest

pytest.importorskip("expecttest", reason="torch's OpInfo table imports expecttest")

from benchmarks import opinfo  # after the skip: it imports torch's test internals

#: Ops whose verdicts once raised or differed from torch's (issue 38).
ONCE_WRONG = {
    "conj",
    "H",
    "mH",
    "dot",
    "vdot",
    "mm",
    "svd",
    "fft.ifft",
    "fft.ihfft",
    "linalg.lu_solve",
    "chalf",
    "sparse.mm",
    "as_strided",
    "clamp",
}
#: Other ops drawn, in a fixed order.
DRAWN = 6
#: The default run keeps samples of at most this many nudged real numbers (the whole table
#: holds samples of hundreds, each thousands of calls of torch's slow mode).
SMALL = 64
WHOLE = os.environ.get("GRADKIT_OPINFO") == "all"


def _ops() -> list:
    table = opinfo.op_table()
    if WHOLE:
        return table
    named = [op for op in table if op.name in ONCE_WRONG]
    others = [op for op in table if op.name not in ONCE_WRONG]
    return named + random.Random(38).sample(others, DRAWN)


def _size(case: opinfo.Case) -> int:
    """Real numbers torch nudges: entries of the inputs that require grad (complex count 2)."""
    return sum(
        t.numel() * (2 if t.is_complex() else 1)
        for t in case.inputs
        if isinstance(t, opinfo.torch.Tensor) and t.requires_grad
    )


def _cases() -> list:
    made = opinfo.cases(_ops())
    return list(made) if WHOLE else [c for c in made if _size(c) <= SMALL]


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_gives_torchs_verdict_on_torchs_operator_table(case):
    outcome = opinfo.compare(case)
    assert not outcome.raised, outcome.raised
    assert outcome.passed == {"torch": outcome.torch_passed, "batched": outcome.torch_passed}


def test_the_sample_holds_what_once_went_wrong():
    names = {c.name.split("[")[0] for c in CASES}
    assert {"conj", "chalf", "sparse.mm.reduce", "as_strided.partial_views", "vdot"} <= names
    assert any("complex128" in c.name for c in CASES)
    assert any(not isinstance(x, opinfo.torch.Tensor) for c in CASES for x in c.inputs)


@pytest.mark.slow
@pytest.mark.skipif(not WHOLE, reason="the whole table runs with GRADKIT_OPINFO=all")
def test_the_whole_table_agrees():
    outcomes = [opinfo.compare(case) for case in CASES]
    wrong = [(o.case, o.torch_passed, o.passed, o.raised) for o in outcomes if not o.agrees]
    assert not wrong, wrong
