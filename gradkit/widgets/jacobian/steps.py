"""JacobianBuilder's numbers: both Jacobians built one gradcheck step at a time, counted and timed.

gradcheck's slow mode builds the **numeric** Jacobian a column at a time, nudging input entry k
by ±eps: ``J[:, k] = (f(x + eps e_k) - f(x - eps e_k)) / (2 eps)``, 2 forward calls per column;
and the **analytic** one a row at a time, running the one-hot ``grad_output = e_i`` through
backward, which returns ``e_iᵀ J``: 1 backward call per output entry. :func:`jacobian_steps`
makes every call up front, in that order, so the page replays the build without the kernel.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from ... import zoo
from ..._args import GRADCHECK_DEFAULTS
from ..base.functions import function_owner

__all__ = [
    "N_MAX",
    "N_MIN",
    "JacobianSteps",
    "as_function",
    "as_input",
    "check_n",
    "jacobian_steps",
    "sample_input",
]

#: The range of the n control (input entries).
N_MIN, N_MAX = 1, 64


@dataclass(frozen=True)
class JacobianSteps:
    """Both Jacobians of ``f`` at ``x``, and what building them cost, step by step.

    Step 0 is the plain run of ``f`` (gradcheck's reference call); steps 1 … n fill numeric
    columns 0 … n-1; steps n+1 … n+m fill analytic rows 0 … m-1.

    Attributes
    ----------
    x : torch.Tensor
        The input, float64, shape (n,).
    eps : float
    numeric, analytic : torch.Tensor
        Shape (m, n): output entry i, input entry j.
    forward_calls, backward_calls, seconds : tuple
        Running totals after each step (length n + m + 1): calls made, wall time.
    """

    x: torch.Tensor
    eps: float
    numeric: torch.Tensor
    analytic: torch.Tensor
    forward_calls: tuple[int, ...]
    backward_calls: tuple[int, ...]
    seconds: tuple[float, ...]

    @property
    def n(self) -> int:
        """Input entries (numeric columns)."""
        return self.numeric.shape[1]

    @property
    def m(self) -> int:
        """Output entries (analytic rows)."""
        return self.numeric.shape[0]

    @property
    def steps(self) -> int:
        """Steps after the reference call: n columns, then m rows."""
        return self.n + self.m


def sample_input(n: int, like: torch.Tensor | None = None) -> torch.Tensor:
    """The input of n entries: ``like`` itself when it has n, else n float64 values evenly spaced
    over its range, or over 0.25 … 2.0 (all positive); n = 1 takes the range's start."""
    if like is not None and like.numel() == n:
        return like.clone()
    lo, hi = (0.25, 2.0) if like is None else (float(like.min()), float(like.max()))
    return torch.linspace(lo, hi, n, dtype=torch.float64)


def check_n(n: object, argument: str = "n") -> int:
    """A whole number of input entries in N_MIN … N_MAX."""
    if isinstance(n, bool) or not isinstance(n, int) or not N_MIN <= n <= N_MAX:
        raise ValueError(
            f"{argument} must be a whole number from {N_MIN} to {N_MAX} (input entries), got {n!r}"
        )
    return n


def as_function(f: object) -> tuple[Callable[[torch.Tensor], torch.Tensor], str]:
    """A callable of one tensor and its label, from a Function, its apply, a callable or a name.

    Names are the zoo's one-input Functions ("SquareFn", "WrongSquareFn", …) and the plain
    functions of :func:`gradkit.zoo.scalar_functions` ("x²", "sin(x)", …).
    """
    if isinstance(f, str):
        plain = zoo.scalar_functions()
        if f in plain:
            return plain[f], f
        one_input = sorted(
            name
            for name, e in zoo.CATALOGUE.items()
            if len(e.make_input()) == 1 and not e.make_input()[0].is_complex()
        )
        if f not in one_input:
            raise ValueError(
                f"f={f!r} is not a one-input zoo Function or a plain function; choose from "
                f"{one_input + sorted(plain)}, or pass your own Function"
            )
        return zoo.CATALOGUE[f].apply, f
    owner = function_owner(f)
    if owner is not None:
        return owner.apply, owner.__name__
    if not callable(f):
        raise TypeError(
            "f must be an autograd.Function (e.g. WrongSquareFn), its .apply, a function of a "
            f"tensor or a zoo name, got {type(f).__name__}"
        )
    name = getattr(f, "__name__", "") or ""
    return f, ("your f" if not name or name == "<lambda>" else name)


def as_input(x: object, argument: str = "x") -> torch.Tensor:
    """A 1-D float64 copy of ``x`` (a tensor or numbers): finite, N_MIN … N_MAX entries."""
    if isinstance(x, torch.Tensor):
        if x.is_complex() or not x.is_floating_point():
            raise TypeError(f"{argument} must hold real floating numbers, got dtype {x.dtype}")
        t = x.detach().to(torch.float64).reshape(-1).clone()
    elif isinstance(x, Sequence) and not isinstance(x, str):
        try:
            t = torch.tensor([float(v) for v in x], dtype=torch.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{argument} must be a list of numbers or a tensor, got {x!r}"
            ) from None
    else:
        raise TypeError(f"{argument} must be a 1-D tensor or a list of numbers, got {x!r}")
    check_n(t.numel(), f"the number of entries of {argument}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{argument} must be finite, got {t.tolist()}")
    return t


@functools.cache
def _warm_up() -> None:
    """Start autograd once per process (about a second), so no step's time includes it."""
    v = torch.ones(2, dtype=torch.float64, requires_grad=True)
    torch.autograd.grad(v * v, v, torch.ones_like(v))


def jacobian_steps(
    f: Callable[[torch.Tensor], torch.Tensor],
    x: torch.Tensor,
    *,
    eps: float = GRADCHECK_DEFAULTS["eps"],
) -> JacobianSteps:
    """Build both Jacobians the way gradcheck's slow mode does, counting and timing each step.

    Parameters
    ----------
    f : callable
        A function of one tensor (or a Function's ``apply``) returning one real tensor.
    x : torch.Tensor
        The input: 1-D, float64 (:func:`as_input`, :func:`sample_input`).
    eps : float
        The nudge.

    Returns
    -------
    JacobianSteps
    """
    _warm_up()
    log = _CallLog(f)
    # step 0, the reference run: with grad, so the analytic rows can run backward through it
    xg = x.clone().requires_grad_(True)
    with torch.enable_grad():
        y = log(xg)
    if y.numel() == 0:
        raise ValueError("f returned an empty tensor: there is no Jacobian to build")
    log.record()
    numeric = _numeric_columns(log, x, eps, y.numel())
    analytic = _analytic_rows(log, y, xg)
    forward, backward, seconds = zip(*log.totals, strict=True)
    return JacobianSteps(x, eps, numeric, analytic, forward, backward, seconds)


class _CallLog:
    """``f`` with its forward and backward calls counted, and the running totals after each step."""

    def __init__(self, f: Callable[[torch.Tensor], torch.Tensor]) -> None:
        self._f = f
        self.forward = self.backward = 0
        self.totals: list[tuple[int, int, float]] = []  # (forward, backward, seconds) per step
        self._start = time.perf_counter()

    def _bump(self, _grad: torch.Tensor) -> None:
        self.backward += 1

    def __call__(self, v: torch.Tensor) -> torch.Tensor:
        self.forward += 1
        out = self._f(v)
        if isinstance(out, (tuple, list)):
            if len(out) != 1:
                raise ValueError(f"f must return one tensor, got {len(out)} outputs")
            (out,) = out
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"f must return a tensor, got {type(out).__name__}")
        if out.is_complex():
            raise TypeError("f returns a complex tensor; JacobianBuilder shows real Jacobians")
        if out.requires_grad:
            out.register_hook(self._bump)
        return out

    def record(self) -> None:
        self.totals.append((self.forward, self.backward, time.perf_counter() - self._start))


