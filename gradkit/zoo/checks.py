"""Specimens for gradcheck's other checks: Functions whose Jacobian is right and still fail.

``torch.autograd.gradcheck`` compares the numeric and the analytic Jacobian, and on request it
checks more: that the backward can be batched under ``vmap`` (``check_batched_grad``), that the
forward-mode rule ``jvp`` agrees with the nudges (``check_forward_ad``), and that the backward
copes with a gradient that is ``None`` (``check_undefined_grad``, on by default). Each buggy
twin here passes the plain Jacobian comparison (every one of these checks off) and fails
exactly the check named in its ``fails``; the correct :class:`SinFn` passes them all.

Every twin subclasses :class:`SinFn` and overrides one staticmethod (``backward`` or
``jvp``), so it differs from the right rule in exactly one place. These specimens live in
their own catalogue, :data:`CHECK_SPECIMENS`: the main :data:`~gradkit.zoo.CATALOGUE` lists
Functions by the cause gradcheck's defaults give them, and three of these pass at the defaults.
Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import torch

from .catalogue import vector

__all__ = [
    "CHECK_SPECIMENS",
    "OTHER_CHECKS",
    "CheckSpecimen",
    "EntryLoopSinFn",
    "ForgotTangentSinFn",
    "NoNoneGuardSinFn",
    "SinCosFn",
    "SinFn",
    "check_specimen",
]

#: gradcheck's switches beyond the Jacobian comparison, each with torch's default.
OTHER_CHECKS: dict[str, bool] = {
    "check_batched_grad": False,
    "check_forward_ad": False,
    "check_backward_ad": True,
    "check_undefined_grad": True,
}

FunctionClass = TypeVar("FunctionClass", bound=type)


@dataclass(frozen=True)
class CheckSpecimen:
    """One Function for gradcheck's other checks.

    Attributes
    ----------
    name : str
        The class name, e.g. ``"EntryLoopSinFn"``.
    function : type[torch.autograd.Function]
    description : str
        What it computes and how, one sentence.
    bug : str
        ``"Name of the bug: one sentence."`` ("" for a correct Function).
    fails : str
        The gradcheck switch it fails (``"check_batched_grad"``, ...), "" for a correct one.
    make_input : callable
        Returns fresh float64 sample inputs that require grad.
    """

    name: str
    function: type[torch.autograd.Function]
    description: str
    bug: str
    fails: str
    make_input: Callable[[], tuple[torch.Tensor, ...]]

    @property
    def correct(self) -> bool:
        """Whether every check passes."""
        return not self.bug

    @property
    def apply(self) -> Callable:
        """The Function's ``apply``, the callable gradcheck takes."""
        return self.function.apply


#: Every specimen by class name, in definition order (correct Functions first).
CHECK_SPECIMENS: dict[str, CheckSpecimen] = {}

SAMPLE = vector(0.5, 1.5, -0.75)


def check_specimen(
    *, description: str, bug: str = "", fails: str = ""
) -> Callable[[FunctionClass], FunctionClass]:
    """Class decorator: describe a specimen and add it to :data:`CHECK_SPECIMENS`.

    Parameters
    ----------
    description : str
        What it computes, one sentence ending with a full stop.
    bug : str, optional
        ``"Name of the bug: one sentence."`` for a buggy twin.
    fails : str, optional
        The gradcheck switch the twin fails, one of :data:`OTHER_CHECKS`.

    Returns
    -------
    callable
        The decorator; it returns the class unchanged.
    """
    if bool(bug) != bool(fails):
        raise ValueError("a buggy twin names both its bug= and the check it fails=")
    if fails and fails not in OTHER_CHECKS:
        raise ValueError(f"fails={fails!r} is not one of {sorted(OTHER_CHECKS)}")

    def register(function: FunctionClass) -> FunctionClass:
        if not (isinstance(function, type) and issubclass(function, torch.autograd.Function)):
            raise TypeError(f"check_specimen decorates Function classes, not {function!r}")
        name = function.__name__
        if name in CHECK_SPECIMENS:
            raise ValueError(f"there is already a specimen named {name!r}; rename the class")
        CHECK_SPECIMENS[name] = CheckSpecimen(name, function, description, bug, fails, SAMPLE)
        return function

    return register


# ----------------------------------------------------------------------------- correct


@check_specimen(
    description="sin(x) with backward cos(x)·grad, jvp cos(x)·tangent, and a None guard."
)
class SinFn(torch.autograd.Function):
    """sin(x), written for every check: batchable, forward mode, undefined gradients.

    ``forward`` takes no ``ctx``; ``setup_context`` saves what the rules need, so
    ``torch.func`` (``vmap``, ``jacrev``, ``jacfwd``) can use the Function too, and
    ``generate_vmap_rule`` lets ``vmap`` batch it by running the same rules on batched tensors.
    """

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.sin(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.set_materialize_grads(False)  # an unused output's gradient arrives as None
        ctx.save_for_backward(x)  # for backward (reverse mode)
        ctx.save_for_forward(x)  # for jvp (forward mode)

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:  # no gradient flows in: none flows out
            return None
        (x,) = ctx.saved_tensors
        return grad_output * torch.cos(x)  # gᵀJ: d sin(x)/dx = cos(x), entry by entry

    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return x_tangent * torch.cos(x)  # J·p: the same slope times the tangent p


@check_specimen(description="(sin(x), cos(x)): two outputs, each gradient guarded against None.")
class SinCosFn(torch.autograd.Function):
    """Two outputs: backward receives one gradient per output, and returns one per input."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return torch.sin(x), torch.cos(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        if not ctx.needs_input_grad[0]:  # x needs no gradient: skip the work
            return None
        (x,) = ctx.saved_tensors
        grad = torch.zeros_like(x)
        if grad_sin is not None:  # d sin/dx = cos
            grad = grad + grad_sin * torch.cos(x)
        if grad_cos is not None:  # d cos/dx = -sin
            grad = grad - grad_cos * torch.sin(x)
        return grad

    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return x_tangent * torch.cos(x), -x_tangent * torch.sin(x)


# ----------------------------------------------------------------------------- twins


@check_specimen(
    description="sin(x) whose backward fills a fresh buffer one entry at a time.",
    bug=(
        "Entry loop: the backward writes each gradient entry into a fresh buffer in a Python "
        "loop, which vmap cannot batch."
    ),
    fails="check_batched_grad",
)
class EntryLoopSinFn(SinFn):
    """The right numbers, one entry per step: ``grad[i] = ...`` into an unbatched buffer."""

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return None
        (x,) = ctx.saved_tensors
        grad = torch.empty_like(x)  # a fresh buffer, filled one entry at a time
        for i in range(x.numel()):
            grad[i] = grad_output[i] * torch.cos(x[i])
        return grad


@check_specimen(
    description="sin(x) whose jvp returns cos(x) whatever the tangent.",
    bug="Forgot the tangent: the jvp returns cos(x) instead of cos(x)·tangent.",
    fails="check_forward_ad",
)
class ForgotTangentSinFn(SinFn):
    """The forward-mode rule drops the tangent, so every direction gets the same answer."""

    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return torch.cos(x)


@check_specimen(
    description="sin(x) that asks for None gradients and multiplies by them unguarded.",
    bug=(
        "No None guard: set_materialize_grads(False) lets grad_output be None, and the "
        "backward multiplies by it anyway."
    ),
    fails="check_undefined_grad",
)
class NoNoneGuardSinFn(SinFn):
    """The backward of :class:`SinFn` without its ``if grad_output is None`` line."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.cos(x)
