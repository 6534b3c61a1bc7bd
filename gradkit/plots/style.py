"""The shared style of gradkit's pictures: colours, dtype styles, small helpers.

The colours are the theme's (gradkit/widgets/static/gradkit.css holds the same values for the
browser side).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["DTYPE_STYLES", "STYLE"]

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
_BLUE, _VERMILLION, _GREEN, _PINK = "#0072B2", "#D55E00", "#009E73", "#CC79A7"
_ORANGE, _SKY, _GREY, _INK = "#E69F00", "#56B4E9", "#777777", "#222222"

#: Colour, marker and line style of each dtype's curve (also used by the widgets' legends).
DTYPE_STYLES: dict[str, tuple[str, str, str]] = {
    "float64": (_BLUE, "o", "-"),
    "float32": (_VERMILLION, "s", "-"),
    "float16": (_GREEN, "^", "--"),
    "bfloat16": (_PINK, "D", "-."),
}

_NAN2 = [math.nan, math.nan]


def _finite(values: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(values, dtype=float).ravel()
    return a[np.isfinite(a)]


def _padded(
    lo: float, hi: float, pad: float = 0.08, minimum: float = 1e-300
) -> tuple[float, float]:
    span = hi - lo
    if not span > minimum:
        centre = 0.5 * (lo + hi)
        half = max(abs(centre) * 0.05, 1.0)
        return centre - half, centre + half
    return lo - pad * span, hi + pad * span


#: The theme colours by name (the CSS variables --gk-<name> of static/gradkit.css).
STYLE: dict[str, str] = {
    "blue": _BLUE,
    "vermillion": _VERMILLION,
    "green": _GREEN,
    "pink": _PINK,
    "orange": _ORANGE,
    "sky": _SKY,
    "grey": _GREY,
    "ink": _INK,
}
