"""Finite differences, batched Jacobians, eps sweeps and step-size theory.

Depends on torch only. Everything here is what a learner could compute by hand, done in the
dtype the learner chose, so that rounding behaves exactly as it does inside gradcheck.

Jacobians use the mathematical layout: ``J[i, j] = d output_i / d input_j`` over the flattened
(real-view, for complex tensors) entries. torch's GradcheckError prints the transpose.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch

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

#: The dtypes a learner can switch between, by name.
DTYPES: dict[str, torch.dtype] = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}

#: torch.autograd.gradcheck's own defaults.
GRADCHECK_DEFAULTS: dict[str, float] = {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-3}

#: Finite-difference schemes: name -> (offsets of the two evaluation points in units of eps,
#: divisor in units of eps, order of the truncation error).
SCHEMES: dict[str, tuple[float, float, float, int]] = {
    # (f(x + eps) - f(x - eps)) / (2 eps), error O(eps^2)
    "central": (1.0, -1.0, 2.0, 2),
    # (f(x + eps) - f(x)) / eps, error O(eps)
    "forward": (1.0, 0.0, 1.0, 1),
    # (f(x) - f(x - eps)) / eps, error O(eps)
    "backward": (0.0, -1.0, 1.0, 1),
}

#: Inputs whose Jacobian would have more entries than this are refused (use fast_mode).
MAX_JACOBIAN_ENTRIES = 2**22
#: Bound on the number of scalars held by one batched evaluation (memory, not speed).
_CHUNK_SCALARS = 2**24
_SWEEP_GRID = (1e-12, 1.0, 61)
#: Inputs with at most this many (real) entries are nudged one entry per call, like gradcheck:
#: batching saves well under a millisecond there, and single calls reproduce torch's numbers bit
#: for bit (a batched elementwise kernel may take a vectorised path where a small single call
#: takes a scalar one, and round differently in the last bit).
_SMALL_INPUT = 8


def dtype_name(dtype: torch.dtype) -> str:
    """Short name of a dtype, e.g. ``"float32"`` for ``torch.float32``."""
    return str(dtype).removeprefix("torch.")


def _as_dtype(dtype: torch.dtype | str, argument: str = "dtype") -> torch.dtype:
    if isinstance(dtype, str):
        if dtype not in DTYPES:
            raise ValueError(
                f"{argument}={dtype!r} is not one of {sorted(DTYPES)}; pass e.g. torch.float64"
            )
        return DTYPES[dtype]
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(
            f"{argument} must be a floating torch dtype such as torch.float64, got {dtype!r}"
        )
    return dtype


def unit_roundoff(dtype: torch.dtype | str) -> float:
    """Unit roundoff u: half the distance from 1 to the next number (2**-53 for float64)."""
    return torch.finfo(_as_dtype(dtype)).eps / 2


def _check_eps(eps: float, argument: str = "eps") -> float:
    if isinstance(eps, torch.Tensor):
        if eps.numel() != 1:
            raise TypeError(
                f"{argument} must be a single positive number, got a tensor of shape "
                f"{tuple(eps.shape)}"
            )
        eps = eps.item()
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(
            f"{argument} must be a positive number such as 1e-6, got {type(eps).__name__}"
        )
    eps = float(eps)
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"{argument} must be a finite number > 0 (e.g. 1e-6), got {eps!r}")
    return eps


def _check_scheme(scheme: str) -> tuple[float, float, float, int]:
    if scheme not in SCHEMES:
        raise ValueError(f"scheme={scheme!r} is not one of {list(SCHEMES)}")
    return SCHEMES[scheme]


# ---------------------------------------------------------------------------------------------
# Slopes of a scalar function
# ---------------------------------------------------------------------------------------------


def _call_elementwise(f: Callable, points: torch.Tensor) -> torch.Tensor:
    """Evaluate ``f`` on every entry of ``points``: one batched call, entry by entry as fallback."""
    try:
        out = f(points)
        if isinstance(out, torch.Tensor) and out.shape == points.shape:
            probe = f(points.reshape(-1)[:1].reshape(()))
            if isinstance(probe, torch.Tensor) and torch.equal(
                probe.reshape(()).to(out.dtype), out.reshape(-1)[0]
            ):
                return out
    except Exception:  # noqa: BLE001 - f does not broadcast: evaluate one point at a time
        pass
    flat = [_scalar_output(f(p), "f") for p in points.reshape(-1)]
    return torch.stack(flat).reshape(points.shape)


def _scalar_output(value: object, argument: str) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(
                f"{argument} must return one number for one input number, got shape "
                f"{tuple(value.shape)}"
            )
        return value.reshape(())
    if isinstance(value, (int, float)):
        return torch.tensor(float(value), dtype=torch.float64)
    raise TypeError(f"{argument} must return a number or a tensor, got {type(value).__name__}")


def numeric_slopes(
    f: Callable,
    x: float,
    eps: Sequence[float] | torch.Tensor,
    *,
    dtype: torch.dtype | str = torch.float64,
    scheme: str = "central",
) -> torch.Tensor:
    """Numeric slopes of a scalar function at ``x`` for many step sizes in one batched call.

    Parameters
    ----------
    f : callable
        A function of one tensor (evaluated entry by entry if it does not broadcast).
    x : float
        The point, cast to ``dtype`` first.
    eps : sequence of float or tensor
        Step sizes, each cast to ``dtype``.
    dtype : torch.dtype or str
        Precision of every step of the computation.
    scheme : {"central", "forward", "backward"}
        The difference formula.

    Returns
    -------
    torch.Tensor
        float64 slopes, one per eps; NaN where eps rounds to 0 in ``dtype`` (marked, not computed).
    """
    dtype = _as_dtype(dtype)
    plus, minus, divisor, _ = _check_scheme(scheme)
    steps = torch.as_tensor(eps, dtype=torch.float64).reshape(-1)
    h = steps.to(dtype)
    x_t = torch.as_tensor(float(x), dtype=dtype)
    points = torch.stack([x_t + plus * h, x_t + minus * h])
    with torch.no_grad():
        values = _call_elementwise(f, points).to(dtype)
    # (f(x + a eps) - f(x + b eps)) / (d eps), computed in dtype as a learner's tensor would be
    slopes = ((values[0] - values[1]) / (divisor * h)).to(torch.float64)
    return torch.where(h == 0, torch.full_like(slopes, math.nan), slopes)


def numeric_slope(
    f: Callable,
    x: float,
    eps: float,
    *,
    dtype: torch.dtype | str = torch.float64,
    scheme: str = "central",
) -> float:
    """Slope of ``f`` at ``x`` measured by nudging ``x`` by ``eps``.

    ``x`` and ``eps`` are cast to ``dtype`` first, as a learner's tensor would be.

    Parameters
    ----------
    f : callable
        A scalar function, e.g. ``lambda v: v * v``.
    x : float
        Where to measure.
    eps : float
        The nudge, > 0.
    dtype : torch.dtype or str
        float64, float32, float16 or bfloat16.
    scheme : {"central", "forward", "backward"}
        ``central``: (f(x+eps) - f(x-eps)) / (2 eps), error O(eps^2);
        ``forward``: (f(x+eps) - f(x)) / eps, error O(eps); ``backward`` the mirror image.

    Returns
    -------
    float
        The numeric slope.

    Raises
    ------
    ValueError
        If eps is not a finite positive number, or rounds to 0 in ``dtype``.

    Examples
    --------
    >>> round(numeric_slope(lambda v: v * v, 2.0, 1e-3), 3)
    4.0
    """
    eps = _check_eps(eps)
    dtype = _as_dtype(dtype)
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        if isinstance(x, torch.Tensor) and x.numel() == 1:
            x = x.item()
        else:
            raise TypeError(f"x must be a single number such as 2.0, got {type(x).__name__}")
    slope = numeric_slopes(f, x, [eps], dtype=dtype, scheme=scheme)[0].item()
    if math.isnan(slope) and torch.tensor(eps, dtype=dtype).item() == 0:
        tiny = torch.finfo(dtype).smallest_normal
        raise ValueError(
            f"eps={eps:g} rounds to 0 in {dtype_name(dtype)} (smallest normal number {tiny:.3g}); "
            f"use a larger eps"
        )
    return slope


def analytic_slope(f: Callable, x: float) -> float:
    """Exact slope of a scalar function at ``x`` from autograd in float64 (the referee)."""
    x_t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    y = _scalar_output(f(x_t), "f")
    if not y.requires_grad:
        raise ValueError(
            "f's result does not depend on its input through torch operations, so autograd "
            "cannot differentiate it; build f from torch functions (torch.sin(v), not math.sin(v))"
        )
    (g,) = torch.autograd.grad(y, x_t, allow_unused=True)
    return 0.0 if g is None else float(g)


# ---------------------------------------------------------------------------------------------
# Step-size theory
# ---------------------------------------------------------------------------------------------


def _derivatives(f: Callable, x: float) -> tuple[float, float, float, float]:
    """f, f', f'', f''' at x, by repeated autograd in float64."""
    x_t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    values = [_scalar_output(f(x_t), "f")]
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
    _, _, _, order = _check_scheme(scheme)
    if order == 2:
        return eps**2 * abs(derivatives[3]) / 6
    return eps * abs(derivatives[2]) / 2


def rounding_error(
    eps: torch.Tensor, fx: float, dtype: torch.dtype | str, scheme: str
) -> torch.Tensor:
    """Rounding error of a difference formula: about u |f| / eps (each evaluation is off by u|f|).

    central: 2 u|f| / (2 eps) = u|f| / eps; forward and backward: 2 u|f| / eps.
    """
    _, _, divisor, _ = _check_scheme(scheme)
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
    _, _, _, order = _check_scheme(scheme)
    if order == 2:
        f3 = abs(derivatives[3])
        return math.inf if f3 == 0 else (3 * u * f0 / f3) ** (1 / 3)
    f2 = abs(derivatives[2])
    return math.inf if f2 == 0 else 2 * math.sqrt(u * f0 / f2)


# ---------------------------------------------------------------------------------------------
# Sweeps
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DtypeSweep:
    """Error versus eps for one dtype.

    Attributes
    ----------
    dtype : torch.dtype
    numeric : torch.Tensor
        Numeric slopes (worst entry for a vector input), NaN where ``underflow``.
    error : torch.Tensor
        |numeric - analytic|, NaN where ``underflow``.
    underflow : torch.Tensor
        bool mask: eps rounds to 0 in this dtype, so no slope can be measured.
    collapsed : torch.Tensor
        bool mask: x +- eps round back to x, so the numeric slope is exactly 0.
    truncation, rounding, theory : torch.Tensor
        The theoretical error curves and their sum.
    optimal_eps, optimal_error : float
        Theory's best eps and its predicted error (``inf``/``nan`` if the truncation vanishes).
    best_eps, best_error : float
        The measured minimum on the grid.
    passes : torch.Tensor
        bool mask: error within gradcheck's tolerance at that eps.
    """

    dtype: torch.dtype
    numeric: torch.Tensor
    error: torch.Tensor
    underflow: torch.Tensor
    collapsed: torch.Tensor
    truncation: torch.Tensor
    rounding: torch.Tensor
    theory: torch.Tensor
    optimal_eps: float
    optimal_error: float
    best_eps: float
    best_error: float
    passes: torch.Tensor

    @property
    def name(self) -> str:
        """The dtype's short name."""
        return dtype_name(self.dtype)

    def error_at(self, eps: float) -> float:
        """Measured error at the grid point nearest ``eps`` (log scale)."""
        return float(self.error[_nearest(self._grid, eps)])

    _grid: torch.Tensor = field(default=None, repr=False)  # type: ignore[assignment]


