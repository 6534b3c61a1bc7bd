"""EpsilonLab's numbers: per x position, :func:`gradkit.sweep` over every grid eps, dtype and
scheme, laid out as the arrays the page reads (``words.js``: ``labFound``).

An x where f or its slope is not a finite number (log at 0, exp at 800) is no error: its arrays
are NaN and the page says why from ``point`` (f(x) and the analytic slope as torch gives them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch

from ..._args import DTYPES, EPS_GRID, GRADCHECK_DEFAULTS, WIDGET_SCHEMES
from ...numerics import DtypeSweep, SweepResult, analytic_slope, sweep
from ..base.functions import evaluate

__all__ = [
    "FIELDS",
    "FLAGS",
    "KINDS",
    "OPTIMA",
    "POINT",
    "THEORY",
    "has_slope",
    "lab_point",
    "sweep_arrays",
    "sweep_of",
]

#: Per (scheme, dtype, eps): 0/1 flags (float32 holds them exactly), the theory lines (drawn only).
FLAGS = ("underflow", "collapsed", "passes")
THEORY = ("truncation", "rounding")
#: Per (scheme, dtype): theory's best eps and its predicted error, the grid's best and its error.
OPTIMA = ("optimal_eps", "optimal_error", "best_eps", "best_error")
#: Per x: the analytic slope (float64 autograd), gradcheck's tolerance there, f(x) in float64.
POINT = ("analytic", "tolerance", "fx")
#: The names of the last axis of each table, as the scene sends them.
FIELDS = {"flags": FLAGS, "theory": THEORY, "optima": OPTIMA, "point": POINT}
_GRID = (len(WIDGET_SCHEMES), len(DTYPES), len(EPS_GRID))
#: What :func:`lab_point` returns, each array's (dtype, shape): the cache checks a value read.
KINDS = {
    "error": ("float64", _GRID),
    "numeric": ("float64", _GRID),
    "flags": ("float32", (*_GRID, len(FLAGS))),
    "theory": ("float32", (*_GRID, len(THEORY))),
    "optima": ("float64", (*_GRID[:2], len(OPTIMA))),
    "point": ("float64", (len(POINT),)),
}


def sweep_arrays(sweeps: Mapping[str, SweepResult]) -> dict[str, np.ndarray]:
    """Sweeps by scheme (WIDGET_SCHEMES order) as arrays, dtypes in DTYPES order.

    Returns
    -------
    dict
        ``error`` and ``numeric`` (scheme, dtype, eps) float64; ``flags`` (scheme, dtype, eps,
        FLAGS) and ``theory`` (scheme, dtype, eps, THEORY) float32; ``optima`` (scheme, dtype,
        OPTIMA).
    """
    per = [[sweeps[s].dtypes[name] for name in DTYPES] for s in WIDGET_SCHEMES]

    def stacked(fields: Sequence[str], kind: type) -> np.ndarray:
        return np.array(
            [
                [np.stack([getattr(c, k).double().numpy() for k in fields], -1) for c in r]
                for r in per
            ],
            dtype=kind,
        )

    return {
        "error": np.array([[c.error.double().numpy() for c in r] for r in per]),
        "numeric": np.array([[c.numeric.double().numpy() for c in r] for r in per]),
        "flags": stacked(FLAGS, np.float32),
        "theory": stacked(THEORY, np.float32),
        "optima": np.array([[[getattr(c, k) for k in OPTIMA] for c in r] for r in per]),
    }


def lab_point(f: Callable, x: float) -> dict[str, np.ndarray]:
    """Every grid eps, dtype and scheme at one x (two batched sweeps) as the page's arrays, or NaN
    arrays when f or its slope is not a finite number at x."""
    fx = float(evaluate(f, torch.tensor([float(x)], dtype=torch.float64))[0])
    analytic = analytic_slope(f, x) if math.isfinite(fx) else math.nan
    if not (math.isfinite(fx) and math.isfinite(analytic)):  # NaN but point, flags 0
        arrays = {k: np.full(shape, np.nan, dtype) for k, (dtype, shape) in KINDS.items()}
        arrays["flags"][:] = 0
        arrays["point"][:] = (analytic, math.nan, fx)
        return arrays
    sweeps = {s: sweep(f, x, eps=EPS_GRID, scheme=s) for s in WIDGET_SCHEMES}
    arrays = sweep_arrays(sweeps)
    arrays["point"] = np.array([analytic, sweeps["central"].tolerance, fx])
    return arrays


def has_slope(point: Mapping[str, np.ndarray]) -> bool:
    """Whether :func:`lab_point` measured slopes there (its tolerance is a number)."""
    return math.isfinite(float(point["point"][POINT.index("tolerance")]))


def sweep_of(
    point: Mapping[str, np.ndarray],
    scheme: str,
    x: float,
    eps: Sequence[float],
    per_eps: Mapping[str, np.ndarray] | None = None,
) -> SweepResult:
    """The :class:`~gradkit.SweepResult` of ``scheme`` that arrays sent already hold, no torch.

    ``point`` is one x position of :func:`lab_point`; ``per_eps`` (default ``point``) holds the
    arrays along ``eps`` (``error``, ``numeric``, ``flags``, ``theory``: a slice of the grid, or
    :meth:`EpsilonLab.exact_of`). The theory curves are the float32 numbers the page draws.
    """
    s, per_eps = WIDGET_SCHEMES.index(scheme), per_eps or point
    analytic, tolerance, _fx = (float(v) for v in point["point"])
    grid = torch.tensor([float(e) for e in eps], dtype=torch.float64)

    def along(name: str, d: int, k: int | None = None) -> torch.Tensor:
        values = np.asarray(per_eps[name][s, d])
        return torch.from_numpy(np.array(values if k is None else values[:, k], np.float64))

    curves = {}
    for d, (name, dtype) in enumerate(DTYPES.items()):
        flag = {k: along("flags", d, FLAGS.index(k)) == 1 for k in FLAGS}
        lines = {k: along("theory", d, THEORY.index(k)) for k in THEORY}
        optima = dict(zip(OPTIMA, map(float, point["optima"][s, d]), strict=True))
        curves[name] = DtypeSweep(
            dtype=dtype,
            numeric=along("numeric", d),
            error=along("error", d),
            **flag,
            **lines,
            theory=lines["truncation"] + lines["rounding"],
            **optima,
            _grid=grid,
        )
    return SweepResult(
        eps=grid,
        x=torch.tensor([float(x)], dtype=torch.float64),
        analytic=torch.tensor([analytic], dtype=torch.float64),
        scheme=scheme,
        atol=GRADCHECK_DEFAULTS["atol"],
        rtol=GRADCHECK_DEFAULTS["rtol"],
        tolerance=tolerance,
        dtypes=curves,
    )
