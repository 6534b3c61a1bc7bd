"""Grading: a quiz choice against the answer, a prediction against the true value.

Part of :mod:`gradkit.quiz_bank`.
"""

from __future__ import annotations

import math

from .entries import Grade, PredictEntry, QuizEntry

__all__ = ["as_actual", "grade_choice", "grade_prediction", "parse_guess"]


def grade_choice(entry: QuizEntry, choice: str) -> Grade:
    """Grade a quiz answer: a right one gets the explanation, a wrong one its own explanation."""
    if not isinstance(choice, str):
        raise TypeError(f"choice must be an option's text, got {choice!r}")
    explanation = entry.explanation_for(choice)  # raises for an unknown option
    return Grade(choice == entry.answer, choice, entry.answer, explanation)


def parse_guess(entry: PredictEntry, guess: object) -> float | str:
    """A learner's guess as the entry's kind wants it: a finite number or one of the options.

    Text such as ``"22"``, ``"1e-3"`` or ``" 4.0 "`` is accepted for numbers.
    """
    if entry.kind == "number":
        value = guess
        if isinstance(guess, str):
            try:
                value = float(guess.strip().replace("−", "-").replace("_", ""))
            except ValueError:
                raise ValueError(
                    f"guess {guess!r} is not a number; type digits such as 22 or 1e-3"
                ) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"guess must be a number for {entry.id!r}, got {guess!r}")
        if not math.isfinite(value):
            raise ValueError(f"guess must be a finite number, got {guess!r}")
        return float(value)
    text = guess.strip() if isinstance(guess, str) else guess
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


def grade_prediction(entry: PredictEntry, guess: object, actual: object) -> Grade:
    """Grade a prediction against the true value.

    A number is right when ``|guess - actual| <= tolerance * |actual|`` (relative tolerance;
    0 means exact); a choice is right when it is the actual option.
    """
    given = parse_guess(entry, guess)
    actual = as_actual(entry, actual)
    if entry.kind == "number":
        correct = abs(given - actual) <= entry.tolerance * abs(actual)  # relative tolerance
    else:
        correct = given == actual
    return Grade(correct, given, actual, entry.right if correct else entry.wrong)
