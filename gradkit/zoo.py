"""A catalogue of custom ``torch.autograd.Function`` classes: correct rules and their buggy twins.

Each buggy twin is named after its bug and subclasses its correct Function, overriding only
``backward``: the forward is inherited, so the twins differ from the right rule in exactly one
place (the random forward is the one standalone exception). Tests, widgets and lessons all draw from
:data:`CATALOGUE`, so a learner meets the same examples everywhere.

Depends on torch only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

__all__ = [
    "CATALOGUE",
    "AbsFn",
    "BroadcastAddFn",
    "ComplexSquareFn",
    "CubeFn",
    "ExpFn",
    "ForgotGradOutputSigmoidFn",
    "InplaceSavedExpFn",
    "LogFn",
    "MatmulFn",
    "MissingConjComplexSquareFn",
    "NoisyBackwardTanhFn",
    "OneEntryWrongSquareFn",
    "RandomForwardFn",
    "ReluFn",
    "SigmoidFn",
    "SignErrorTanhFn",
    "SoftplusFn",
    "SquareFn",
    "TanhFn",
    "TransposedMatmulFn",
    "UnreducedBroadcastAddFn",
    "WrongConstantCubeFn",
    "WrongSquareFn",
    "ZooEntry",
    "entry",
    "scalar_functions",
]


# ----------------------------------------------------------------------------- correct rules


class SquareFn(torch.autograd.Function):
    """x * x, with the correct backward 2 x (the seed's example)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


class CubeFn(torch.autograd.Function):
    """x ** 3, backward 3 x^2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


class SigmoidFn(torch.autograd.Function):
    """sigmoid(x), backward y (1 - y) using the saved output."""

    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y * (1 - y)


class TanhFn(torch.autograd.Function):
    """tanh(x), backward 1 - y^2."""

    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)


class ExpFn(torch.autograd.Function):
    """exp(x), backward exp(x) (the saved output)."""

    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


class LogFn(torch.autograd.Function):
    """log(x) for x > 0, backward 1 / x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / x


class SoftplusFn(torch.autograd.Function):
    """softplus(x) = log(1 + exp(x)), backward sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.nn.functional.softplus(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)


class MatmulFn(torch.autograd.Function):
    """A @ B, backward (grad @ B^T, A^T @ grad)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output @ b.transpose(-2, -1), a.transpose(-2, -1) @ grad_output


class BroadcastAddFn(torch.autograd.Function):
    """x + b[:, None]: one bias per row, broadcast across the columns; b's gradient sums them."""

    @staticmethod
    def forward(ctx, x, b):
        return x + b[:, None]

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output.sum(dim=1)


class ReluFn(torch.autograd.Function):
    """max(x, 0), backward 1 where x > 0 (a kink at 0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x > 0).to(grad_output.dtype)


class AbsFn(torch.autograd.Function):
    """|x|, backward sign(x) (a kink at 0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.abs()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sign(x)


class ComplexSquareFn(torch.autograd.Function):
    """z * z for complex z; torch's convention wants grad_output * conj(2 z)."""

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return z * z

    @staticmethod
    def backward(ctx, grad_output):
        (z,) = ctx.saved_tensors
        return grad_output * (2 * z).conj()


# ----------------------------------------------------------------------------- buggy twins


class WrongSquareFn(SquareFn):
    """x * x with the wrong constant in backward: 3 x instead of 2 x (the seed's example)."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x


class WrongConstantCubeFn(CubeFn):
    """x ** 3 with backward 2 x^2: the power rule's constant forgotten."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x**2


class ForgotGradOutputSigmoidFn(SigmoidFn):
    """sigmoid whose backward returns y (1 - y) without multiplying by grad_output."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return y * (1 - y)


class SignErrorTanhFn(TanhFn):
    """tanh whose backward has a sign error: -(1 - y^2)."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return -grad_output * (1 - y * y)


class TransposedMatmulFn(MatmulFn):
    """A @ B whose backward for A uses grad @ B instead of grad @ B^T (square B hides the shape)."""

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output @ b, a.transpose(-2, -1) @ grad_output


class UnreducedBroadcastAddFn(BroadcastAddFn):
    """x + b[:, None] whose backward returns b's gradient unreduced, with x's shape."""

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output


class MissingConjComplexSquareFn(ComplexSquareFn):
    """Complex z * z whose backward forgets the conj: grad_output * 2 z."""

    @staticmethod
    def backward(ctx, grad_output):
        (z,) = ctx.saved_tensors
        return grad_output * 2 * z


class InplaceSavedExpFn(ExpFn):
    """exp whose backward multiplies the saved output in place (``y.mul_``), corrupting it."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return y.mul_(grad_output)


class RandomForwardFn(torch.autograd.Function):
    """A dropout-like forward: x times a fresh random mask on every call, so no slope is stable."""

    @staticmethod
    def forward(ctx, x):
        mask = (torch.rand_like(x) > 0.5).to(x.dtype) * 2
        ctx.save_for_backward(mask)
        return x * mask

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return grad_output * mask


class NoisyBackwardTanhFn(TanhFn):
    """tanh whose backward is off by a random 1e-10 relative, like a non-deterministic atomicAdd."""

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y) * (1 + 1e-10 * torch.randn_like(y))


class OneEntryWrongSquareFn(SquareFn):
    """x * x whose backward is off by 0.1 in a single Jacobian entry (the first one)."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = grad_output * 2 * x
        offset = torch.zeros_like(grad)
        offset.view(-1)[0] = 0.1 * grad_output.reshape(-1)[0]
        return grad + offset


# ----------------------------------------------------------------------------- sample inputs


def _vector(*values: float) -> Callable[[], tuple[torch.Tensor, ...]]:
    def make() -> tuple[torch.Tensor, ...]:
        return (torch.tensor(values, dtype=torch.float64, requires_grad=True),)

    return make


def _seeded(shape_a: tuple[int, ...], shape_b: tuple[int, ...], seed: int):
    def make() -> tuple[torch.Tensor, ...]:
        gen = torch.Generator().manual_seed(seed)
        a = torch.randn(shape_a, generator=gen, dtype=torch.float64).requires_grad_(True)
        b = torch.randn(shape_b, generator=gen, dtype=torch.float64).requires_grad_(True)
        return a, b

    return make


def _complex_input() -> tuple[torch.Tensor, ...]:
    z = torch.tensor([0.5 + 1.0j, -1.5 + 0.25j, 0.75 - 0.5j], dtype=torch.complex128)
    return (z.requires_grad_(True),)


def _one_entry_input() -> tuple[torch.Tensor, ...]:
    return (torch.linspace(0.25, 2.0, 16, dtype=torch.float64).requires_grad_(True),)


# ----------------------------------------------------------------------------- the catalogue


@dataclass(frozen=True)
class ZooEntry:
    """One Function of the zoo.

    Attributes
    ----------
    name : str
        The class name, e.g. ``"WrongSquareFn"``.
    function : type[torch.autograd.Function]
    correct : bool
        Whether the backward rule is right.
    description : str
        What it computes.
    bug : str
        One sentence naming the bug ("" for correct entries).
    make_input : callable
        Returns a fresh tuple of sample inputs (float64 or complex128, requires_grad).
    expected_cause : dict[str, str]
        The cause :func:`gradkit.check` reports at gradcheck's defaults, by input precision
        ("float64" and "float32"; complex inputs use complex128 and complex64).
    formula : str
        The forward, for labels.
    scalar : callable or None
        For one-input elementwise entries, the forward as a plain function of a tensor (for
        SlopeExplorer and EpsilonLab).
    """

    name: str
    function: type[torch.autograd.Function]
    correct: bool
    description: str
    bug: str
    make_input: Callable[[], tuple[torch.Tensor, ...]]
    expected_cause: dict[str, str]
    formula: str
    scalar: Callable[[torch.Tensor], torch.Tensor] | None = None

    @property
    def apply(self) -> Callable:
        """The Function's ``apply``, the callable gradcheck takes."""
        return self.function.apply

    def inputs(self, dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, ...]:
        """Fresh sample inputs cast to ``dtype`` (complex inputs to the matching complex dtype)."""
        return tuple(_cast(t, dtype) for t in self.make_input())


def _cast(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if t.is_complex():
        dtype = {torch.float64: torch.complex128, torch.float32: torch.complex64}.get(dtype, dtype)
    return t.detach().to(dtype).requires_grad_(t.requires_grad)


def _e(name, fn, correct, description, bug, make_input, f64, f32, formula, scalar=None):
    return ZooEntry(
        name,
        fn,
        correct,
        description,
        bug,
        make_input,
        {"float64": f64, "float32": f32},
        formula,
        scalar,
    )


_SMOOTH = _vector(0.5, 1.5, -0.75)
_POSITIVE = _vector(0.5, 1.5, 2.25)

CATALOGUE: dict[str, ZooEntry] = {
    e.name: e
    for e in [
        _e(
            "SquareFn",
            SquareFn,
            True,
            "x * x with backward 2x.",
            "",
            _vector(0.5, 1.5),
            "pass",
            "precision",
            "x²",
            lambda v: v * v,
        ),
        _e(
            "CubeFn",
            CubeFn,
            True,
            "x³ with backward 3x².",
            "",
            _SMOOTH,
            "pass",
            "precision",
            "x³",
            lambda v: v**3,
        ),
        _e(
            "SigmoidFn",
            SigmoidFn,
            True,
            "sigmoid(x) with backward y(1 - y).",
            "",
            _SMOOTH,
            "pass",
            "precision",
            "sigmoid(x)",
            torch.sigmoid,
        ),
        _e(
            "TanhFn",
            TanhFn,
            True,
            "tanh(x) with backward 1 - y².",
            "",
            _SMOOTH,
            "pass",
            "precision",
            "tanh(x)",
            torch.tanh,
        ),
        _e(
            "ExpFn",
            ExpFn,
            True,
            "exp(x) with backward exp(x).",
            "",
            _SMOOTH,
            "pass",
            "precision",
            "exp(x)",
            torch.exp,
        ),
        _e(
            "LogFn",
            LogFn,
            True,
            "log(x) for x > 0 with backward 1/x.",
            "",
            _POSITIVE,
            "pass",
            "precision",
            "log(x)",
            torch.log,
        ),
        _e(
            "SoftplusFn",
            SoftplusFn,
            True,
            "softplus(x) with backward sigmoid(x).",
            "",
            _SMOOTH,
            "pass",
            "precision",
            "softplus(x)",
            torch.nn.functional.softplus,
        ),
        _e(
            "MatmulFn",
            MatmulFn,
            True,
            "A @ B with backward (grad @ Bᵀ, Aᵀ @ grad).",
            "",
            _seeded((2, 3), (3, 3), 0),
            "pass",
            "precision",
            "A @ B",
        ),
        _e(
            "BroadcastAddFn",
            BroadcastAddFn,
            True,
            "x + b[:, None], one bias per row; b's gradient sums over the columns.",
            "",
            _seeded((3, 4), (3,), 1),
            "pass",
            "precision",
            "x + b[:, None]",
        ),
        _e(
            "ReluFn",
            ReluFn,
            True,
            "max(x, 0) with backward 1 where x > 0.",
            "",
            _SMOOTH,
            "pass",
            "precision",
            "relu(x)",
            torch.relu,
        ),
        _e(
            "AbsFn",
            AbsFn,
            True,
            "|x| with backward sign(x).",
            "",
            _SMOOTH,
            "pass",
            "precision",
            "|x|",
            torch.abs,
        ),
        _e(
            "ComplexSquareFn",
            ComplexSquareFn,
            True,
            "complex z * z with backward grad * conj(2z).",
            "",
            _complex_input,
            "pass",
            "precision",
            "z²",
        ),
        _e(
            "WrongSquareFn",
            WrongSquareFn,
            False,
            "x * x whose backward returns 3x.",
            "Wrong constant: the backward multiplies by 3x instead of 2x.",
            _vector(0.5, 1.5),
            "bug",
            "bug",
            "x²",
            lambda v: v * v,
        ),
        _e(
            "WrongConstantCubeFn",
            WrongConstantCubeFn,
            False,
            "x³ whose backward returns 2x².",
            "Wrong constant: the power rule gives 3x², the backward returns 2x².",
            _SMOOTH,
            "bug",
            "bug",
            "x³",
            lambda v: v**3,
        ),
        _e(
            "ForgotGradOutputSigmoidFn",
            ForgotGradOutputSigmoidFn,
            False,
            "sigmoid whose backward ignores grad_output.",
            "Forgot grad_output: the backward returns the local derivative without multiplying by "
            "the incoming gradient.",
            _SMOOTH,
            "bug",
            "bug",
            "sigmoid(x)",
            torch.sigmoid,
        ),
        _e(
            "SignErrorTanhFn",
            SignErrorTanhFn,
            False,
            "tanh whose backward has the wrong sign.",
            "Sign error: the backward returns -(1 - y²) instead of 1 - y².",
            _SMOOTH,
            "bug",
            "bug",
            "tanh(x)",
            torch.tanh,
        ),
        _e(
            "TransposedMatmulFn",
            TransposedMatmulFn,
            False,
            "A @ B whose backward for A forgets a transpose.",
            "Transposed matmul backward: grad @ B instead of grad @ Bᵀ, hidden by a square B.",
            _seeded((2, 3), (3, 3), 0),
            "bug",
            "bug",
            "A @ B",
        ),
        _e(
            "UnreducedBroadcastAddFn",
            UnreducedBroadcastAddFn,
            False,
            "x + b whose backward forgets to reduce b's gradient.",
            "Missing broadcast reduction: b's gradient keeps x's shape instead of being summed "
            "over the broadcast rows.",
            _seeded((3, 4), (3,), 1),
            "error",
            "error",
            "x + b[:, None]",
        ),
        _e(
            "MissingConjComplexSquareFn",
            MissingConjComplexSquareFn,
            False,
            "complex z * z whose backward forgets conj.",
            "Missing conj: complex backward rules return grad * conj(df/dz); this one drops conj.",
            _complex_input,
            "bug",
            "bug",
            "z²",
        ),
        _e(
            "InplaceSavedExpFn",
            InplaceSavedExpFn,
            False,
            "exp whose backward changes its saved tensor in place.",
            "In-place change of a saved tensor: backward multiplies the saved output in place, so "
            "the next backward reads corrupted values.",
            _SMOOTH,
            "error",
            "error",
            "exp(x)",
        ),
        _e(
            "RandomForwardFn",
            RandomForwardFn,
            False,
            "a dropout-like forward with a fresh random mask.",
            "Random forward: every call draws a new mask, so nudged outputs differ by more "
            "than the nudge.",
            _vector(0.5, 1.5, -0.75, 2.0, -1.25, 0.25),
            "nondeterministic",
            "nondeterministic",
            "x · mask",
        ),
        _e(
            "NoisyBackwardTanhFn",
            NoisyBackwardTanhFn,
            False,
            "tanh whose backward carries 1e-10 relative random noise.",
            "Non-deterministic backward: two backward passes on the same input differ (pass "
            "nondet_tol to accept it).",
            _SMOOTH,
            "nondeterministic",
            "nondeterministic",
            "tanh(x)",
        ),
        _e(
            "OneEntryWrongSquareFn",
            OneEntryWrongSquareFn,
            False,
            "x * x on 16 entries whose backward is off by 0.1 in one entry.",
            "One wrong Jacobian entry: the first gradient is 2x + 0.1, the other fifteen are "
            "right.",
            _one_entry_input,
            "bug",
            "bug",
            "x²",
        ),
    ]
}


def entry(name_or_function: str | type[torch.autograd.Function]) -> ZooEntry:
    """Look up a zoo entry by class name or by the Function class itself."""
    if isinstance(name_or_function, str):
        if name_or_function not in CATALOGUE:
            raise KeyError(
                f"no zoo entry named {name_or_function!r}; choose from {sorted(CATALOGUE)}"
            )
        return CATALOGUE[name_or_function]
    for e in CATALOGUE.values():
        if e.function is name_or_function:
            return e
    raise KeyError(f"{name_or_function!r} is not in the zoo")


def scalar_functions() -> dict[str, Callable[[torch.Tensor], torch.Tensor]]:
    """Plain elementwise functions for the 1-D widgets: x^2, x^3, sin, exp, and the zoo's."""
    functions: dict[str, Callable] = {
        "x²": lambda v: v * v,
        "x³": lambda v: v**3,
        "sin(x)": torch.sin,
        "exp(x)": torch.exp,
    }
    for e in CATALOGUE.values():
        if e.correct and e.scalar is not None and e.formula not in functions:
            functions[e.formula] = e.scalar
    return functions
