"""GradcheckLab: gradcheck's verdict, its cause and the two Jacobians, for the zoo and yours."""

from __future__ import annotations

from .lab import GradcheckLab

__all__ = ["GradcheckLab"]
