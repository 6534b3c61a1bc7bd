"""GradcheckLab: gradcheck's verdict, its cause and the two Jacobians, for the zoo and yours.

``lab.py`` (the widget), ``target.py`` (what ``fn`` may be, its inputs in a dtype),
``states.py`` (one check as the page shows it; the states computed ahead) and ``lab.js``
(the picture and the readouts).
"""

from __future__ import annotations

from .lab import GradcheckLab

__all__ = ["GradcheckLab"]
