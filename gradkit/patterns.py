"""Recognising the shape of a wrong backward from its Jacobians, and reading torch's errors.

The advice fits the code in front of it: the zoo's own formulas (the power rule, sin's
derivative) are quoted only when the function checked is one of the zoo's Functions
(:func:`zoo_function`); a surrogate gradient (a straight-through estimator, a gradient reversal
layer) is named as a possible design, never as the only reading; an error is located in the
learner's own file and line, from the traceback's frames. Depends on torch, and
on :data:`gradkit.zoo.CATALOGUE` and :data:`gradkit.zoo.CHECK_SPECIMENS` to tell the zoo's
Functions from everybody else's.
"""

from __future__ import annotations

import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path

import torch

from ._args import allowance
from .engine import Verdict
from .report import CheckReport, Failures
from .zoo import CATALOGUE, CHECK_SPECIMENS

__all__ = [
    "conjugate_rule",
    "explain_bug",
    "explain_error",
    "jacobian_pattern",
    "zoo_function",
]


def zoo_function(fn: object) -> str | None:
    """The zoo's name for ``fn`` when it is a zoo Function's ``apply`` (or the class), else None.

    Only then may advice quote the zoo's formulas: anybody else's Function is another function.
    """
    owner = getattr(fn, "__self__", fn)
    for catalogue in (CATALOGUE, CHECK_SPECIMENS):
        for name, entry in catalogue.items():
            if entry.function is owner:
                return name
    return None


def explain_error(report: CheckReport, verdict: Verdict, fn: object = None) -> None:
    """Cause ``error``: torch raised before comparing; where it was raised, and the fix its
    message points to."""
    report.cause = "error"
    text = str(verdict.exception)
    first = text.strip().splitlines()[0] if text.strip() else verdict.error_type
    place = error_place(verdict.exception)
    where = f" {place.said}" if place else ""
    report.explanation = (
        f"torch raised {verdict.error_type}{where} before comparing Jacobians: {first}"
    )
    lowered = text.lower()
    if "leaf variable" in lowered and "in-place" in lowered:
        report.explanation += (
            " fn changes an input in place (an in-place operation, or a Function that marks it "
            "dirty), and gradcheck hands fn your input itself: a leaf that requires grad, which "
            "torch never lets change in place."
        )
    report.suggestion = _error_fix(lowered, place, fn)


@dataclass(frozen=True)
class ErrorPlace:
    """Where an error was raised in the learner's own code: the innermost frame of its
    traceback outside torch, gradkit's machinery and Python's own libraries."""

    file: str
    line: int
    function: str
    code: str

    @property
    def said(self) -> str:
        """``"in backward (my_fns.py, line 12: `return g * 2 * x.T.mm(x)`)"``."""
        code = f": `{self.code}`" if self.code else ""
        return f"in {self.function} ({Path(self.file).name}, line {self.line}{code})"


#: gradkit's own folder; its zoo and exercises are example code a learner reads and runs.
_KIT = Path(__file__).resolve().parent
_KITS_EXAMPLES = (_KIT / "zoo", _KIT / "exercises")


def _not_the_learners() -> tuple[Path, ...]:
    """Folders whose frames are not the learner's code: torch, gradkit's machinery, and
    Python's standard library (other installed packages may be the learner's own)."""
    paths = sysconfig.get_paths()
    stdlib = {Path(paths[k]).resolve() for k in ("stdlib", "platstdlib")}
    return (*stdlib, Path(torch.__file__).resolve().parent, _KIT)


def error_place(error: BaseException | None) -> ErrorPlace | None:
    """The innermost frame of ``error``'s traceback outside torch, gradkit and the standard
    library (gradkit's zoo and exercises count as the learner's), or None where there is none:
    torch raised it in its own code."""
    if error is None or error.__traceback__ is None:
        return None
    outside = _not_the_learners()
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        path = Path(frame.filename).resolve()
        example = any(path.is_relative_to(folder) for folder in _KITS_EXAMPLES)
        if example or not any(path.is_relative_to(folder) for folder in outside):
            code = (frame.line or "").strip()
            return ErrorPlace(frame.filename, frame.lineno or 0, frame.name, code)
    return None


def _error_fix(lowered: str, place: ErrorPlace | None, fn: object) -> str:
    """The fix torch's message points to (``lowered``), or where to look."""
    if "invalid gradient" in lowered or "expected shape" in lowered:
        return (
            "backward must return one gradient per input with that input's shape; "
            "for a broadcast input, sum over the broadcast dimensions "
            "(grad.sum_to_size(b.shape))"
        )
    if "stride 0" in lowered:
        return (
            "pass a copy with its own memory: x.contiguous() (an expand()ed input repeats one "
            "number in memory, so gradcheck cannot nudge its entries one at a time)"
        )
    if "leaf variable" in lowered and "in-place" in lowered:
        return (
            f"check it on a non-leaf copy: check(lambda x: {_call_name(fn)}(x.clone()), (x,)) "
            "(the clone is what changes; gradcheck still nudges x)"
        )
    if "inplace" in lowered or "in-place" in lowered:
        return (
            "do not modify saved tensors in place inside forward or backward; "
            "use out-of-place ops (y * g instead of y.mul_(g)) or clone first"
        )
    if "incorrect number of gradients" in lowered or "returned an incorrect number" in lowered:
        return "backward must return exactly one gradient (or None) per forward input"
    if "does not require grad" in lowered or "does not have a grad_fn" in lowered:
        return (
            "the output does not depend on any input that requires grad; check "
            "that forward uses its inputs"
        )
    if "must implement the jvp" in lowered:
        return (
            "write a jvp staticmethod (the derivative times the tangent), or check with "
            "check_forward_ad=False if the Function is never used in forward mode"
        )
    if place:
        return (
            f"fix {Path(place.file).name}, line {place.line} (in {place.function}): the error was "
            "raised there; report.traceback holds the whole traceback"
        )
    return (
        "read torch's message with report.traceback: none of its frames is in your own code "
        "(only torch's, Python's and gradkit's), so torch raised it itself, refusing what it "
        "was given"
    )


