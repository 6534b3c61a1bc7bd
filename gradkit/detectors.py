"""Detectors of the innocent explanations of a failing check, each one a small experiment.

Each ``find_*`` runs the learner's function on copies of the inputs and returns
``(explanation, suggestion)`` when its explanation holds, or None (also when the function
itself fails: no conclusion); :func:`find_breaks` returns the jumps and kinks (:class:`Break`)
it finds at the failing entries. :func:`gradkit.causes.diagnose` asks them in order before it
blames the backward rule. Depends on torch only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ._args import allowance
from .plan import differentiable_inputs, mirror_inputs, overlapping_itself
from .realview import as_output_tuple, is_floating, real_view
from .report import (
    CheckReport,
    Failures,
    WorstEntry,
    entry_name,
    format_value,
    round_up,
)

__all__ = [
    "Break",
    "find_breaks",
    "find_layout",
    "find_mutation",
    "find_nondeterminism",
    "find_nonfinite",
    "to_double",
    "worst_entry_fails",
]

#: Unit roundoff of float64, the precision every experiment here runs in.
_U64 = torch.finfo(torch.float64).eps / 2


def to_double(t: torch.Tensor) -> torch.dtype:
    """The double-precision dtype of ``t``'s kind: complex128 for complex, else float64."""
    return torch.complex128 if t.is_complex() else torch.float64


def find_nonfinite(inputs: tuple, report: CheckReport) -> tuple[str, str] | None:
    """NaN or inf in a nudged input, or in the worst Jacobian entry: no slope to compare."""
    for i in differentiable_inputs(inputs):
        flat = real_view(inputs[i].detach())
        bad = (~torch.isfinite(flat)).nonzero()
        if bad.numel():
            k = int(bad[0])
            return (
                f"{entry_name('input', k, i if len(inputs) > 1 else None)} is "
                f"{float(flat[k])}: no slope can be measured at NaN or infinity, so the numeric "
                "Jacobian holds NaN there and no tolerance can accept it.",
                "check the function at finite inputs",
            )
    w = report.worst
    if w is None or all(math.isfinite(v) for v in (w.numeric, w.analytic)):
        return None
    return (
        f"at {w.position} the slopes are numeric {format_value(w.numeric)} vs analytic "
        f"{format_value(w.analytic)}: the function is not finite at x or at x ± eps={report.eps:g} "
        "there (outside its domain, or an overflow), so there is no slope to compare.",
        "move the inputs into the function's domain, more than eps from its edge (e.g. log "
        "needs x > eps)",
    )


def find_layout(inputs: tuple) -> tuple[str, str] | None:
    """A nudged input whose entries share memory: torch's in-place nudge moves several."""
    for i in differentiable_inputs(inputs):
        t = inputs[i]
        if overlapping_itself(t):
            return (
                f"input {i} (shape {tuple(t.shape)}, strides {t.stride()}) has entries that share "
                "memory, as an as_strided view can. gradcheck nudges the memory of one entry at "
                "a time, so each nudge also moves the entries sharing it and the numeric "
                "Jacobian mixes their columns: the comparison says nothing about the rule.",
                "pass a copy with its own memory: x.contiguous() (or x.clone())",
            )
    return None


def find_mutation(fn: Callable, inputs: tuple) -> tuple[str, str] | None:
    """One call of ``fn`` on copies: do the copies still hold their values afterwards?"""
    copies = mirror_inputs(inputs)
    # compared in double precision: every dtype has nan_to_num there (complex32 has not)
    before = {
        i: t.detach().to(to_double(t), copy=True) for i, t in enumerate(copies) if is_floating(t)
    }
    try:
        with torch.no_grad():
            fn(*copies)
    except Exception:  # noqa: BLE001 - any failure of user code: no conclusion
        return None
    for i, old in before.items():
        new = copies[i].detach().to(to_double(old))
        if not torch.equal(old.nan_to_num(), new.nan_to_num()):
            gap = float((real_view(new) - real_view(old)).abs().max())
            return (
                f"one call of the function changed input {i} in place (its values moved by up "
                f"to {gap:.3g}), e.g. by writing to x.data or calling x.add_(...). gradcheck "
                "nudges the input and calls the function again and again, so every call sees a "
                "different x and the numeric slopes measure a moving target, not the rule.",
                "never modify an input: compute on a copy (y = x.clone()) and use out-of-place "
                "operations (x + 1, not x.add_(1); never x.data)",
            )
    return None


def find_nondeterminism(fn, inputs, nondet_tol: float) -> tuple[str, str] | None:
    """Repeated forward runs (up to four), then two backward runs, on the same input."""
    return _forward_noise(fn, inputs, nondet_tol) or _backward_noise(fn, inputs, nondet_tol)


