"""The base every gradkit widget builds on: the anywidget host, controls, the eps rule, tables.

``gradkit/widgets/README.md`` ("Where things live") says which file holds what.
"""

from __future__ import annotations

from .controls import Control
from .guard import InputError
from .host import GradkitWidget

__all__ = ["Control", "GradkitWidget", "InputError"]