def _nearest(grid: torch.Tensor, eps: float) -> int:
    return int(torch.argmin((grid.log10() - math.log10(eps)).abs()))


@dataclass(frozen=True)
class SweepResult:
    """The result of :func:`sweep`: error versus eps for several dtypes.

    Attributes
    ----------
    eps : torch.Tensor
        The float64 eps grid (log-spaced).
    x : torch.Tensor
        The point (float64).
    analytic : torch.Tensor
        The exact slope(s) from autograd in float64, one per entry of x.
    scheme : str
    tolerance : float
        gradcheck's allowance atol + rtol * |analytic| for the strictest entry.
    dtypes : dict[str, DtypeSweep]
        One curve per dtype, by name.
    """

    eps: torch.Tensor
    x: torch.Tensor
    analytic: torch.Tensor
    scheme: str
    atol: float
    rtol: float
    tolerance: float
    dtypes: dict[str, DtypeSweep]

    def __getitem__(self, name: str | torch.dtype) -> DtypeSweep:
        return self.dtypes[name if isinstance(name, str) else dtype_name(name)]

    def nearest(self, eps: float) -> int:
        """Index of the grid point nearest ``eps`` on a log scale."""
        return _nearest(self.eps, eps)


def sweep(
    f: Callable,
    x: float | torch.Tensor,
    *,
    eps: Sequence[float] | torch.Tensor | None = None,
    dtypes: Sequence[torch.dtype | str] = (
        torch.float64,
        torch.float32,
        torch.float16,
        torch.bfloat16,
    ),
    scheme: str = "central",
    atol: float = GRADCHECK_DEFAULTS["atol"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
) -> SweepResult:
    """Measure |numeric - analytic| over a grid of eps for several dtypes.

    One batched evaluation per dtype: every (eps, entry, side) point is stacked into a single
    tensor and ``f`` is called once on it (entry by entry only if ``f`` does not broadcast).

    Parameters
    ----------
    f : callable
        An elementwise function of a tensor, e.g. ``torch.sin`` or ``lambda v: v**3``.
    x : float or tensor
        The point(s). For a tensor, the error is the worst over its entries.
    eps : sequence of float, optional
        The grid; default 61 points log-spaced from 1e-12 to 1.
    dtypes : sequence of dtype
        Which precisions to sweep.
    scheme : {"central", "forward", "backward"}
    atol, rtol : float
        gradcheck's tolerances, for the tolerance line and the ``passes`` masks.

    Returns
    -------
    SweepResult
    """
    _check_scheme(scheme)
    _check_tolerance(atol, "atol")
    _check_tolerance(rtol, "rtol")
    device = x.device if isinstance(x, torch.Tensor) else None
    if eps is None:
        lo, hi, n = _SWEEP_GRID
        grid = torch.logspace(math.log10(lo), math.log10(hi), n, dtype=torch.float64, device=device)
    else:
        grid = torch.as_tensor(eps, dtype=torch.float64, device=device).reshape(-1)
        if grid.numel() == 0 or not bool(torch.isfinite(grid).all()) or bool((grid <= 0).any()):
            raise ValueError(
                "eps must be a non-empty sequence of finite numbers > 0, e.g. [1e-8, 1e-6, 1e-4]"
            )
    x64 = torch.as_tensor(x, dtype=torch.float64).detach().reshape(-1)
    if x64.numel() == 0:
        raise ValueError("x must hold at least one number")
    x_req = x64.clone().requires_grad_(True)
    y = f(x_req)
    if not isinstance(y, torch.Tensor) or y.shape != x_req.shape:
        raise ValueError("sweep needs an elementwise f: f(x) must have the shape of x")
    analytic = (
        torch.autograd.grad(y.sum(), x_req, allow_unused=True)[0]
        if y.requires_grad
        else torch.zeros_like(x64)
    )
    analytic = torch.zeros_like(x64) if analytic is None else analytic.detach()
    allowed = atol + rtol * analytic.abs()
    tolerance = float(allowed.min())

    # theory at the entry with the largest second/third derivative (the worst one)
    derivs = [_derivatives(f, float(v)) for v in x64[: min(8, x64.numel())]]
    _, _, _, order = _check_scheme(scheme)
    deriv = max(derivs, key=lambda d: abs(d[3] if order == 2 else d[2]))

    curves = {}
    for dt in dtypes:
        dt = _as_dtype(dt, "dtypes")
        curves[dtype_name(dt)] = _sweep_one(f, x64, grid, dt, scheme, analytic, allowed, deriv)
    return SweepResult(
        eps=grid,
        x=x64,
        analytic=analytic,
        scheme=scheme,
        atol=float(atol),
        rtol=float(rtol),
        tolerance=tolerance,
        dtypes=curves,
    )


def _sweep_one(
    f: Callable,
    x64: torch.Tensor,
    grid: torch.Tensor,
    dtype: torch.dtype,
    scheme: str,
    analytic: torch.Tensor,
    allowed: torch.Tensor,
    deriv: tuple[float, float, float, float],
) -> DtypeSweep:
    plus, minus, divisor, _ = SCHEMES[scheme]
    h = grid.to(dtype)[:, None]  # (E, 1)
    x = x64.to(dtype)[None, :]  # (1, n)
    points = torch.stack([x + plus * h, x + minus * h])  # (2, E, n), all in dtype
    with torch.no_grad():
        values = _call_elementwise(f, points).to(dtype)
    # (f(x + a eps) - f(x + b eps)) / (d eps), in dtype
    slopes = ((values[0] - values[1]) / (divisor * h)).to(torch.float64)  # (E, n)
    underflow = (h == 0).reshape(-1)
    collapsed = (points[0] == points[1]).all(dim=1) & ~underflow
    errors = (slopes - analytic[None, :]).abs()
    worst = torch.argmax(torch.nan_to_num(errors / allowed[None, :], nan=math.inf), dim=1)
    rows = torch.arange(grid.numel(), device=grid.device)
    numeric = torch.where(underflow, math.nan, slopes[rows, worst])
    error = torch.where(underflow, math.nan, errors[rows, worst])
    passes = ~underflow & (errors <= allowed[None, :]).all(dim=1)
    truncation = truncation_error(grid, deriv, scheme)
    rounding = rounding_error(grid, deriv[0], dtype, scheme)
    best = int(torch.argmin(torch.nan_to_num(error, nan=math.inf)))
    h_star = optimal_eps(deriv, dtype, scheme)
    if math.isfinite(h_star):
        h_t = torch.tensor([h_star], dtype=torch.float64)
        err_star = float(
            truncation_error(h_t, deriv, scheme)[0]
            + rounding_error(h_t, deriv[0], dtype, scheme)[0]
        )
    else:
        err_star = math.nan
    return DtypeSweep(
        dtype=dtype,
        numeric=numeric,
        error=error,
        underflow=underflow,
        collapsed=collapsed,
        truncation=truncation,
        rounding=rounding,
        theory=truncation + rounding,
        optimal_eps=h_star,
        optimal_error=err_star,
        best_eps=float(grid[best]),
        best_error=float(error[best]),
        passes=passes,
        _grid=grid,
    )


def _check_tolerance(value: float, argument: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"{argument} must be a number >= 0 such as 1e-5, got {type(value).__name__}"
        )
    if not math.isfinite(value) or value < 0:
        raise ValueError(
            f"{argument} must be a finite number >= 0 (gradcheck's default is "
            f"{GRADCHECK_DEFAULTS[argument]:g}), got {value!r}"
        )
    return float(value)


# ---------------------------------------------------------------------------------------------
# Jacobians
# ---------------------------------------------------------------------------------------------


def _real_view(t: torch.Tensor) -> torch.Tensor:
    """The tensor's entries as real numbers (complex -> pairs of real and imaginary parts)."""
    return torch.view_as_real(t).reshape(-1) if t.is_complex() else t.reshape(-1)


def _batch_real_view(t: torch.Tensor) -> torch.Tensor:
    """A batch (B, ...) as real numbers, one row per batch entry: (B, numel_real)."""
    return (torch.view_as_real(t) if t.is_complex() else t).reshape(t.shape[0], -1)


def _from_real_view(flat: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """Inverse of :func:`_real_view` for a batch: (B, numel_real) -> (B, *like.shape)."""
    batch = flat.shape[0]
    if like.is_complex():
        return torch.view_as_complex(flat.reshape(batch, *like.shape, 2).contiguous())
    return flat.reshape(batch, *like.shape)


def _as_output_tuple(out: object) -> tuple[torch.Tensor, ...]:
    if isinstance(out, torch.Tensor):
        return (out,)
    if isinstance(out, (tuple, list)) and all(isinstance(o, torch.Tensor) for o in out) and out:
        return tuple(out)
    raise TypeError(
        f"the function must return a tensor or a tuple of tensors, got {type(out).__name__}; "
        "wrap numbers with torch.as_tensor(...)"
    )


def _same_values(batched: torch.Tensor, single: torch.Tensor) -> bool:
    """Whether a batched evaluation reproduces a single call, up to a few dozen roundings.

    Batched kernels (a matrix-matrix product instead of a matrix-vector one) may sum in another
    order, so bitwise equality is too strict; a function that mixes batch rows or draws random
    numbers differs by far more.
    """
    if batched.shape != single.shape or batched.dtype != single.dtype:
        return False
    if torch.equal(batched, single):
        return True
    if not (single.is_floating_point() or single.is_complex()):
        return False
    if not bool((torch.isnan(batched) == torch.isnan(single)).all()):
        return False
    tol = 64 * torch.finfo(single.dtype).eps
    finite = torch.nan_to_num(single.abs(), nan=0.0, posinf=0.0)
    scale = float(finite.max()) if finite.numel() else 0.0
    return torch.allclose(batched, single, rtol=tol, atol=tol * scale, equal_nan=True)


class _BatchedCaller:
    """Calls ``fn`` with one input replaced by a batch of values; remembers how it managed.

    Strategies, in order: ``torch.func.vmap`` (exact semantics for plain tensor code) and a
    leading batch dimension (seed-style ``autograd.Function`` classes cannot be vmapped). Each is
    verified on its first batch, whose row 0 holds the unperturbed input: that row must reproduce
    ``reference`` (an earlier single call), which catches Python side effects (a call counter)
    and random forwards; the leading batch dimension must also reproduce single calls on three
    perturbed rows, which catches a forward that mixes rows (``x - x.mean()`` over everything).
    When neither holds, ``mode`` becomes ``"loop"`` and :meth:`batched` returns None: the caller
    then nudges one entry per call, as torch's gradcheck does. ``reasons`` says why.
    """

    def __init__(
        self, fn: Callable, inputs: tuple, index: int, reference: tuple[torch.Tensor, ...]
    ) -> None:
        self.fn, self.inputs, self.index, self.reference = fn, inputs, index, reference
        self.mode: str | None = None
        self.reasons: list[str] = []

    def single(self, value: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``fn`` with the input at ``index`` replaced by ``value``."""
        args = list(self.inputs)
        args[self.index] = value
        return _as_output_tuple(self.fn(*args))

    def _run(self, mode: str, batch: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if mode == "vmap":
            return tuple(torch.func.vmap(self.single)(batch))
        return self.single(batch)

    def batched(self, batch: torch.Tensor) -> tuple[torch.Tensor, ...] | None:
        """Outputs for every row of ``batch`` (row 0 unperturbed on the first call), or None."""
        if self.mode == "loop":
            return None
        if self.mode is not None:
            return self._run(self.mode, batch)
        for mode in ("vmap", "broadcast"):
            try:
                out = self._run(mode, batch)
            except Exception as error:  # noqa: BLE001 - any failure means: try the next strategy
                self.reasons.append(f"{mode}: {_short_reason(error)}")
                continue
            problem = self._verify(mode, batch, out)
            if problem is None:
                self.mode = mode
                return out
            self.reasons.append(f"{mode}: {problem}")
        self.mode = "loop"
        return None

    def _verify(self, mode: str, batch: torch.Tensor, out: tuple[torch.Tensor, ...]) -> str | None:
        size = batch.shape[0]
        if len(out) != len(self.reference) or any(
            o.shape != (size, *r.shape) for o, r in zip(out, self.reference, strict=False)
        ):
            return "the outputs changed shape"
        if not all(_same_values(o[0], r) for o, r in zip(out, self.reference, strict=True)):
            return (
                "the unperturbed row differs from a single call (Python side effects, a random "
                "forward, or a batched kernel of lower precision such as TF32)"
            )
        if mode == "vmap" or size < 2:
            return None
        for row in sorted({1, size // 2, size - 1}):
            single = self.single(batch[row])
            if len(single) != len(out) or not all(
                _same_values(o[row], s) for o, s in zip(out, single, strict=True)
            ):
                return f"row {row} differs from a single call (the forward mixes batch rows)"
        return None


def _short_reason(error: Exception) -> str:
    text = str(error)
    if "autograd.Function" in text:
        return "this autograd.Function has no vmap rule"
    if "random" in text.lower():
        return "vmap refuses random operations"
    first = text.strip().splitlines()[0] if text.strip() else ""
    first = first if len(first) <= 80 else first[:77] + "..."
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def _eps_of(t: torch.Tensor) -> float:
    return torch.finfo(t.dtype).eps if (t.is_floating_point() or t.is_complex()) else 0.0


def _differentiable(inputs: tuple) -> list[int]:
    return [i for i, t in enumerate(inputs) if isinstance(t, torch.Tensor) and t.requires_grad]


def _check_size(inputs: tuple, outputs: tuple[torch.Tensor, ...]) -> None:
    n_in = sum(_real_view(inputs[i]).numel() for i in _differentiable(inputs))
    n_out = sum(_real_view(o).numel() for o in outputs)
    if n_in * n_out > MAX_JACOBIAN_ENTRIES:
        raise ValueError(
            f"the full Jacobian would have {n_in} x {n_out} = {n_in * n_out:,} entries (limit "
            f"{MAX_JACOBIAN_ENTRIES:,}); check smaller inputs, or pass fast_mode=True, which "
            "compares one random projection instead of every entry"
        )


def numeric_jacobian(
    fn: Callable,
    inputs: Sequence[torch.Tensor] | torch.Tensor,
    *,
    eps: float = GRADCHECK_DEFAULTS["eps"],
    chunk_size: int | None = None,
) -> tuple[tuple[torch.Tensor, ...], ...]:
    """Central-difference Jacobians, the same numbers torch's slow gradcheck computes.

    For every entry k of every input that requires grad:
    ``J[:, k] = (f(x + eps e_k) - f(x - eps e_k)) / (2 eps)``, error O(eps^2), in the input's
    dtype and on the input's device. Unlike gradcheck, the perturbed inputs are evaluated in
    batches (``torch.func.vmap``, or a leading batch dimension; chunked to bound memory) instead
    of one call per entry; a function that cannot be batched (random forward, Python side
    effects, rows mixed together) is detected and evaluated one entry per call instead, in
    gradcheck's order. So are inputs of at most 8 entries, where that reproduces torch's numbers
    bit for bit at no real cost; batched kernels may round a value differently in its last bit,
    which moves a Jacobian entry by about ``ulp(f) / (2 eps)``.

    Parameters
    ----------
    fn : callable
        Takes the inputs, returns a tensor or a tuple of tensors.
    inputs : tensor or sequence of tensors
    eps : float
    chunk_size : int, optional
        Perturbed inputs per batched call; by default sized to hold about 16M scalars.

    Returns
    -------
    tuple of tuple of torch.Tensor
        ``J[o][i]`` of shape (outputs[o] real numel, inputs[i] real numel); inputs that do not
        require grad get an empty (numel_out, 0) matrix.
    """
    return _numeric_jacobian(fn, inputs, eps=eps, chunk_size=chunk_size)[0]


def _numeric_jacobian(fn, inputs, *, eps, chunk_size=None, reference=None):
    """:func:`numeric_jacobian`, plus how each input was evaluated.

    ``reference`` may hold the outputs of ``fn(*inputs)`` already computed (saves a call).
    Returns ``(jacobians, modes, reasons)``: ``modes[i]`` is ``"vmap"``, ``"broadcast"``,
    ``"loop"`` (batching refused; ``reasons[i]`` says why) or ``"small"`` (at most
    ``_SMALL_INPUT`` entries: one call per entry by choice).
    """
    eps = _check_eps(eps)
    if chunk_size is not None and (
        isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1
    ):
        raise ValueError(f"chunk_size must be a positive int such as 64, got {chunk_size!r}")
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    modes: dict[int, str] = {}
    reasons: dict[int, list[str]] = {}
    diff = _differentiable(inputs)
    with torch.no_grad():
        detached = tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in inputs)
        if reference is None:
            reference = _as_output_tuple(fn(*detached))
        reference = tuple(o.detach() for o in reference)
        _check_size(inputs, reference)
        jac = [[None] * len(inputs) for _ in reference]
        for i, x in enumerate(detached):
            if i not in diff:
                for o, out in enumerate(reference):
                    jac[o][i] = out.new_zeros((_real_view(out).numel(), 0), dtype=_real_dtype(out))
                continue
            caller = _BatchedCaller(fn, detached, i, reference)
            for o, column_block in enumerate(_numeric_columns(caller, x, eps, chunk_size)):
                jac[o][i] = column_block
            modes[i] = caller.mode or "loop"
            reasons[i] = caller.reasons
    return tuple(tuple(row) for row in jac), modes, reasons


def _numeric_columns(caller, x, eps, chunk_size) -> list[torch.Tensor]:
    """Every output's Jacobian with respect to input ``x`` (one per output), chunk by chunk."""
    flat = _real_view(x)
    n = flat.numel()
    reference = caller.reference
    per_sample = n + sum(_real_view(out).numel() for out in reference)
    size = chunk_size or max(1, _CHUNK_SCALARS // max(1, 2 * per_sample))
    if n <= _SMALL_INPUT:
        caller.mode = "small"
        return _looped_columns(caller, x, 0, eps)
    jac = [
        out.new_empty((_real_view(out).numel(), n), dtype=_difference_dtype(out))
        for out in reference
    ]
    for start in range(0, n, size):
        stop = min(n, start + size)
        c = stop - start
        skip = 1 if start == 0 else 0  # row 0 of the first batch: the unperturbed input
        rows = flat.expand(skip + 2 * c, n).clone()
        # the same arithmetic as gradcheck's entry.copy_(orig -+ eps), in the input's dtype
        rows[skip : skip + c, start:stop].diagonal().sub_(eps)
        rows[skip + c :, start:stop].diagonal().add_(eps)
        outs = caller.batched(_from_real_view(rows, x))
        del rows
        if outs is None:
            for j, block in zip(jac, _looped_columns(caller, x, start, eps), strict=True):
                j[:, start:].copy_(block)
            break
        for j, b in zip(jac, outs, strict=True):
            b = _batch_real_view(b)
            # (f(x + eps) - f(x - eps)) / (2 eps), error O(eps^2), in place where possible
            # (fresh large buffers cost page faults on CPU)
            j[:, start:stop].copy_(torch.sub(b[skip + c :], b[skip : skip + c]).div_(2 * eps).T)
    return jac


def _difference_dtype(out: torch.Tensor) -> torch.dtype:
    """dtype of ``(b - a) / (2 eps)`` for outputs like ``out`` (integers divide to floats)."""
    if out.is_floating_point() or out.is_complex():
        return _real_dtype(out)
    return torch.get_default_dtype()


def _looped_columns(caller, x, start, eps) -> list[torch.Tensor]:
    """Columns ``start..n``, one entry per call in gradcheck's order (x - eps, then x + eps)."""
    flat = _real_view(x)
    cols: list[list[torch.Tensor]] = [[] for _ in caller.reference]
    for k in range(start, flat.numel()):
        sides = []
        for value in (flat[k] - eps, flat[k] + eps):
            nudged = flat.clone()
            nudged[k] = value
            sides.append(caller.single(_from_real_view(nudged[None], x)[0]))
        for o, (a, b) in enumerate(zip(*sides, strict=True)):
            cols[o].append((_real_view(b) - _real_view(a)) / (2 * eps))
    return [torch.stack(c, dim=1) for c in cols]


def _real_dtype(t: torch.Tensor) -> torch.dtype:
    return t.real.dtype if t.is_complex() else t.dtype


def analytic_jacobian(
    fn: Callable,
    inputs: Sequence[torch.Tensor] | torch.Tensor,
    *,
    batched: bool = True,
) -> tuple[tuple[torch.Tensor, ...], ...]:
    """Jacobians that the backward rules claim, one backward pass per output entry.

    With ``batched=True`` all rows are computed in one call of ``torch.autograd.grad`` with
    ``is_grads_batched=True`` (chunked to bound memory; checked against one plain backward, and
    falling back to a loop where the backward cannot be batched). Complex tensors use the real
    view: rows for real and imaginary parts of each output entry. Results live on the outputs'
    device.

    Returns
    -------
    tuple of tuple of torch.Tensor
        ``J[o][i]`` of shape (outputs[o] real numel, inputs[i] real numel).
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    with torch.enable_grad():
        outputs = _as_output_tuple(fn(*inputs))
    _check_size(inputs, outputs)
    runner = _AnalyticRows(inputs, batched)
    return tuple(runner.jacobian(out) for out in outputs)


class _AnalyticRows:
    """Analytic Jacobian rows of one output at a time, by batched (or looped) backward passes.

    The first batched backward is compared, on its first row, with a plain backward; a backward
    that cannot be batched (it raises under vmap, or gives other numbers) is run one row per
    call from then on, as torch's gradcheck does.
    """

    def __init__(self, inputs: tuple, batched: bool, chunk_rows: int | None = None) -> None:
        self.inputs = inputs
        self.diff = _differentiable(inputs)
        self.diff_inputs = [inputs[i] for i in self.diff]
        self.batched = batched
        self.verified = False
        self.chunk_rows = chunk_rows

    def jacobian(self, out: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``J[i]`` for every input: (out real numel, input real numel), zeros where unused."""
        return self.jacobians(out, 1)[0]

    def jacobians(self, out: torch.Tensor, runs: int) -> list[tuple[torch.Tensor, ...]]:
        """The Jacobian ``runs`` times from the same graph and seeds (torch's reentrancy test)."""
        m = _real_view(out).numel()
        real = _real_dtype(out)
        parts: list[list[list[torch.Tensor]]] = [[[] for _ in self.diff] for _ in range(runs)]
        if out.requires_grad and m:
            per_row = m + sum(_real_view(t).numel() for t in self.diff_inputs)
            size = self.chunk_rows or max(1, _CHUNK_SCALARS // max(1, per_row))
            for start in range(0, m, size):
                stop = min(m, start + size)
                eye = out.new_zeros((stop - start, m), dtype=real)
                eye[:, start:stop].diagonal().fill_(1)
                seeds = _from_real_view(eye, out)  # e_k, or i*e_k for imaginary parts
                for run in parts:
                    for k, g in enumerate(self._rows(out, seeds)):
                        if g is not None:
                            run[k].append(_batch_real_view(g).to(real))
        results = []
        for run in parts:
            row = []
            for i, t in enumerate(self.inputs):
                k = self.diff.index(i) if i in self.diff else None
                if k is not None and run[k]:
                    row.append(run[k][0] if len(run[k]) == 1 else torch.cat(run[k]))
                else:
                    width = _real_view(t).numel() if k is not None else 0
                    row.append(out.new_zeros((m, width), dtype=real))
            results.append(tuple(row))
        return results

    def _rows(self, out, seeds):
        if self.batched:
            try:
                grads = torch.autograd.grad(
                    out,
                    self.diff_inputs,
                    seeds,
                    retain_graph=True,
                    allow_unused=True,
                    is_grads_batched=True,
                )
            except Exception:  # noqa: BLE001 - the row-by-row loop below is torch's own way:
                self.batched = False  # it reproduces the backward's real error, if it has one
            else:
                if self.verified or self._agrees(out, seeds[0], grads):
                    self.verified = True
                    return grads
                self.batched = False
        rows = [
            torch.autograd.grad(out, self.diff_inputs, s, retain_graph=True, allow_unused=True)
            for s in seeds
        ]
        return tuple(
            None if rows[0][k] is None else torch.stack([r[k] for r in rows])
            for k in range(len(self.diff_inputs))
        )

    def _agrees(self, out, seed, grads) -> bool:
        single = torch.autograd.grad(
            out, self.diff_inputs, seed, retain_graph=True, allow_unused=True
        )
        for g, s in zip(grads, single, strict=True):
            if (g is None) != (s is None):
                return False
            if g is not None and not _same_values(g[0], s):
                return False
        return True


def _grad_rows(out, diff_inputs, seeds, batched):
    """Rows ``seeds[k]^T J`` for every input in ``diff_inputs`` (None where unused)."""
    runner = _AnalyticRows(tuple(diff_inputs), batched)
    return runner._rows(out, seeds)
