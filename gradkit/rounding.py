"""Is it rounding? Tests a failing check for rounding before anyone blames the backward rule.

Three ways rounding fails a correct rule, each tested on its own:

- low-precision inputs (float32, float16, bfloat16): the same check in float64 passes;
- a nudge that rounds away: ``x ± eps == x`` in the input's dtype (eps = 1e-300, or x = 1e300),
  so the numeric slope is 0 whatever the rule;
- an eps too small for the arithmetic: rounding noise ``u·|f|/eps`` swamps the slope (sin at
  eps = 1e-13, or a function that computes in float32 inside), and the same check passes at
  the step size theory recommends, ``h* = (3u)^(1/3)·max(1, |x|)``.

Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ._args import dtype_name
from .numerics import unit_roundoff
from .plan import differentiable_inputs, mirror_inputs
from .realview import as_output_tuple, is_floating, real_view
from .report import CheckReport, entry_name

__all__ = ["explain_low_precision", "rounding_cause", "safe_eps"]

#: Relative nudge that float64 arithmetic resolves and float32 arithmetic rounds away.
_PROBE_NUDGE = 1e-10


def safe_eps(dtype: torch.dtype, scale: float) -> float:
    """theory's central-difference step for numbers of size ``scale``: (3u)^(1/3)·max(1, scale).

    From h* = (3u|f|/|f'''|)^(1/3) with |f|/|f'''| ~ scale^3 (as for powers of x).
    """
    return (3 * unit_roundoff(dtype)) ** (1 / 3) * max(1.0, scale)


def _nudged_inputs(inputs: tuple) -> list[tuple[int, torch.Tensor]]:
    """(index, real view) of every nudged floating input."""
    return [
        (i, real_view(inputs[i].detach()))
        for i in differentiable_inputs(inputs)
        if is_floating(inputs[i]) and inputs[i].numel()
    ]


def _collapsed_nudge(report: CheckReport, inputs: tuple) -> tuple[str, str] | None:
    """x ± eps rounds back to x in the input's dtype: the numeric slope cannot see the rule."""
    eps = report.eps
    for i, flat in _nudged_inputs(inputs):
        lost = (flat + eps == flat) | (flat - eps == flat)  # the nudge is below the spacing
        if not bool(lost.any()):
            continue
        k = int(lost.nonzero()[0])
        value = float(flat[k])
        gap = float(torch.nextafter(flat[k].abs(), flat.new_tensor(float("inf"))) - flat[k].abs())
        name = dtype_name(real_view(inputs[i]).dtype)
        advice = max(safe_eps(flat.dtype, abs(value)), 100 * gap)
        return (
            f"{entry_name('input', k, i if len(inputs) > 1 else None)} is {value:.4g}, where "
            f"neighbouring {name} numbers are {gap:.3g} apart: x ± eps = x ± {eps:g} rounds "
            "back to x, so the nudge moves "
            "nothing and the numeric slope is 0 (or noise) whatever the backward says. Rounding, "
            "not the rule, failed the check.",
            f"use an eps well above that spacing (about eps={advice:.1g} at this x), or check the "
            "rule at moderate values of x",
        )
    return None


def _computes_in_lower_precision(fn: Callable, inputs: tuple, report: CheckReport) -> bool:
    """float64 inputs, yet a relative nudge of 1e-10 leaves every output exactly unchanged.

    That happens when the function rounds its inputs to float32 (or lower) inside; a constant
    function does the same, so a non-zero analytic slope is required too.
    """
    w = report.worst
    if w is None or w.analytic == 0:
        return False
    try:
        base = mirror_inputs(inputs)
        moved = list(mirror_inputs(inputs))
        for i, _ in _nudged_inputs(inputs):
            x = moved[i].detach()
            moved[i] = x + _PROBE_NUDGE * torch.clamp(x.abs(), min=1.0)
        with torch.no_grad():
            before = as_output_tuple(fn(*base))
            after = as_output_tuple(fn(*moved))
    except Exception:  # noqa: BLE001 - any failure of user code: no conclusion
        return False
    floating = [(a, b) for a, b in zip(before, after, strict=True) if is_floating(a)]
    return bool(floating) and all(torch.equal(a, b) for a, b in floating)


def rounding_cause(
    report: CheckReport, fn: Callable, inputs: tuple, rerun: Callable
) -> tuple[str, str] | None:
    """(explanation, suggestion) when rounding, not the rule, failed a full-precision check.

    ``rerun(fn, inputs, eps)`` reruns the same engine with another eps and returns its verdict.
    """
    collapsed = _collapsed_nudge(report, inputs)
    if collapsed:
        return collapsed
    nudged = _nudged_inputs(inputs)
    if not nudged:
        return None
    scale = max(float(flat.abs().max()) for _, flat in nudged)
    dtype = nudged[0][1].dtype
    inside = _computes_in_lower_precision(fn, inputs, report)
    working = torch.float32 if inside else dtype
    better = safe_eps(working, scale)
    if report.eps >= better or not rerun(fn, mirror_inputs(inputs), better).passed:
        return None
    u = unit_roundoff(working)
    where = (
        "the function computes in float32 (or lower) inside, though its inputs are float64, so "
        f"each value of f carries rounding of about u = {u:.2g}"
        if inside
        else f"each value of f carries rounding of about u = {u:.2g} ({dtype_name(dtype)})"
    )
    return (
        f"{where}; divided by 2·eps = {2 * report.eps:g}, that noise (about u·|f|/eps) swamps "
        f"the slope. The same check passes at eps={better:.2g}, so rounding, not the rule, "
        "failed it: the backward is fine.",
        f"use eps={better:.1g} (theory's (3u)^(1/3)·max(1, |x|))"
        + (", or compute in float64 inside the function" if inside else ""),
    )


def explain_low_precision(report: CheckReport, low: list[str]) -> str:
    """The explanation of a low-precision failure that passes in float64."""
    w = report.worst
    kinds = ", ".join(sorted(set(low)))
    if w is None:
        return (
            f"the inputs are {kinds}; the same rule passes with float64 inputs, so rounding "
            f"noise, not the rule, failed the check."
        )
    return (
        f"in {kinds} the worst entry ({w.position}) reads {w.comparison}. With "
        f"eps={report.eps:g}, rounding noise in f(x ± eps) is divided by 2·eps and swamps the "
        "slope; the same rule passes with float64 inputs, so the backward is fine."
    )
