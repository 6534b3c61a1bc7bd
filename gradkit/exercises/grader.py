"""Grade a learner's Function for an exercise: forward first, then gradcheck, as feedback.

- :func:`grade` checks the forward against the reference (a wrong forward makes gradcheck compare
  the wrong thing), then the backward through :func:`gradkit.check` in float64, and returns
  :class:`Feedback` with the cause, the worst Jacobian entry (output entry i, input entry j:
  :mod:`gradkit.exercises.entries`) and a suggestion. An exercise's inputs chosen on purpose
  (``Exercise.cases``) are checked after its sample inputs, the same way, and the first that
  fails is named. An exercise's checks beyond the Jacobian (``Exercise.checks``: vmap, forward
  mode, None gradients) are switched on in that same check, so the verdict is torch's; the
  feedback names the check that fails.
- :func:`hint` and :func:`solution` give the same help as plain text.

Depends on torch and gradkit's check only (no widgets).
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from .._palette import CARDS_CSS
from ..diagnosis import check
from ..report import CAUSES, CheckReport
from .data import EXERCISES, Exercise
from .entries import backward_entry, forward_entry

__all__ = ["Feedback", "grade", "hint", "solution"]


@dataclass
class Feedback:
    """The result of :func:`grade`.

    ``passed`` is True only when the forward matches the reference and gradcheck (float64,
    default tolerances) passes. ``report`` is gradkit's check report when gradcheck ran.
    """

    exercise: str
    passed: bool
    headline: str
    details: list[str] = field(default_factory=list)
    report: CheckReport | None = None

    def __str__(self) -> str:
        """The headline, then each detail wrapped between words at 100 characters (a printed
        line a page shows whole), hanging under its first line."""
        details = (
            textwrap.fill(d, 100, initial_indent="  ", subsequent_indent="    ")
            for d in self.details
        )
        return "\n".join([self.headline, *details])

    def _repr_html_(self) -> str:
        state = "gradkit-feedback" if self.passed else "gradkit-feedback gradkit-failed"
        items = "".join(f"<li>{html.escape(d)}</li>" for d in self.details)
        body = f"<ul>{items}</ul>" if items else ""
        return (
            f"<style>{CARDS_CSS}</style><div class='{state}'>"
            f"<div class='gradkit-feedback-head'>{html.escape(self.headline)}</div>{body}</div>"
        )


def exercise_of(exercise: str | Exercise) -> Exercise:
    """The :class:`Exercise` for a key of :data:`EXERCISES` (or the Exercise itself)."""
    if isinstance(exercise, Exercise):
        return exercise
    if exercise not in EXERCISES:
        raise KeyError(f"no exercise named {exercise!r}; choose one of {sorted(EXERCISES)}")
    return EXERCISES[exercise]


def _callable_of(function: object, ex: Exercise) -> Callable | str:
    """The callable to check, or a message saying why there is none."""
    if function is None:
        return (
            f"No class named {ex.class_name} yet: run the cell that defines it "
            f"(class {ex.class_name}(torch.autograd.Function): ...), then check again."
        )
    if isinstance(function, type):
        if not issubclass(function, torch.autograd.Function):
            return (
                f"{function.__name__} is a class but not a torch.autograd.Function: write "
                f"class {ex.class_name}(torch.autograd.Function)."
            )
        return function.apply
    if callable(function):
        return function
    return f"Expected the class {ex.class_name}, got {type(function).__name__}."


def _check_forward(
    fn: Callable, ex: Exercise, make: Callable[[], tuple[torch.Tensor, ...]] | None = None
) -> list[str]:
    """Problems with the forward on ``make()``'s inputs (default: the exercise's sample inputs),
    as sentences (empty when it matches the reference)."""
    inputs = tuple(t.detach() for t in (make or ex.make_inputs)())
    try:
        with torch.no_grad():
            got = fn(*inputs)
    except Exception as error:  # noqa: BLE001 - a learner's mistake becomes feedback
        return [f"forward raised {type(error).__name__}: {error}"]
    expected = ex.forward(*inputs)
    if not isinstance(got, torch.Tensor):
        return [f"forward returned a {type(got).__name__}; it must return a tensor."]
    if got.shape != expected.shape:
        return [f"forward returned shape {tuple(got.shape)}, expected {tuple(expected.shape)}."]
    if not torch.allclose(got.double(), expected, rtol=1e-10, atol=1e-12):
        k = int((got.double() - expected).abs().argmax())
        where = ", ".join(f"{float(t.reshape(-1)[k]):g}" for t in inputs)
        return [
            f"forward computes the wrong values: at input ({where}) it returns "
            f"{float(got.reshape(-1)[k]):.6g}, expected {float(expected.reshape(-1)[k]):.6g}. "
            "gradcheck compares backward with your forward, so fix forward first."
        ]
    return []


def grade(exercise: str | Exercise, function: object) -> Feedback:
    """Check a learner's Function for an exercise.

    Parameters
    ----------
    exercise : str or Exercise
        A key of :data:`EXERCISES` (``"sin_square"``, ``"cube"``, ``"sigmoid"``, ``"product"``,
        ``"tanh_all_checks"``, ``"prod"``) or an Exercise.
    function : torch.autograd.Function subclass or callable
        The learner's class (or its ``apply``).

    Returns
    -------
    Feedback
        ``passed`` with a headline and details; never raises for mistakes in the learner's code
        (they become feedback). An exercise with :attr:`~Exercise.cases` passes only when every
        case passes too; the feedback names the first case that fails. An exercise with
        :attr:`~Exercise.checks` passes only when those checks pass too.
    """
    ex = exercise_of(exercise)
    fn = _callable_of(function, ex)
    if isinstance(fn, str):
        return Feedback(ex.key, False, "Nothing to check yet.", [fn])
    report = None
    switches = dict.fromkeys(ex.checks, True)
    for name, make in (("", ex.make_inputs), *ex.cases):
        problems = _check_forward(fn, ex, make)
        if problems:
            return Feedback(ex.key, False, "Not yet: the forward is off.", _on(name, problems))
        try:
            report = check(fn, make(), **switches)
        except Exception as error:  # noqa: BLE001 - a learner's mistake becomes feedback
            return Feedback(
                ex.key,
                False,
                "Not yet: gradcheck could not run.",
                _on(name, [f"{type(error).__name__}: {error}"]),
            )
        if not report.passed:
            return _failed(ex, report, fn, make(), name)
    details = [f"Checked at input(s) {_listed(ex.make_inputs())}."]
    if ex.cases:
        names = ", ".join(name for name, _make in ex.cases)
        details.append(f"And on {len(ex.cases)} inputs chosen on purpose: {names}.")
    if ex.checks:
        details.append(f"With {_and(ex.checks)} on: {_and([_CHECKED[c] for c in ex.checks])} pass.")
    return Feedback(
        ex.key,
        True,
        "Correct: gradcheck passes in float64.",
        [*details, _sentence(report.explanation)],
        report,
    )


def _on(case: str, details: list[str]) -> list[str]:
    """``details``, led by the case they are about (none for the sample inputs)."""
    return [f"On the input chosen on purpose '{case}':", *details] if case else details


def _listed(inputs: tuple[torch.Tensor, ...]) -> str:
    """Input values as written: ``[0.5, -1.25, 2]``, a 0-d ``0.7``, a matrix row by row."""
    return ", ".join(_values(t.detach().tolist()) for t in inputs)


def _values(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_values(v) for v in value) + "]"
    return f"{value:g}"


def _failed(
    ex: Exercise, report: CheckReport, fn: Callable, inputs: tuple[torch.Tensor, ...], case: str
) -> Feedback:
    """The feedback for a failed check of ``fn`` on ``inputs`` (``case`` names them, if chosen on
    purpose): the cause, the entry where the numbers disagree, why, and what to try."""
    details = [f"gradcheck: {report.verdict}, cause {report.cause} ({CAUSES[report.cause]})."]
    where = backward_entry(report, inputs) or forward_entry(report, fn, inputs)
    if where:
        details.append(where)
    explanation = report.explanation
    if where:
        explanation = explanation.split(" The worst entry")[0]
    details.append(_sentence(explanation))
    if report.suggestion:
        details.append(f"Try: {report.suggestion}.")
    details.append(f"Checked at input(s) {_listed(inputs)}. Ask for a hint if you are stuck.")
    headline = _HEADLINES.get(report.cause, _HEADLINES["other"])
    return Feedback(ex.key, False, headline, _on(case, details), report)


_HEADLINES = {
    "bug": "Not yet: the backward rule disagrees with the nudges.",
    "error": "Not yet: torch raised an error while checking your Function.",
    "batched_grad": "Not yet: the backward cannot run under vmap (check_batched_grad fails).",
    "forward_ad": "Not yet: forward mode fails (check_forward_ad): the jvp is missing or wrong.",
    "undefined_grad": (
        "Not yet: the backward breaks on a None gradient (check_undefined_grad fails)."
    ),
    "other": "Not yet: gradcheck fails.",
}

#: What each check beyond the Jacobian tries, as the feedback of a pass names it.
_CHECKED = {
    "check_batched_grad": "vmap",
    "check_forward_ad": "forward mode",
    "check_undefined_grad": "None gradients",
}


def _and(words: list[str] | tuple[str, ...]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def hint(exercise: str | Exercise, number: int = 1) -> str:
    """Hint ``number`` (1-based) for an exercise, as ``"Hint k of n: ..."``."""
    ex = exercise_of(exercise)
    total = len(ex.hints)
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= total:
        raise ValueError(f"number must be a whole number from 1 to {total}, got {number!r}")
    return f"Hint {number} of {total}: {ex.hints[number - 1]}"


def solution(exercise: str | Exercise) -> str:
    """The solution code for an exercise (try the hints first), read from ``solutions/KEY.py``."""
    return exercise_of(exercise).solution
