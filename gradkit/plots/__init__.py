"""Pictures of finite differences: draw on a given Axes, then update the artists in place.

Matplotlib (and numpy) only: every function takes plain numbers and arrays, never torch tensors,
so the pictures can be tested on the Agg backend without widgets or torch. The pattern is the
same for every picture:

>>> from matplotlib.figure import Figure
>>> fig = Figure()
>>> art = draw_slope(fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2))
>>> # ... later, on every change:  update_slope(art, x=..., eps=..., ...)

``draw_*`` builds the artists once and returns them in a small dataclass; ``update_*`` changes
their data. Each dataclass lists, in ``animated``, the artists whose data change when the
learner moves a control; a widget can redraw just those (blitting) while axes and ticks stay.
"""

from __future__ import annotations

from .slope import SlopeArtists, draw_slope, update_slope, update_slope_view, zoom_limits
from .style import DTYPE_STYLES, STYLE

__all__ = [
    "DTYPE_STYLES",
    "STYLE",
    "SlopeArtists",
    "draw_slope",
    "update_slope",
    "update_slope_view",
    "zoom_limits",
]
