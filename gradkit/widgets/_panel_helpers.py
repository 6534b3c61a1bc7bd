"""The old base's stylesheet with a panel's own rules added, for JacobianBuilder.

Quiz, Predict, ExercisePanel and ZooHunt moved to :mod:`.practice`; delete this file when
JacobianBuilder moves to the new base.
"""

from __future__ import annotations

from pathlib import Path

from ._base import GradkitWidget

__all__ = ["with_theme"]


def with_theme(extra_css: str) -> str:
    """The theme's stylesheet (the base widget's ``_css``, text or a path) plus ``extra_css``."""
    theme = GradkitWidget._css
    text = theme.read_text(encoding="utf-8") if isinstance(theme, Path) else str(theme)
    return text + extra_css
