"""What the practice widgets share on the Python side: their stylesheet, and option controls whose
value may be None."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from ..base.controls import Control
from ..base.host import THEME_CSS, GradkitWidget

__all__ = ["Choice", "PracticeWidget"]


class PracticeWidget(GradkitWidget):
    """The base of the practice widgets: the theme with the family's stylesheet (anywidget keeps
    one stylesheet per class)."""

    _css = THEME_CSS + (Path(__file__).parent / "practice.css").read_text(encoding="utf-8")


class Choice(Control):
    """Options of which one may be picked, or none yet: ``.value`` is None until one is."""

    #: The page may send None: nothing picked (a new specimen clears the prediction).
    accepts_none: ClassVar[bool] = True

    def to_state(self, value: Any) -> Any:
        """None (nothing picked) or the option's label; any other value raises ValueError."""
        return None if value is None else super().to_state(value)
