"""Every argument rule of gradkit, written once.

Each ``check_*``/``as_*`` function takes the value and the name of the argument it came from,
and either returns the value in its one accepted form or raises an error that names the
argument and says how to fix it. Depends on torch only; every other module imports its rules
from here.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import torch

__all__ = [
    "DTYPES",
    "EPS_GRID",
    "EPS_MAX",
    "EPS_MIN",
    "GRADCHECK_DEFAULTS",
    "SCHEMES",
    "WIDGET_SCHEMES",
    "allowance",
    "as_dtype",
    "as_input_tuple",
    "check_control_eps",
    "check_count",
    "check_eps",
    "check_eps_values",
    "check_function",
    "check_points",
    "check_scheme",
    "check_tolerance",
    "check_x",
    "complex_counterpart",
    "dtype_name",
    "snap_eps",
]

#: A float, a numpy array or a tensor: what :func:`allowance` takes and gives.
Number = TypeVar("Number")

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

#: The schemes the widgets offer (a backward difference behaves as a forward one, mirrored).
WIDGET_SCHEMES: tuple[str, ...] = ("central", "forward")

#: The range of every eps control (slider, text box, ÷10/×10 buttons).
EPS_MIN, EPS_MAX = 1e-12, 1.0

#: The decimal 1-2-5 grid from EPS_MIN to EPS_MAX (37 values); ÷10 and ×10 move 3 positions.
EPS_GRID: tuple[float, ...] = (
    *(float(f"{m}e{k}") for k in range(-12, 0) for m in (1, 2, 5)),
    1.0,
)

#: Complex dtype whose real and imaginary parts have a given real dtype.
_COMPLEX_OF: dict[torch.dtype, torch.dtype] = {
    torch.float64: torch.complex128,
    torch.float32: torch.complex64,
    torch.float16: torch.complex32,
}


def allowance(numeric: Number, atol: float, rtol: float) -> Number:
    """gradcheck's allowed difference ``atol + rtol·|numeric|`` (float, array or tensor alike):
    an entry passes when ``|analytic − numeric| <= allowance(...)`` (torch.allclose's rule)."""
    return atol + rtol * abs(numeric)


def dtype_name(dtype: torch.dtype) -> str:
    """Short name of a dtype, e.g. ``"float32"`` for ``torch.float32``."""
    return str(dtype).removeprefix("torch.")


def as_dtype(dtype: torch.dtype | str, argument: str = "dtype") -> torch.dtype:
    """A real floating dtype from a name in :data:`DTYPES` (``"float32"``) or a torch dtype.

    ValueError for an unknown name or a float8 (no arithmetic for a nudge there), TypeError for
    anything that is not a floating dtype."""
    if isinstance(dtype, str):
        name = dtype.removeprefix("torch.")
        if name not in DTYPES:
            raise ValueError(
                f"{argument}={dtype!r} is not one of {sorted(DTYPES)}; pass e.g. torch.float64"
            )
        return DTYPES[name]
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(
            f"{argument} must be a floating torch dtype such as torch.float64, got {dtype!r}"
        )
    if dtype not in DTYPES.values():
        raise ValueError(
            f"{argument}={dtype_name(dtype)} is not supported: torch cannot do the arithmetic of "
            f"a finite difference in it; use one of {sorted(DTYPES)} (e.g. torch.float64)"
        )
    return dtype


def complex_counterpart(dtype: torch.dtype | str) -> torch.dtype:
    """The complex dtype built from two ``dtype`` numbers (float64 -> complex128); a complex
    dtype is returned unchanged, bfloat16 (no complex counterpart in torch) is a ValueError."""
    if isinstance(dtype, torch.dtype) and dtype.is_complex:
        return dtype
    real = as_dtype(dtype)
    if real not in _COMPLEX_OF:
        raise ValueError(
            f"dtype={dtype_name(real)} has no complex counterpart in torch; use float64 "
            "(complex128), float32 (complex64) or float16 (complex32)"
        )
    return _COMPLEX_OF[real]


def _one_number(value: object, argument: str, wanted: str) -> float:
    """A Python float from a number or a one-entry real tensor (bool, str, lists refused).

    ``wanted`` completes "``argument`` must be ...", e.g. "a single number such as 2.0".
    """
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise TypeError(
                f"{argument} must be {wanted}, got a tensor of shape {tuple(value.shape)}"
            )
        if value.is_complex():
            raise TypeError(
                f"{argument} must be {wanted}, got a complex tensor; pass its real part "
                "(z.real) or its magnitude (z.abs())"
            )
        value = value.item()
    if isinstance(value, complex):
        raise TypeError(
            f"{argument} must be {wanted}, got the complex number {value!r}; pass its real "
            "part (z.real) or its magnitude (abs(z))"
        )
    if isinstance(value, (list, tuple)):
        raise TypeError(
            f"{argument} must be {wanted}, got a {type(value).__name__} of {len(value)} values; "
            "pass one number (to compare several, call once per value)"
        )
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy.float32 is Real
        raise TypeError(f"{argument} must be {wanted}, got {type(value).__name__}")
    return float(value)


def check_eps(eps: object, argument: str = "eps") -> float:
    """The step size as a float: finite and > 0 (a one-entry tensor is accepted).

    Raises
    ------
    TypeError
        For anything that is not one number (a list, ``[]``, a string, a bool).
    ValueError
        For 0, negative, NaN or infinite values.
    """
    value = _one_number(eps, argument, "a positive number such as 1e-6")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{argument} must be a finite number > 0 (e.g. 1e-6), got {value!r}")
    return value


def check_control_eps(eps: object, argument: str = "eps") -> float:
    """:func:`check_eps` plus the range of the eps controls, EPS_MIN..EPS_MAX."""
    value = check_eps(eps, argument)
    if not EPS_MIN <= value <= EPS_MAX:
        raise ValueError(
            f"{argument}={value:g} is outside the range {EPS_MIN:g} to {EPS_MAX:g} of the eps "
            "controls; pick a value inside it (e.g. 1e-6)"
        )
    return value


def snap_eps(eps: float) -> int:
    """Index in :data:`EPS_GRID` of the grid value nearest ``eps`` on a log scale."""
    target = math.log10(check_eps(eps))
    # |log10(g) - log10(eps)|, smallest first; ties go to the smaller value
    return min(range(len(EPS_GRID)), key=lambda k: abs(math.log10(EPS_GRID[k]) - target))


def check_tolerance(value: object, argument: str, *, allow_inf: bool = False) -> float:
    """A tolerance (atol, rtol, nondet_tol) as a float: >= 0, and finite unless ``allow_inf``."""
    value = _one_number(value, argument, "a number >= 0 such as 1e-5")
    if math.isnan(value) or value < 0 or (math.isinf(value) and not allow_inf):
        default = GRADCHECK_DEFAULTS.get(argument, 0.0)
        raise ValueError(
            f"{argument} must be a {'' if allow_inf else 'finite '}number >= 0 (gradcheck's "
            f"default is {default:g}), got {value!r}"
        )
    return value


def check_x(x: object, argument: str = "x") -> float:
    """One finite real number (a one-entry real tensor is accepted) as a float."""
    value = _one_number(x, argument, "a single number such as 2.0")
    if not math.isfinite(value):
        raise ValueError(f"{argument} must be a finite number such as 2.0, got {value!r}")
    return value


def check_function(fn: object, argument: str = "fn") -> Callable:
    """A function to check: callable (an ``autograd.Function``'s ``apply``, not its class)."""
    if not callable(fn):
        raise TypeError(
            f"{argument} must be callable (e.g. torch.sin or SquareFn.apply), got {fn!r}"
        )
    if isinstance(fn, type) and issubclass(fn, torch.autograd.Function):
        raise TypeError(f"{argument} is the class {fn.__name__}; pass {fn.__name__}.apply")
    return fn


def as_input_tuple(inputs: object, argument: str = "inputs") -> tuple:
    """The inputs of a function as a tuple: one tensor becomes ``(tensor,)``.

    Lists and tuples are accepted as they are (their entries are checked by the caller);
    a dict, a set or a generator is refused, because the order of the arguments would be a guess.
    """
    if isinstance(inputs, torch.Tensor):
        return (inputs,)
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs)
    if isinstance(inputs, Mapping):
        raise TypeError(
            f"{argument} is a dict; pass the values in the order the function takes them, "
            f"e.g. {argument}=(x, w) (or tuple(d.values()) if that order is right)"
        )
    raise TypeError(
        f"{argument} must be a tensor or a tuple of tensors, got {type(inputs).__name__}; "
        f"write e.g. {argument}=(torch.tensor([0.5, 1.5], dtype=torch.float64, "
        "requires_grad=True),)"
    )


