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

from ...quiz_bank import QuizBank, grade_choice
from .common import Choice, PracticeWidget
from .inline import quiz_entry

__all__ = ["Quiz"]


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
    choice : str or None
        The option picked in the page (or by :meth:`choose`), None before any.
    correct : bool or None
        Whether that option is right (None before any answer).
    attempts : int
        How many answers were given.
    error_area
        ``.value`` is the HTML of the error area (empty when all is well).
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
        explain: str | Sequence[str] | Mapping[str, str] = "",
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
            self.send_scene(self._scene(options, seed), key=entry.id)
            self.observe(self.guard(self._answered), names=["choice"])

    def _scene(self, options: tuple[str, ...], seed: int | None) -> dict:
        """What the page needs to ask, shuffle, mark and explain: every option's verdict."""
        graded = [grade_choice(self.entry, o) for o in options]
        return {
            "question": self.entry.question,
            "seed": seed,
            "options": [
                {"text": g.given, "right": g.correct, "explanation": g.explanation} for g in graded
            ],
        }

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
