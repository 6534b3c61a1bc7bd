"""FloatRuler: the representable numbers of a dtype near x, and where x ± eps land."""

from __future__ import annotations

from .ruler import FloatRuler

__all__ = ["FloatRuler"]
