"""The quiz file's entries as data: quizzes, predictions, grades and the bank that holds them.

Part of :mod:`gradkit.quiz_bank` (the file format is described there).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

__all__ = [
    "Grade",
    "PredictEntry",
    "QuizBank",
    "QuizBankError",
    "QuizEntry",
    "UnknownEntryError",
    "WrongOption",
]


class QuizBankError(ValueError):
    """The quiz file cannot be used: the message names the entry id and the field."""


class UnknownEntryError(KeyError):
    """No entry with that id; the message lists close matches."""

    def __str__(self) -> str:  # KeyError would print the message with quotes around it
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class WrongOption:
    """A wrong option of a quiz and why it is wrong."""

    option: str
    explanation: str


@dataclass(frozen=True)
class QuizEntry:
    """One multiple-choice question.

    Attributes
    ----------
    id : str
    question : str
    answer : str
        The right option's text.
    explanation : str
        Why the right answer is right.
    wrong : tuple of WrongOption
        The other options, each with its own explanation.
    transfer : str
        For a transfer question, what it carries the lesson's idea to ("function", "dtype" or
        "shape": one the lesson did not use); empty for a question about the lesson's own
        example.
    """

    id: str
    question: str
    answer: str
    explanation: str
    wrong: tuple[WrongOption, ...]
    transfer: str = ""

    @property
    def options(self) -> tuple[str, ...]:
        """Every option in the file's order: the answer first, then the wrong ones."""
        return (self.answer, *(w.option for w in self.wrong))

    def explanation_for(self, option: str) -> str:
        """The explanation shown when ``option`` is picked."""
        if option == self.answer:
            return self.explanation
        for w in self.wrong:
            if w.option == option:
                return w.explanation
        raise ValueError(
            f"option {option!r} is not one of quiz {self.id!r}'s options {list(self.options)}"
        )


@dataclass(frozen=True)
class PredictEntry:
    """One predict-then-run moment.

    Attributes
    ----------
    id : str
    prompt : str
    kind : str
        "number" (a typed number, right within ``tolerance``) or "choice" (one of ``options``).
    tolerance : float
        Relative tolerance for numbers: right when ``|guess - actual| <= tolerance * |actual|``.
    answer : float, str or None
        The expected value; used when the widget is given no ``compute``.
    options : tuple of str
        The choices for kind "choice" (empty for numbers).
    right, wrong : str
        Feedback after a right or a wrong guess.
    unit : str
        A word shown after numbers ("calls", "ms"); may be empty.
    unit_one : str
        The word after exactly 1 ("call" after 1, "calls" after 22); empty: ``unit`` always.
    """

    id: str
    prompt: str
    kind: str
    tolerance: float
    answer: float | str | None
    options: tuple[str, ...]
    right: str
    wrong: str
    unit: str = ""
    unit_one: str = ""


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer.

    Attributes
    ----------
    correct : bool
    given : float or str
        What the learner chose or guessed.
    expected : float or str
        The right option, or the true value.
    explanation : str
        The feedback text for this answer (from the quiz file).
    """

    correct: bool
    given: float | str
    expected: float | str
    explanation: str


_Entry = TypeVar("_Entry", "QuizEntry", "PredictEntry")


@dataclass(frozen=True)
class QuizBank:
    """Every quiz and predict entry of one file, by id."""

    quizzes: Mapping[str, QuizEntry]
    predictions: Mapping[str, PredictEntry]
    path: Path | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        """All ids, quizzes first."""
        return (*self.quizzes, *self.predictions)

    def quiz(self, quiz_id: str) -> QuizEntry:
        """The quiz with this id (an error lists close matches when there is none)."""
        use = f"use Predict({quiz_id!r}, compute=...)"
        elsewhere = f"{quiz_id!r} is a predict-then-run entry, not a quiz: {use}"
        return self._entry("quiz", quiz_id, self.quizzes, elsewhere)

    def predict(self, predict_id: str) -> PredictEntry:
        """The predict entry with this id (an error lists close matches when there is none)."""
        elsewhere = (
            f"{predict_id!r} is a quiz, not a predict-then-run entry: use Quiz({predict_id!r})"
        )
        return self._entry("predict", predict_id, self.predictions, elsewhere)

    def _entry(
        self, table: str, wanted: str, known: Mapping[str, _Entry], elsewhere: str
    ) -> _Entry:
        """``known[wanted]``, else an error: ``elsewhere`` for the other kind's id, or close ids."""
        if wanted in known:
            return known[wanted]
        if wanted in self.ids:
            raise UnknownEntryError(elsewhere)
        raise UnknownEntryError(self._unknown(table, wanted, known))

    def _unknown(self, table: str, wanted: object, known: Mapping[str, object]) -> str:
        where = f" in {self.path}" if self.path else ""
        if not isinstance(wanted, str):
            return f"a {table} id must be a string like {next(iter(known), '01-example')!r}"
        close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.5)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        return f"no {table} entry with id {wanted!r}{where}.{hint} Known ids: {sorted(known)}"
