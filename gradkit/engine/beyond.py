"""gradcheck's arguments beyond the slow-mode Jacobian, as the batched engine answers them.

:func:`handover_reason` says (in one clause) why torch's own gradcheck must decide a whole check
the batched engine was asked for: fast mode (torch's fast gradcheck is one projection, already
cheap), no backward check, masked or sparse inputs. :func:`torch_extras` runs the checks that
follow a passing Jacobian comparison through torch's own code, in torch's order: forward mode
(``check_forward_ad``, with torch's gradcheck on the forward-mode side only), ``vmap`` over
forward mode (``check_batched_forward_grad``) and over backward (``check_batched_grad``).
Depends on torch only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import torch

from ..plan import differentiable_inputs

__all__ = ["SWITCHES", "check_grad_dtypes", "check_switches", "handover_reason", "torch_extras"]

_gradcheck = importlib.import_module("torch.autograd.gradcheck")  # the module, not the function

#: gradcheck's keyword arguments beyond eps, atol, rtol, nondet_tol and fast_mode, with torch's
#: defaults.
SWITCHES: dict[str, bool | None] = {
    "check_undefined_grad": True,
    "check_grad_dtypes": False,
    "check_batched_grad": False,
    "check_batched_forward_grad": False,
    "check_forward_ad": False,
    "check_backward_ad": True,
    "masked": None,
}


def check_switches(switches: dict) -> dict:
    """``switches`` with torch's defaults filled in; an unknown name is a TypeError."""
    unknown = sorted(set(switches) - set(SWITCHES))
    if unknown:
        raise TypeError(
            f"gradcheck has no argument {unknown[0]!r}; its switches are {sorted(SWITCHES)}"
        )
    return {**SWITCHES, **switches}


def handover_reason(inputs: tuple, settings: dict) -> str | None:
    """Why torch's gradcheck decides this check instead of the batched engine, or None."""
    if settings["fast_mode"]:
        return (
            "fast_mode=True compares one random projection of each Jacobian, which torch's "
            "fast gradcheck computes in a few calls already"
        )
    if not settings["check_backward_ad"]:
        return "check_backward_ad=False leaves no backward Jacobian for the batched engine"
    if settings["masked"] is not None:
        return f"masked={settings['masked']} is a rule for sparse inputs that torch applies"
    for k, t in enumerate(inputs):
        if isinstance(t, torch.Tensor) and t.layout != torch.strided:
            return (
                f"input {k} is a {str(t.layout).removeprefix('torch.')} tensor, whose stored "
                "entries torch's gradcheck nudges itself"
            )
    return None


def torch_extras(fn: Callable, inputs: tuple, outputs: tuple, settings: dict) -> list[str]:
    """torch's checks beyond the backward Jacobian, by torch's own code; returns notes.

    Raises torch's ``GradcheckError`` (or the exception torch's code raises) where torch's
    gradcheck would fail. ``outputs`` come from a call of ``fn`` with grad mode on.
    """
    notes = []
    if settings["check_forward_ad"]:
        torch.autograd.gradcheck(
            fn,
            inputs,
            eps=settings["eps"],
            atol=settings["atol"],
            rtol=settings["rtol"],
            nondet_tol=settings["nondet_tol"],
            check_undefined_grad=settings["check_undefined_grad"],
            check_grad_dtypes=settings["check_grad_dtypes"],
            check_forward_ad=True,
            check_backward_ad=False,
            check_batched_forward_grad=False,
        )
        notes.append(
            "check_forward_ad=True: torch's own gradcheck compared forward mode with its own "
            "nudges (one entry per call); the batched engine checked the backward"
        )
    if settings["check_batched_forward_grad"]:
        _gradcheck._test_batched_grad_forward_ad(fn, inputs)
    if settings["check_batched_grad"]:
        for k, o in enumerate(o for o in outputs if o.requires_grad):
            _gradcheck._test_batched_grad(inputs, o, k)
    return notes


def check_grad_dtypes(outputs: tuple, inputs: tuple) -> None:
    """torch's ``check_grad_dtypes``: every gradient has its input's dtype."""
    diff = [inputs[i] for i in differentiable_inputs(inputs)]
    for o in outputs:
        if not o.requires_grad or not o.numel():
            continue
        grads = torch.autograd.grad(
            o, diff, torch.ones_like(o), retain_graph=True, allow_unused=True
        )
        if any(g is not None and g.dtype != x.dtype for g, x in zip(grads, diff, strict=True)):
            raise _gradcheck.GradcheckError("Gradient has dtype mismatch")
