"""What check() found, and how it reads: CheckReport, WorstEntry, CAUSES, text and HTML.

One wording for a place in a Jacobian, everywhere gradkit writes one (reports, causes, widgets,
lessons): **"output entry i, input entry j"**, the slope of output entry i when input entry j
is nudged. Entries count from 0 through the flattened tensor (a complex entry counts as two:
its real part, then its imaginary part). When the function has several output tensors, the
output side names its tensor too, and so does the input side when there are several inputs:
"output 1 entry 0, input 2 entry 3". Input k is the k-th item of the ``inputs`` passed to
:func:`gradkit.check`, counting from 0. :func:`jacobian_position` writes it; nothing else does.

Numbers in verdict text are written by two functions, each used for every number of its kind:
:func:`format_value` for a Jacobian entry (numeric, analytic: 6 significant digits) and
:func:`format_difference` for |diff| and the allowed difference (both 3 significant digits, so
"|diff| 0.0133, allowed 0.00102", never "allowed 0.001" beside "0.00102").

Depends on torch only.
"""

from __future__ import annotations

import html
import math
import textwrap
from dataclasses import dataclass, field

import torch
from torch.autograd.gradcheck import GradcheckError

from ._args import allowance
from ._palette import CARDS_CSS

__all__ = [
    "CAUSES",
    "CheckReport",
    "Failures",
    "WorstEntry",
    "entry_name",
    "format_difference",
    "format_value",
    "jacobian_position",
    "read_failures",
    "round_up",
]

#: Every cause check() can report, with a one-line meaning.
CAUSES: dict[str, str] = {
    "pass": "the backward rule agrees with the nudges",
    "precision": (
        "rounding, not the rule, failed the check: low-precision numbers, or an eps too small "
        "for them"
    ),
    "bug": "the backward rule disagrees with the nudges in float64",
    "truncation": (
        "eps is too large: the central difference's own error (about eps²·|f'''|/6), not the "
        "rule, failed the check"
    ),
    "kink": "an input sits within eps of a point where the function is not differentiable",
    "nonfinite": "an input or a slope is NaN or inf, so there is no slope to compare",
    "nondeterministic": "two runs on the same input give different results",
    "mutation": (
        "the function changes its own input in place, so the nudges measure a moving target"
    ),
    "layout": (
        "an input's entries share memory (an as_strided view), so one nudge moves several of them"
    ),
    "error": "torch raised an error instead of comparing Jacobians",
    "batched_grad": (
        "the Jacobian is right, but the backward cannot run under vmap on a batch of "
        "grad_outputs (check_batched_grad)"
    ),
    "forward_ad": (
        "the backward is right, but the forward-mode rule (jvp) disagrees with the nudges "
        "(check_forward_ad)"
    ),
    "undefined_grad": (
        "the Jacobian is right, but the backward breaks when an output's gradient is undefined "
        "(None) (check_undefined_grad)"
    ),
}


#: A failing entry whose numeric slope is below this fraction of its analytic one reads as
#: "numeric 0": the forward does not move where backward says it does.
_FLAT = 1e-3


def format_value(value: float) -> str:
    """A Jacobian entry (numeric or analytic) in verdict text: 6 significant digits."""
    return f"{value:.6g}"


def format_difference(value: float) -> str:
    """|diff| or the allowed difference in verdict text: 3 significant digits, both alike."""
    return f"{value:.3g}"


def round_up(value: float) -> float:
    """The next power of ten at or above ``value`` (0 for 0): a tolerance worth suggesting."""
    return 10 ** math.ceil(math.log10(value)) if value > 0 else 0.0


def entry_name(side: str, entry: int, tensor: int | None = None) -> str:
    """One side of a Jacobian position: ``"input entry 3"``, or ``"input 1 entry 3"``.

    Parameters
    ----------
    side : {"output", "input"}
    entry : int
        The flat entry (real view) of that tensor, from 0.
    tensor : int, optional
        The tensor's number, named only when the function has several tensors on that side.
    """
    if side not in ("output", "input"):
        raise ValueError(f"side must be 'output' or 'input', got {side!r}")
    return f"{side} entry {entry}" if tensor is None else f"{side} {tensor} entry {entry}"


