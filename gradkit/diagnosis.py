"""check(): torch's gradcheck verdict, explained.

The verdict is always torch's own (``torch.autograd.gradcheck`` on the caller's own tensors, or
the batched engine that decides as torch does, from the same :mod:`gradkit.plan`); gradkit adds
the cause (:mod:`gradkit.causes`), the worst Jacobian entry, an explanation with numbers and a
suggestion, in a :class:`~gradkit.report.CheckReport`. A pass costs what the verdict costs: its
numbers are computed when first read.
Depends on torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch

from ._args import (
    GRADCHECK_DEFAULTS,
    allowance,
    check_eps,
    check_function,
    check_tolerance,
    dtype_name,
)
from .batching import short_reason
from .causes import diagnose
from .engine import batched_verdict, torch_jacobians, torch_verdict
from .engine.beyond import SWITCHES
from .jacobian import too_large
from .patterns import explain_error
from .plan import dense_inputs, input_notes, mirror_inputs, plan_check, validate_inputs
from .realview import as_output_tuple, is_floating
from .report import CheckReport, WorstEntry

__all__ = ["check"]

_ENGINES = ("torch", "batched")
_FLOAT64_MAX = torch.finfo(torch.float64).max


def _settings(eps, atol, rtol, fast_mode, nondet_tol, engine, switches: dict) -> dict:
    """gradcheck's keyword arguments, each checked by its rule in :mod:`gradkit._args`.

    The other checks' switches (``check_batched_grad``, ...) are passed on only where they
    differ from torch's defaults; both engines answer every one of them.
    """
    if engine not in _ENGINES:
        raise ValueError(f"engine={engine!r} is not one of {_ENGINES}")
    changed = {}
    for name, value in switches.items():
        if name == "masked" and value is None:
            continue
        if not isinstance(value, bool):
            allowed = "True, False or None" if name == "masked" else "True or False"
            raise TypeError(f"{name} must be {allowed}, got {value!r}")
        if value != SWITCHES[name]:
            changed[name] = value
    return {
        "eps": check_eps(eps),
        "atol": check_tolerance(atol, "atol", allow_inf=True),
        "rtol": check_tolerance(rtol, "rtol", allow_inf=True),
        "fast_mode": bool(fast_mode),
        "nondet_tol": check_tolerance(nondet_tol, "nondet_tol", allow_inf=True),
        **changed,
    }


def check(  # noqa: PLR0913 - torch.autograd.gradcheck's own keyword arguments
    fn: Callable,
    inputs: torch.Tensor | Sequence[torch.Tensor],
    *,
    eps: float = GRADCHECK_DEFAULTS["eps"],
    atol: float = GRADCHECK_DEFAULTS["atol"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
    fast_mode: bool = False,
    nondet_tol: float = 0.0,
    engine: str = "torch",
    check_batched_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_forward_grad: bool = False,
    masked: bool | None = None,
) -> CheckReport:
    """Run gradcheck and explain its verdict.

    Parameters
    ----------
    fn : callable
        A Function's ``apply`` or any function of tensors.
    inputs : tensor or sequence of tensors
        At least one must require grad; plain numbers, None and lists are passed through, as
        torch does. check() never changes them: their values, ``.grad`` and ``requires_grad``
        are as they were when it returns, whatever ``fn`` does.
    eps, atol, rtol, fast_mode, nondet_tol
        As in ``torch.autograd.gradcheck``.
    engine : {"torch", "batched"}
        ``"torch"`` (default): the verdict is ``torch.autograd.gradcheck``'s, run on the
        caller's own tensors. ``"batched"``: the same central differences and comparison
        computed with batched calls (much faster for large inputs); its verdict matches torch's
        slow mode.
    check_batched_grad, check_forward_ad, check_backward_ad, check_undefined_grad : bool
        As in ``torch.autograd.gradcheck``, with its defaults (False, False, True, True): the
        backward under ``vmap``, the forward-mode rule ``jvp``, the Jacobian comparison through
        backward, and a backward given undefined (None) gradients. A failure of one of these
        has its own cause (``"batched_grad"``, ``"forward_ad"``, ``"undefined_grad"``).
    check_grad_dtypes, check_batched_forward_grad, masked
        As in ``torch.autograd.gradcheck`` (False, False, None). Both engines answer every
        argument; the batched one runs the checks beyond the backward Jacobian through torch's
        own code, and hands what torch answers in its own way (fast mode, sparse inputs,
        ``masked``) to torch's gradcheck, with a note.

    Returns
    -------
    CheckReport
        ``passed`` equals ``torch.autograd.gradcheck(fn, inputs, ..., raise_exception=False)``
        (False where torch raises another error, with cause ``"error"``). Where gradkit would
        have warned (an input with no entries, NaN or inf, a tolerance of inf), ``notes`` says
        so; ``warnings`` holds torch's own warnings.

    Raises
    ------
    TypeError, ValueError
        For arguments torch's gradcheck refuses too (no input requires grad, not a tensor) and
        bad settings (eps <= 0, a NaN tolerance, an unknown engine). A full Jacobian too large to
        show (more than :data:`~gradkit.jacobian.MAX_JACOBIAN_ENTRIES` entries) still gets
        torch's verdict; a note says the report holds no numbers.

    Examples
    --------
    >>> from gradkit.zoo import WrongSquareFn
    >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    >>> check(WrongSquareFn.apply, (x,)).cause
    'bug'
    """
    check_function(fn)
    inputs = validate_inputs(inputs)
    switches = {
        "check_batched_grad": check_batched_grad,
        "check_forward_ad": check_forward_ad,
        "check_backward_ad": check_backward_ad,
        "check_undefined_grad": check_undefined_grad,
        "check_grad_dtypes": check_grad_dtypes,
        "check_batched_forward_grad": check_batched_forward_grad,
        "masked": masked,
    }
    settings = _settings(eps, atol, rtol, fast_mode, nondet_tol, engine, switches)
    probe = _probe_outputs(fn, inputs)
    if engine == "batched":
        verdict = batched_verdict(fn, mirror_inputs(inputs), **settings)
    else:
        verdict = torch_verdict(fn, inputs, **settings)
    if verdict.passed:  # the numbers of a pass are computed on first read
        return _deferred_pass(fn, inputs, probe, verdict, settings)
    jacobians, (worst, max_err, n_bad, n_total) = _numbers(fn, inputs, probe, verdict, settings)
    report = _report(verdict, settings, inputs, engine, jacobians, (worst, max_err))
    report.notes = (*_notes(inputs, probe, settings), *verdict.notes)
    _explain(report, fn, inputs, settings, verdict, (n_bad, n_total), probe)
    return report


def _deferred_field(name: str) -> property:
    """A report field that runs the report's pending fill (once) before it is first read."""

    def read(report: CheckReport):
        fill = report.__dict__.pop("_fill", None)
        if fill is not None:
            fill(report)
        return report.__dict__[f"_{name}"]

    def write(report: CheckReport, value) -> None:
        report.__dict__[f"_{name}"] = value

    return property(read, write, doc=f"The report's ``{name}``, computed on first read.")


