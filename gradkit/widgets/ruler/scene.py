"""FloatRuler's numbers: per x position, for every dtype and grid eps, what torch stores.

:func:`ruler_point` measures one x (:mod:`.floats`, in each dtype); the widget sends the
positions around the current x (:class:`~gradkit.widgets.base.window.XWindow`), stacked, so the
page moves x, eps and dtype with no kernel message. ``ruler.js`` (``rulerFound``) reads them;
it scales and words them, it never rounds a number itself.
"""

from __future__ import annotations

import numpy as np
import torch

from ..._args import DTYPES, EPS_GRID
from .floats import landing_flags, landings, neighbours

__all__ = [
    "NEIGHBOURS",
    "VIEW",
    "ZOOM_ULPS",
    "exact_landings",
    "finfo_max",
    "ruler_point",
]

#: Representable numbers walked either side of x. The landing panel draws them one by one while
#: they reach past x ± VIEW·eps on both sides (else a grey band: too many to draw).
NEIGHBOURS = 80
#: The landing panel spans x ± VIEW·eps (units of eps); the spacing panel x ± ZOOM_ULPS ulps.
VIEW, ZOOM_ULPS = 1.6, 8


def ruler_point(x: float) -> dict[str, np.ndarray]:
    """Everything FloatRuler draws at one x, for every dtype (DTYPES order) and grid eps.

    Returns
    -------
    dict
        ``point`` (dtype, 3): x as stored, the spacing (ulp) above x and below it (NaN when x
        overflows); ``near`` (dtype, 2·NEIGHBOURS + 1), float32: the representable numbers
        around x minus x, in ulps (small whole or half numbers, exact in float32); ``landing``
        (dtype, eps, 3): eps as stored (0: it rounds to 0), x − eps and x + eps in the dtype;
        ``flags`` (dtype, eps, 5), float32 0 / 1: :data:`.floats.FLAGS` of each landing (the
        page reads them, it never decides a flag itself).
    """
    point = np.empty((len(DTYPES), 3))
    near = np.empty((len(DTYPES), 2 * NEIGHBOURS + 1), dtype=np.float32)
    landing = np.empty((len(DTYPES), len(EPS_GRID), 3))
    for d, dtype in enumerate(DTYPES.values()):
        x64, ulp, ulp_below, offsets = neighbours(x, dtype, NEIGHBOURS)
        point[d] = (x64, ulp, ulp_below)
        near[d] = offsets.numpy()
        landing[d] = landings(x, EPS_GRID, dtype).numpy()
    flags = landing_flags(point[:, :1], landing).astype(np.float32)
    return {"point": point, "near": near, "landing": landing, "flags": flags}


def exact_landings(x: float, eps: float) -> dict[str, np.ndarray]:
    """A typed eps off the grid: ``landing`` (dtype, 3), eps as stored, x − eps and x + eps per
    dtype, and its ``flags`` (dtype, 5), as :func:`ruler_point` sends them for the grid."""
    landing = np.stack([landings(x, [eps], dtype)[0].numpy() for dtype in DTYPES.values()])
    stored = np.array([float(torch.tensor(float(x), dtype=d)) for d in DTYPES.values()])
    return {"landing": landing, "flags": landing_flags(stored, landing).astype(np.float32)}


def finfo_max() -> dict[str, float]:
    """The largest finite number of each dtype (the overflow readouts name it)."""
    return {name: float(torch.finfo(dtype).max) for name, dtype in DTYPES.items()}
