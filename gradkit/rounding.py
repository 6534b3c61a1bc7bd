"""Is it rounding? Tests a failing check for rounding before anyone blames the backward rule.

The ways rounding fails a correct rule, each tested on its own:

- low-precision inputs (float32, float16, bfloat16): the same check in float64 passes;
- a nudge that rounds away: ``x ± eps == x`` in the input's dtype (eps = 1e-300, or x = 1e300),
  so the numeric slope is 0 whatever the rule;
- rounding noise: each value of f carries rounding of about ``u·|f|`` and each nudged input of
  about ``u·|x|``, so the central difference is off by up to about ``u·(|f| + |x|·|f'|)/eps``
  (:class:`Rounding` holds that bound). Where every failing entry lies within it, rounding can
  explain the failure: an eps too small for the arithmetic (sin at eps = 1e-13; the same check
  passes at the step size theory recommends, ``h* = (3u)^(1/3)·max(1, |x|)``), a function that
  computes in float32 inside, a large offset whose rounding swamps the change of f
  (``1e9 + sin(x)``), or a tolerance tighter than rounding allows (``atol=0, rtol=0``).

Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from ._args import allowance, dtype_name
from .numerics import unit_roundoff
from .plan import differentiable_inputs, mirror_inputs
from .realview import as_output_tuple, is_floating, real_view
from .report import CheckReport, entry_name, round_up

__all__ = [
    "Rounding",
    "collapsed_nudge",
    "explain_low_precision",
    "explain_rounding",
    "nudges_collapse",
    "rounding_facts",
    "safe_eps",
]

#: Relative nudge that float64 arithmetic resolves and float32 arithmetic rounds away.
_PROBE_NUDGE = 1e-10
#: |f| this many times |f'|·max(1, |x|) counts as a large offset: f(x ± eps) cancel to a few digits.
_OFFSET_RATIO = 1e3


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


def collapsed_nudge(report: CheckReport, inputs: tuple) -> tuple[str, str] | None:
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

    That happens when the function rounds its inputs to float32 (or lower) inside, or adds a
    large offset (told apart by :attr:`Rounding.offset`); a constant function does the same, so
    a non-zero analytic slope is required too.
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


@dataclass(frozen=True)
class Rounding:
    """What rounding can do to a failing full-precision check.

    Attributes
    ----------
    dtype, working : torch.dtype
        The inputs' dtype, and the precision the function computes in (float32 when it computes
        in float32 inside).
    u : float
        The working precision's unit roundoff.
    bound : float or None
        The largest rounding bound ``4u·(|f| + |x|·|f'|)/eps`` among the failing entries when
        each failing entry's ``|a - n|`` lies within its own bound, else None.
    offset : float
        ``|f|`` at the worst entry when it is over 1000 times ``|f'|·max(1, |x|)`` (a large
        offset), else 0.
    larger : tuple of float
        Larger eps worth a rerun, smallest first: theory's steps for the working precision and
        for float32 (10·eps when eps is larger than both).
    scale : float
        The largest ``|x|`` among the nudged entries.
    """

    dtype: torch.dtype
    working: torch.dtype
    u: float
    bound: float | None
    offset: float
    larger: tuple[float, ...]
    scale: float


def rounding_facts(report: CheckReport, fn: Callable, inputs: tuple) -> Rounding | None:
    """The :class:`Rounding` of a failing check (None when nothing is nudged or f fails)."""
    nudged = _nudged_inputs(inputs)
    if not nudged:
        return None
    try:
        with torch.enable_grad():
            outputs = as_output_tuple(fn(*mirror_inputs(inputs)))
    except Exception:  # noqa: BLE001 - any failure of user code: no conclusion
        return None
    scale = max(float(flat.abs().max()) for _, flat in nudged)
    dtype = nudged[0][1].dtype
    inside = _computes_in_lower_precision(fn, inputs, report)
    offset = _offset(report, inputs, outputs)
    working = torch.float32 if inside and not offset else dtype
    u = unit_roundoff(working)
    steps = {safe_eps(working, scale), safe_eps(torch.float32, scale)}
    return Rounding(
        dtype=dtype,
        working=working,
        u=u,
        bound=_rounding_bound(report, inputs, outputs, u),
        offset=offset,
        larger=tuple(sorted(e for e in steps if e > report.eps)) or (10 * report.eps,),
        scale=scale,
    )


def _offset(report: CheckReport, inputs: tuple, outputs: tuple) -> float:
    """|f| at the worst entry when it dwarfs |f'|·max(1, |x|), else 0."""
    w = report.worst
    if w is None or w.output >= len(outputs) or not is_floating(inputs[w.input]):
        return 0.0
    f = abs(float(real_view(outputs[w.output].detach())[w.index[0]]))
    x = abs(float(real_view(inputs[w.input].detach())[w.index[1]]))
    slope = max(abs(w.analytic), abs(w.numeric), 1e-300)
    return f if f > _OFFSET_RATIO * slope * max(1.0, x) else 0.0