def jacobian_position(
    output_entry: int,
    input_entry: int,
    *,
    output_tensor: int | None = None,
    input_tensor: int | None = None,
) -> str:
    """A place in a Jacobian, the one wording gradkit uses: ``"output entry 1, input entry 3"``.

    Parameters
    ----------
    output_entry, input_entry : int
        Row and column of the (real-view) Jacobian: flat output entry, flat input entry.
    output_tensor, input_tensor : int, optional
        Tensor numbers, given only where the function has several outputs (inputs):
        ``jacobian_position(1, 3, output_tensor=0, input_tensor=2)`` is
        ``"output 0 entry 1, input 2 entry 3"``.

    Returns
    -------
    str
    """
    output_side = entry_name("output", output_entry, output_tensor)
    return f"{output_side}, {entry_name('input', input_entry, input_tensor)}"


def _wrapped(label: str, text: str) -> str:
    """``  label: text`` wrapped between words at 100 characters, hanging under the text."""
    head = f"  {label}: "
    return textwrap.fill(text, 100, initial_indent=head, subsequent_indent=" " * len(head))


@dataclass(frozen=True)
class WorstEntry:
    """The Jacobian entry furthest outside its tolerance (or closest to it, on a pass).

    ``index`` is (row, column) in the real-view Jacobian of output tensor ``output`` and input
    ``input``: row = flat output entry, column = flat input entry. ``n_outputs`` and
    ``n_inputs`` count the function's outputs and inputs (they decide whether
    :attr:`position` names the tensors).
    """

    output: int
    input: int
    index: tuple[int, int]
    numeric: float
    analytic: float
    tolerance: float
    n_outputs: int = 1
    n_inputs: int = 1

    @property
    def error(self) -> float:
        """|analytic - numeric|."""
        return abs(self.analytic - self.numeric)

    @property
    def position(self) -> str:
        """Where the entry sits: ``"output entry 1, input entry 3"`` (:func:`jacobian_position`)."""
        return jacobian_position(
            self.index[0],
            self.index[1],
            output_tensor=self.output if self.n_outputs > 1 else None,
            input_tensor=self.input if self.n_inputs > 1 else None,
        )

    @property
    def input_position(self) -> str:
        """The nudged input entry alone: ``"input entry 3"`` (``"input 1 entry 3"``)."""
        return entry_name("input", self.index[1], self.input if self.n_inputs > 1 else None)

    @property
    def outside(self) -> bool:
        """Whether the entry fails gradcheck's test ``|diff| <= allowed`` (a NaN fails too)."""
        return not self.error <= self.tolerance

    @property
    def shown(self) -> dict[str, str]:
        """The entry's numbers as every verdict text writes them (the report's and the page's):
        ``numeric`` and ``analytic`` by :func:`format_value`, ``error`` and ``tolerance`` by
        :func:`format_difference`."""
        return {
            "numeric": format_value(self.numeric),
            "analytic": format_value(self.analytic),
            "error": format_difference(self.error),
            "tolerance": format_difference(self.tolerance),
        }

    @property
    def comparison(self) -> str:
        """``"numeric 3 vs analytic 4.5 (|diff| 1.5, allowed 0.00301)"``."""
        s = self.shown
        return (
            f"numeric {s['numeric']} vs analytic {s['analytic']} "
            f"(|diff| {s['error']}, allowed {s['tolerance']})"
        )


