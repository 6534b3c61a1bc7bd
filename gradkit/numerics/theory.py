"""Step-size theory: truncation error, rounding error and the eps that balances them.

The textbook model, E(eps) = |f‴| eps² / 6 + u |f| / eps for the central difference: its rounding
term counts f's rounding only, so it estimates the typical size of the error rather than
bounding it (see :func:`rounding_error`). Depends on torch only.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from .._args import SCHEMES, as_dtype, check_scheme
from .slopes import scalar_output

__all__ = ["derivatives", "optimal_eps", "rounding_error", "truncation_error", "unit_roundoff"]


def unit_roundoff(dtype: torch.dtype | str) -> float:
    """Unit roundoff u: half the distance from 1 to the next number (2**-53 for float64)."""
    return torch.finfo(as_dtype(dtype)).eps / 2


def derivatives(f: Callable, x: float) -> tuple[float, float, float, float]:
    """f, f', f'', f''' at x, by repeated autograd in float64."""
    x_t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    values = [scalar_output(f(x_t), "f")]
    for _ in range(3):
        y = values[-1]
        if not y.requires_grad:
            values.append(torch.zeros((), dtype=torch.float64))
            continue
        (g,) = torch.autograd.grad(y, x_t, create_graph=True, allow_unused=True)
        values.append(torch.zeros((), dtype=torch.float64) if g is None else g)
    return tuple(float(v.detach()) for v in values)  # type: ignore[return-value]


def truncation_error(
    eps: torch.Tensor, derivatives: tuple[float, ...], scheme: str
) -> torch.Tensor:
    """Taylor truncation error of a difference formula.

    central: eps^2 |f'''| / 6; forward and backward: eps |f''| / 2.
    """
    _, _, _, order = SCHEMES[check_scheme(scheme)]
    if order == 2:
        return eps**2 * abs(derivatives[3]) / 6
    return eps * abs(derivatives[2]) / 2


def rounding_error(
    eps: torch.Tensor, fx: float, dtype: torch.dtype | str, scheme: str
) -> torch.Tensor:
    """The textbook estimate of a difference formula's rounding error: u |f| / eps for central.

    It counts f's rounding, each evaluation off by u|f|, at full size and pushing one way:
    central 2 u|f| / (2 eps) = u|f| / eps; forward and backward 2 u|f| / eps. It leaves out the
    other rounding, the landing: x ± eps are rarely representable, each lands up to u|x| away,
    and f moves by |f'| times that, which adds up to u |x f'| / eps (central). So it is a
    typical size of the rounding error, not a bound; with both roundings at their largest the
    central difference can be off by u (|f| + |x f'|) / eps (the bound :mod:`gradkit.rounding`
    tests a failing check against, with room for a few roundings inside f).
    """
    _, _, divisor, _ = SCHEMES[check_scheme(scheme)]
    return (
        2 * unit_roundoff(dtype) * max(abs(fx), torch.finfo(torch.float64).tiny) / (divisor * eps)
    )


def optimal_eps(derivatives: tuple[float, ...], dtype: torch.dtype | str, scheme: str) -> float:
    """The eps that minimises truncation + rounding error.

    central: h* = (3 u |f| / |f'''|)^(1/3); forward and backward: h* = 2 sqrt(u |f| / |f''|).
    Returns ``inf`` when the truncation error vanishes (e.g. x^2 with the central scheme).
    """
    u = unit_roundoff(dtype)
    f0 = max(abs(derivatives[0]), torch.finfo(torch.float64).tiny)
    _, _, _, order = SCHEMES[check_scheme(scheme)]
    if order == 2:
        f3 = abs(derivatives[3])
        return math.inf if f3 == 0 else (3 * u * f0 / f3) ** (1 / 3)
    f2 = abs(derivatives[2])
    return math.inf if f2 == 0 else 2 * math.sqrt(u * f0 / f2)
