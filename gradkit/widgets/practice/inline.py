"""Which question a Quiz asks: an entry of the quiz file, or one written inline in the cell.

:func:`quiz_entry` returns the entry, its options in the order they are sent and the random seed
the page shuffles them with (:func:`gradkit.quiz_bank.order_seed`: over the bank's quizzes in
lesson order the right option takes every place equally often).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...quiz_bank import QuizBank, QuizEntry, WrongOption, as_bank, order_seed

__all__ = ["order_seed", "quiz_entry"]

Explain = str | Sequence[str] | Mapping[str, str]


def quiz_entry(
    quiz_id: str,
    choices: Sequence[str] | None,
    answer: int | str | None,
    explain: Explain,
    bank: str | Path | QuizBank | None,
    user: str | None,
) -> tuple[QuizEntry, tuple[str, ...], int | None]:
    """(entry, options as sent, shuffle seed): the file's order and the learner's seed, or an
    inline question's options in the order written (no seed: never shuffled)."""
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
