"""JacobianBuilder: gradcheck's two Jacobians built a column and a row at a time, with the cost."""

from __future__ import annotations

from .builder import JacobianBuilder

__all__ = ["JacobianBuilder"]  # its widget: gradkit.widgets finds it here
