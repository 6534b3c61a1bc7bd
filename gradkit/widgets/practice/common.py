"""What the practice widgets share on the Python side: their stylesheet, option controls whose
value may be None, read-only views of text the page shows, and the verdict's words.

The page words every verdict (``feedback.js``); :func:`verdict_text` is the same sentence as
plain text, for tests and scripts (``tests/js/practice.test.mjs`` checks both agree).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.controls import Control
from ..base.host import THEME_CSS, GradkitWidget

__all__ = [
    "PRACTICE_CSS",
    "VERDICT_WORDS",
    "Choice",
    "PageText",
    "PracticeWidget",
    "nullable",
    "verdict_text",
]

#: The theme and the practice widgets' own rules (anywidget keeps one stylesheet per class).
PRACTICE_CSS = THEME_CSS + (Path(__file__).parent / "practice.css").read_text(encoding="utf-8")


class PracticeWidget(GradkitWidget):
    """The base of the practice widgets: the theme with the family's stylesheet."""

    _css = PRACTICE_CSS


#: The words of a verdict, as the page writes them (``VERDICT`` in ``feedback.js``).
VERDICT_WORDS = {"right": "Right.", "wrong": "Not quite.", "retry": "Try another answer."}


def verdict_text(correct: bool, explanation: str, *, retry: bool) -> str:
    """The feedback the page shows for a verdict, as plain text: "Right. <why>" or
    "Not quite. [Try another answer.] <why>"."""
    words = [VERDICT_WORDS["right" if correct else "wrong"]]
    if retry and not correct:
        words.append(VERDICT_WORDS["retry"])
    if explanation:
        words.append(explanation)
    return " ".join(words)


class Choice(Control):
    """Options of which one may be picked, or none yet: ``.value`` is None until one is."""

    def to_state(self, value: Any) -> Any:
        """None (nothing picked) or the option's label; any other value raises ValueError."""
        return None if value is None else super().to_state(value)


def nullable(owner: GradkitWidget, control: Control) -> Choice:
    """``control`` (toggles or a drop-down) again as a :class:`Choice`, with nothing picked."""
    pairs = [(label, label) for label in control.options]
    return owner.add_control(Choice(owner, control.spec, pairs), None)


class PageText:
    """A read-only view of one readout of the page: ``.value`` is what it shows (or its text).

    Parameters
    ----------
    read : callable
        Returns the readout's text from the widget's state and scene.
    """

    def __init__(self, read: Callable[[], str]) -> None:
        self._read = read

    @property
    def value(self) -> str:
        """The readout's text now."""
        return self._read()

    def __repr__(self) -> str:
        return f"PageText({self.value!r})"
