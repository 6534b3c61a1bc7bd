"""The static layer of a widget's picture: a matplotlib Figure sent to the browser as a PNG.

:class:`Stage` renders the whole figure; :class:`SceneStage` keeps what does not change with the
scene in a cached background and redraws only the moving Axes. Either way the browser gets the
PNG plus each named Axes' pixel box, limits and scales, and draws what moves on top.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from ._base import GradkitWidget

__all__ = ["SceneStage", "Stage"]


class Stage:
    """A matplotlib Figure (Agg, never in pyplot) sent to the browser as a PNG plus transforms.

    ``redraw()`` asks for a new PNG (rendered once when the current callback ends); artists marked
    animated are left out of it (the browser draws those). ``axes`` names the Axes whose
    data-to-pixel maps the browser needs.
    """

    def __init__(self, owner: GradkitWidget, figsize: tuple[float, float]) -> None:
        self.owner = owner
        self.figure = Figure(figsize=figsize, dpi=100, facecolor="white")
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes: dict[str, Any] = {}
        self._dirty = True

    def redraw(self) -> None:
        """Ask for a new static image (sent when the current callback ends)."""
        self._dirty = True
        if self.owner._depth == 0:
            self.flush()

    def flush(self) -> None:
        """Render now if a redraw is pending."""
        if self._dirty:
            self.render()

    def transforms(self) -> list[dict]:
        """For each named Axes: its pixel box (left, top, width, height), limits and scales."""
        height = self.figure.bbox.height
        out = []
        for name, ax in self.axes.items():
            box = ax.get_window_extent()
            out.append(
                {
                    "name": name,
                    "box": [box.x0, height - box.y1, box.width, box.height],
                    "xlim": [float(v) for v in ax.get_xlim()],
                    "ylim": [float(v) for v in ax.get_ylim()],
                    "xscale": ax.get_xscale(),
                    "yscale": ax.get_yscale(),
                }
            )
        return out

    def png(self) -> bytes:
        """Render the static layer (animated artists left out) and return it as PNG bytes."""
        self.canvas.draw()
        return self._encode()

    def _encode(self) -> bytes:
        """The canvas' pixels as PNG bytes (fast compression: the image is sent, not stored)."""
        from PIL import Image

        with io.BytesIO() as buf:
            Image.fromarray(np.asarray(self.canvas.buffer_rgba())).save(
                buf, format="png", compress_level=1
            )
            return buf.getvalue()

    def render(self) -> None:
        """Send a new static image and transforms to the browser (counted in render_count)."""
        self._dirty = False
        png = self.png()
        w = self.owner
        with w.hold_sync():
            w.png = png
            w.axes = self.transforms()
            w.size = [int(self.figure.bbox.width), int(self.figure.bbox.height)]
            w.render_count += 1
            w.scene_id += 1

    def close(self) -> None:
        """Let the figure go (it was never in pyplot, so nothing else holds it)."""
        self.axes.clear()


class SceneStage(Stage):
    """A :class:`Stage` that redraws only the Axes that change with the scene.

    The rest of the figure (other Axes, figure legends, and the legends of the changing Axes,
    which are fixed once drawn) is rendered once into a cached background; each scene restores
    it and draws the ``moving`` Axes on top, so a new x or function costs one Axes' draw instead
    of the whole figure's. Call :meth:`invalidate` after changing anything in the background.

    Parameters
    ----------
    owner : GradkitWidget
    figsize : (float, float)
        Inches, as for :class:`Stage`.
    moving : sequence of str
        Names in ``axes`` of the Axes that change per scene.
    """

    def __init__(
        self,
        owner: GradkitWidget,
        figsize: tuple[float, float],
        moving: Sequence[str],
        fixed_xaxis: Sequence[str] = (),
    ) -> None:
        super().__init__(owner, figsize)
        self.moving = tuple(moving)
        self.fixed_xaxis = tuple(fixed_xaxis)
        self._background = None
        self._background_bounds: tuple | None = None

    def _draw_background(self) -> None:
        """Draw everything but the moving parts and keep the pixels."""
        changed = []  # (artist, visible before)
        for name in self.moving:
            ax = self.axes[name]
            if name in self.fixed_xaxis:  # keep the face and the x axis (ticks, grid, label)
                keep = (ax.patch, ax.xaxis)
                changed += [(a, a.get_visible()) for a in ax.get_children() if a not in keep]
            else:
                changed.append((ax, ax.get_visible()))
        for artist, _ in changed:
            artist.set_visible(False)
        try:
            self.canvas.draw()
        finally:
            for artist, visible in changed:
                artist.set_visible(visible)
        renderer = self.canvas.get_renderer()
        for name in self.moving:  # legends do not change with the scene: part of the background
            legend = self.axes[name].legend_
            if legend is not None:
                legend.draw(renderer)
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._background_bounds = tuple(self.figure.bbox.bounds)

    def invalidate(self) -> None:
        """Forget the cached background (drawn again at the next render)."""
        self._background = None

    def png(self) -> bytes:
        """Render the static layer (animated artists left out) and return it as PNG bytes."""
        renderer = self.canvas.get_renderer()
        bounds = tuple(self.figure.bbox.bounds)
        if self._background is None or self._background_bounds != bounds:
            self._draw_background()
            renderer = self.canvas.get_renderer()
        else:
            self.canvas.restore_region(self._background)
        for name in self.moving:
            ax = self.axes[name]
            # the legend and (for fixed_xaxis) the face and x axis are in the background
            hidden = [ax.patch, ax.xaxis] if name in self.fixed_xaxis else []
            legend, ax.legend_ = ax.legend_, None
            for artist in hidden:
                artist.set_visible(False)
            try:
                ax.draw(renderer)
            finally:
                ax.legend_ = legend
                for artist in hidden:
                    artist.set_visible(True)
        return self._encode()