def check_scheme(scheme: object, allowed: Sequence[str] = tuple(SCHEMES)) -> str:
    """A finite-difference scheme name from ``allowed`` (default: every one in :data:`SCHEMES`)."""
    if not isinstance(scheme, str) or scheme not in allowed:
        raise ValueError(f"scheme={scheme!r} is not one of {list(allowed)}")
    return scheme


def check_eps_values(eps: object, argument: str = "eps") -> torch.Tensor:
    """Many step sizes as a 1-D float64 tensor, each obeying :func:`check_eps`'s rule.

    Raises
    ------
    ValueError
        For an empty sequence, or naming the first value that is not a finite number > 0.
    """
    if isinstance(eps, (str, bytes, Mapping)):
        raise TypeError(
            f"{argument} must be a sequence of numbers such as [1e-8, 1e-6, 1e-4], "
            f"got {type(eps).__name__}"
        )
    try:
        values = torch.as_tensor(eps, dtype=torch.float64).detach().reshape(-1)
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(
            f"{argument} must be a sequence of numbers such as [1e-8, 1e-6, 1e-4]: {error}"
        ) from None
    bad = ~torch.isfinite(values) | (values <= 0)  # check_eps's rule, value by value
    if values.numel() == 0 or bool(bad.any()):
        got = "an empty sequence" if values.numel() == 0 else repr(float(values[bad][0]))
        raise ValueError(
            f"{argument} must be a non-empty sequence of finite numbers > 0 (e.g. "
            f"[1e-8, 1e-6, 1e-4]), got {got}"
        )
    return values


