"""Finite differences, step-size theory and eps sweeps: what a learner could compute by hand.

One import for the numerics, split by job:

- :mod:`gradkit.numerics.slopes`: ``numeric_slope``, ``numeric_slopes``, ``analytic_slope``;
- :mod:`gradkit.numerics.theory`: ``unit_roundoff``, truncation and rounding error,
  ``optimal_eps``;
- :mod:`gradkit.numerics.sweeps`: ``sweep`` and its ``SweepResult``/``DtypeSweep``;
- Jacobians live in :mod:`gradkit.jacobian` (numeric) and :mod:`gradkit.analytic` (analytic),
  and every argument rule in :mod:`gradkit._args`; both are re-exported here.

Depends on torch only.
"""

from __future__ import annotations

from .._args import DTYPES, GRADCHECK_DEFAULTS, SCHEMES, dtype_name
from ..analytic import analytic_jacobian
from ..jacobian import numeric_jacobian
from .slopes import analytic_slope, numeric_slope, numeric_slopes
from .sweeps import DtypeSweep, SweepResult, sweep
from .theory import optimal_eps, rounding_error, truncation_error, unit_roundoff

__all__ = [
    "DTYPES",
    "GRADCHECK_DEFAULTS",
    "SCHEMES",
    "DtypeSweep",
    "SweepResult",
    "analytic_jacobian",
    "analytic_slope",
    "dtype_name",
    "numeric_jacobian",
    "numeric_slope",
    "numeric_slopes",
    "optimal_eps",
    "rounding_error",
    "sweep",
    "truncation_error",
    "unit_roundoff",
]
