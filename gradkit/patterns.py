"""Recognising the shape of a wrong backward from its Jacobians, and reading torch's errors.

Depends on torch only.
"""

from __future__ import annotations

import torch

from ._args import allowance
from .engine import Verdict
from .report import CheckReport

__all__ = ["conjugate_rule", "explain_bug", "explain_error", "jacobian_pattern"]


def explain_error(report: CheckReport, verdict: Verdict) -> None:
    """Cause ``error``: torch raised before comparing; the fix its message points to."""
    report.cause = "error"
    text = str(verdict.exception)
    first = text.strip().splitlines()[0] if text.strip() else verdict.error_type
    report.explanation = f"torch raised {verdict.error_type} before comparing Jacobians: {first}"
    lowered = text.lower()
    if "invalid gradient" in lowered or "expected shape" in lowered:
        report.suggestion = (
            "backward must return one gradient per input with that input's shape; "
            "for a broadcast input, sum over the broadcast dimensions "
            "(grad.sum_to_size(b.shape))"
        )
    elif "stride 0" in lowered:
        report.suggestion = (
            "pass a copy with its own memory: x.contiguous() (an expand()ed input repeats one "
            "number in memory, so gradcheck cannot nudge its entries one at a time)"
        )
    elif "inplace" in lowered or "in-place" in lowered:
        report.suggestion = (
            "do not modify saved tensors in place inside forward or backward; "
            "use out-of-place ops (y * g instead of y.mul_(g)) or clone first"
        )
    elif "incorrect number of gradients" in lowered or "returned an incorrect number" in lowered:
        report.suggestion = "backward must return exactly one gradient (or None) per forward input"
    elif "does not require grad" in lowered or "does not have a grad_fn" in lowered:
        report.suggestion = (
            "the output does not depend on any input that requires grad; check "
            "that forward uses its inputs"
        )
    else:
        report.suggestion = "read the traceback in report.traceback; the error comes from fn itself"


def explain_bug(report: CheckReport, n_bad: int, n_total: int) -> tuple[str, str]:
    """(explanation, suggestion) for cause ``bug``: torch's message, a pattern, or the count."""
    message = report.torch_message.lower()
    w = report.worst
    where = ""
    if w is not None:
        where = f" The worst entry ({w.position}): {w.comparison}."
    if "not multiplied by grad_output" in message:
        return (
            "the backward ignores grad_output: torch fed it a zero grad_output and got a non-zero "
            "gradient back." + where,
            "multiply the local derivative by grad_output: return grad_output * local_derivative",
        )
    if "reentrant" in message:
        return (
            "two backward runs on the same input differ: the backward is not reentrant." + where,
            "make backward deterministic, or pass nondet_tol",
        )
    pattern = jacobian_pattern(report) if report.numeric is not None else None
    if pattern:
        return pattern[0] + where, pattern[1]
    if n_total:
        return (
            f"{n_bad} of {n_total} Jacobian entries are outside tolerance in float64, so this is "
            "the backward rule, not rounding." + where,
            "derive the derivative by hand for the worst entry and compare it with what backward "
            "returns there",
        )
    return (
        "the backward rule disagrees with the nudges in float64." + where,
        "derive the derivative by hand and compare it with backward's formula",
    )


def jacobian_pattern(report: CheckReport) -> tuple[str, str] | None:
    """Recognise common bug shapes by comparing analytic with numeric Jacobians."""
    if report.worst is None or report.analytic is None or report.numeric is None:
        return None
    o, i = report.worst.output, report.worst.input
    n = report.numeric[o][i].double()
    a = report.analytic[o][i].double()
    tol = allowance(n, report.atol, report.rtol)
    bad = (a - n).abs() > tol
    for recognise in (_scaled, _leaking, _unconjugated, _transposed, _one_entry):
        found = recognise(report, n, a, tol, bad)
        if found:
            return found
    return None