@dataclass
class CheckReport:
    """What :func:`check` found. ``passed`` is torch's verdict; the rest explains it."""

    passed: bool
    cause: str
    explanation: str
    suggestion: str
    torch_message: str
    numeric: tuple[tuple[torch.Tensor, ...], ...] | None
    analytic: tuple[tuple[torch.Tensor, ...], ...] | None
    max_abs_error: float
    worst: WorstEntry | None
    eps: float
    atol: float
    rtol: float
    fast_mode: bool
    dtypes: tuple[str, ...]
    engine: str = "torch"
    warnings: tuple[str, ...] = ()
    traceback: str = ""
    notes: tuple[str, ...] = ()
    error_type: str = field(default="", repr=False)

    @property
    def verdict(self) -> str:
        """``"pass"`` or ``"GradcheckError"`` (or the name of the exception torch raised)."""
        return "pass" if self.passed else (self.error_type or "GradcheckError")

    def raise_for_failure(self) -> None:
        """Raise torch's ``GradcheckError`` (with torch's own message) if the check failed."""
        if not self.passed:
            raise GradcheckError(self.torch_message)

    def __str__(self) -> str:
        head = "PASS" if self.passed else f"FAIL ({self.verdict}, cause: {self.cause})"
        lines = [
            f"gradcheck {head}",
            f"  inputs: {', '.join(self.dtypes)}   eps={self.eps:g} atol={self.atol:g} "
            f"rtol={self.rtol:g}{'  fast_mode' if self.fast_mode else ''}",
        ]
        if self.worst is not None:
            w = self.worst
            lines.append(f"  worst entry: {w.position}: {w.comparison}")
        lines.append(_wrapped("why", self.explanation))
        if self.suggestion:
            lines.append(_wrapped("try", self.suggestion))
        lines.extend(_wrapped("note", n) for n in self.notes)
        lines.extend(f"  torch warns: {w.strip()}" for w in self.warnings)
        if self.torch_message:
            lines.append("  torch says:")
            lines.extend("    " + line for line in self.torch_message.splitlines()[:12])
        return "\n".join(lines)

    def _html_rows(self) -> list[tuple[str, str]]:
        """(heading, escaped HTML) rows of the report's table."""
        rows = [
            ("cause", f"<b>{html.escape(self.cause)}</b> — {html.escape(CAUSES[self.cause])}"),
            ("why", html.escape(self.explanation)),
        ]
        if self.suggestion:
            rows.append(("try", html.escape(self.suggestion)))
        if self.worst is not None:
            w, s = self.worst, self.worst.shown
            rows.append(
                (
                    "worst entry",
                    f"{w.position}: numeric <code>{s['numeric']}</code> vs analytic "
                    f"<code>{s['analytic']}</code> (|diff| <code>{s['error']}</code>, allowed "
                    f"<code>{s['tolerance']}</code>)",
                )
            )
        rows.append(
            (
                "settings",
                f"{html.escape(', '.join(self.dtypes))}; eps={self.eps:g}, atol={self.atol:g}, "
                f"rtol={self.rtol:g}{', fast_mode' if self.fast_mode else ''}",
            )
        )
        return rows

    def _html_warnings(self) -> str:
        """torch's warnings in their own words, in a box that stands out (or nothing)."""
        if not self.warnings:
            return ""
        items = "".join(f"<li>{html.escape(w.strip())}</li>" for w in self.warnings)
        return (
            f"<div class='gradkit-warnings' role='alert'><b>⚠ torch warns</b><ul>{items}</ul></div>"
        )

    def _repr_html_(self) -> str:
        state = "gradkit-report" if self.passed else "gradkit-report gradkit-failed"
        badge = "✔ pass" if self.passed else f"✘ {html.escape(self.verdict)}"
        rows = [*self._html_rows(), *(("note", html.escape(n)) for n in self.notes)]
        body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
        message = (
            f"<details><summary>torch's message</summary><pre>"
            f"{html.escape(self.torch_message)}</pre></details>"
            if self.torch_message
            else ""
        )
        return (
            f"<style>{CARDS_CSS}</style><div class='{state}'>"
            f"<div class='gradkit-report-head'>gradcheck: {badge}</div>"
            f"{self._html_warnings()}<table class='gradkit-rows'>{body}</table>{message}</div>"
        )


@dataclass(frozen=True)
class Failures:
    """The Jacobian entries outside tolerance in the outputs torch compares, read once.

    Attributes
    ----------
    count : int
        Entries outside tolerance (a NaN is outside).
    n_flat : int
        Of them, those where numeric reads about 0 against a non-zero analytic: the forward is
        flat where backward says it moves (:data:`_FLAT`).
    flat : tuple of WorstEntry
        The worst flat entries, worst first (at most :data:`_KEPT` a Jacobian block).
    rest : tuple of WorstEntry
        The other failing entries: jump-sized ones first (numeric over 100 times analytic and
        its allowance, as a jump's jump/(2 eps) is), then worst first (at most :data:`_KEPT` of
        each kind a block).
    columns : dict
        For each input, a boolean tensor over its (real-view) entries: True where a failing
        entry that is not flat sits.
    """

    count: int = 0
    n_flat: int = 0
    flat: tuple[WorstEntry, ...] = ()
    rest: tuple[WorstEntry, ...] = ()
    columns: dict = field(default_factory=dict)

    def others(self, at: set[tuple[int, int]]) -> int:
        """Input entries with a failing entry that is not flat, but for those in ``at`` ((input,
        entry) pairs)."""
        total = 0
        for i, mask in self.columns.items():
            kept = mask.clone()
            for j, c in at:
                if j == i:
                    kept[c] = False
            total += int(kept.sum())
        return total

    def worst_outside(self, at: set[tuple[int, int]]) -> WorstEntry | None:
        """The worst failing entry (largest |a - n| / allowed) outside the columns ``at``."""
        shown = [w for w in (*self.rest, *self.flat) if (w.input, w.index[1]) not in at]
        return max(shown, key=_ratio, default=None)


