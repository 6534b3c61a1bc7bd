"""check(): torch's gradcheck verdict, explained.

The verdict is always torch's own (``torch.autograd.gradcheck``); gradkit adds the cause, the
worst Jacobian entry, an explanation with numbers and a suggestion. Depends on torch only.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch.autograd.gradcheck import GradcheckError

from .engine import Verdict, batched_verdict, torch_verdict
from .numerics import (
    GRADCHECK_DEFAULTS,
    _as_output_tuple,
    _check_eps,
    _check_size,
    _check_tolerance,
    _real_view,
    analytic_jacobian,
    dtype_name,
    numeric_jacobian,
)

__all__ = ["CAUSES", "CheckReport", "WorstEntry", "check"]

#: Every cause check() can report, with a one-line meaning.
CAUSES: dict[str, str] = {
    "pass": "the backward rule agrees with the nudges",
    "precision": "a correct rule failed only because the inputs are not float64",
    "bug": "the backward rule disagrees with the nudges in float64",
    "kink": "an input sits within eps of a point where the function is not differentiable",
    "nondeterministic": "two runs on the same input give different results",
    "error": "torch raised an error instead of comparing Jacobians",
}

_ENGINES = ("torch", "batched")


@dataclass(frozen=True)
class WorstEntry:
    """The Jacobian entry furthest outside its tolerance (or closest to it, on a pass).

    ``index`` is (row, column) in the real-view Jacobian: row = flat output entry,
    column = flat input entry.
    """

    output: int
    input: int
    index: tuple[int, int]
    numeric: float
    analytic: float
    tolerance: float

    @property
    def error(self) -> float:
        """|analytic - numeric|."""
        return abs(self.analytic - self.numeric)


@dataclass
class CheckReport:
    """What :func:`check` found. ``passed`` is torch's verdict; the rest explains it."""

    passed: bool
    cause: str
    explanation: str
    suggestion: str
    torch_message: str
    numeric: tuple[tuple[torch.Tensor, ...], ...] | None
    analytic: tuple[tuple[torch.Tensor, ...], ...] | None
    max_abs_error: float
    worst: WorstEntry | None
    eps: float
    atol: float
    rtol: float
    fast_mode: bool
    dtypes: tuple[str, ...]
    engine: str = "torch"
    warnings: tuple[str, ...] = ()
    traceback: str = ""
    notes: tuple[str, ...] = ()
    error_type: str = field(default="", repr=False)

    @property
    def verdict(self) -> str:
        """``"pass"`` or ``"GradcheckError"`` (or the name of the exception torch raised)."""
        return "pass" if self.passed else (self.error_type or "GradcheckError")

    def raise_for_failure(self) -> None:
        """Raise torch's ``GradcheckError`` (with torch's own message) if the check failed."""
        if not self.passed:
            raise GradcheckError(self.torch_message)

    def __str__(self) -> str:
        head = "PASS" if self.passed else f"FAIL ({self.verdict}, cause: {self.cause})"
        lines = [
            f"gradcheck {head}",
            f"  inputs: {', '.join(self.dtypes)}   eps={self.eps:g} atol={self.atol:g} "
            f"rtol={self.rtol:g}{'  fast_mode' if self.fast_mode else ''}",
        ]
        if self.worst is not None:
            w = self.worst
            lines.append(
                f"  worst entry: output {w.output} wrt input {w.input} at {w.index}: "
                f"numeric {w.numeric:.6g}, analytic {w.analytic:.6g}, |diff| {w.error:.3g} "
                f"(allowed {w.tolerance:.3g})"
            )
        lines.append(f"  why: {self.explanation}")
        if self.suggestion:
            lines.append(f"  try: {self.suggestion}")
        lines.extend(f"  note: {n}" for n in self.notes)
        if self.torch_message:
            lines.append("  torch says:")
            lines.extend("    " + line for line in self.torch_message.splitlines()[:12])
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        color = "#1b7f3b" if self.passed else "#b3261e"
        badge = "✔ pass" if self.passed else f"✘ {html.escape(self.verdict)}"
        rows = [
            ("cause", f"<b>{html.escape(self.cause)}</b> — {html.escape(CAUSES[self.cause])}"),
            ("why", html.escape(self.explanation)),
        ]
        if self.suggestion:
            rows.append(("try", html.escape(self.suggestion)))
        if self.worst is not None:
            w = self.worst
            rows.append(
                (
                    "worst entry",
                    f"output {w.output} / input {w.input} at {w.index}: numeric "
                    f"<code>{w.numeric:.6g}</code>, analytic <code>{w.analytic:.6g}</code>, "
                    f"|diff| <code>{w.error:.3g}</code> vs allowed <code>{w.tolerance:.3g}</code>",
                )
            )
        rows.append(
            (
                "settings",
                f"{html.escape(', '.join(self.dtypes))}; eps={self.eps:g}, atol={self.atol:g}, "
                f"rtol={self.rtol:g}{', fast_mode' if self.fast_mode else ''}",
            )
        )
        body = "".join(
            f"<tr><th style='text-align:left;padding-right:1em;vertical-align:top'>{k}</th>"
            f"<td style='text-align:left'>{v}</td></tr>"
            for k, v in rows
        )
        message = (
            f"<details><summary>torch's message</summary><pre style='white-space:pre-wrap'>"
            f"{html.escape(self.torch_message)}</pre></details>"
            if self.torch_message
            else ""
        )
        return (
            f"<div class='gradkit-report' style='border:2px solid {color};border-radius:6px;"
            f"padding:0.5em 0.8em;margin:0.3em 0'>"
            f"<div style='font-weight:bold;color:{color};font-size:1.1em'>gradcheck: {badge}</div>"
            f"<table style='margin:0.3em 0'>{body}</table>{message}</div>"
        )


