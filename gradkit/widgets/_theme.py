"""The look shared by every widget: colours for matplotlib, the static folder, dtype tooltips.

:data:`THEME` holds the same colours as the CSS variables of ``static/gradkit.css`` (a test keeps
the two equal).
"""

from __future__ import annotations

from pathlib import Path

import torch

from .._args import DTYPES
from .._palette import PALETTE
from ..numerics import unit_roundoff

__all__ = ["DTYPE_TIPS", "STATIC", "THEME"]

#: The browser half: the base scripts, one ``<view>.js`` per widget, and ``gradkit.css``.
STATIC = Path(__file__).parent / "static"

#: The theme for matplotlib: the palette (the CSS variables of static/gradkit.css) and the font.
THEME: dict[str, str] = {**PALETTE, "font": "DejaVu Sans"}

#: The tooltip of each dtype button: bits and unit roundoff.
DTYPE_TIPS: dict[str, str] = {
    name: f"{name}: {torch.finfo(dt).bits} bits, unit roundoff u = {unit_roundoff(dt):.2g}"
    + (" (gradcheck's dtype)" if name == "float64" else "")
    for name, dt in DTYPES.items()
}
