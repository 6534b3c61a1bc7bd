"""Pictures of finite differences: draw on a given Axes, then update the artists in place.

Matplotlib (and numpy) only: every function takes plain numbers and arrays, never torch tensors,
so the pictures can be tested on the Agg backend without widgets or torch. The pattern is the
same for every picture:

>>> from matplotlib.figure import Figure
>>> fig = Figure()
>>> art = draw_error_curves(fig.add_subplot())
>>> # ... later, on every change:  update_error_curves(art, eps=..., errors=..., ...)

``draw_*`` builds the artists once and returns them in a small dataclass; ``update_*`` changes
their data. Each dataclass lists, in ``animated``, the artists whose data change when the
learner moves a control; a widget can redraw just those (blitting) while axes and ticks stay.
"""

from __future__ import annotations

from .error_curves import (
    ErrorCurveArtists,
    draw_error_curves,
    update_error_curves,
    update_error_highlight,
    update_error_marker,
)
from .ruler import RulerArtists, draw_float_ruler, update_float_ruler
from .slope import SlopeArtists, draw_slope, update_slope, update_slope_view, zoom_limits
from .style import DTYPE_STYLES, STYLE

__all__ = [
    "DTYPE_STYLES",
    "STYLE",
    "ErrorCurveArtists",
    "RulerArtists",
    "SlopeArtists",
    "draw_error_curves",
    "draw_float_ruler",
    "draw_slope",
    "update_error_curves",
    "update_error_highlight",
    "update_error_marker",
    "update_float_ruler",
    "update_slope",
    "update_slope_view",
    "zoom_limits",
]