def _ratio(w: WorstEntry) -> float:
    """|a - n| / allowed, NaN as inf: how far outside its tolerance an entry is."""
    ratio = w.error / max(w.tolerance, 1e-300)
    return math.inf if math.isnan(ratio) else ratio


#: Failing entries kept for a block, of each kind (flat, jump-sized, other): a huge Jacobian
#: is read as tensors, never entry by entry.
_KEPT = 64


def read_failures(report: CheckReport, checked: tuple[int, ...] | None) -> Failures:
    """The :class:`Failures` of a report's Jacobians, in the outputs ``checked`` (None: all).

    One pass over each Jacobian block finds the failing entries; everything else is computed
    on those alone.
    """
    if report.numeric is None or report.analytic is None:
        return Failures()
    count = n_flat = 0
    flat, jumps, rest, columns = [], [], [], {}
    n_outputs = len(report.numeric)
    for o, (nrow, arow) in enumerate(zip(report.numeric, report.analytic, strict=True)):
        if checked is not None and o not in checked:
            continue
        for i, (n, a) in enumerate(zip(nrow, arow, strict=True)):
            if n.numel() == 0 or n.shape != a.shape:
                continue
            n64, a64 = n.double().reshape(-1), a.double().reshape(-1)
            allowed = allowance(n64, report.atol, report.rtol)
            diff = torch.sub(a64, n64).abs_()
            where = (~(diff <= allowed)).nonzero().squeeze(1)  # a NaN is outside too
            if not where.numel():
                continue
            nf, af, tol = n64[where], a64[where], allowed[where]
            ratio = (diff[where] / tol.clamp_min(1e-300)).nan_to_num_(nan=math.inf)
            is_flat = (af != 0) & (nf.abs() <= _FLAT * af.abs())
            jump = ~is_flat & (nf.abs() > 100 * torch.maximum(af.abs(), tol))
            count += where.numel()
            n_flat += int(torch.count_nonzero(is_flat))
            mask = columns.setdefault(i, torch.zeros(n.shape[1], dtype=torch.bool))
            mask[where[~is_flat] % n.shape[1]] = True
            block = (o, i, n.shape[1], where, nf, af, ratio, (len(nrow), n_outputs), report)
            flat += _kept(is_flat, block)
            jumps += _kept(jump, block)
            rest += _kept(~is_flat & ~jump, block)
    by_ratio = {"key": _ratio, "reverse": True}
    return Failures(
        count,
        n_flat,
        tuple(sorted(flat, **by_ratio)),
        (*sorted(jumps, **by_ratio), *sorted(rest, **by_ratio)),
        columns,
    )


def _kept(select: torch.Tensor, block: tuple) -> list[WorstEntry]:
    """The worst of one block's failing entries where ``select`` holds, at most :data:`_KEPT`.

    ``block``: (output, input, columns, flat index of each failing entry, their numeric and
    analytic values and |a - n| / allowed, (inputs, outputs), report).
    """
    o, i, width, where, nf, af, ratio, (n_inputs, n_outputs), report = block
    k = min(_KEPT, int(torch.count_nonzero(select)))
    if not k:
        return []
    top = torch.topk(ratio.masked_fill(~select, -1.0), k).indices
    entries = []
    for j in sorted(top.tolist(), key=lambda j: int(where[j])):  # ties in entry order
        value = float(nf[j])
        tol = allowance(value, report.atol, report.rtol)
        place = divmod(int(where[j]), width)
        entries.append(WorstEntry(o, i, place, value, float(af[j]), tol, n_outputs, n_inputs))
    return entries
