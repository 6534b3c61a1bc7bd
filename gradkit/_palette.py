"""The colours of every gradkit picture, card and readout, written once.

Okabe-Ito colours for the data (distinguishable with the common colour-vision deficiencies),
plus the verdict colours. The HTML cards of :mod:`gradkit.report` and the exercises take them
from here, the widgets send them to the page (:data:`DTYPE_STYLES`), and the browser side has
the same values as CSS variables ``--gk-<name>`` in ``gradkit/widgets/base/theme.css`` (a test
keeps the two equal). Depends on nothing.
"""

from __future__ import annotations

__all__ = ["DTYPE_STYLES", "PALETTE"]

#: Colour by name.
PALETTE: dict[str, str] = {
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "green": "#009E73",
    "pink": "#CC79A7",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "grey": "#777777",
    "ink": "#222222",
    "muted": "#555555",
    "error": "#B3261E",  # a failing verdict, a wrong answer, an error
    "pass": "#1B7F3B",  # a passing verdict, a right answer
    "warn": "#8A5A00",  # a warning: half a nudge survives, torch warned
    "paper": "#FFFFFF",
    "line": "#D0D0D0",
}

#: Colour, marker and line style of each dtype's curve, wherever dtypes are drawn side by side.
DTYPE_STYLES: dict[str, tuple[str, str, str]] = {
    "float64": (PALETTE["blue"], "o", "-"),
    "float32": (PALETTE["vermillion"], "s", "-"),
    "float16": (PALETTE["green"], "^", "--"),
    "bfloat16": (PALETTE["pink"], "D", "-."),
}
