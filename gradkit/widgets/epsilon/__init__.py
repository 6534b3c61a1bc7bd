"""EpsilonLab: the V-shaped error of a numeric slope versus eps, dtype by dtype."""

from __future__ import annotations

from .lab import EpsilonLab

__all__ = ["EpsilonLab"]
