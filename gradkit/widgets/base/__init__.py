"""The base every gradkit widget builds on: the anywidget host, controls, the eps rule, tables.

Python side: :class:`GradkitWidget` (``host.py``), the control handles (``controls.py``) and
makers (``rows.py``), the eps rule (``eps.py``), scene packing (``tables.py``), what ``f`` may be
(``functions.py``), errors and re-runs (``guard.py``), work after the first picture
(``schedule.py``), the ES bundle (``bundle.py``). Browser side, beside them: ``host.js``,
``controls.js``, ``eps.js``, ``tables.js``, ``plot.js``, ``format.js`` and ``theme.css``.
"""

from __future__ import annotations

from .controls import Control
from .guard import InputError
from .host import GradkitWidget

__all__ = ["Control", "GradkitWidget", "InputError"]
