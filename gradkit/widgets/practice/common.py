"""What the practice widgets share on the Python side: their stylesheet, option controls whose
value may be None, and reading a table of words from the page's script (their one home)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from ..base.controls import Control
from ..base.host import THEME_CSS, GradkitWidget

__all__ = ["Choice", "PracticeWidget", "page_words"]


class PracticeWidget(GradkitWidget):
    """The base of the practice widgets: the theme with the family's stylesheet (anywidget keeps
    one stylesheet per class)."""

    _css = THEME_CSS + (Path(__file__).parent / "practice.css").read_text(encoding="utf-8")


def page_words(name: str, script: Path) -> Mapping:
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


class Choice(Control):
    """Options of which one may be picked, or none yet: ``.value`` is None until one is."""

    #: The page may send None: nothing picked (a new specimen clears the prediction).
    accepts_none: ClassVar[bool] = True

    def to_state(self, value: Any) -> Any:
        """None (nothing picked) or the option's label; any other value raises ValueError."""
        return None if value is None else super().to_state(value)