def _forward_noise(fn, inputs, nondet_tol: float) -> tuple[str, str] | None:
    """A random forward: up to four runs on the same input differ by more than nondet_tol."""
    try:
        with torch.no_grad():
            first = as_output_tuple(fn(*mirror_inputs(inputs)))
            diff, k, entry = 0.0, 0, 0
            for _ in range(3):  # a random forward can repeat by chance; three tries make it rare
                again = as_output_tuple(fn(*mirror_inputs(inputs)))
                gaps = [
                    (real_view(a) - real_view(b)).abs().flatten() if a.numel() else None
                    for a, b in zip(first, again, strict=True)
                ]
                for t, gap in enumerate(gaps):
                    if gap is not None and float(gap.max()) > diff:
                        diff, k, entry = float(gap.max()), t, int(gap.argmax())
                if diff > nondet_tol:
                    break
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        return None
    if diff > nondet_tol:
        where = entry_name("output", entry, k if len(first) > 1 else None)
        return (
            f"forward runs on the same input differ by up to {diff:.3g} at {where}: the "
            "forward is random (like dropout), so nudged outputs change by more than the nudge "
            "and no numeric slope is meaningful.",
            "make the forward deterministic for the check: fix the random mask (pass it in as "
            "an input) or seed the generator inside forward",
        )
    return None


def _backward_noise(fn, inputs, nondet_tol: float) -> tuple[str, str] | None:
    """A non-reentrant backward: two backward runs on the same graph inputs differ."""
    try:
        grads = []
        for _ in range(2):
            leaves = mirror_inputs(inputs)
            outs = as_output_tuple(fn(*leaves))
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
                f"if this noise is expected, pass nondet_tol={round_up(diff):g}; otherwise make "
                "the backward deterministic",
            )
    return None


@dataclass(frozen=True)
class Break:
    """A point within eps of x where the function has no slope: a jump or a kink.

    ``entry`` is the Jacobian entry it decides (its numeric slope is the one the break spoils);
    ``explanation`` and ``suggestion`` say so with its numbers.
    """

    kind: str
    entry: WorstEntry
    explanation: str
    suggestion: str


def find_breaks(fn, inputs, report: CheckReport, failures: Failures):
    """Jumps and kinks within eps of x, tried on every failing entry's input entry.

    Each input entry with a failing entry that is not flat (numeric about 0: nothing to try) is
    tried once, at its worst failing entry, likely jumps first (a numeric slope far above the
    analytic one), up to :data:`_MOST_TRIED` of them. Trying stops at the first input entry with
    neither (the rule is then wrong there, whatever the others show). Returns ``(breaks,
    all_tried)``: the breaks found, one per input entry, and False only where there were more
    input entries to try and every one tried is at a break.
    """
    x = mirror_inputs(inputs, to_double)
    tried: dict[tuple[int, int], WorstEntry] = {}
    for w in failures.rest:
        key = (w.input, w.index[1])
        if key not in tried and w.input in differentiable_inputs(x):
            if len(tried) == _MOST_TRIED:  # more to try: said, where every one tried is a break
                found = _breaks_at(fn, x, report, tried.values())
                return found, len(found) < _MOST_TRIED
            tried[key] = w
    complete = failures.others(set(tried)) == 0
    return _breaks_at(fn, x, report, tried.values()), complete


def _breaks_at(fn, x: tuple, report: CheckReport, entries) -> list[Break]:
    """The break at each entry's input entry, in order, up to the first with none."""
    found = []
    for w in entries:
        values = _values_along(fn, x, w.input, w.index, w.output, _offsets(report.eps))
        if values is None:
            break
        x_value = float(real_view(x[w.input].detach())[w.index[1]])
        words = None
        for kind, spot in (("jump", _jump), ("kink", _kink)):
            words = spot(w, values, report, x_value)
            if words:
                found.append(Break(kind, w, *words))
                break
        if not words:
            break
    return found


#: At most this many input entries are tried for a jump or a kink (11 calls of fn each).
_MOST_TRIED = 16
#: The steps tried: eps, eps/2, ... eps/16 (a jump's difference stays, a slope's halves).
_HALVINGS = 5


def _jump_sized(w: WorstEntry) -> bool:
    """A numeric slope far above the analytic one, as a jump's Δ/(2 eps) is."""
    return abs(w.numeric) > 100 * max(abs(w.analytic), w.tolerance)


def _offsets(eps: float) -> tuple[float, ...]:
    """0 and ±eps/2^k, k < :data:`_HALVINGS`."""
    steps = [eps / 2**k for k in range(_HALVINGS)]
    return tuple(sorted({0.0, *steps, *(-t for t in steps)}))


