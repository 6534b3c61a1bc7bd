"""The shared style of gradkit's pictures: colours, dtype styles, small helpers.

The colours are :data:`gradkit._palette.PALETTE` (gradkit/widgets/static/gradkit.css holds the
same values for the browser side).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._palette import PALETTE

__all__ = ["DTYPE_STYLES", "STYLE", "finite_values", "padded_limits"]

#: The palette's colours by name, for the plot modules.
BLUE, VERMILLION, GREEN, PINK = (PALETTE[k] for k in ("blue", "vermillion", "green", "pink"))
ORANGE, SKY, GREY, INK = (PALETTE[k] for k in ("orange", "sky", "grey", "ink"))
ERROR = PALETTE["error"]

#: Colour, marker and line style of each dtype's curve (also used by the widgets' legends).
DTYPE_STYLES: dict[str, tuple[str, str, str]] = {
    "float64": (BLUE, "o", "-"),
    "float32": (VERMILLION, "s", "-"),
    "float16": (GREEN, "^", "--"),
    "bfloat16": (PINK, "D", "-."),
}


def finite_values(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """The finite entries of ``values``, flattened."""
    a = np.asarray(values, dtype=float).ravel()
    return a[np.isfinite(a)]


def padded_limits(
    lo: float, hi: float, pad: float = 0.08, minimum: float = 1e-300
) -> tuple[float, float]:
    """Limits around [lo, hi] with ``pad`` of the span each side (a unit span if it is empty)."""
    span = hi - lo
    if not span > minimum:
        centre = 0.5 * (lo + hi)
        half = max(abs(centre) * 0.05, 1.0)
        return centre - half, centre + half
    return lo - pad * span, hi + pad * span


#: The theme colours by name (:data:`gradkit._palette.PALETTE`).
STYLE: dict[str, str] = PALETTE
