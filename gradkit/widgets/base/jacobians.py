"""gradcheck's comparison of two Jacobians entry by entry, for GradcheckLab and JacobianBuilder
(the rule itself is :func:`gradkit._args.allowance`).
"""

from __future__ import annotations

import numpy as np

from ..._args import allowance

__all__ = ["difference_ratio"]


def difference_ratio(
    numeric: np.ndarray, analytic: np.ndarray, atol: float, rtol: float
) -> tuple[np.ndarray, np.ndarray]:
    """gradcheck's comparison entry by entry, as a ratio to the allowed difference.

    Returns
    -------
    tuple
        ``(ratio, outside)``: ``|analytic − numeric| / (atol + rtol·|numeric|)`` (0 where both
        the difference and the allowance are 0, inf where only the allowance is), and where an
        entry fails gradcheck (``|analytic − numeric| > atol + rtol·|numeric|``).
    """
    n_mat = np.asarray(numeric, dtype=np.float64)
    diff = np.abs(np.asarray(analytic, dtype=np.float64) - n_mat)
    allowed = allowance(n_mat, atol, rtol)  # gradcheck's rule (torch.allclose)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(allowed > 0, diff / np.where(allowed > 0, allowed, 1.0), np.inf)
    ratio = np.where((allowed == 0) & (diff == 0), 0.0, ratio)
    ratio = np.where(np.isnan(diff), np.nan, ratio)
    return ratio, ~(diff <= allowed)
