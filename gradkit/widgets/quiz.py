"""Quiz: a multiple-choice question with immediate feedback, for the lessons' exercises."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import ipywidgets as widgets

from ._base import Panel

__all__ = ["Quiz"]

_RIGHT, _WRONG = "#1b7f3b", "#B3261E"


class Quiz(Panel):
    """Multiple choice with immediate feedback.

    Parameters
    ----------
    question : str
        Plain text (HTML is escaped).
    choices : sequence of str
        At least two distinct answers.
    answer : int or str
        The right choice, by index or by text.
    explain : str, sequence of str or mapping, optional
        One explanation shown after any answer, or one per choice (a sequence in the order of
        ``choices``, or a mapping from choice text to explanation).

    Attributes
    ----------
    question_html : ipywidgets.HTML
    choice_buttons : ipywidgets.RadioButtons
        Set ``.value`` to a choice's text to answer (None until answered).
    feedback_html : ipywidgets.HTML
        "Right" or "Not quite" with the explanation (CSS classes ``gradkit-verdict`` and
        ``gradkit-feedback``).
    error_area : ipywidgets.HTML
    correct : bool or None
        Whether the current choice is right (None before any answer).
    attempts : int
        How many answers were given.

    Examples
    --------
    >>> Quiz(
    ...     "What does gradcheck do when a backward rule is wrong?",
    ...     ["It returns False", "It raises GradcheckError", "It fixes the rule"],
    ...     answer="It raises GradcheckError",
    ...     explain="With raise_exception=True (the default) a mismatch raises GradcheckError.",
    ... )  # doctest: +SKIP
    """

    css = "gradkit-quiz"

    def __init__(
        self,
        question: str,
        choices: Sequence[str],
        answer: int | str,
        explain: str | Sequence[str] | Mapping[str, str] = "",
    ) -> None:
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question must be a non-empty string")
        if isinstance(choices, str) or not isinstance(choices, Sequence):
            raise TypeError("choices must be a list of strings, e.g. ['True', 'False']")
        choices = list(choices)
        if len(choices) < 2 or not all(isinstance(c, str) and c.strip() for c in choices):
            raise ValueError("choices must hold at least two non-empty strings")
        if len(set(choices)) != len(choices):
            raise ValueError("choices must be distinct")
        if isinstance(answer, bool):
            raise TypeError("answer must be a choice's index or its text, not a bool")
        if isinstance(answer, int):
            if not 0 <= answer < len(choices):
                raise ValueError(
                    f"answer={answer} is not an index of choices (0..{len(choices) - 1})"
                )
            answer = choices[answer]
        elif answer not in choices:
            raise ValueError(f"answer={answer!r} is not one of the choices {choices}")
        self._explain = _explanations(explain, choices)
        super().__init__()
        with self._building():
            self.answer = answer
            self.choices = tuple(choices)
            self.correct: bool | None = None
            self.attempts = 0

            self.question_html = widgets.HTML(f"<b>{html.escape(question)}</b>")
            self.question_html.add_class("gradkit-question")
            self.choice_buttons = widgets.RadioButtons(
                options=choices,
                value=None,
                layout=widgets.Layout(width="auto"),
                tooltip="pick an answer: feedback appears right away",
            )
            self.choice_buttons.add_class("gradkit-choices")
            self.feedback_html = widgets.HTML("")
            self.feedback_html.add_class("gradkit-verdict")
            self.feedback_html.add_class("gradkit-feedback")
            self._observe(self.choice_buttons, self._answered)
            self.children = [
                self.question_html,
                self.choice_buttons,
                self.feedback_html,
                self.error_area,
            ]

    def _answered(self) -> None:
        choice = self.choice_buttons.value
        if choice is None:
            self.correct = None
            self.feedback_html.value = ""
            return
        self.attempts += 1
        self.correct = choice == self.answer
        why = self._explain.get(choice, "")
        if self.correct:
            head = f"<b style='color:{_RIGHT}'>✔ Right.</b>"
        else:
            head = f"<b style='color:{_WRONG}'>✘ Not quite</b> — try another answer."
        detail = f" {html.escape(why)}" if why else ""
        color = _RIGHT if self.correct else _WRONG
        self.feedback_html.value = (
            f"<div role='status' style='border-left:4px solid {color};padding:2px 8px'>"
            f"{head}{detail}</div>"
        )


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