def _scaled(report, n, a, tol, bad) -> tuple[str, str] | None:
    """analytic = r * numeric on every entry: a sign error, zeros, or a wrong constant."""
    big = n.abs() > 10 * tol
    if not bool(big.any()):
        return None
    ratios = a[big] / n[big]
    r = float(ratios.median())
    spread = float((ratios - r).abs().max())
    if spread >= 1e-3 * max(1.0, abs(r)) or not bool(((a - r * n).abs() <= tol).all()):
        return None
    if abs(r + 1) < 1e-3:
        return (
            "analytic is the negative of numeric on every entry: a sign error in backward.",
            "flip the sign of the returned gradient (check each minus sign in the formula)",
        )
    if abs(r) < 1e-12:
        return (
            "the backward returns zero where the slope is not zero.",
            "return the derivative, not zeros (or None)",
        )
    return (
        f"analytic is {r:.4g}x numeric on every entry: the backward multiplies by the "
        "wrong constant.",
        f"scale the backward by {1 / r:.4g}: recheck its constant (the power rule gives n·x^(n-1))",
    )


def _leaking(report, n, a, tol, bad) -> tuple[str, str] | None:
    """Right diagonal, non-zero off-diagonal where numeric is zero: grad_output ignored."""
    if a.shape[0] != a.shape[1] or not bool(bad.any()):
        return None
    off = ~torch.eye(a.shape[0], dtype=torch.bool, device=a.device)
    diag_ok = bool(((a - n).abs() <= tol).diagonal().all())
    if diag_ok and bool(bad[off].any()) and bool((n[off] == 0).all()):
        return (
            "the diagonal is right but off-diagonal entries are not zero: each output's "
            "backward leaks into other inputs, as when backward ignores grad_output.",
            "multiply by grad_output: return grad_output * local_derivative",
        )
    return None


def _unconjugated(report, n, a, tol, bad) -> tuple[str, str] | None:
    """A complex backward that matches once conjugated."""
    if not any(d.startswith("complex") for d in report.dtypes):
        return None
    if any(torch.allclose(c, n, rtol=report.rtol, atol=report.atol) for c in conjugate_rule(a)):
        return (
            "analytic matches numeric once the gradient is conjugated: the backward forgets "
            "conj (torch's convention for complex inputs is grad_output * conj(df/dz)).",
            "return grad_output * df_dz.conj() for complex inputs",
        )
    return None


def _transposed(report, n, a, tol, bad) -> tuple[str, str] | None:
    """The same numbers in other places: a transposed matrix in backward."""
    if n.numel() <= 1 or not bool(bad.any()):
        return None
    same_values = torch.allclose(
        a.reshape(-1).sort().values, n.reshape(-1).sort().values, rtol=report.rtol, atol=report.atol
    )
    if same_values:
        return (
            "analytic holds the same numbers as numeric but in the wrong places: a transposed "
            "matrix in backward (e.g. grad @ B instead of grad @ B.T).",
            "check every matmul in backward: grad_A = grad @ B.T and grad_B = A.T @ grad",
        )
    return None


def _one_entry(report, n, a, tol, bad) -> tuple[str, str] | None:
    """Exactly one wrong entry: a special case in the rule."""
    if int(bad.sum()) != 1:
        return None
    return (
        f"only 1 of {bad.numel()} Jacobian entries is wrong ({report.worst.position}); the rest "
        "agree, so the rule is right except for one special case.",
        "look for code in backward that treats one index, boundary or branch differently",
    )


def conjugate_rule(jac: torch.Tensor) -> list[torch.Tensor]:
    """Real-view Jacobians a backward would give with its local derivative conjugated.

    Columns alternate real/imaginary parts of the input. For a real output (or the real part of
    a complex one) conjugating flips the imaginary columns; for the imaginary part of a complex
    output (rows alternate too) it flips the real columns. Both layouts are returned.
    """
    real_out = jac.clone()
    real_out[:, 1::2] = -real_out[:, 1::2]
    complex_out = real_out.clone()
    complex_out[1::2, :] = -jac[1::2, :]
    complex_out[1::2, 1::2] = jac[1::2, 1::2]
    return [real_out, complex_out]
