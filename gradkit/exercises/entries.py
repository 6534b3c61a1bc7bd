"""Where a check's numbers disagree, in the learner's words: output entry i and input entry j.

- :func:`backward_entry`: the worst entry of gradcheck's Jacobian comparison (the report's), as
  one sentence: the entry, the input's value there, the nudges' slope, what backward returns.
- :func:`forward_entry`: the same sentence for a forward-mode mismatch (``check_forward_ad``).
  torch's message names the output and input tensors and prints both matrices to 4 digits, never
  an entry; so the jvp's Jacobian is built here one unit tangent at a time, as torch's check
  builds it, and compared with the nudges entry by entry.

Depends on torch and gradkit's numeric Jacobian only.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch.autograd import forward_ad

from .._args import GRADCHECK_DEFAULTS, allowance
from ..jacobian import numeric_jacobian
from ..report import CheckReport, WorstEntry

__all__ = ["backward_entry", "forward_entry", "forward_mode_jacobian"]


def _sentence(w: WorstEntry, inputs: tuple[torch.Tensor, ...], rule: str) -> str:
    """The entry ``w`` as the feedback says it; ``rule`` ends the sentence (what the learner's
    code returns there)."""
    if w.input >= len(inputs):
        return ""
    value = float(inputs[w.input].detach().reshape(-1)[w.index[1]])
    moved = w.position[: -len(w.input_position)].rstrip(", ")  # "output entry 2"
    return (
        f"At {w.position} ({w.input_position} is {value:g}): nudging {w.input_position} "
        f"moves {moved} at a slope of {w.numeric:.6g}, but {rule.format(w=w, moved=moved)}."
    )


def backward_entry(report: CheckReport, inputs: tuple[torch.Tensor, ...]) -> str:
    """The worst entry of a Jacobian mismatch (cause ``bug``) in the learner's terms: output
    entry i and input entry j (the Jacobian entry of the lessons' notation), the input's value
    there (``inputs``: those checked), what each side says; "" for any other failure."""
    if report.worst is None or report.cause != "bug":
        return ""
    return _sentence(report.worst, inputs, "your backward returns {w.analytic:.6g}")


def forward_entry(report: CheckReport, fn: Callable, inputs: tuple[torch.Tensor, ...]) -> str:
    """The worst entry of a forward-mode mismatch (cause ``forward_ad``, torch's
    ``GradcheckError``: the jvp ran and disagrees), in the words of :func:`backward_entry`;
    "" for any other failure, or where the jvp's Jacobian cannot be built here (complex inputs,
    an error)."""
    if report.cause != "forward_ad" or report.verdict != "GradcheckError":
        return ""
    if any(isinstance(t, torch.Tensor) and t.is_complex() for t in inputs):
        return ""
    try:
        forward = forward_mode_jacobian(fn, inputs)
        nudged = numeric_jacobian(fn, inputs)
    except Exception:  # noqa: BLE001 - the learner's code; torch's verdict stands without it
        return ""
    worst = _worst(forward, nudged)
    if worst is None:
        return ""
    rule = (
        "your jvp, given the tangent 1 at {w.input_position} and 0 elsewhere, returns "
        "{w.analytic:.6g} at {moved}"
    )
    return _sentence(worst, inputs, rule)


def forward_mode_jacobian(
    fn: Callable, inputs: tuple[torch.Tensor, ...]
) -> tuple[tuple[torch.Tensor, ...], ...]:
    """The Jacobians forward mode gives, ``J[o][k]`` of shape (outputs[o] numel, inputs[k]
    numel): column j of input k is the output's tangent for the tangent e_j on input k alone
    (zeros where an output gets none). Inputs that do not require grad get (numel_out, 0)."""
    plain = tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in inputs)
    outputs = _as_tuple(fn(*plain))
    per_input = []
    for k, t in enumerate(inputs):
        wanted = isinstance(t, torch.Tensor) and t.requires_grad
        columns = [_columns(fn, plain, k, j, outputs) for j in range(t.numel() if wanted else 0)]
        per_input.append(
            [
                torch.stack([c[o] for c in columns], dim=1)
                if columns
                else torch.zeros(out.numel(), 0, dtype=out.dtype)
                for o, out in enumerate(outputs)
            ]
        )
    return tuple(tuple(per_input[k][o] for k in range(len(inputs))) for o in range(len(outputs)))


def _columns(fn: Callable, plain: tuple, k: int, j: int, outputs: tuple) -> list[torch.Tensor]:
    """Each output's tangent, flattened, for the unit tangent at entry j of input k."""
    tangent = torch.zeros_like(plain[k]).reshape(-1)
    tangent[j] = 1
    with forward_ad.dual_level():
        args = list(plain)
        args[k] = forward_ad.make_dual(plain[k], tangent.reshape(plain[k].shape))
        duals = _as_tuple(fn(*args))
        found = [forward_ad.unpack_dual(d).tangent for d in duals]
    return [
        torch.zeros(out.numel(), dtype=out.dtype) if t is None else t.detach().reshape(-1)
        for t, out in zip(found, outputs, strict=True)
    ]


def _as_tuple(value: object) -> tuple[torch.Tensor, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _worst(
    forward: tuple[tuple[torch.Tensor, ...], ...], nudged: tuple[tuple[torch.Tensor, ...], ...]
) -> WorstEntry | None:
    """The entry furthest outside gradcheck's default tolerance, ``atol + rtol · |numeric|``."""
    atol, rtol = GRADCHECK_DEFAULTS["atol"], GRADCHECK_DEFAULTS["rtol"]
    worst, excess = None, 0.0
    n_outputs, n_inputs = len(forward), len(forward[0]) if forward else 0
    for o, row in enumerate(forward):
        for k, got in enumerate(row):
            expected = nudged[o][k].to(got.dtype)
            if got.shape != expected.shape or not got.numel():
                continue
            allowed = allowance(expected, atol, rtol)
            over = ((got - expected).abs() - allowed).nan_to_num(nan=float("inf"))
            flat = int(over.argmax())
            i, j = divmod(flat, got.shape[1])
            if worst is None or float(over[i, j]) > excess:
                excess = float(over[i, j])
                numbers = (float(expected[i, j]), float(got[i, j]), float(allowed[i, j]))
                worst = WorstEntry(o, k, (i, j), *numbers, n_outputs, n_inputs)
    return worst if worst is not None and excess > 0 else None
