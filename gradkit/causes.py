"""Why a check passed or failed: the cause, an explanation with numbers, and a suggestion.

:func:`diagnose` fills in a :class:`~gradkit.report.CheckReport` whose verdict is torch's. It
tests the innocent explanations before it blames the backward rule: an error torch raised, NaN
or inf, memory that overlaps, a function that changes its own input, a random forward or a
non-reentrant backward (:mod:`gradkit.detectors`), low precision, a nudge that rounds away, a
jump or a kink within eps of x (tried on every failing entry: the entry shown as worst is the
one that decides), rounding noise (:mod:`gradkit.rounding`), truncation at a large eps. It
says "bug" only when a larger and a smaller eps both fail too and the difference is beyond
rounding; the bug is then described by :mod:`gradkit.patterns` (a surrogate gradient, such as
a straight-through estimator or a gradient reversal, named as a possible design). Every
explanation of a failure prints the numeric and the analytic number side by side. A failure of
gradcheck's other checks (vmap, forward mode, undefined gradients) where the Jacobians agree
gets that check's own cause: ``batched_grad``, ``forward_ad`` or ``undefined_grad``
(:mod:`gradkit.other_checks`); in float32 beside a Jacobian mismatch, both are said. Depends on
torch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import deepcopy

import torch

from ._args import dtype_name
from .detectors import (
    Break,
    find_breaks,
    find_layout,
    find_mutation,
    find_nondeterminism,
    find_nonfinite,
    to_double,
    worst_entry_fails,
)
from .engine import Verdict, batched_verdict, torch_verdict
from .other_checks import other_check_failed
from .patterns import (
    SURROGATE_FLAT,
    SURROGATE_FLAT_FIX,
    explain_bug,
    explain_error,
)
from .plan import differentiable_inputs, mirror_inputs, plan_check
from .realview import as_output_tuple
from .report import CheckReport, Failures, format_difference, read_failures
from .rounding import (
    collapsed_nudge,
    explain_low_precision,
    explain_rounding,
    rounding_facts,
    safe_eps,
)

__all__ = ["diagnose"]

#: Every explanation of a failure prints both numbers side by side, as HIPS/autograd does.
_BOTH_NUMBERS = re.compile(r"numeric \S+ vs analytic \S+")


def diagnose(
    report: CheckReport,
    fn: Callable,
    inputs: tuple,
    settings: dict,
    verdict: Verdict,
    counts: tuple[int, int],
    recheck: Callable,
) -> None:
    """Set ``report.cause``, ``explanation`` and ``suggestion``.

    ``counts`` is (entries outside tolerance, entries compared); ``recheck`` is
    :func:`gradkit.check` itself, for the same check in float64.
    """
    if report.passed:
        _explain_pass(report, counts)
        return
    if other_check_failed(report, fn, inputs, settings, verdict):
        return
    if verdict.error_type not in ("", "GradcheckError"):
        explain_error(report, verdict, fn)
        return
    _explain_failure(report, fn, inputs, settings, counts, recheck)
    w = report.worst  # gradkit's own numbers: shown where they fail as torch's did
    if w is not None and w.outside and not _BOTH_NUMBERS.search(report.explanation):
        report.explanation += f" The worst entry ({w.position}) reads {w.comparison}."


def _explain_failure(report, fn, inputs, settings, counts, recheck) -> None:
    """Cause, explanation and suggestion of a mismatch: the innocent causes first."""
    for cause, finder in (
        ("nonfinite", lambda: find_nonfinite(inputs, report)),
        ("layout", lambda: find_layout(inputs)),
        ("mutation", lambda: find_mutation(fn, inputs)),
        ("nondeterministic", lambda: find_nondeterminism(fn, inputs, settings["nondet_tol"])),
    ):
        found = finder()
        if found:
            report.cause = cause
            report.explanation, report.suggestion = found
            return
    low = [
        dtype_name(inputs[i].dtype)
        for i in differentiable_inputs(inputs)
        if inputs[i].dtype not in (torch.float64, torch.complex128)
    ]
    if low:
        _low_precision(report, fn, inputs, settings, low, recheck)
        return
    report.cause, report.explanation, report.suggestion = _numbers_or_rule(
        report, fn, inputs, _rerun(report, settings), counts
    )


def _numbers_or_rule(report, fn, inputs, rerun, counts) -> tuple[str, str, str]:
    """(cause, explanation, suggestion) of a full-precision failure: the numbers, or the rule."""
    collapsed = collapsed_nudge(report, inputs)
    if collapsed:
        return ("precision", *collapsed)
    failures = read_failures(report, _checked(fn, inputs))
    breaks, all_tried = find_breaks(fn, inputs, report, failures)
    at_breaks = _at_breaks(report, failures, breaks, all_tried)
    if at_breaks:
        return ("kink", *at_breaks)
    facts = rounding_facts(report, fn, inputs)
    if facts is not None:
        larger = _first_pass(rerun, fn, report, inputs, facts.larger)
        if larger is not None or facts.bound is not None:
            return ("precision", *explain_rounding(report, facts, larger))
        smaller = [report.eps / 10, report.eps / 100]
        theory = safe_eps(facts.dtype, facts.scale)
        smaller += [theory] if theory < smaller[-1] else []
        passing = _first_pass(rerun, fn, report, inputs, smaller)
        if passing is not None:
            return ("truncation", *_explain_truncation(report, passing))
    shown = failures.worst_outside({(b.entry.input, b.entry.index[1]) for b in breaks})
    if breaks and shown is not None:  # an entry the rule gets wrong, not one a break spoils
        report.worst = shown
    explanation, suggestion = explain_bug(report, counts, failures, fn)
    for b in breaks:  # beside a wrong rule: said, not blamed
        explanation += (
            f" Besides, {b.entry.input_position} sits within eps of a {b.kind}: leave it out "
            "while you fix the rule."
        )
    return ("bug", explanation, suggestion)


def _checked(fn: Callable, inputs: tuple) -> tuple[int, ...] | None:
    """The outputs torch compares (those that require grad); None if fn fails here."""
    try:
        with torch.enable_grad():
            outputs = as_output_tuple(fn(*mirror_inputs(inputs)))
    except Exception:  # noqa: BLE001 - any failure of user code: every output counts
        return None
    return plan_check(inputs, outputs).checked


def _at_breaks(report, failures: Failures, breaks: list[Break], all_tried: bool):
    """(explanation, suggestion) when jumps and kinks explain the failure, else None.

    They do when every failing entry either sits in the column of an input entry at a break or
    reads numeric 0 against a non-zero analytic (a surrogate gradient beside a jump: a
    straight-through estimator); or, when there were too many to try them all, every input
    entry tried is at a break (and the report says how many were not tried). The entry shown
    as worst becomes the first break's: the one that decides the cause.
    """
    if not breaks:
        return None
    untried = failures.others({(b.entry.input, b.entry.index[1]) for b in breaks})
    if untried and all_tried:
        return None
    first = breaks[0]
    report.worst = first.entry
    explanation, suggestion = first.explanation, first.suggestion
    others = [b.entry.input_position for b in breaks[1:]]
    if others:
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        explanation += f" Within eps of a jump or a kink too: {', '.join(others[:3])}{more}."
    if untried:
        explanation += (
            f" {untried} more input entries with failing entries were not tried (gradkit tries "
            f"at most {len(breaks)}, and each one tried sits at a jump or a kink)."
        )
    if failures.n_flat:
        w = failures.flat[0]
        explanation += (
            f" The other {failures.n_flat} failing entries read numeric 0 where backward "
            f"returns a non-zero gradient (e.g. {w.position}: {w.comparison}). " + SURROGATE_FLAT
        )
        suggestion += "; and " + SURROGATE_FLAT_FIX
    return explanation, suggestion


def _first_pass(rerun: Callable, fn: Callable, report, inputs: tuple, steps) -> float | None:
    """The first eps among ``steps`` at which the same check passes, or None.

    An eps where the worst entry still fails clearly is ruled out without a full rerun.
    """
    for eps in steps:
        if worst_entry_fails(fn, inputs, report, eps):
            continue
        if rerun(fn, mirror_inputs(inputs), eps).passed:
            return eps
    return None


def _explain_truncation(report: CheckReport, passing: float) -> tuple[str, str]:
    """(explanation, suggestion): the step, not the rule, failed the check."""
    w = report.worst
    numbers = f"the worst entry ({w.position}) reads {w.comparison}" if w else "it fails"
    return (
        f"at eps={report.eps:g} the central difference's own error, about eps²·|f'''|/6 "
        f"(truncation: it shrinks 100x when eps shrinks 10x), swamps the slope: {numbers}. "
        f"The same check passes at eps={passing:g}, so the step, not the rule, failed it: the "
        "backward is fine.",
        f"use a smaller eps: eps={passing:g} passes (gradcheck's default is 1e-6)",
    )


def _rerun(report: CheckReport, settings: dict) -> Callable:
    """The report's engine with the report's settings, at another eps: ``rerun(fn, x, eps)``."""
    run = batched_verdict if report.engine == "batched" else torch_verdict

    def rerun(fn: Callable, inputs: tuple, eps: float) -> Verdict:
        return run(fn, inputs, **{**settings, "eps": eps})

    return rerun


def _explain_pass(report: CheckReport, counts: tuple[int, int]) -> None:
    """A pass: the closest call, fast mode's blind spot, or a vacuous pass."""
    report.cause = "pass"
    w, (n_bad, n_total) = report.worst, counts
    if report.numeric is not None and not n_total:
        nothing = not any(len(row) for row in report.numeric)
        report.explanation = (
            "the function returned no outputs (an empty tuple)"
            if nothing
            else "no Jacobian entry was compared (an input or output with no entries, or no "
            "output that requires grad)"
        ) + ", so gradcheck had nothing to compare and passes without checking anything."
        report.suggestion = (
            "return the tensor(s) whose gradients you want checked"
            if nothing
            else "check inputs and outputs with at least one entry"
        )
        return
    if w is None:
        report.explanation = "gradcheck passed: every nudge agrees with the backward rule."
    elif n_bad and report.fast_mode:
        report.explanation = (
            f"fast mode passed, but {n_bad} of {n_total} Jacobian entries are outside tolerance: "
            f"the worst ({w.position}) reads {w.comparison}. fast_mode compares one number, qᵀJp "
            "for random p and q, and a wrong entry can hide in that sum: its blind spot."
        )
    elif n_bad:
        report.explanation = (
            f"torch passed, though gradkit's own recomputation finds {n_bad} of {n_total} "
            f"entries outside tolerance (worst |diff| {format_difference(w.error)}, allowed "
            f"{format_difference(w.tolerance)}): "
            "the function does not give the same numbers twice."
        )
    elif report.fast_mode:  # torch compared one projection; gradkit's own count says the rest
        report.explanation = (
            "fast mode compared one random projection, qᵀJp, and it agreed; comparing every "
            f"entry as slow mode would, they all agree within tolerance too; the closest call "
            f"({w.position}) is {w.comparison}."
        )
    else:
        report.explanation = (
            f"every Jacobian entry agrees within tolerance; the closest call ({w.position}) is "
            f"{w.comparison}."
        )
    if report.fast_mode:
        report.suggestion = (
            "fast_mode compares one random projection; a slow-mode check "
            "(fast_mode=False) compares every entry"
        )


