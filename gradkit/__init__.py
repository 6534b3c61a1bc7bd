"""gradkit: learn how torch.autograd.gradcheck works, and why it fails.

The public API is small:

>>> import torch, gradkit
>>> round(gradkit.numeric_slope(lambda v: v * v, 2.0, 1e-3), 3)
4.0
>>> from gradkit.zoo import WrongSquareFn
>>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
>>> gradkit.check(WrongSquareFn.apply, (x,)).cause
'bug'

Widgets live in :mod:`gradkit.widgets` (imported on demand: they need ipywidgets and anywidget).
"""

from . import zoo
from ._args import DTYPES, GRADCHECK_DEFAULTS
from ._lazy import lazy_attributes
from ._palette import FIGURE_STYLE
from .numerics import (
    SweepResult,
    analytic_jacobian,
    analytic_slope,
    numeric_jacobian,
    numeric_slope,
    sweep,
    unit_roundoff,
)

__version__ = "0.1.0"

#: Imported on first use, so that ``import gradkit.widgets`` does not load the check's causes.
_LAZY = {
    "check": ".diagnosis",
    "CAUSES": ".report",
    "CheckReport": ".report",
    "WorstEntry": ".report",
}

__all__ = [
    "CAUSES",
    "DTYPES",
    "FIGURE_STYLE",
    "GRADCHECK_DEFAULTS",
    "CheckReport",
    "SweepResult",
    "WorstEntry",
    "__version__",
    "analytic_jacobian",
    "analytic_slope",
    "check",
    "numeric_jacobian",
    "numeric_slope",
    "sweep",
    "unit_roundoff",
    "zoo",
]


__getattr__ = lazy_attributes(__name__, _LAZY, globals())
