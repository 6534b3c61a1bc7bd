"""Where ``gradkit.exercises`` finds ExercisePanel (it lives in :mod:`.practice` now).

Kept until ``gradkit/exercises/__init__.py`` names ``gradkit.widgets.practice``; then delete.
"""

from .practice.exercise import ExercisePanel, user_namespace

__all__ = ["ExercisePanel", "user_namespace"]
