"""SlopeExplorer: the secant (numeric slope) leaving the tangent (analytic slope) as eps moves."""

from __future__ import annotations

from .explorer import SlopeExplorer

__all__ = ["SlopeExplorer"]