def _low_precision(report, fn, inputs, settings, low, recheck) -> None:
    """Low-precision inputs: precision if float64 passes, else float64's own diagnosis.

    The float64 recheck runs a float64 copy of a module's weights too (:func:`_in_double`); if
    it still cannot run, float64 has not spoken: the cause stays precision, with a note.
    """
    run = batched_verdict if report.engine == "batched" else torch_verdict
    doubled = mirror_inputs(inputs, to_double)
    fn64 = _in_double(fn)
    in_float64 = run(fn64, doubled, **settings)
    if in_float64.passed or in_float64.error_type not in ("", "GradcheckError"):
        report.cause = "precision"
        report.explanation = explain_low_precision(report, low, inputs)
        report.suggestion = "re-run with float64 inputs: x.double() (gradcheck's own advice)"
        if fn64 is not fn:
            report.suggestion = "re-run in float64: x.double() and module.double()"
        if not in_float64.passed:
            _unconfirmed(report, low, in_float64)
        return
    in_double = recheck(fn64, doubled, engine=report.engine, **settings)
    report.cause = in_double.cause
    if in_double.cause in _BEYOND_THE_JACOBIAN:
        _two_failures(report, low, in_double)
        return
    report.explanation = (
        f"it fails with float64 inputs too, so precision is not the cause: {in_double.explanation}"
    )
    report.suggestion = in_double.suggestion