class _DeferredReport(CheckReport):
    """A pass; torch's own numbers are computed on first read.

    The verdict, cause and notes are there at once; the Jacobians, the worst entry and the
    explanation quoting it come from torch's own path (:func:`torch_jacobians`) on copies of the
    inputs taken when the check ran, the first time any of them is read.
    """

    numeric = _deferred_field("numeric")
    analytic = _deferred_field("analytic")
    worst = _deferred_field("worst")
    max_abs_error = _deferred_field("max_abs_error")
    explanation = _deferred_field("explanation")
    suggestion = _deferred_field("suggestion")


def _deferred_pass(fn: Callable, inputs: tuple, probe, verdict, settings: dict) -> CheckReport:
    """The report of a pass, its numbers (torch's) computed when first read.

    Reading the verdict costs what the verdict cost: torch's fast mode (one projection) stays
    fast, a slow-mode pass costs one gradcheck, and full Jacobians are computed only if the
    report's numbers are read.
    """
    kept = mirror_inputs(inputs)  # the values checked, whatever the caller does to its tensors
    plain = _report(verdict, settings, inputs, "batched", (None, None), (None, 0.0))
    report = _DeferredReport(**vars(plain))
    report.notes = (*_notes(inputs, probe, settings), *verdict.notes)

    def fill(report: CheckReport) -> None:
        jacobians, (worst, max_err, n_bad, n_total) = _numbers(fn, kept, probe, verdict, settings)
        report.numeric, report.analytic = jacobians
        report.worst, report.max_abs_error = worst, max_err
        _explain(report, fn, kept, settings, verdict, (n_bad, n_total), probe)

    report.__dict__["_fill"] = fill
    return report


def _explain(report: CheckReport, fn: Callable, inputs, settings, verdict, counts, probe) -> None:
    """The cause, explanation and suggestion (:func:`gradkit.causes.diagnose`).

    Torch's verdict stands whatever the explanation meets: a failure gradkit cannot read
    (sparse inputs, whose values only torch's gradcheck nudges) or cannot finish explaining
    (a dtype a probe cannot compare) keeps torch's message, says so and names the likely cause:
    precision where an input or an output (``probe``) has fewer digits than float64.
    """
    if report.passed or dense_inputs(inputs):
        try:
            diagnose(report, fn, inputs, settings, verdict, counts, check)
            return
        except Exception as error:  # noqa: BLE001 - the verdict is torch's; the words are ours
            why = f"gradkit could not finish explaining it ({short_reason(error)})"
    else:
        why = "gradkit does not read the Jacobians of sparse inputs"
    if verdict.error_type not in ("", "GradcheckError"):
        explain_error(report, verdict)
        return
    outputs = () if isinstance(probe, BaseException) else probe
    dtypes = [*report.dtypes, *(dtype_name(o.dtype) for o in outputs if is_floating(o))]
    low = [d for d in dtypes if d not in ("float64", "complex128")]
    report.cause = "pass" if report.passed else ("precision" if low else "bug")
    first = (verdict.message.strip().splitlines() or ["it passes"])[0]
    report.explanation = f"torch's gradcheck says: {first} ({why})"
    report.suggestion = (
        ""
        if report.passed
        else (
            "read torch's message below (it prints the numerical and analytical Jacobians)"
            + (
                f"; compute in float64 or complex128 ({', '.join(sorted(set(low)))} has too few "
                "digits for the nudges)"
                if low
                else ""
            )
        )
    )


