"""Quiz: a multiple-choice question from the quiz file, with feedback for every option.

>>> from gradkit.widgets import Quiz
>>> Quiz("03-why-float32")  # doctest: +SKIP

The question, its options and their explanations live in ``gradkit/data/quizzes.toml`` (see
:mod:`gradkit.quiz_bank`), never in the learner's cell. The options are shown in the learner's
own order (shuffled by user name and quiz id; the file's order when ``GRADKIT_QUIZ_ORDER=fixed``).
The browser shows the feedback for a picked option at once, from a table sent with the widget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..quiz_bank import QuizBank, QuizEntry, WrongOption, as_bank, grade_choice, shuffled_options
from ._base import GradkitWidget
from ._panel_helpers import (
    LAB_CSS,
    add_nullable_choice,
    feedback_html,
    feedback_readout,
    rich_text,
    with_theme,
)

__all__ = ["Quiz", "rich_text", "with_theme"]


class Quiz(GradkitWidget):
    """A multiple-choice question with feedback for the option picked.

    Parameters
    ----------
    quiz_id : str
        The id of a ``[[quiz]]`` entry of the quiz file, e.g. ``"03-why-float32"``.
    choices, answer, explain : optional
        Only for a question written inline (``Quiz(question, choices, answer, explain)``, kept
        for older notebooks): the options in the order shown, the right one (index or text)
        and one explanation for all, a list with one per choice, or a dict. Lessons keep their
        questions in the quiz file instead, where the answer is not in sight.
    bank : str, path or QuizBank, optional
        Another quiz file; default the one shipped with gradkit.
    user : str, optional
        Whose option order to use; default the learner's user name.

    Attributes
    ----------
    entry : QuizEntry
    choices : tuple of str
        The options in the order shown.
    answer : str
    choice_buttons : Control
        The options; set ``.value`` to an option's text to answer (None until answered).
    feedback_html : Readout
        "Right." or "Not quite." with the option's explanation (CSS ``gradkit-feedback``,
        ``gradkit-verdict``).
    correct : bool or None
        Whether the current choice is right (None before any answer).
    attempts : int
        How many answers were given.
    error_area : ErrorArea
        ``.value`` is the HTML of the error area (empty when all is well).
    """

    css = "gradkit-quiz"
    view = "quiz"
    _stage = None  # close() from __del__ after a constructor refused its arguments
    _css = with_theme(LAB_CSS)

    def __init__(
        self,
        quiz_id: str,
        choices: Sequence[str] | None = None,
        answer: int | str | None = None,
        explain: str | Sequence[str] | Mapping[str, str] = "",
        *,
        bank: str | Path | QuizBank | None = None,
        user: str | None = None,
    ) -> None:
        entry, order = _entry_and_order(quiz_id, choices, answer, explain, bank, user)
        super().__init__()
        with self._building():
            self.entry = entry
            self.question = entry.question
            self.answer = entry.answer
            self.choices = order
            self.correct: bool | None = None
            self.attempts = 0
            self._build_controls(entry, order)

    def _build_controls(self, entry: QuizEntry, order: tuple[str, ...]) -> None:
        self.choice_buttons = add_nullable_choice(
            self,
            "choice",
            "choices",
            css="gradkit-choices",
            tooltip="pick an answer: feedback appears right away",
            options=[(o, o) for o in order],
        )
        self.feedback_html = feedback_readout(self)
        self._feedback = {
            option: feedback_html(option == entry.answer, entry.explanation_for(option))
            for option in order
        }
        # sent ahead, so the browser answers a click without waiting for the kernel
        self.scene = {"feedback": self._feedback, "right": {o: o == entry.answer for o in order}}
        self.choice_buttons.observe(lambda change: self._answered())
        self._layout(entry.question, "", [self.choice_buttons], [self.feedback_html])
        self.alt = f"quiz: {entry.question}"

    def _answered(self) -> None:
        choice = self.choice_buttons.value
        if choice is None:
            self.correct = None
            self.feedback_html.value = ""
            return
        self.attempts += 1
        verdict = grade_choice(self.entry, choice)
        self.correct = verdict.correct
        self.feedback_html.value = self._feedback[choice]

    def __repr__(self) -> str:
        return f"Quiz({self.entry.id!r})"


def _entry_and_order(
    quiz_id: str,
    choices: Sequence[str] | None,
    answer: int | str | None,
    explain: str | Sequence[str] | Mapping[str, str],
    bank: str | Path | QuizBank | None,
    user: str | None,
) -> tuple[QuizEntry, tuple[str, ...]]:
    """The question and its options in the order shown (the learner's, or as written inline)."""
    if choices is None:
        if answer is not None or explain:
            raise TypeError(
                "answer and explain belong to an inline question: Quiz(question, choices, "
                "answer); for the quiz file pass only the id, e.g. Quiz('03-why-float32')"
            )
        entry = as_bank(bank).quiz(quiz_id)
        return entry, shuffled_options(entry.options, entry.id, user)
    entry = _inline_entry(quiz_id, choices, answer, explain)
    return entry, tuple(choices)  # an inline question keeps the order it was written in


def _inline_entry(
    question: str, choices: Any, answer: Any, explain: str | Sequence[str] | Mapping[str, str]
) -> QuizEntry:
    """A QuizEntry for a question written in the cell (the older inline form)."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be a non-empty string")
    if isinstance(choices, str) or not isinstance(choices, Sequence):
        raise TypeError("choices must be a list of strings, e.g. ['True', 'False']")
    choices = list(choices)
    if len(choices) < 2 or not all(isinstance(c, str) and c.strip() for c in choices):
        raise ValueError("choices must hold at least two non-empty strings")
    if len(set(choices)) != len(choices):
        raise ValueError("choices must be distinct")
    answer = _inline_answer(answer, choices)
    why = _explanations(explain, choices)
    wrong = tuple(WrongOption(c, why[c]) for c in choices if c != answer)
    return QuizEntry(question.strip(), question.strip(), answer, why[answer], wrong)


def _inline_answer(answer: Any, choices: list[str]) -> str:
    """The right choice's text, from its index or its text."""
    if answer is None:
        raise TypeError("answer is missing: pass the right choice's index or its text")
    if isinstance(answer, bool):
        raise TypeError("answer must be a choice's index or its text, not a bool")
    if isinstance(answer, int):
        if not 0 <= answer < len(choices):
            raise ValueError(f"answer={answer} is not an index of choices (0..{len(choices) - 1})")
        return choices[answer]
    if answer not in choices:
        raise ValueError(f"answer={answer!r} is not one of the choices {choices}")
    return answer


def _explanations(
    explain: str | Sequence[str] | Mapping[str, str], choices: list[str]
) -> dict[str, str]:
    if isinstance(explain, str):
        return dict.fromkeys(choices, explain)
    if isinstance(explain, Mapping):
        unknown = [k for k in explain if k not in choices]
        if unknown:
            raise ValueError(f"explain names unknown choices {unknown}; choices are {choices}")
        return {c: str(explain.get(c, "")) for c in choices}
    if isinstance(explain, Sequence):
        if len(explain) != len(choices):
            raise ValueError(
                f"explain has {len(explain)} entries for {len(choices)} choices; give one per "
                "choice, or one string for all"
            )
        return {c: str(e) for c, e in zip(choices, explain, strict=True)}
    raise TypeError("explain must be a string, a list with one string per choice, or a dict")
