"""Detectors of the innocent explanations of a failing check, each one a small experiment.

Each ``find_*`` runs the learner's function on copies of the inputs and returns
``(explanation, suggestion)`` when its explanation holds, or None (also when the function
itself fails: no conclusion). :func:`gradkit.causes.diagnose` asks them in order before it
blames the backward rule. Depends on torch only.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from .plan import differentiable_inputs, mirror_inputs, overlapping_itself
from .realview import as_output_tuple, is_floating, real_view
from .report import CheckReport, format_value

__all__ = ["find_kink", "find_layout", "find_mutation", "find_nondeterminism", "to_double"]


def to_double(t: torch.Tensor) -> torch.dtype:
    """The double-precision dtype of ``t``'s kind: complex128 for complex, else float64."""
    return torch.complex128 if t.is_complex() else torch.float64


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
            diff, k = 0.0, 0
            for _ in range(3):  # a random forward can repeat by chance; three tries make it rare
                again = as_output_tuple(fn(*mirror_inputs(inputs)))
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
                f"if this noise is expected, pass nondet_tol={_round_up(diff):g}; otherwise make "
                "the backward deterministic",
            )
    return None


def _round_up(value: float) -> float:
    """The next power of ten at or above ``value``."""
    return 10 ** math.ceil(math.log10(value)) if value > 0 else 0.0


def find_kink(fn, inputs, report: CheckReport) -> tuple[str, str] | None:
    """Compare one-sided slopes at the worst entry, in float64, at two step sizes.

    For a smooth f the gap right - left is eps·f'', so gap / eps (a curvature estimate) is the
    same at eps and eps/2. Across a kink the gap is (part of) the jump in slope, and gap / eps
    changes with the step. So it is a kink when the gap is outside tolerance and the two
    curvature estimates disagree by more than a quarter.
    """
    w = report.worst
    if w is None:
        return None
    x = mirror_inputs(inputs, to_double)
    diff_index = [k for k, t in enumerate(x) if isinstance(t, torch.Tensor) and t.requires_grad]
    position = w.input if w.input < len(x) else None
    if position is None or position not in diff_index:
        return None
    h = report.eps
    values = _values_along(fn, x, position, w.index, w.output, (-h, -h / 2, 0.0, h / 2, h))
    if values is None:
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
    x_value = float(real_view(x[position].detach())[w.index[1]])
    return (
        f"at {w.input_position} (x = {x_value:.3g}) the slope from the left is "
        f"{left:.4g} and from the right {right:.4g}, a gap that does not scale with the step: "
        f"the function has a kink within eps={h:g} of x, so the central difference averages the "
        f"two sides to {format_value(w.numeric)} while the backward claims "
        f"{format_value(w.analytic)}.",
        f"test away from the kink: keep every input more than eps={h:g} from it (e.g. nudge x "
        "away from 0), and check the kink's own convention separately",
    )


def _values_along(
    fn: Callable, x: list, position: int, index: tuple[int, int], output: int, offsets: tuple
) -> dict[float, float] | None:
    """Output entry index[0] with input entry index[1] moved by each offset (None: f fails)."""
    values = {}
    try:
        for offset in offsets:
            args = [t.detach().clone() if isinstance(t, torch.Tensor) else t for t in x]
            real_view(args[position])[index[1]] += offset
            with torch.no_grad():
                out = as_output_tuple(fn(*args))[output]
            values[offset] = float(real_view(out)[index[0]])
    except Exception:  # noqa: BLE001 - any failure of user code is reported, not raised
        return None
    return values