def _numeric_columns(log: _CallLog, x: torch.Tensor, eps: float, m: int) -> torch.Tensor:
    """The numeric Jacobian (m, n) exactly as torch's slow gradcheck computes it
    (``_compute_numerical_gradient``): the input itself, requiring grad, is nudged in place, and
    ``f`` runs with grad mode on."""
    numeric = torch.empty(m, x.numel(), dtype=torch.float64)
    nudged = x.clone().requires_grad_(True)
    flat = nudged.data.view(-1)  # torch nudges the input's own memory, outside autograd
    with torch.enable_grad():
        for k, entry in enumerate(flat):  # numeric column k: nudge input entry k
            original = entry.clone()
            entry.copy_(original - eps)
            below = log(nudged).detach().clone()
            entry.copy_(original + eps)
            above = log(nudged).detach().clone()
            entry.copy_(original)
            # J[:, k] = (f(x + eps e_k) - f(x - eps e_k)) / (2 eps)
            numeric[:, k] = ((above - below) / (2 * eps)).reshape(-1).to(torch.float64)
            log.record()
    return numeric


def _analytic_rows(log: _CallLog, y: torch.Tensor, xg: torch.Tensor) -> torch.Tensor:
    """The analytic Jacobian (m, n): row i is the one-hot grad_output e_i through backward."""
    analytic = torch.zeros(y.numel(), xg.numel(), dtype=torch.float64)
    for i in range(y.numel()):
        one_hot = torch.zeros_like(y)
        one_hot.view(-1)[i] = 1
        if y.requires_grad:  # else f does not depend on x through autograd: the row stays 0
            (row,) = torch.autograd.grad(y, xg, one_hot, retain_graph=True, allow_unused=True)
            if row is not None:
                analytic[i] = row.reshape(-1).to(torch.float64)
        log.record()
    return analytic
