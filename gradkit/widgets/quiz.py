"""Quiz: a multiple-choice question from the quiz file, with feedback for every option.

>>> from gradkit.widgets import Quiz
>>> Quiz("03-why-float32")  # doctest: +SKIP

The question, its options and their explanations live in ``gradkit/data/quizzes.toml`` (see
:mod:`gradkit.quiz_bank`), never in the learner's cell. The options are shown in the learner's
own order (shuffled by user name and quiz id; the file's order when ``GRADKIT_QUIZ_ORDER=fixed``).
The browser shows the feedback for a picked option at once, from a table sent with the widget.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import quiz_bank
from ..quiz_bank import QuizBank, QuizEntry, WrongOption, grade_choice, shuffled_options
from ._base import Control, GradkitWidget

__all__ = ["Quiz", "rich_text", "with_theme"]

#: Styles of the quiz-like widgets (Quiz, Predict), on top of the theme's variables.
LAB_CSS = """
.gradkit-quiz .gk-row, .gradkit-predict .gk-row { flex-direction: column; gap: 6px; }
.gradkit-quiz .gk-title, .gradkit-predict .gk-title { font-size: 1.08em; line-height: 1.4; }
.gradkit-quiz .gk-header, .gradkit-predict .gk-header { flex-wrap: wrap; }
.gradkit-widget .gk-options { display: flex; flex-direction: column; gap: 4px;
  align-items: stretch; max-width: 640px; flex: 1 1 auto; }
.gradkit-widget button.gk-option { text-align: left; white-space: normal; padding: 4px 10px;
  line-height: 1.35; }
.gradkit-widget button.gk-option::before { content: "○"; margin-right: 8px;
  color: var(--gk-muted); }
.gradkit-widget button.gk-option[aria-checked="true"]::before { content: "●"; }
.gradkit-widget button.gk-option.gk-right[aria-checked="true"] { border-color: var(--gk-pass);
  background: #E7F4EC; }
.gradkit-widget button.gk-option.gk-wrong[aria-checked="true"] { border-color: var(--gk-error);
  background: #FBEAEA; }
.gradkit-widget .gk-feedback { border-left: 4px solid var(--gk-line); padding: 3px 8px;
  max-width: 640px; line-height: 1.45; }
.gradkit-widget .gk-feedback.gk-right { border-left-color: var(--gk-pass); }
.gradkit-widget .gk-feedback.gk-right .gk-verdict-word { color: var(--gk-pass); }
.gradkit-widget .gk-feedback.gk-wrong { border-left-color: var(--gk-error); }
.gradkit-widget .gk-feedback.gk-wrong .gk-verdict-word { color: var(--gk-error); }
.gradkit-widget .gk-feedback code, .gradkit-widget .gk-title code { font-family: var(--gk-mono); }
"""

_RIGHT, _WRONG = "#1B7F3B", "#B3261E"


def with_theme(extra_css: str) -> str:
    """The theme's stylesheet (the base widget's ``_css``, text or a path) plus ``extra_css``."""
    theme = GradkitWidget._css
    text = theme.read_text(encoding="utf-8") if isinstance(theme, Path) else str(theme)
    return text + extra_css


_CODE = re.compile(r"`([^`]+)`")


def rich_text(text: str) -> str:
    """Quiz text as HTML: escaped, with `backticks` shown as code."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text))


def feedback_html(correct: bool, explanation: str, *, retry: bool = True) -> str:
    """The feedback box: ✔ Right / ✘ Not quite, then the explanation."""
    if correct:
        head = "✔ <b class='gk-verdict-word'>Right.</b>"
        color, css = _RIGHT, "gk-right"
    else:
        head = "✘ <b class='gk-verdict-word'>Not quite.</b>"
        if retry:
            head += " Try another answer."
        color, css = _WRONG, "gk-wrong"
    detail = f" {rich_text(explanation)}" if explanation else ""
    return (
        f"<div role='status' class='gk-feedback {css}' style='border-left-color:{color}'>"
        f"{head}{detail}</div>"
    )


class _ChoiceControl(Control):
    """The options, drawn by the quiz view; ``.value`` is the picked option's text or None."""

    @property
    def value(self) -> str | None:
        """The picked option (None before any answer)."""
        return self._owner.values.get(self.name)

    @value.setter
    def value(self, option: str | None) -> None:
        if option is not None and option not in self.options:
            raise ValueError(f"choice {option!r} is not one of the options {list(self.options)}")
        self._owner._set_values({self.name: option})


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
        if choices is None:
            if answer is not None or explain:
                raise TypeError(
                    "answer and explain belong to an inline question: Quiz(question, choices, "
                    "answer); for the quiz file pass only the id, e.g. Quiz('03-why-float32')"
                )
            source = bank if isinstance(bank, QuizBank) else quiz_bank.load_bank(bank)
            entry = source.quiz(quiz_id)
            order = shuffled_options(entry.options, entry.id, user)
        else:
            entry = _inline_entry(quiz_id, choices, answer, explain)
            order = tuple(choices)  # an inline question keeps the order it was written in
        super().__init__()
        with self._building():
            self.entry = entry
            self.question = entry.question
            self.answer = entry.answer
            self.choices = order
            self.correct: bool | None = None
            self.attempts = 0
            self.choice_buttons = _ChoiceControl(
                self,
                "choice",
                "choices",
                css="gradkit-choices",
                description="",
                tooltip="pick an answer: feedback appears right away",
                options=[(o, o) for o in order],
            )
            self._add(self.choice_buttons)
            self.values = {**self.values, "choice": None}
            self.feedback_html = self.readout("feedback", "gradkit-feedback gradkit-verdict")
            self.feedback_html._dom_classes = (
                "gradkit-readout",
                "gradkit-feedback",
                "gradkit-verdict",
            )
            self._feedback = {
                option: feedback_html(
                    option == entry.answer, entry.explanation_for(option), retry=True
                )
                for option in order
            }
            # sent ahead, so the browser answers a click without waiting for the kernel
            self.scene = {
                "feedback": self._feedback,
                "right": {o: o == entry.answer for o in order},
            }
            self.choice_buttons.observe(lambda change: self._answered())
            self._layout(
                entry.question,
                "",
                [self.choice_buttons],
                [self.feedback_html],
            )
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
    if answer is None:
        raise TypeError("answer is missing: pass the right choice's index or its text")
    if isinstance(answer, bool):
        raise TypeError("answer must be a choice's index or its text, not a bool")
    if isinstance(answer, int):
        if not 0 <= answer < len(choices):
            raise ValueError(f"answer={answer} is not an index of choices (0..{len(choices) - 1})")
        answer = choices[answer]
    elif answer not in choices:
        raise ValueError(f"answer={answer!r} is not one of the choices {choices}")
    why = _explanations(explain, choices)
    wrong = tuple(WrongOption(c, why[c]) for c in choices if c != answer)
    return QuizEntry(question.strip(), question.strip(), answer, why[answer], wrong)


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
