"""Quiz: a multiple-choice question from the quiz file, with feedback for every option.

>>> from gradkit.widgets import Quiz
>>> Quiz("03-why-float32")  # doctest: +SKIP

The question, its options and their explanations live in ``gradkit/data/quizzes.toml`` (see
:mod:`gradkit.quiz_bank`), never in the learner's cell. Python sends them all with the widget;
the page (``quiz.js``) shuffles the options in the learner's own order, marks the one picked right
or wrong and shows its explanation, with no kernel needed (a static export answers too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import traitlets

from ...quiz_bank import QuizBank, QuizEntry, WrongOption, as_bank, grade_choice, order_seed
from .common import Choice, PracticeWidget

__all__ = ["Quiz", "quiz_entry"]

#: An inline question's explanations: one for all, a list with one per choice, or a dict.
Explain = str | Sequence[str] | Mapping[str, str]


class Quiz(PracticeWidget):
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
        Whose option order to use; default the learner's user name. The page shuffles the
        options with a seed of user and quiz id (the file's order when
        ``GRADKIT_QUIZ_ORDER=fixed``; an inline question keeps its written order).

    Attributes
    ----------
    entry : QuizEntry
    question, answer : str
    choices : tuple of str
        The options as sent (the file's order, or as written inline).
    choice_buttons : Control
        The options; set ``.value`` to an option's text to answer as a click does.
    attempts : int
        How many answers were given.
    """

    css = "gradkit-quiz"
    view = "quizView"
    scripts = ("practice/feedback.js", "practice/quiz.js")

    choice = traitlets.Unicode(
        None, allow_none=True, help="the option picked (in the page or from Python), or None"
    ).tag(sync=True, state=True)

    def __init__(
        self,
        quiz_id: str,
        choices: Sequence[str] | None = None,
        answer: int | str | None = None,
        explain: Explain = "",
        *,
        bank: str | Path | QuizBank | None = None,
        user: str | None = None,
    ) -> None:
        entry, options, seed = quiz_entry(quiz_id, choices, answer, explain, bank, user)
        super().__init__()
        with self.building():
            self.entry = entry
            self.question, self.answer, self.choices = entry.question, entry.answer, options
            self.attempts = 0
            spec = {"kind": "options", "name": "choice", "css": "gradkit-choices"}
            self.choice_buttons = self.add_control(
                Choice(self, spec, [(o, o) for o in options]), None
            )
            readouts = [("feedback", "gradkit-feedback gradkit-verdict")]
            self.layout(entry.question, "", [], readouts, alt=f"quiz: {entry.question}")
            # every option's verdict: the page asks, shuffles, marks and explains
            graded = [grade_choice(entry, o) for o in options]
            sent = [
                {"text": g.given, "right": g.correct, "explanation": g.explanation} for g in graded
            ]
            self.send_scene(
                {"question": entry.question, "seed": seed, "options": sent}, key=entry.id
            )
            self.observe(self.guard(self._answered), names=["choice"])

    @property
    def correct(self) -> bool | None:
        """Whether the option picked is right, as the page marks it (None before any)."""
        picked = [o["right"] for o in self.scene["options"] if o["text"] == self.choice]
        return bool(picked[0]) if picked else None

    def choose(self, option: str | None) -> None:
        """Pick ``option`` as a click in the page does (None: nothing picked).

        Raises ValueError for a text that is not one of the options.
        """
        self.choice_buttons.value = option

    def _answered(self, change: dict[str, Any]) -> None:
        if change["new"] is not None:
            self.attempts += 1

    def __repr__(self) -> str:
        return f"Quiz({self.entry.id!r})"


def quiz_entry(
    quiz_id: str,
    choices: Sequence[str] | None,
    answer: int | str | None,
    explain: Explain,
    bank: str | Path | QuizBank | None,
    user: str | None,
) -> tuple[QuizEntry, tuple[str, ...], int | None]:
    """(entry, options as sent, shuffle seed): the file's order and the learner's seed (with
    :func:`gradkit.quiz_bank.order_seed` the right option takes every place equally often over
    the bank's quizzes), or an inline question's options as written (no seed: never shuffled)."""
    if choices is None:
        if answer is not None or explain:
            raise TypeError(
                "answer and explain belong to an inline question: Quiz(question, choices, "
                "answer); for the quiz file pass only the id, e.g. Quiz('03-why-float32')"
            )
        loaded = as_bank(bank)
        entry = loaded.quiz(quiz_id)
        sizes = [len(q.options) for q in loaded.quizzes.values()]
        seed = order_seed(
            entry.id, user, n=len(entry.options), quizzes=list(loaded.quizzes), sizes=sizes
        )
        return entry, entry.options, seed
    entry = _inline_entry(quiz_id, choices, answer, explain)
    return entry, tuple(choices), None


def _inline_entry(question: str, choices: Any, answer: Any, explain: Explain) -> QuizEntry:
    """A QuizEntry for a question written in the cell (the older inline form); the right choice
    is given by its index or its text."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be a non-empty string")
    if isinstance(choices, str) or not isinstance(choices, Sequence):
        raise TypeError("choices must be a list of strings, e.g. ['True', 'False']")
    choices = list(choices)
    if len(choices) < 2 or not all(isinstance(c, str) and c.strip() for c in choices):
        raise ValueError("choices must hold at least two non-empty strings")
    if len(set(choices)) != len(choices):
        raise ValueError("choices must be distinct")
    if answer is None:
        raise TypeError("answer is missing: pass the right choice's index or its text")
    if isinstance(answer, bool):
        raise TypeError("answer must be a choice's index or its text, not a bool")
    if isinstance(answer, int):
        if not 0 <= answer < len(choices):
            raise ValueError(f"answer={answer} is not an index of choices (0..{len(choices) - 1})")
        answer = choices[answer]
    if answer not in choices:
        raise ValueError(f"answer={answer!r} is not one of the choices {choices}")
    why = _explanations(explain, choices)
    wrong = tuple(WrongOption(c, why[c]) for c in choices if c != answer)
    return QuizEntry(question.strip(), question.strip(), answer, why[answer], wrong)


def _explanations(explain: Explain, choices: list[str]) -> dict[str, str]:
    """One explanation per choice, from one string for all, a list or a dict."""
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
