"""OpInfo suite: gradkit.check's verdict against torch's on torch's own operator table.

Every op in ``torch.testing._internal.common_methods_invocations.op_db`` that supports autograd,
in float64 and complex128 (where the op supports it for backward), its first two samples (with
conjugated samples where torch's own tests include them), checked with torch's own gradcheck
flags for the op (``check_batched_grad``, ``nondet_tol``, ``fast_mode``, ``check_grad_dtypes``,
as torch's ``test_fn_grad`` passes them; a fast-mode flag left unset means torch's default, slow
mode). Each case is checked three ways: ``torch.autograd.gradcheck(..., raise_exception=False)``
(an exception counts as a failure), ``gradkit.check(engine="torch")`` and
``gradkit.check(engine="batched")``. The figures: how many verdicts agree, how many checks
raised, and the time of each engine against torch's, summed over the table.

``python -m benchmarks --only opinfo`` runs the whole table (minutes);
``tests/test_opinfo.py`` runs a sample of it. torch's operator table needs ``expecttest``
(the test extras install it).
"""

from __future__ import annotations

import random
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from . import Row

__all__ = ["Case", "Outcome", "cases", "compare", "op_table", "run"]

SUITE = "opinfo"
DTYPES = (torch.float64, torch.complex128)
#: Samples checked per op and dtype.
SAMPLES = 2


@dataclass
class Case:
    """One gradcheck of torch's table: ``gradcheck(fn, inputs, **flags)``."""

    name: str
    fn: Callable
    inputs: tuple
    flags: dict = field(default_factory=dict)


@dataclass
class Outcome:
    """torch's verdict, each engine's verdict (or the exception it raised), and the times."""

    case: str
    torch_passed: bool
    passed: dict[str, bool | None] = field(default_factory=dict)
    raised: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def agrees(self) -> bool:
        """Every engine gave torch's verdict without raising."""
        return not self.raised and all(p == self.torch_passed for p in self.passed.values())


def op_table() -> list:
    """torch's OpInfo entries that support autograd (imports torch's test internals)."""
    from torch.testing._internal.common_methods_invocations import op_db

    return [op for op in op_db if op.supports_autograd]


def _flatten(sample) -> tuple[tuple, int]:
    """gradcheck's inputs of a sample (a tensor list becomes its tensors) and the list's length."""
    first = sample.input
    if isinstance(first, (list, tuple)) and all(isinstance(t, torch.Tensor) for t in first):
        return (*first, *sample.args), len(first)
    return (first, *sample.args), 0


def _caller(op, sample, listed: int) -> Callable:
    """The function torch's test checks: the op on the inputs, its output processed as torch's."""
    variant, kwargs, process = op.get_op(), sample.kwargs, sample.output_process_fn_grad

    def fn(*inputs):
        args = (list(inputs[:listed]), *inputs[listed:]) if listed else inputs
        output = op.gradcheck_wrapper(variant, *args, **kwargs)
        return process(output) if process is not None else output

    fn.__name__ = op.name
    return fn


def cases(ops: list | None = None, dtypes=DTYPES, samples: int = SAMPLES) -> Iterator[Case]:
    """The table's gradchecks, op by op and dtype by dtype (samples made under a fixed RNG state).

    Samples whose inputs need no grad at all are left out (gradcheck refuses them).
    """
    for op in op_table() if ops is None else ops:
        supported = op.supported_backward_dtypes("cpu")
        for dtype in dtypes:
            if dtype not in supported:
                continue
            torch.manual_seed(0)
            conj = bool(op.test_conjugated_samples and dtype.is_complex)
            try:
                made = op.sample_inputs(
                    "cpu", dtype, requires_grad=True, include_conjugated_inputs=conj
                )
                chosen = [s for _, s in zip(range(samples), made, strict=False)]
            except Exception:  # noqa: BLE001 - a sample torch cannot make is no case
                continue
            for k, sample in enumerate(chosen):
                inputs, listed = _flatten(sample)
                if not any(isinstance(t, torch.Tensor) and t.requires_grad for t in inputs):
                    continue
                flags = {
                    "check_batched_grad": bool(op.check_batched_grad),
                    "check_grad_dtypes": True,
                    "nondet_tol": float(op.gradcheck_nondet_tol),
                    "fast_mode": bool(op.gradcheck_fast_mode),
                }
                name = f"{op.name}{'.' + op.variant_test_name if op.variant_test_name else ''}"
                yield Case(
                    f"{name}[{str(dtype).removeprefix('torch.')}#{k}]",
                    _caller(op, sample, listed),
                    inputs,
                    flags,
                )


