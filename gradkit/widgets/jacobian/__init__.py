"""JacobianBuilder: gradcheck's two Jacobians built a column and a row at a time, with the cost.

``builder.py`` (the widget), ``steps.py`` (every call gradcheck's slow mode makes, counted and
timed) and ``jacobian.js`` (the picture and readouts); a Jacobian drawn as a matrix
(``base/matrix.js``) and gradcheck's comparison (``base/jacobians.py``) are shared with
GradcheckLab.
"""

from __future__ import annotations

from .builder import JacobianBuilder

__all__ = ["JacobianBuilder"]  # its widget: gradkit.widgets finds it here
