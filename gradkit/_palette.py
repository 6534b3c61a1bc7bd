"""The colours of every gradkit picture, card and readout, written once.

Okabe-Ito colours for the data (distinguishable with the common colour-vision deficiencies),
plus the verdict colours. matplotlib takes them from here (:mod:`gradkit.plots.style`), so do
the HTML cards of :mod:`gradkit.report` and the exercises; the browser side has the same values
as CSS variables ``--gk-<name>`` in ``gradkit/widgets/static/gradkit.css`` (a test keeps the two
equal). Depends on nothing.
"""

from __future__ import annotations

__all__ = ["PALETTE"]

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
