"""Grading: a quiz choice against the answer, a prediction against the true value.

Part of :mod:`gradkit.quiz_bank`.
"""

from __future__ import annotations

import math
import re
import struct
import sys

from .entries import Grade, PredictEntry, QuizEntry

__all__ = [
    "GUESS_SPACES",
    "NUMBER_PATTERN",
    "as_actual",
    "grade_choice",
    "grade_prediction",
    "parse_guess",
    "right_range",
]

#: What a typed guess may have around it: exactly what the page's ``String.prototype.trim``
#: drops (ECMAScript's WhiteSpace and LineTerminator), so that both read the same text.
GUESS_SPACES = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))  # the Unicode spaces U+2000 … U+200A
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: A typed number once trimmed, with − read as - and _ dropped: ASCII digits, an optional
#: point and exponent (``predict.js`` parses by the same grammar, tested against a fixture).
NUMBER_PATTERN = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def grade_choice(entry: QuizEntry, choice: str) -> Grade:
    """Grade a quiz answer: a right one gets the explanation, a wrong one its own explanation."""
    if not isinstance(choice, str):
        raise TypeError(f"choice must be an option's text, got {choice!r}")
    explanation = entry.explanation_for(choice)  # raises for an unknown option
    return Grade(choice == entry.answer, choice, entry.answer, explanation)


def parse_guess(entry: PredictEntry, guess: object) -> float | str:
    """A learner's guess as the entry's kind wants it: a finite number or one of the options.

    Text such as ``"22"``, ``"1e-3"`` or ``" 4.0 "`` is accepted for numbers: trimmed of
    :data:`GUESS_SPACES`, ``−`` read as ``-`` and ``_`` dropped, it must match
    :data:`NUMBER_PATTERN` (so ``"inf"``, ``"0x10"`` or non-ASCII digits are refused).
    """
    if entry.kind == "number":
        value = guess
        if isinstance(guess, str):
            text = guess.strip(GUESS_SPACES).replace("−", "-").replace("_", "")
            if NUMBER_PATTERN.fullmatch(text) is None:
                raise ValueError(f"guess {guess!r} is not a number; type digits such as 22 or 1e-3")
            value = float(text)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"guess must be a number for {entry.id!r}, got {guess!r}")
        if not math.isfinite(value):
            raise ValueError(f"guess must be a finite number, got {guess!r}")
        return float(value)
    text = guess.strip(GUESS_SPACES) if isinstance(guess, str) else guess
    if text not in entry.options:
        raise ValueError(f"guess {guess!r} is not one of the options {list(entry.options)}")
    return text


def as_actual(entry: PredictEntry, actual: object) -> float | str:
    """The true value as the entry's kind wants it (a ``compute`` result or the file's answer)."""
    if entry.kind == "number":
        if hasattr(actual, "item") and callable(actual.item):  # a one-entry tensor or array
            actual = actual.item()
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            raise TypeError(
                f"compute() must return a number for {entry.id!r}, got {type(actual).__name__}"
            )
        if not math.isfinite(actual):
            raise ValueError(f"compute() returned {actual!r} for {entry.id!r}, not a finite number")
        return float(actual)
    if isinstance(actual, bool):  # True/False against options such as "yes"/"no"
        words = {True: ("true", "yes", "passes", "pass"), False: ("false", "no", "fails", "fail")}
        matches = [o for o in entry.options if o.strip().lower() in words[actual]]
        if len(matches) == 1:
            return matches[0]
    if actual not in entry.options:
        raise ValueError(
            f"compute() returned {actual!r} for {entry.id!r}; it must return one of the "
            f"options {list(entry.options)}"
        )
    return actual


def right_range(entry: PredictEntry, actual: object) -> tuple[float, float]:
    """The guesses right for a number entry: the closed interval ``(lo, hi)`` of floats.

    Exactly the finite ``g`` with ``|g - actual| <= tolerance * |actual|`` in float64 (the
    rounded difference grows with ``g`` on each side of ``actual``, so they are an interval);
    :func:`grade_prediction` grades by it and the page is sent it, so that both grade alike.

    Raises
    ------
    ValueError
        For a choice entry (its right guess is the actual option).
    """
    if entry.kind != "number":
        raise ValueError(f"{entry.id!r} is a choice: only a number entry has a range")
    centre = as_actual(entry, actual)
    allowed = entry.tolerance * abs(centre)
    return _edge(centre, allowed, -math.inf), _edge(centre, allowed, math.inf)


def _edge(centre: float, allowed: float, away: float) -> float:
    """The last float from ``centre`` toward ``away`` within ``allowed`` of it: a bisection over
    the floats in order (64 steps at most; the rounded difference may stay flat for very many
    floats, so stepping one float at a time could take forever)."""

    def right(key: int) -> bool:
        return abs(_float_of(key) - centre) <= allowed

    inside, outside = _key_of(centre), _key_of(math.copysign(sys.float_info.max, away))
    if right(outside):
        return _float_of(outside)
    while abs(outside - inside) > 1:
        middle = (inside + outside) // 2
        inside, outside = (middle, outside) if right(middle) else (inside, middle)
    return _float_of(inside)


def _key_of(value: float) -> int:
    """An integer per float, in the floats' order (-0.0 and 0.0 share 0)."""
    bits = struct.unpack("<q", struct.pack("<d", value))[0]
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def _float_of(key: int) -> float:
    """The float of :func:`_key_of`'s ``key``."""
    return math.copysign(struct.unpack("<d", struct.pack("<q", abs(key)))[0], key or 1)


def grade_prediction(entry: PredictEntry, guess: object, actual: object) -> Grade:
    """Grade a prediction against the true value.

    A number is right when ``|guess - actual| <= tolerance * |actual|`` (relative tolerance;
    0 means exact), that is inside :func:`right_range`; a choice is right when it is the
    actual option.
    """
    given = parse_guess(entry, guess)
    actual = as_actual(entry, actual)
    if entry.kind == "number":
        lo, hi = right_range(entry, actual)
        correct = lo <= given <= hi
    else:
        correct = given == actual
    return Grade(correct, given, actual, entry.right if correct else entry.wrong)
