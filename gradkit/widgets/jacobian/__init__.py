"""JacobianBuilder: gradcheck's two Jacobians built a column and a row at a time, with the cost.

``builder.py`` (the widget), ``steps.py`` (every call gradcheck's slow mode makes, counted and
timed; gradcheck's comparison), ``jacobian.js`` (the picture and readouts) and ``matrix.js``
(a Jacobian drawn as a matrix, shared with GradcheckLab's heatmaps).
"""

from __future__ import annotations

from .builder import Calls, JacobianBuilder

__all__ = ["Calls", "JacobianBuilder"]
