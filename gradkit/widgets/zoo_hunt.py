"""Where ``gradkit.exercises`` finds ZooHunt (it lives in :mod:`.practice` now).

Kept until ``gradkit/exercises/__init__.py`` names ``gradkit.widgets.practice``; then delete.
"""

from .practice.zoo_hunt import ZooHunt

__all__ = ["ZooHunt"]
