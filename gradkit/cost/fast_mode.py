"""What fast_mode misses: a one-entry bug hidden in its one number (part of
:mod:`gradkit.cost`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch

from .._args import GRADCHECK_DEFAULTS, check_count
from ..zoo import OneEntryWrongSquareFn
from .calls import sample_input

__all__ = [
    "FastModeByHand",
    "FastModeMiss",
    "fast_mode_by_hand",
    "fast_mode_miss",
    "fast_mode_misses",
]

#: The offset OneEntryWrongSquareFn adds to the first Jacobian entry.
_ONE_ENTRY_ERROR = 0.1


@dataclass(frozen=True)
class FastModeMiss:
    """Fast and slow gradcheck on OneEntryWrongSquareFn with ``n`` inputs.

    ``p0`` and ``q0`` are the first entries of fast mode's random vectors (input-sized ``p``,
    output-sized ``q``); the wrong entry shifts fast mode's one number by
    ``bug_term = 0.1 * p0 * q0``, and fast mode lets it through when that is at most
    ``allowed = atol * sum(p) * sum(q) + rtol * |qᵀ J p|``.
    """

    n: int
    fast_passed: bool
    slow_passed: bool
    p0: float
    q0: float
    bug_term: float
    allowed: float

    @property
    def missed(self) -> bool:
        """True when fast mode passed a bug that slow mode caught."""
        return self.fast_passed and not self.slow_passed


def _fast_mode_vectors(n: int, m: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The p and q (torch: u and v) fast mode draws for one real input of ``n`` entries and
    one output of ``m`` entries (default ``n``): p first, then q, each scaled to length 1."""
    generator = torch.Generator()  # what torch does: a fresh generator in its default state
    p = torch.rand(n, generator=generator).to(torch.float64)
    p /= p.norm()
    q = torch.rand(n if m is None else m, generator=generator).to(torch.float64)
    q /= q.norm()
    return p, q


@dataclass(frozen=True)
class FastModeByHand:
    """fast_mode's one comparison, step by step, for a function of one input and one output.

    Attributes
    ----------
    x, p, q : torch.Tensor
        The input, and torch's random vectors: ``p`` input-sized, ``q`` output-sized.
    jp : torch.Tensor
        J·p from the nudges: ``(f(x + eps·p) − f(x − eps·p)) / (2 eps)``, two forward calls.
    qj : torch.Tensor
        qᵀJ from backward: one backward pass with ``grad_output = q``.
    numeric, analytic : float
        ``qᵀ(J·p)`` and ``(qᵀJ)·p``: the same number, computed both ways.
    allowed : float
        torch's tolerance for it: ``atol·sum(p)·sum(q) + rtol·|numeric|``.
    """

    x: torch.Tensor
    p: torch.Tensor
    q: torch.Tensor
    jp: torch.Tensor
    qj: torch.Tensor
    numeric: float
    analytic: float
    allowed: float

    @property
    def passed(self) -> bool:
        """Whether the two numbers agree within ``allowed`` (fast mode's verdict)."""
        return abs(self.analytic - self.numeric) <= self.allowed


def fast_mode_by_hand(
    fn: Callable[[torch.Tensor], torch.Tensor] = OneEntryWrongSquareFn.apply,
    n: int = 3,
    *,
    eps: float = GRADCHECK_DEFAULTS["eps"],
    atol: float = GRADCHECK_DEFAULTS["atol"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
) -> FastModeByHand:
    """Compute fast_mode's one number both ways, as torch does, on ``n`` sample inputs.

    Parameters
    ----------
    fn : callable
        A function of one real tensor returning one real tensor (default the zoo's
        ``OneEntryWrongSquareFn``: x * x whose backward adds 0.1 to the first entry).
    n : int
        Number of input entries (the lessons' sample, 0.25 to 2.0).
    eps, atol, rtol : float
        gradcheck's settings.

    Returns
    -------
    FastModeByHand
        Its ``passed`` is torch's ``gradcheck(fn, x, fast_mode=True)`` verdict.
    """
    n = check_count(n, "n")
    x = sample_input(n).detach()
    with torch.no_grad():
        m = fn(x).numel()
    p, q = _fast_mode_vectors(n, m)
    with torch.no_grad():  # J·p ≈ (f(x + eps p) − f(x − eps p)) / 2eps: two forward calls
        jp = ((fn(x + eps * p) - fn(x - eps * p)) / (2 * eps)).reshape(-1)
    leaf = x.clone().requires_grad_(True)
    out = fn(leaf)
    (qj,) = torch.autograd.grad(out, leaf, q.reshape(out.shape))  # qᵀJ: one backward pass
    numeric = float(q @ jp)  # qᵀ(J·p)
    analytic = float(qj.reshape(-1) @ p)  # (qᵀJ)·p
    allowed = atol * float(p.sum()) * float(q.sum()) + rtol * abs(numeric)
    return FastModeByHand(x, p, q, jp, qj.reshape(-1).detach(), numeric, analytic, allowed)


def fast_mode_miss(
    n: int = 10,
    *,
    atol: float = GRADCHECK_DEFAULTS["atol"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
) -> FastModeMiss:
    """Check OneEntryWrongSquareFn on ``n`` inputs (0.25..2.0) in fast and in slow mode.

    Parameters
    ----------
    n : int
        Number of input entries. Fast mode misses the bug at n = 6, 10, 12, 13, ... and catches
        it at n = 16 (the zoo's own sample size); see :func:`fast_mode_misses`.
    atol, rtol : float
        gradcheck's tolerances.

    Returns
    -------
    FastModeMiss
        Both verdicts (torch's own) and fast mode's arithmetic for the one wrong entry.
    """
    n = check_count(n, "n")
    settings = {"atol": atol, "rtol": rtol, "raise_exception": False}
    fast = torch.autograd.gradcheck(
        OneEntryWrongSquareFn.apply, (sample_input(n),), fast_mode=True, **settings
    )
    slow = torch.autograd.gradcheck(OneEntryWrongSquareFn.apply, (sample_input(n),), **settings)
    p, q = _fast_mode_vectors(n)
    x = sample_input(n).detach()
    projection = float((q * 2 * x * p).sum())
    bug_term = _ONE_ENTRY_ERROR * float(p[0]) * float(q[0])
    allowed = atol * float(p.sum()) * float(q.sum()) + rtol * abs(projection)
    return FastModeMiss(n, bool(fast), bool(slow), float(p[0]), float(q[0]), bug_term, allowed)


def fast_mode_misses(sizes: Iterable[int] = range(1, 41)) -> list[int]:
    """The sizes at which fast mode passes OneEntryWrongSquareFn while slow mode fails it."""
    return [n for n in sizes if fast_mode_miss(check_count(n, "sizes")).missed]