#: The causes of a failure of gradcheck's other checks, where the Jacobians agree in float64.
_BEYOND_THE_JACOBIAN = ("batched_grad", "forward_ad", "undefined_grad")


def _two_failures(report: CheckReport, low: list[str], in_double: CheckReport) -> None:
    """A low-precision Jacobian mismatch, and in float64 another check that fails too.

    In float64 the Jacobians agree, so the mismatch torch reported is rounding; the check named
    by the float64 recheck fails there as well, and is what remains once the inputs are float64.
    """
    w = report.worst
    kinds = ", ".join(sorted(set(low)))
    numbers = f"the worst entry ({w.position}) reads {w.comparison}" if w else "it fails"
    float64 = in_double.explanation.replace("torch says:", "In float64, torch says:", 1)
    said = report.torch_message.strip().splitlines()[0].rstrip(",.") if report.torch_message else ""
    report.explanation = (
        f"two failures. In {kinds}, torch says: {said or report.verdict}; {numbers}, and with "
        "float64 inputs every Jacobian entry agrees, so that mismatch is rounding, not the rule. "
        f"In float64 another of gradcheck's checks fails ({in_double.cause}): {float64}"
    )
    report.suggestion = f"re-run with float64 inputs (x.double()), and {in_double.suggestion}"