def _call_name(fn: object) -> str:
    """How the learner calls ``fn``: ``"MyFn.apply"`` for a Function's apply, else its name."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
        return f"{owner.__name__}.apply"
    return getattr(fn, "__name__", "fn") if fn is not None else "fn"


def explain_bug(
    report: CheckReport, counts: tuple[int, int], failures: Failures, fn: object = None
) -> tuple[str, str]:
    """(explanation, suggestion) for cause ``bug``: torch's message, a surrogate gradient, a
    pattern, or the count. ``counts`` is (entries outside tolerance, entries compared),
    ``failures`` those entries (:func:`~gradkit.report.read_failures`), ``fn`` the function
    checked."""
    n_bad, n_total = counts
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
    if failures.count and failures.n_flat == failures.count:
        return (
            f"the numeric Jacobian is 0 on every failing entry ({failures.count} of the "
            f"{n_total} compared), where backward returns a non-zero gradient.{where} "
            + SURROGATE_FLAT,
            SURROGATE_FLAT_FIX,
        )
    pattern = jacobian_pattern(report, zoo_function(fn)) if report.numeric is not None else None
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


#: What numeric 0 against a non-zero analytic means, and what to do about it.
SURROGATE_FLAT = (
    "Nudging x by eps does not move the forward there (it is flat, as round, sign, a clamp "
    "past its edge or a threshold are), yet backward says it does. A surrogate gradient does "
    "this on purpose (a straight-through estimator passes grad_output through a flat forward), "
    "and gradcheck fails it by design: it compares backward with the forward's own slope, 0 "
    "here."
)
SURROGATE_FLAT_FIX = (
    "if the surrogate is on purpose, gradcheck cannot pass it: check the code around it with the "
    "flat forward swapped for a differentiable stand-in (the identity, for a straight-through "
    "estimator), and test the surrogate's backward on its own (x.grad should be what you "
    "designed, e.g. grad_output itself); if it is not on purpose, return the forward's own "
    "slope (0 where it is flat)"
)


def jacobian_pattern(report: CheckReport, zoo: str | None = None) -> tuple[str, str] | None:
    """Recognise common bug shapes by comparing analytic with numeric Jacobians (``zoo``: the
    zoo's name for the function, when it is one of the zoo's: its formulas may be quoted)."""
    if report.worst is None or report.analytic is None or report.numeric is None:
        return None
    o, i = report.worst.output, report.worst.input
    n = report.numeric[o][i].double()
    a = report.analytic[o][i].double()
    tol = allowance(n, report.atol, report.rtol)
    bad = (a - n).abs() > tol
    found = _scaled(report, n, a, tol, zoo)
    for recognise in (_leaking, _unconjugated, _transposed, _one_entry):
        found = found or recognise(report, n, a, tol, bad)
    return found


def _scaled(report, n, a, tol, zoo: str | None) -> tuple[str, str] | None:
    """analytic = r * numeric on every entry: a sign error, zeros, or a constant factor (a
    gradient reversal or scaling layer does it on purpose)."""
    big = n.abs() > 10 * tol
    if not bool(big.any()):
        return None
    ratios = a[big] / n[big]
    r = float(ratios.median())
    spread = float((ratios - r).abs().max())
    if spread >= 1e-3 * max(1.0, abs(r)) or not bool(((a - r * n).abs() <= tol).all()):
        return None
    if abs(r) < 1e-12:
        return (
            "the backward returns zero where the slope is not zero.",
            "return the derivative, not zeros (or None)",
        )
    if zoo is not None:
        return _scaled_in_the_zoo(r, CATALOGUE.get(zoo))
    said = "the negative of numeric" if abs(r + 1) < 1e-3 else f"{r:.4g}x numeric"
    if r < 0:
        return (
            f"analytic is {said} on every entry (analytic = {r:.4g} · numeric): backward "
            "reverses the gradient's sign. A sign error in backward does this, and so does a "
            "gradient reversal layer on purpose (backward returns -λ·grad_output), which "
            "gradcheck fails by design.",
            "if the reversal is not on purpose, flip the sign of the returned gradient (check "
            "each minus sign); if it is, gradcheck cannot pass it: check the layer with its "
            "scale set so that backward returns +grad_output (λ = -1 for -λ·grad_output), "
            "which must pass, and the rest of the model without the layer",
        )
    return (
        f"analytic is {said} on every entry: backward's gradient is off by that constant "
        "factor. A missing or extra factor in backward's formula does this, and so does a layer "
        "that scales the gradient on purpose, which gradcheck fails by design.",
        f"scale the backward by {1 / r:.4g}: look for a missing or extra constant factor in "
        "backward's formula",
    )


def _scaled_in_the_zoo(r: float, entry) -> tuple[str, str]:
    """The zoo's own words for a Function of the zoo whose backward is off by ``r``."""
    if abs(r + 1) < 1e-3:
        return (
            "analytic is the negative of numeric on every entry: a sign error in backward.",
            "flip the sign of the returned gradient (check each minus sign in the formula)",
        )
    power = entry is not None and any(c in entry.formula for c in "²³^")
    return (
        f"analytic is {r:.4g}x numeric on every entry: the backward multiplies by the "
        "wrong constant.",
        f"scale the backward by {1 / r:.4g}: recheck its constant"
        + (" (the power rule gives n·x^(n-1))" if power else ""),
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