def _torch_verdict(case: Case) -> bool:
    """``gradcheck(..., raise_exception=False)``; an exception torch raises counts as False."""
    try:
        return bool(
            torch.autograd.gradcheck(case.fn, case.inputs, raise_exception=False, **case.flags)
        )
    except Exception:  # noqa: BLE001 - torch raised: its verdict is a failure
        return False


def compare(case: Case, engines=("torch", "batched")) -> Outcome:
    """torch's verdict and each engine's on one case, with times."""
    import gradkit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        outcome = Outcome(case.name, _torch_verdict(case))
        outcome.seconds["gradcheck"] = time.perf_counter() - start
        for engine in engines:
            start = time.perf_counter()
            try:
                outcome.passed[engine] = gradkit.check(
                    case.fn, case.inputs, engine=engine, **case.flags
                ).passed
            except Exception as error:  # noqa: BLE001 - what the suite counts
                outcome.passed[engine] = None
                last = traceback.extract_tb(error.__traceback__)[-1]
                outcome.raised[engine] = (
                    f"{type(error).__name__}: {str(error)[:160]} "
                    f"({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
                )
            outcome.seconds[engine] = time.perf_counter() - start
    return outcome


def sample_of(all_cases: list[Case], size: int, order: int = 0) -> list[Case]:
    """``size`` cases drawn in a fixed order (``order`` picks another fixed draw)."""
    picked = random.Random(order).sample(range(len(all_cases)), min(size, len(all_cases)))
    return [all_cases[k] for k in sorted(picked)]


def run(full: bool = False, device: str = "cpu") -> list[Row]:
    """The whole table (CPU only): agreement counts and summed times against gradcheck's."""
    del full, device  # the table runs on the CPU, whole, every time
    outcomes = []
    for case in cases():
        outcomes.append(compare(case))
        last = outcomes[-1]
        if not last.agrees:
            print(
                f"  {last.case}: torch {last.torch_passed}, check {last.passed} {last.raised}",
                file=sys.stderr,
            )
        if len(outcomes) % 100 == 0:
            agree = sum(o.agrees for o in outcomes)
            print(f"  opinfo: {agree}/{len(outcomes)} agree", file=sys.stderr, flush=True)
    rows = []
    total_torch = sum(o.seconds["gradcheck"] for o in outcomes) * 1000
    for engine in ("torch", "batched"):
        agree = sum(o.passed[engine] == o.torch_passed and engine not in o.raised for o in outcomes)
        raised = [o for o in outcomes if engine in o.raised]
        wrong = [o.case for o in outcomes if o.passed[engine] not in (None, o.torch_passed)]
        took = sum(o.seconds[engine] for o in outcomes) * 1000
        rows.append(
            Row(
                SUITE,
                f"check(engine={engine!r}) {agree}/{len(outcomes)} agree, {len(raised)} raise",
                took,
                took,
                "gradcheck on the same cases",
                total_torch,
                total_torch,
                "100% torch's verdict, 0 raises",
                agree == len(outcomes) and not raised,
            )
        )
        for o in raised:
            print(f"  {engine} raised on {o.case}: {o.raised[engine]}")
        for name in wrong:
            print(f"  {engine} disagrees with torch on {name}")
    return rows