def _unconfirmed(report: CheckReport, low: list[str], in_float64: Verdict) -> None:
    """A float64 recheck that raised: precision stays the likely cause, said as unconfirmed."""
    error = in_float64.message.strip().splitlines()[0] if in_float64.message.strip() else ""
    w = report.worst
    numbers = f"the worst entry ({w.position}) reads {w.comparison}" if w else "it fails"
    kinds = ", ".join(sorted(set(low)))
    report.explanation = (
        f"in {kinds} {numbers}. Rounding noise in f(x ± eps), divided by 2·eps, is the likely "
        "cause at low precision, but the same check in float64 could not run, so gradkit "
        "cannot confirm that the backward is fine."
    )
    report.suggestion = (
        "re-run with float64 inputs and float64 weights: x.double() and module.double()"
    )
    report.notes = (
        *report.notes,
        f"the float64 recheck raised {error or in_float64.error_type}; precision is the likely "
        "cause, not a confirmed one",
    )


def _in_double(fn: Callable) -> Callable:
    """``fn`` with float64 weights: a ``.double()`` deep copy of a module (or of the module a
    bound method belongs to); any other function as it is. The caller's module is untouched."""
    module = fn if isinstance(fn, torch.nn.Module) else getattr(fn, "__self__", None)
    if not isinstance(module, torch.nn.Module):
        return fn
    try:
        copy = deepcopy(module).double()
    except Exception:  # noqa: BLE001 - a module that cannot be copied is rechecked as it is
        return fn
    return copy if module is fn else getattr(copy, fn.__name__)
