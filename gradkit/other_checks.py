"""The causes of a failure in gradcheck's checks beyond the Jacobian comparison.

vmap (``check_batched_grad``), forward mode (``check_forward_ad``) and undefined gradients
(``check_undefined_grad``): when torch's verdict fails but the Jacobians agree,
:func:`other_check_failed` reruns torch with each check alone and names the one that fails, in
the learner's words, with torch's own first sentence (of that rerun), the line of the learner's
code an error was raised at, and the fix. Forward mode on a Function with no jvp is said to be
missing, not wrong; the zoo's sin is quoted as an example only for the zoo's own sin Functions.
:mod:`gradkit.causes` asks it first. Depends on torch, and on :data:`gradkit.zoo.OTHER_CHECKS`
for torch's defaults.
"""

from __future__ import annotations

from .engine import Verdict, torch_verdict
from .patterns import error_place, zoo_function
from .plan import mirror_inputs
from .zoo.checks import CHECK_SPECIMENS, OTHER_CHECKS

__all__ = ["other_check_failed"]


#: gradcheck's checks beyond the Jacobian comparison: (cause, explanation, suggestion).
_OTHER_CHECKS: dict[str, tuple[str, str, str]] = {
    "check_batched_grad": (
        "batched_grad",
        "every Jacobian entry agrees, but the backward cannot be batched: gradcheck ran it "
        "once on a stack of grad_outputs under vmap (as torch.func.jacrev, hessian and "
        "per-sample gradients do) and it failed or disagreed with one backward per "
        "grad_output",
        "write the backward with whole-tensor operations{example}: no .item(), no Python loop "
        "over entries, no writing into a fresh buffer (grad[i] = ..., out=); for torch.func, set "
        "generate_vmap_rule = True or write a vmap staticmethod",
    ),
    "check_forward_ad": (
        "forward_ad",
        "forward mode disagrees with the nudges: gradcheck pushed each unit tangent p through "
        "the Function's jvp and compared J·p with the nudged columns",
        "make jvp return the same derivative as backward, times the tangent{example}, saving "
        "what it needs with ctx.save_for_forward",
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


#: The zoo's sin, quoted in the advice only for the zoo's own sin Functions.
_SIN_EXAMPLES = {
    "check_batched_grad": ", e.g. grad_output * torch.cos(x)",
    "check_forward_ad": " (sin: tangent * torch.cos(x))",
}

#: A Function with no jvp under check_forward_ad=True: forward mode is not implemented.
_NO_JVP = (
    "forward mode is not implemented: the Function has no jvp staticmethod, so torch raised "
    "NotImplementedError when gradcheck (check_forward_ad=True) pushed a tangent through it",
    "write a jvp staticmethod: the same derivative as backward, times the tangent, saving what "
    "it needs with ctx.save_for_forward; or leave check_forward_ad off if the Function is "
    "never used in forward mode (torch.func.jvp, jacfwd, torch.autograd.forward_ad)",
)

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
    failing = _failing_check(fn, inputs, settings, verdict, switched_on)
    if failing is None:
        return False
    name, said = failing
    report.cause, explanation, suggestion = _OTHER_CHECKS[name]
    example = _SIN_EXAMPLES.get(name, "") if zoo_function(fn) in CHECK_SPECIMENS else ""
    suggestion = suggestion.format(example=example)
    first = (said.message.strip() or said.error_type).splitlines()[0]
    if name == "check_forward_ad" and said.error_type not in ("", "GradcheckError"):
        explanation, suggestion = _forward_mode_raised(said, first)
        if backward:  # the Jacobians were compared, and agree
            explanation += "; the backward's Jacobian agrees with the nudges"
    elif name == "check_forward_ad" and backward:
        explanation = f"the backward's Jacobian agrees with the nudges, but {explanation}"
    place = error_place(said.exception)
    if place and said.error_type != "GradcheckError":
        explanation += f" (raised {place.said})"
    sentence = first.split(". ")[0].rstrip(".,")  # torch's first sentence
    report.explanation = f"{explanation}. torch says: {sentence}."
    report.suggestion = suggestion
    return True


def _forward_mode_raised(said: Verdict, first: str) -> tuple[str, str]:
    """(explanation, suggestion) when forward mode raised instead of comparing: no jvp at all,
    or another error (an operation with no forward-mode rule)."""
    if said.error_type == "NotImplementedError" and "jvp" in first:
        return _NO_JVP
    return (
        f"forward mode raised {said.error_type} before comparing anything: gradcheck "
        "(check_forward_ad=True) pushed a tangent through the function, and something in it has "
        "no forward-mode rule or failed on the tangent",
        "read torch's message (report.torch_message); if the Function is never used in forward "
        "mode (torch.func.jvp, jacfwd, torch.autograd.forward_ad), leave check_forward_ad off",
    )


def _failing_check(fn, inputs, settings, verdict: Verdict, switched_on: list[str]):
    """(name, torch's verdict with that check alone) of the first switched-on check that
    fails on its own where the Jacobian comparison passes; None if there is none."""
    if not settings.get("check_backward_ad", True):  # forward mode is all that runs
        return ("check_forward_ad", verdict) if verdict.error_type in _FORWARD_ERRORS else None
    plain = {**settings, **dict.fromkeys(_OTHER_CHECKS, False)}
    if not torch_verdict(fn, mirror_inputs(inputs), **plain).passed:
        return None
    for name in switched_on:
        alone = torch_verdict(fn, mirror_inputs(inputs), **{**plain, name: True})
        if not alone.passed:
            return name, alone
    return None