def _rounding_bound(report: CheckReport, inputs: tuple, outputs: tuple, u: float):
    """The largest bound among failing entries if each lies within its own bound, else None."""
    if report.numeric is None or report.analytic is None:
        return None
    largest = 0.0
    for o, out in enumerate(outputs):
        if not out.requires_grad or o >= len(report.numeric):  # torch compares these only
            continue
        f = real_view(out.detach()).abs().double()
        for i, (n, a) in enumerate(zip(report.numeric[o], report.analytic[o], strict=True)):
            if n.numel() == 0 or n.shape != a.shape or not is_floating(inputs[i]):
                continue
            x = real_view(inputs[i].detach()).abs().double()
            n64, a64 = n.double(), a.double()
            diff = (a64 - n64).abs()
            failing = ~(diff <= allowance(n64, report.atol, report.rtol))  # NaN fails too
            # f(x ± eps) each carry about u|f|, x ± eps about u|x| (f moves by |f'|·u|x|);
            # over 2 eps, with room for a few roundings inside f: 4u (|f| + |x| |f'|) / eps
            bound = 4 * u * (f[:, None] + x[None, :] * a64.abs()) / report.eps
            if not bool((diff[failing] <= bound[failing]).all()):
                return None
            if bool(failing.any()):
                largest = max(largest, float(bound[failing].max()))
    return largest or None


def explain_rounding(report: CheckReport, facts: Rounding, better: float | None):
    """(explanation, suggestion): rounding failed the check; ``better`` is an eps that passes."""
    w = report.worst
    numbers = f"the worst entry ({w.position}) reads {w.comparison}" if w else "it fails"
    name, u = dtype_name(facts.dtype), facts.u
    if facts.offset:
        where = (
            f"f is about {facts.offset:.3g} here, large next to its change over the nudge, so "
            "f(x + eps) - f(x - eps) cancels all but the last digits of two nearly equal "
            f"numbers (cancellation against a large offset): each carries rounding of about "
            f"u·|f| = {u * facts.offset:.2g}"
        )
        fix = f", or check f without its constant offset (f(x) - {facts.offset:.3g})"
    elif facts.working != facts.dtype:
        where = (
            "the function computes in float32 (or lower) inside, though its inputs are "
            f"{name}, so each value of f carries rounding of about u = {u:.2g}"
        )
        fix = ", or compute in float64 inside the function"
    else:
        where = (
            f"two roundings of relative size u = {u:.2g} ({name}) hit the nudges: x ± eps land "
            "on representable numbers near, not at, x ± eps (the nudge that really happened "
            "is not 2·eps), and each value f(x ± eps) is rounded"
        )
        fix = ""
    if better is not None:
        return (
            f"{where}; divided by 2·eps = {2 * report.eps:g}, that noise (up to about "
            f"u·(|f| + |x·f′|)/eps) swamps the slope: {numbers}. The same check passes at "
            f"eps={better:.2g}, so rounding, not the rule, failed it: the backward is fine.",
            f"use eps={better:.2g}"
            + (" (theory's (3u)^(1/3)·max(1, |x|))" if better != 10 * report.eps else "")
            + fix,
        )
    return (
        f"{where}; at eps={report.eps:g} that rounding moves the numeric slope by up to about "
        f"{facts.bound:.2g}, and {numbers}: every failing entry is within that rounding, but "
        f"the tolerance (atol={report.atol:g}, rtol={report.rtol:g}) allows less, so no finite "
        f"difference in {name} can meet it. Rounding, not the rule, failed the check.",
        f"loosen the tolerance to atol={round_up(facts.bound):g} or more (gradcheck's defaults, "
        f"atol=1e-5 and rtol=1e-3, leave room for rounding){fix}",
    )


def nudges_collapse(inputs: tuple, eps: float) -> bool:
    """Whether x + eps and x - eps round back to x itself, in its own dtype, at every entry of
    every nudged floating input: the numeric Jacobian is then all zeros (the shelf of lesson 4)."""
    nudged = _nudged_inputs(inputs)
    return bool(nudged) and all(bool(((v + eps == v) & (v - eps == v)).all()) for _, v in nudged)


def explain_low_precision(report: CheckReport, low: list[str], inputs: tuple = ()) -> str:
    """The explanation of a low-precision failure that passes in float64 (``inputs``: the
    inputs checked, to tell when x ± eps round back to x itself)."""
    w = report.worst
    kinds = ", ".join(sorted(set(low)))
    if w is None:
        return (
            f"the inputs are {kinds}; the same rule passes with float64 inputs, so rounding "
            f"noise, not the rule, failed the check."
        )
    if nudges_collapse(inputs, report.eps):
        return (
            f"in {kinds} the worst entry ({w.position}) reads {w.comparison}. eps={report.eps:g} "
            f"is below half the spacing of {kinds} numbers at every input entry, so x ± eps land "
            "back on x itself: the nudge that really happened is 0, f(x + eps) - f(x - eps) is 0, "
            "and every numeric entry is 0 (f(x ± eps) is rounded too, but there is no change "
            "left to round). The same rule passes with float64 inputs, so the backward is fine."
        )
    return (
        f"in {kinds} the worst entry ({w.position}) reads {w.comparison}. With "
        f"eps={report.eps:g}, two roundings are divided by 2·eps and swamp the slope: x ± eps "
        f"land on {kinds} numbers near, not at, x ± eps (the nudge that really happened is not "
        "2·eps), and each f(x ± eps) is rounded too. The same rule passes with float64 inputs, "
        "so the backward is fine."
    )