def _jump(w: WorstEntry, values: dict, report: CheckReport, x_value: float):
    """f(x + t) - f(x - t) keeps its size as t halves four times: a jump between x ± eps/16.

    A function with a slope there has a difference that halves with t (a kink's too), so a
    difference that stays within 25% of its size at eps while t shrinks 16x is a jump, when it
    stands clear of rounding and far above what the analytic slope would move f by. Returns
    (explanation, suggestion), or None.
    """
    eps = report.eps
    steps = [eps / 2**k for k in range(_HALVINGS)]
    jumps = [values[t] - values[-t] for t in steps]
    noise = 4 * _U64 * max(abs(v) for v in values.values())
    size = jumps[-1]
    if abs(jumps[0]) <= 100 * noise or not _jump_sized(w):
        return None
    if any(abs(d - jumps[0]) > 0.25 * abs(jumps[0]) for d in jumps[1:]):
        return None
    return (
        f"at {w.input_position} (x = {x_value:.3g}) the function jumps: f(x + t) - f(x - t) "
        f"stays about {size:.3g} as the step t shrinks from {eps:g} to {steps[-1]:g}, where a "
        "function with a slope there would shrink with t. So the central difference reads "
        f"jump / (2·eps) = {size:.3g} / {2 * eps:g} = {size / (2 * eps):.3g}: {w.position} "
        f"reads {w.comparison}. No backward can match a jump (a discontinuity): there is no "
        "slope at it.",
        f"check at points more than eps={eps:g} from the jump (x = {x_value:.3g} here); a "
        "forward that jumps (round, sign, a threshold) has no derivative at the jump, whatever "
        "backward returns",
    )


def _kink(w: WorstEntry, values: dict, report: CheckReport, x_value: float):
    """One-sided slopes at eps, eps/2, eps/4 and eps/8, in float64.

    For a smooth f the gap right - left is about eps·f'' (plus eps³ terms), so it shrinks at
    least as fast as the step. Where a kink lies within the step of x it does not: the gap stays
    (a kink at x) or shrinks more slowly, then collapses to 0 once the step no longer reaches the
    kink (a kink near x). So it is a kink when the gap is outside tolerance and, while it stands
    clear of rounding noise, it shrinks by less than a factor 1.5 or collapses at a halved step.
    Returns (explanation, suggestion), or None.
    """
    h = report.eps
    steps = [h / 2**k for k in range(4)]
    sides = {t: ((values[0.0] - values[-t]) / t, (values[t] - values[0.0]) / t) for t in steps}
    gaps = [abs(sides[t][1] - sides[t][0]) for t in steps]  # (f(x+t) - 2 f(x) + f(x-t)) / t
    # rounding noise in a gap: four values of f, each off by about u |f|, over t
    noise = [4 * _U64 * max(abs(v) for v in values.values()) / t for t in steps]
    left, right = sides[h]
    allowed = allowance(max(abs(left), abs(right)), report.atol, report.rtol)
    if gaps[0] <= max(allowed, 10 * noise[0]) or not _gap_breaks(gaps, noise):
        return None
    return (
        f"at {w.input_position} (x = {x_value:.3g}) the slope from the left is {left:.4g} and "
        f"from the right {right:.4g}, a gap that does not shrink with the step as a smooth "
        f"function's does: the function has a kink within eps={h:g} of x, and the central "
        f"difference averages its two sides, so {w.position} reads {w.comparison}.",
        f"check at a point more than eps={h:g} away from the kink (x = {x_value:.3g} here), "
        "and check the kink's own convention separately",
    )


def _gap_breaks(gaps: list[float], noise: list[float]) -> bool:
    """Whether the gaps, step by halved step, behave as a kink's (see :func:`_kink`)."""
    for k in range(1, len(gaps)):
        expected = gaps[k - 1] / 2  # a smooth function's gap at least halves with the step
        if expected <= 10 * noise[k]:
            return False  # from here on rounding noise hides the shape of the gap
        if gaps[k] > gaps[k - 1] / 1.5 or gaps[k] < 0.1 * expected:
            return True
    return False


def worst_entry_fails(fn, inputs, report: CheckReport, eps: float) -> bool:
    """Whether the worst entry still fails clearly (by twice its allowance) at another eps.

    One central difference, two calls of ``fn`` in float64: a check cannot pass at ``eps``
    while its worst entry fails there, so this spares a full rerun.
    """
    w = report.worst
    x = mirror_inputs(inputs, to_double)
    if w is None or w.input not in differentiable_inputs(x) or x[w.input].is_complex():
        return False  # torch compares a complex input's entries as complex numbers
    values = _values_along(fn, x, w.input, w.index, w.output, (-eps, eps))
    if values is None:
        return False
    numeric = (values[eps] - values[-eps]) / (2 * eps)  # (f(x + eps) - f(x - eps)) / (2 eps)
    return abs(w.analytic - numeric) > 2 * allowance(numeric, report.atol, report.rtol)


def _values_along(
    fn: Callable, x: list, position: int, index: tuple[int, int], output: int, offsets: tuple
) -> dict[float, float] | None:
    """Output entry index[0] with input entry index[1] moved by each offset (None: f fails)."""
    values = {}
    try:
        for offset in offsets:
            args = [  # contiguous, so that real_view is a view and the nudge lands in args
                t.detach().clone(memory_format=torch.contiguous_format)
                if isinstance(t, torch.Tensor)
                else t
                for t in x
            ]
            real_view(args[position])[index[1]] += offset
            with torch.no_grad():
                out = as_output_tuple(fn(*args))[output]
            values[offset] = float(real_view(out)[index[0]])
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        return None
    return values
