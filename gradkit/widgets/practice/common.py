"""What the practice widgets share on the Python side: their stylesheet, option controls whose
value may be None, read-only views of text the page shows, and the verdict's words.

The page words every verdict: its words live once, in ``VERDICT`` in ``feedback.js``, and
Python reads them from there (:data:`VERDICT_WORDS`); :func:`verdict_text` is the page's
sentence as plain text, for tests and scripts (``tests/js/practice.test.mjs`` checks both agree).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from ..base.controls import Control
from ..base.host import THEME_CSS, GradkitWidget

__all__ = [
    "PRACTICE_CSS",
    "VERDICT_WORDS",
    "Choice",
    "PageText",
    "PracticeWidget",
    "nullable",
    "page_words",
    "verdict_text",
]

#: The theme and the practice widgets' own rules (anywidget keeps one stylesheet per class).
PRACTICE_CSS = THEME_CSS + (Path(__file__).parent / "practice.css").read_text(encoding="utf-8")


class PracticeWidget(GradkitWidget):
    """The base of the practice widgets: the theme with the family's stylesheet."""

    _css = PRACTICE_CSS


def page_words(name: str, script: Path = Path(__file__).parent / "feedback.js") -> Mapping:
    """A table of words the page owns, read from its script: ``export const NAME = { key:
    "text", ... };`` (keys and double-quoted JSON strings, nothing else) as a read-only mapping.

    Raises
    ------
    LookupError
        When ``script`` has no such table, or it holds more than keys and quoted words.
    """
    text = script.read_text(encoding="utf-8")
    found = re.search(rf"^export const {re.escape(name)} = \{{(.*?)\}};$", text, re.M | re.S)
    pair = r'\s*(\w+): ("(?:[^"\\\n]|\\.)*"),?'
    body = found.group(1) if found else ""
    if not body.strip() or re.fullmatch(f"(?:{pair})+\\s*", body) is None:
        raise LookupError(
            f"{script.name} has no table 'export const {name} = {{ key: \"words\" }};'"
        )
    return MappingProxyType({key: json.loads(words) for key, words in re.findall(pair, body)})


#: The words of a verdict: the page's, read from ``VERDICT`` in ``feedback.js`` (their one home).
VERDICT_WORDS = page_words("VERDICT")


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

    #: The page may send None: nothing picked (a new specimen clears the prediction).
    accepts_none: ClassVar[bool] = True

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
