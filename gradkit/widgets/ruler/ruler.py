"""FloatRuler: the representable numbers around x, and where x − eps and x + eps land."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..._args import DTYPES, EPS_GRID, as_dtype, check_x
from ..base.cache import fields, scene_cache
from ..base.eps import eps_of, eps_state
from ..base.point import PointWidget
from ..base.rows import dtype_toggle
from .scene import FLAGS, NEIGHBOURS, VIEW, ZOOM_ULPS, Ruler, ruler_point

__all__ = ["FloatRuler"]

#: What :func:`ruler_point` returns: a value read from the cache must be exactly that.
_POINT = fields(
    point=("float64", (len(DTYPES), 3)),
    near=("float32", (len(DTYPES), 2 * NEIGHBOURS + 1)),
    landing=("float64", (len(DTYPES), len(EPS_GRID), 3)),
    flags=("float32", (len(DTYPES), len(EPS_GRID), len(FLAGS))),
)

_READOUTS = [("x", "gradkit-x-readout"), "ulp", "landing", "step", "collapse"]


class FloatRuler(PointWidget):
    """A ruler of the numbers a dtype can hold near x, and where x ± eps really land.

    The landing panel spans x ± 1.6·eps in units of eps: the requested points x − eps and
    x + eps sit at −1 and +1, the filled dots show where they land once rounded to the dtype
    (on x itself when eps is below half the spacing: then f(x + eps) − f(x − eps) = 0 and the
    numeric slope is exactly 0). The spacing panel spans 8 spacings (ulps) either side of x.
    The defaults (0.5, eps 1e-6, float32) read: eps is 16.8 ulps, x + eps lands 17 ulps above x.

    Parameters
    ----------
    x : float
        The number to look around. Default 0.5; the x slider moves in steps of 0.01.
    eps : float
        The nudge, 1e-12 … 1. Default 1e-6.
    dtype : torch.dtype or str
        float64, float32 (default), float16 or bfloat16.
    panels : sequence of {"landing", "spacing"}, optional
        The pictures to show (default both): x ± eps in units of eps, and the representable
        numbers next to x in ulps.

    Attributes
    ----------
    x_slider, x_down, x_up, eps_slider, eps_down, eps_up, eps_text, dtype_buttons : Control
        Handles onto the page's controls: ``.value``, ``.click()``; the page alone presses
        − / + and ÷10 / ×10 and reads ``eps_text``: their ``.click()`` and
        ``eps_text.value = ...`` raise a TypeError naming the value to set.
    x, eps, eps_exact, dtype, panels
        The values the page shows (``state`` holds them all; see
        :class:`~gradkit.widgets.base.point.PointWidget` for x, eps and dtype).
    ruler : Ruler
        What the page shows now: ``.x`` (as stored), ``.ulp``, ``.lower``, ``.upper``,
        ``.collapsed``, ``.underflow``, ``.overflow``, ...
    """

    css = "gradkit-float-ruler"
    view = "rulerView"
    scripts = ("ruler/ruler.js",)
    PANELS = ("landing", "spacing")

    def __init__(
        self,
        x: float = 0.5,
        eps: float = 1e-6,
        dtype: torch.dtype | str = torch.float32,
        *,
        panels: Sequence[str] | None = None,
    ) -> None:
        dtype, x, eps = as_dtype(dtype), check_x(x), eps_of(eps_state(eps))
        super().__init__(panels)
        with self.building():
            rows = self.point_rows(
                x, eps, lo=-4.0, hi=4.0, step=0.01, tooltip="the number to look around"
            )
            self.dtype_buttons = dtype_toggle(self, dtype)
            self.layout(
                "FloatRuler",
                "the numbers a dtype can hold near x, and where x ± eps land",
                [*rows, self.dtype_buttons],
                _READOUTS,
                alt="a ruler of the representable numbers near x and where x ± eps land",
            )
            self.track_x(
                lambda _f, at: scene_cache.fetch(
                    ("ruler", at, EPS_GRID, list(DTYPES), NEIGHBOURS),
                    lambda: ruler_point(at),
                    _POINT,
                )
            )

    # ------------------------------------------------------------------------------ state
    @property
    def ruler(self) -> Ruler:
        """Where x ± eps land in the dtype selected now, read from what was sent (the x
        position's arrays, or the answer for a typed eps): what the page shows."""
        d = list(DTYPES).index(self.dtype)
        return Ruler.of(self.point["point"][d], self.eps_column("landing", 1)[d, 0])

    # ---------------------------------------------------------------------- what is sent
    def scene_of(self, measured: list) -> dict:
        return {
            "dtypes": list(DTYPES),
            "flags": list(FLAGS),  # the names of the flags table's last axis
            "max": {name: float(torch.finfo(dtype).max) for name, dtype in DTYPES.items()},
            "view": VIEW,
            "zoom_ulps": ZOOM_ULPS,
        }

    def exact_of(self, eps: float, k: int) -> dict:
        point = ruler_point(self.x_at(k), [eps])
        return {"landing": point["landing"], "flags": point["flags"]}