# --------------------------------------------------------------------------------- validation


def _validate_inputs(inputs: object) -> tuple:
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(
            f"inputs must be a tensor or a tuple of tensors, got {type(inputs).__name__}; "
            "write e.g. (torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True),)"
        )
    inputs = tuple(inputs)
    for k, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor):
            if isinstance(t, (int, float, list)):
                raise TypeError(
                    f"inputs[{k}] is a {type(t).__name__}, not a tensor; wrap it with "
                    "torch.tensor(..., dtype=torch.float64, requires_grad=True)"
                )
            continue
        if t.requires_grad and not (t.is_floating_point() or t.is_complex()):
            raise TypeError(
                f"inputs[{k}] has dtype {t.dtype}; only floating or complex tensors can "
                "require grad"
            )
        if t.numel() == 0:
            raise ValueError(
                f"inputs[{k}] is empty (shape {tuple(t.shape)}); gradcheck needs at "
                "least one entry to nudge"
            )
    if not any(isinstance(t, torch.Tensor) for t in inputs):
        raise TypeError(
            "inputs holds no tensors; make one with torch.tensor([...], dtype=torch.float64, "
            "requires_grad=True)"
        )
    diff = [t for t in inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    if not diff:
        ints = [
            k
            for k, t in enumerate(inputs)
            if isinstance(t, torch.Tensor) and not (t.is_floating_point() or t.is_complex())
        ]
        if ints:
            raise TypeError(
                f"inputs[{ints[0]}] is an integer tensor ({inputs[ints[0]].dtype}); gradients need "
                "floating point: use torch.tensor(..., dtype=torch.float64, requires_grad=True)"
            )
        raise ValueError(
            "no input requires grad, so there is nothing to check; create the input with "
            "requires_grad=True (or call x.requires_grad_())"
        )
    return inputs


def _clone(inputs: tuple, dtype_map: Callable[[torch.Tensor], torch.dtype] | None = None) -> tuple:
    """Fresh leaves with the same values: check() never touches the caller's tensors."""
    out = []
    for t in inputs:
        if isinstance(t, torch.Tensor):
            c = t.detach().clone()
            if dtype_map is not None and (c.is_floating_point() or c.is_complex()):
                c = c.to(dtype_map(c))
            out.append(c.requires_grad_(t.requires_grad))
        else:
            out.append(t)
    return tuple(out)


def _to_double(t: torch.Tensor) -> torch.dtype:
    return torch.complex128 if t.is_complex() else torch.float64


def _probe_outputs(fn: Callable, inputs: tuple) -> tuple[torch.Tensor, ...] | BaseException:
    """Run the forward once: non-tensor and NaN/inf outputs are the caller's mistake."""
    try:
        with torch.no_grad():
            raw = fn(*_clone(inputs))
    except Exception as error:  # noqa: BLE001 - any failure of user code is reported, not raised
        return error
    outputs = _as_output_tuple(raw)
    for k, o in enumerate(outputs):
        if (o.is_floating_point() or o.is_complex()) and not bool(torch.isfinite(o).all()):
            bad = int((~torch.isfinite(o)).sum())
            raise ValueError(
                f"the function's output {k} holds {bad} NaN or inf value(s) at these inputs; "
                "gradients cannot be checked there: move the inputs into the function's domain "
                "(e.g. log needs x > 0)"
            )
    return outputs


# ------------------------------------------------------------------------------------- check


def check(
    fn: Callable,
    inputs: torch.Tensor | Sequence[torch.Tensor],
    *,
    eps: float = GRADCHECK_DEFAULTS["eps"],
    atol: float = GRADCHECK_DEFAULTS["atol"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
    fast_mode: bool = False,
    nondet_tol: float = 0.0,
    engine: str = "torch",
) -> CheckReport:
    """Run gradcheck and explain its verdict.

    Parameters
    ----------
    fn : callable
        A Function's ``apply`` or any function of tensors.
    inputs : tensor or sequence of tensors
        At least one must require grad. They are cloned: check() never changes them.
    eps, atol, rtol, fast_mode, nondet_tol
        As in ``torch.autograd.gradcheck``.
    engine : {"torch", "batched"}
        ``"torch"`` (default): the verdict is ``torch.autograd.gradcheck``'s. ``"batched"``:
        the same central differences and comparison computed with batched calls (much faster
        for large inputs); its verdict matches torch's slow mode.

    Returns
    -------
    CheckReport
        ``passed`` equals ``torch.autograd.gradcheck(fn, inputs, ..., raise_exception=False)``
        (False where torch raises another error, with cause ``"error"``).

    Examples
    --------
    >>> from gradkit.zoo import WrongSquareFn
    >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    >>> check(WrongSquareFn.apply, (x,)).cause
    'bug'
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable (e.g. SquareFn.apply), got {type(fn).__name__}")
    if isinstance(fn, type) and issubclass(fn, torch.autograd.Function):
        raise TypeError(f"fn is the class {fn.__name__}; pass {fn.__name__}.apply")
    inputs = _validate_inputs(inputs)
    eps = _check_eps(eps)
    atol = _check_tolerance(atol, "atol")
    rtol = _check_tolerance(rtol, "rtol")
    if isinstance(nondet_tol, bool) or not isinstance(nondet_tol, (int, float)) or nondet_tol < 0:
        raise ValueError(f"nondet_tol must be a number >= 0, got {nondet_tol!r}")
    if engine not in _ENGINES:
        raise ValueError(f"engine={engine!r} is not one of {_ENGINES}")
    settings = {
        "eps": eps,
        "atol": atol,
        "rtol": rtol,
        "fast_mode": bool(fast_mode),
        "nondet_tol": float(nondet_tol),
    }
    if engine == "batched" and fast_mode:
        raise ValueError("engine='batched' computes full Jacobians; use fast_mode=False with it")

    probe = _probe_outputs(fn, inputs)
    dtypes = tuple(dtype_name(t.dtype) for t in inputs if isinstance(t, torch.Tensor))
    if not fast_mode and not isinstance(probe, BaseException):
        _check_size(inputs, probe)

    run = batched_verdict if engine == "batched" else torch_verdict
    verdict = run(fn, _clone(inputs), **settings)

    numeric = analytic = None
    if not isinstance(probe, BaseException):
        numeric, analytic = verdict.jacobians or _jacobians(fn, inputs, eps)
    worst, max_err, n_bad, n_total = _worst(numeric, analytic, atol, rtol)

    report = CheckReport(
        passed=verdict.passed,
        cause="pass",
        explanation="",
        suggestion="",
        torch_message=verdict.message,
        numeric=numeric,
        analytic=analytic,
        max_abs_error=max_err,
        worst=worst,
        eps=eps,
        atol=atol,
        rtol=rtol,
        fast_mode=bool(fast_mode),
        dtypes=dtypes,
        engine=engine,
        warnings=verdict.warnings,
        traceback=verdict.traceback,
        notes=verdict.notes,
        error_type=verdict.error_type,
    )
    _diagnose(report, fn, inputs, settings, verdict, n_bad, n_total)
    return report


def _jacobians(fn: Callable, inputs: tuple, eps: float):
    try:
        numeric = numeric_jacobian(fn, _clone(inputs), eps=eps)
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        return None, None
    try:
        analytic = analytic_jacobian(fn, _clone(inputs))
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        analytic = None
    return numeric, analytic


_FLOAT64_MAX = torch.finfo(torch.float64).max


def _worst(numeric, analytic, atol: float, rtol: float):
    """The entry with the largest |a - n| / (atol + rtol |n|): torch.allclose's own rule."""
    if numeric is None or analytic is None:
        return None, math.nan, 0, 0
    best = None
    max_err, n_bad, n_total = 0.0, 0, 0
    for o, (nrow, arow) in enumerate(zip(numeric, analytic, strict=True)):
        for i, (n, a) in enumerate(zip(nrow, arow, strict=True)):
            if n.numel() == 0 or n.shape != a.shape:
                continue
            # in place where possible: fresh large buffers cost page faults (engine="batched")
            n64, a64 = n.double(), a.double()
            diff = torch.sub(a64, n64).abs_()
            allowed = n64.abs().mul_(rtol).add_(atol)
            n_bad += int(torch.gt(diff, allowed).sum())
            n_total += diff.numel()
            top = float(diff.max())  # NaN counts as inf, inf as the largest float
            max_err = max(max_err, math.inf if math.isnan(top) else min(top, _FLOAT64_MAX))
            ratio = diff.div_(allowed.clamp_min_(1e-300)).nan_to_num_(nan=math.inf)
            k = int(torch.argmax(ratio))
            r, c = divmod(k, n.shape[1])
            score = float(ratio.reshape(-1)[k])
            if best is None or score > best[0]:
                value = float(n64[r, c])
                best = (
                    score,
                    WorstEntry(o, i, (r, c), value, float(a64[r, c]), atol + rtol * abs(value)),
                )
    return (best[1] if best else None), max_err, n_bad, n_total


# ------------------------------------------------------------------------------------ causes


def _diagnose(report: CheckReport, fn, inputs, settings, verdict: Verdict, n_bad, n_total) -> None:
    if report.passed:
        report.cause = "pass"
        w = report.worst
        if w is None:
            report.explanation = "gradcheck passed: every nudge agrees with the backward rule."
        else:
            report.explanation = (
                f"every Jacobian entry agrees within tolerance; the closest call is numeric "
                f"{w.numeric:.6g} vs analytic {w.analytic:.6g} (|diff| {w.error:.2g}, allowed "
                f"{w.tolerance:.2g})."
            )
        if report.fast_mode:
            report.suggestion = (
                "fast_mode compares one random projection; a slow-mode check "
                "(fast_mode=False) compares every entry"
            )
        return
    if verdict.error_type not in ("", "GradcheckError"):
        _explain_error(report, verdict)
        return

    nondet = _nondeterminism(fn, inputs, settings["nondet_tol"])
    if nondet:
        report.cause = "nondeterministic"
        report.explanation, report.suggestion = nondet
        return

    low = [
        dtype_name(t.dtype)
        for t in inputs
        if isinstance(t, torch.Tensor)
        and t.requires_grad
        and t.dtype not in (torch.float64, torch.complex128)
    ]
    if low:
        run = batched_verdict if report.engine == "batched" else torch_verdict
        retry = run(fn, _clone(inputs, _to_double), **settings)
        if retry.passed:
            report.cause = "precision"
            report.explanation = _explain_precision(report, low)
            report.suggestion = "re-run with float64 inputs: x.double() (gradcheck's own advice)"
            return
        in_double = check(fn, _clone(inputs, _to_double), engine=report.engine, **settings)
        report.cause = in_double.cause
        report.explanation = (
            f"it fails with float64 inputs too, so precision is not the cause: "
            f"{in_double.explanation}"
        )
        report.suggestion = in_double.suggestion
        return

    kink = _kink(fn, inputs, report)
    if kink:
        report.cause = "kink"
        report.explanation, report.suggestion = kink
        return

    report.cause = "bug"
    report.explanation, report.suggestion = _explain_bug(report, n_bad, n_total)


def _explain_error(report: CheckReport, verdict: Verdict) -> None:
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


def _nondeterminism(fn, inputs, nondet_tol: float) -> tuple[str, str] | None:
    """Repeated forward runs (up to four), then two backward runs, on the same input."""
    try:
        with torch.no_grad():
            first = _as_output_tuple(fn(*_clone(inputs)))
            diff, k = 0.0, 0
            for _ in range(3):  # a random forward can repeat by chance; three tries make it rare
                again = _as_output_tuple(fn(*_clone(inputs)))
                gaps = [
                    float((a - b).abs().max()) if a.numel() else 0.0
                    for a, b in zip(first, again, strict=True)
                ]
                k = max(range(len(gaps)), key=gaps.__getitem__)
                diff = gaps[k]
                if diff > nondet_tol:
                    break
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        return None
    if diff > nondet_tol:
        return (
            f"forward runs on the same input differ by up to {diff:.3g} (output {k}): the "
            "forward is random (like dropout), so nudged outputs change by more than the nudge "
            "and no numeric slope is meaningful.",
            "make the forward deterministic for the check: fix the random mask (pass it in as "
            "an input) or seed the generator inside forward",
        )
    try:
        grads = []
        for _ in range(2):
            leaves = _clone(inputs)
            outs = _as_output_tuple(fn(*leaves))
            diff_leaves = [t for t in leaves if isinstance(t, torch.Tensor) and t.requires_grad]
            seeds = [torch.ones_like(o) for o in outs if o.requires_grad]
            used = [o for o in outs if o.requires_grad]
            g = torch.autograd.grad(used, diff_leaves, seeds, allow_unused=True)
            grads.append(g)
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        return None
    for a, b in zip(grads[0], grads[1], strict=True):
        if a is None or b is None:
            continue
        diff = float((a - b).abs().max())
        if diff > nondet_tol:
            return (
                f"two backward runs on the same input and grad_output differ by up to {diff:.3g}: "
                "the backward is not reentrant (e.g. atomicAdd on a GPU), so gradcheck refuses it "
                "even though the rule may be right.",
                f"if this noise is expected, pass nondet_tol={_round_up(diff):g}; otherwise make "
                "the backward deterministic",
            )
    return None


def _round_up(value: float) -> float:
    return 10 ** math.ceil(math.log10(value)) if value > 0 else 0.0


def _kink(fn, inputs, report: CheckReport) -> tuple[str, str] | None:
    """Compare one-sided slopes at the worst entry, in float64, at two step sizes.

    For a smooth f the gap right - left is eps·f'', so gap / eps (a curvature estimate) is the
    same at eps and eps/2. Across a kink the gap is (part of) the jump in slope, and gap / eps
    changes with the step. So it is a kink when the gap is outside tolerance and the two
    curvature estimates disagree by more than a quarter.
    """
    w = report.worst
    if w is None:
        return None
    x = _clone(inputs, _to_double)
    diff_index = [k for k, t in enumerate(x) if isinstance(t, torch.Tensor) and t.requires_grad]
    position = w.input if w.input < len(x) else None
    if position is None or position not in diff_index:
        return None
    h = report.eps
    try:
        values = {}
        for offset in (-h, -h / 2, 0.0, h / 2, h):
            args = [t.detach().clone() if isinstance(t, torch.Tensor) else t for t in x]
            flat = _real_view(args[position])
            flat[w.index[1]] += offset
            with torch.no_grad():
                out = _as_output_tuple(fn(*args))[w.output]
            values[offset] = float(_real_view(out)[w.index[0]])
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        return None

    def sides(step: float) -> tuple[float, float]:
        left = (values[0.0] - values[-step]) / step  # (f(x) - f(x - eps)) / eps
        right = (values[step] - values[0.0]) / step  # (f(x + eps) - f(x)) / eps
        return left, right

    left, right = sides(h)
    half_left, half_right = sides(h / 2)
    gap, half_gap = abs(right - left), abs(half_right - half_left)
    allowed = report.atol + report.rtol * max(abs(left), abs(right))
    curvature, half_curvature = gap / h, half_gap / (h / 2)
    if gap <= allowed or abs(curvature - half_curvature) <= 0.25 * max(curvature, half_curvature):
        return None
    x_value = float(_real_view(x[position].detach())[w.index[1]])
    return (
        f"at input {position} entry {w.index[1]} (x = {x_value:.3g}) the slope from the left is "
        f"{left:.4g} and from the right {right:.4g}, a gap that does not scale with the step: "
        f"the function has a kink within eps={h:g} of x, so the central difference averages the "
        f"two sides to {w.numeric:.4g} while the backward claims {w.analytic:.4g}.",
        f"test away from the kink: keep every input more than eps={h:g} from it (e.g. nudge x "
        "away from 0), and check the kink's own convention separately",
    )


def _explain_precision(report: CheckReport, low: list[str]) -> str:
    w = report.worst
    kinds = ", ".join(sorted(set(low)))
    if w is None:
        return (
            f"the inputs are {kinds}; the same rule passes with float64 inputs, so rounding "
            f"noise, not the rule, failed the check."
        )
    return (
        f"in {kinds} the worst entry reads numeric {w.numeric:.6g} vs analytic {w.analytic:.6g} "
        f"(|diff| {w.error:.3g}, allowed {w.tolerance:.3g}). With eps={report.eps:g}, rounding "
        f"noise in f(x ± eps) is divided by 2·eps and swamps the slope; the same rule passes with "
        f"float64 inputs, so the backward is fine."
    )


def _explain_bug(report: CheckReport, n_bad: int, n_total: int) -> tuple[str, str]:
    message = report.torch_message.lower()
    w = report.worst
    where = ""
    if w is not None:
        where = (
            f" The worst entry (output {w.output}, input {w.input}, row {w.index[0]}, column "
            f"{w.index[1]}): numeric {w.numeric:.6g}, analytic {w.analytic:.6g}, allowed "
            f"difference {w.tolerance:.3g}."
        )
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
    pattern = _jacobian_pattern(report) if report.numeric is not None else None
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


def _jacobian_pattern(report: CheckReport) -> tuple[str, str] | None:
    """Recognise common bug shapes by comparing analytic with numeric Jacobians."""
    if report.worst is None or report.analytic is None:
        return None
    o, i = report.worst.output, report.worst.input
    n = report.numeric[o][i].double()
    a = report.analytic[o][i].double()
    tol = report.atol + report.rtol * n.abs()
    bad = (a - n).abs() > tol
    big = n.abs() > 10 * tol
    if bool(big.any()):
        ratios = a[big] / n[big]
        r = float(ratios.median())
        spread = float((ratios - r).abs().max())
        if spread < 1e-3 * max(1.0, abs(r)) and bool(((a - r * n).abs() <= tol).all()):
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
                f"scale the backward by {1 / r:.4g}: recheck its constant (the power rule gives "
                "n·x^(n-1))",
            )
    if a.shape[0] == a.shape[1] and bool(bad.any()):
        off = ~torch.eye(a.shape[0], dtype=torch.bool, device=a.device)
        diag_ok = bool(((a - n).abs() <= tol).diagonal().all())
        if diag_ok and bool(bad[off].any()) and bool((n[off] == 0).all()):
            return (
                "the diagonal is right but off-diagonal entries are not zero: each output's "
                "backward leaks into other inputs, as when backward ignores grad_output.",
                "multiply by grad_output: return grad_output * local_derivative",
            )
    is_complex = any(d.startswith("complex") for d in report.dtypes)
    if is_complex and any(
        torch.allclose(c, n, rtol=report.rtol, atol=report.atol) for c in _conjugate_rule(a)
    ):
        return (
            "analytic matches numeric once the gradient is conjugated: the backward forgets "
            "conj (torch's convention for complex inputs is grad_output * conj(df/dz)).",
            "return grad_output * df_dz.conj() for complex inputs",
        )
    if n.numel() > 1 and bool(bad.any()):
        same_values = torch.allclose(
            a.reshape(-1).sort().values,
            n.reshape(-1).sort().values,
            rtol=report.rtol,
            atol=report.atol,
        )
        if same_values:
            return (
                "analytic holds the same numbers as numeric but in the wrong places: a transposed "
                "matrix in backward (e.g. grad @ B instead of grad @ B.T).",
                "check every matmul in backward: grad_A = grad @ B.T and grad_B = A.T @ grad",
            )
    n_bad, n_total = int(bad.sum()), bad.numel()
    if n_bad == 1:
        r, c = report.worst.index
        return (
            f"only 1 of {n_total} Jacobian entries is wrong (row {r}, column {c}); the rest agree, "
            "so the rule is right except for one special case.",
            "look for code in backward that treats one index, boundary or branch differently",
        )
    return None


def _conjugate_rule(jac: torch.Tensor) -> list[torch.Tensor]:
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