def _notes(inputs: tuple, probe, settings: dict) -> list[str]:
    """What gradkit would have warned about, where torch goes ahead and gives its verdict."""
    notes = input_notes(inputs)
    entries = too_large(inputs, probe) if dense_inputs(inputs) and isinstance(probe, tuple) else 0
    if entries:
        fast = "" if settings["fast_mode"] else "; fast_mode=True compares one projection instead"
        notes.append(
            f"the full Jacobian has {entries:,} entries, too many to hold, so the report shows "
            f"no Jacobian numbers{fast}"
        )
    for name in ("atol", "rtol"):
        if settings[name] == math.inf:
            notes.append(f"{name}=inf accepts any difference: this check compares nothing")
    for k, o in enumerate(() if isinstance(probe, BaseException) else probe):
        dense = o.layout == torch.strided  # a sparse output's values only torch reads
        if dense and is_floating(o) and o.numel() and not bool(torch.isfinite(o).all()):
            bad = int((~torch.isfinite(o)).sum())
            compared = "" if o.requires_grad else " (torch does not compare it: it needs no grad)"
            notes.append(
                f"the function's output {k} holds {bad} NaN or inf value(s) at these inputs, "
                f"where no slope can be measured{compared}; move the inputs into the "
                "function's domain (e.g. log needs x > 0)"
            )
    return notes


def _report(verdict, settings: dict, inputs: tuple, engine: str, jacobians, worst) -> CheckReport:
    """A report holding torch's verdict and gradkit's numbers; the cause is filled in later."""
    return CheckReport(
        passed=verdict.passed,
        cause="pass",
        explanation="",
        suggestion="",
        torch_message=verdict.message,
        numeric=jacobians[0],
        analytic=jacobians[1],
        max_abs_error=worst[1],
        worst=worst[0],
        eps=settings["eps"],
        atol=settings["atol"],
        rtol=settings["rtol"],
        fast_mode=settings["fast_mode"],
        dtypes=tuple(dtype_name(t.dtype) for t in inputs if isinstance(t, torch.Tensor)),
        engine=engine,
        warnings=verdict.warnings,
        traceback=verdict.traceback,
        notes=verdict.notes,
        error_type=verdict.error_type,
    )


def _probe_outputs(fn: Callable, inputs: tuple) -> tuple[torch.Tensor, ...] | BaseException:
    """Run the forward once (non-tensor outputs are the caller's mistake: a TypeError).

    With autograd on, so that the outputs say which of them require grad (torch checks those).
    """
    try:
        with torch.enable_grad():
            raw = fn(*mirror_inputs(inputs))
    except Exception as error:  # noqa: BLE001 - any failure of user code is reported, not raised
        return error
    return as_output_tuple(raw)


def _numbers(fn: Callable, inputs: tuple, probe, verdict, settings: dict):
    """((numeric, analytic), (worst, max |a - n|, entries outside tolerance, entries compared)).

    The numbers are torch's own (:func:`gradkit.engine.torch_jacobians`), whichever engine gave
    the verdict: a batched kernel may round differently from torch's single calls.
    """
    if isinstance(probe, BaseException) or not dense_inputs(inputs):
        return (None, None), _worst(None, None, settings, None)
    checked = plan_check(inputs, probe).checked
    jacobians = torch_jacobians(fn, inputs, settings["eps"])
    return jacobians, _worst(*jacobians, settings, checked)


def _worst(numeric, analytic, settings: dict, checked: tuple[int, ...] | None):
    """The entry with the largest |a - n| / (atol + rtol |n|): torch.allclose's own rule.

    Only outputs torch compares (``checked``: those that require grad) count. Returns
    ``(worst, max |a - n|, entries outside tolerance, entries compared)``.
    """
    if numeric is None or analytic is None:
        return None, math.nan, 0, 0
    atol, rtol = settings["atol"], settings["rtol"]
    best = None
    max_err, n_bad, n_total = 0.0, 0, 0
    for o, (nrow, arow) in enumerate(zip(numeric, analytic, strict=True)):
        if checked is not None and o not in checked:
            continue
        for i, (n, a) in enumerate(zip(nrow, arow, strict=True)):
            if n.numel() == 0 or n.shape != a.shape:
                continue
            # in place where possible: fresh large buffers cost page faults (engine="batched")
            n64, a64 = n.double(), a.double()
            diff = torch.sub(a64, n64).abs_()
            allowed = allowance(n64, atol, rtol)
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
                entry = WorstEntry(
                    o,
                    i,
                    (r, c),
                    value,
                    float(a64[r, c]),
                    allowance(value, atol, rtol),
                    n_outputs=len(numeric),
                    n_inputs=len(nrow),
                )
                best = (score, entry)
    return (best[1] if best else None), max_err, n_bad, n_total
