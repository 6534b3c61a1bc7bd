"""The causes of a failure in gradcheck's checks beyond the Jacobian comparison.

vmap (``check_batched_grad``), forward mode (``check_forward_ad``) and undefined gradients
(``check_undefined_grad``): when torch's verdict fails but the Jacobians agree,
:func:`other_check_failed` reruns torch with each check alone and names the one that fails, in
the learner's words, with torch's own first sentence and the fix. :mod:`gradkit.causes` asks it
first. Depends on torch, and on :data:`gradkit.zoo.OTHER_CHECKS` for torch's defaults.
"""

from __future__ import annotations

from .engine import Verdict, torch_verdict
from .plan import mirror_inputs
from .zoo.checks import OTHER_CHECKS

__all__ = ["other_check_failed"]


#: gradcheck's checks beyond the Jacobian comparison: (cause, explanation, suggestion).
_OTHER_CHECKS: dict[str, tuple[str, str, str]] = {
    "check_batched_grad": (
        "batched_grad",
        "every Jacobian entry agrees, but the backward cannot be batched: gradcheck ran it "
        "once on a stack of grad_outputs under vmap (as torch.func.jacrev, hessian and "
        "per-sample gradients do) and it failed or disagreed with one backward per "
        "grad_output",
        "write the backward with whole-tensor operations, e.g. grad_output * torch.cos(x): no "
        ".item(), no Python loop over entries, no writing into a fresh buffer (grad[i] = ..., "
        "out=); for torch.func, set generate_vmap_rule = True or write a vmap staticmethod",
    ),
    "check_forward_ad": (
        "forward_ad",
        "the backward's Jacobian agrees with the nudges, but forward mode does not: gradcheck "
        "pushed each unit tangent p through the Function's jvp and compared J·p with the "
        "nudged columns",
        "make jvp return the same derivative as backward, times the tangent (sin: "
        "tangent * torch.cos(x)), saving what it needs with ctx.save_for_forward; a Function "
        "used in forward mode needs a jvp staticmethod",
    ),
    "check_undefined_grad": (
        "undefined_grad",
        "every Jacobian entry agrees, but the backward breaks when an output's gradient is "
        "undefined: autograd passes None for an output nobody used once "
        "ctx.set_materialize_grads(False) is set, and gradcheck (check_undefined_grad, on by "
        "default) calls backward that way; it must return None or zeros",
        "guard each gradient: `if grad_output is None: return None` (one check per output), or "
        "drop ctx.set_materialize_grads(False) so autograd passes zeros instead of None",
    ),
}


#: What forward mode alone raises when the jvp is wrong or missing.
_FORWARD_ERRORS = ("GradcheckError", "NotImplementedError")

#: A word each check's GradcheckError messages carry (torch's wording, lower case).
_HINTS = {
    "check_batched_grad": "batched",
    "check_forward_ad": "forward",
    "check_undefined_grad": "undefined",
}


def other_check_failed(report, fn, inputs, settings, verdict: Verdict) -> bool:
    """Name the failure of a check beyond the Jacobian comparison; False if it is not one.

    torch compares the Jacobians first. A failure that is not a (backward) Jacobian mismatch
    is checked again with the other checks off; if that passes, each check switched on, alone,
    names the cause. With check_backward_ad=False, forward mode is all that runs.
    """
    backward = settings.get("check_backward_ad", True)
    switched_on = [
        name
        for name in _OTHER_CHECKS
        if settings.get(name, OTHER_CHECKS[name]) and (backward or name == "check_forward_ad")
    ]
    message = verdict.message
    if not switched_on or ("Jacobian mismatch" in message and "forward mode" not in message):
        return False
    if verdict.error_type == "GradcheckError" and not any(
        _HINTS[name] in message.lower() for name in switched_on
    ):
        return False  # torch's own words name another check
    if backward:
        plain = {**settings, **dict.fromkeys(_OTHER_CHECKS, False)}
        if not torch_verdict(fn, mirror_inputs(inputs), **plain).passed:
            return False
        failing = next(
            (
                name
                for name in switched_on
                if not torch_verdict(fn, mirror_inputs(inputs), **{**plain, name: True}).passed
            ),
            None,
        )
    else:
        failing = "check_forward_ad" if verdict.error_type in _FORWARD_ERRORS else None
    if failing is None:
        return False
    report.cause, explanation, report.suggestion = _OTHER_CHECKS[failing]
    first = (message.strip() or verdict.error_type).splitlines()[0]
    sentence = first.split(". ")[0].rstrip(".,")  # torch's first sentence
    report.explanation = f"{explanation}. torch says: {sentence}."
    return True