def check_points(x: object, argument: str = "x") -> torch.Tensor:
    """One or more finite real numbers (a number, a sequence or a tensor) as 1-D float64."""
    if isinstance(x, complex) or (isinstance(x, torch.Tensor) and x.is_complex()):
        raise TypeError(
            f"{argument} must be real: the slope of a real function is measured along the real "
            f"line; pass {argument}.real (or the magnitude, abs({argument}))"
        )
    if isinstance(x, (str, bytes, bool, Mapping)):
        raise TypeError(f"{argument} must be a number or a tensor such as 2.0, got {x!r}")
    try:
        values = torch.as_tensor(x, dtype=torch.float64).detach().reshape(-1)
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(f"{argument} must be a number or a tensor such as 2.0: {error}") from None
    if values.numel() == 0:
        raise ValueError(f"{argument} must hold at least one number")
    if not bool(torch.isfinite(values).all()):
        bad = float(values[~torch.isfinite(values)][0])
        raise ValueError(
            f"{argument} must hold finite numbers, got {bad!r}; a slope at NaN or infinity "
            "cannot be measured: pick a point inside the function's domain"
        )
    return values


def check_count(value: object, argument: str) -> int:
    """A whole number >= 1 (a size, a number of repeats, a chunk size)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{argument} must be a whole number >= 1 such as 10, got {value!r}")
    return value
