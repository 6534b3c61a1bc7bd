"""The write-your-own exercises as data: what to write, sample inputs, hints, starter, solution.

The starter and solution code are real modules (``starters/KEY.py`` and ``solutions/KEY.py``, which
ruff checks and the tests import); :class:`Exercise` holds the learner-facing part of each, the
class definition, without the module's docstring and imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

__all__ = ["BEYOND_THE_JACOBIAN", "EXERCISES", "Exercise", "code_of"]

_HERE = Path(__file__).resolve().parent

#: gradcheck's checks beyond the Jacobian comparison that an exercise may switch on (lesson 10).
BEYOND_THE_JACOBIAN = ("check_batched_grad", "check_forward_ad", "check_undefined_grad")


@dataclass(frozen=True)
class Exercise:
    """One write-your-own-backward exercise.

    Attributes
    ----------
    key : str
        Short name used by :func:`gradkit.exercises.grade`, e.g. ``"cube"``.
    title : str
        Heading shown in the panel.
    task : str
        What to write, in one or two sentences.
    class_name : str
        The name the learner's Function class must have (the panel looks it up).
    forward : callable
        The reference forward, a function of the input tensors.
    make_inputs : callable
        Fresh float64 sample inputs that require grad.
    starter : str
        Starting code for the learner: it runs, and its backward holds one common mistake.
    hints : tuple of str
        Revealed one at a time.
    solution : str
        A correct Function, shown only when asked for.
    cases : tuple of (str, callable)
        More inputs chosen on purpose, each named (``"0-d"``, ``"a zero entry"``): the grader
        checks them after ``make_inputs``, in order, and names the first one that fails.
    checks : tuple of str
        gradcheck's checks beyond the Jacobian comparison that the grader switches on, from
        :data:`BEYOND_THE_JACOBIAN` (e.g. ``("check_batched_grad", "check_forward_ad")``); none
        by default, where gradcheck runs with torch's defaults.
    """

    key: str
    title: str
    task: str
    class_name: str
    forward: Callable[..., torch.Tensor]
    make_inputs: Callable[[], tuple[torch.Tensor, ...]]
    starter: str
    hints: tuple[str, ...]
    solution: str
    cases: tuple[tuple[str, Callable[[], tuple[torch.Tensor, ...]]], ...] = ()
    checks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = [name for name in self.checks if name not in BEYOND_THE_JACOBIAN]
        if unknown:
            raise ValueError(
                f"checks names gradcheck's switches {BEYOND_THE_JACOBIAN}, got {unknown[0]!r}"
            )


def code_of(kind: str, key: str) -> str:
    """The class definition in ``starters/KEY.py`` or ``solutions/KEY.py``, from ``class`` on.

    Parameters
    ----------
    kind : {"starters", "solutions"}
        Which folder.
    key : str
        The exercise key, the module's name.

    Returns
    -------
    str
        The module's text from its first line starting with ``class `` to the end.
    """
    if kind not in ("starters", "solutions"):
        raise ValueError(f"kind must be 'starters' or 'solutions', got {kind!r}")
    path = _HERE / kind / f"{key}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no {kind[:-1]} for exercise {key!r}: {path} is missing")
    text = path.read_text(encoding="utf-8")
    if text.startswith("class "):
        return text
    start = text.find("\nclass ")
    if start < 0:
        raise ValueError(f"{path} defines no class at the start of a line")
    return text[start + 1 :]


def _inputs(*rows: tuple[float, ...]) -> Callable[[], tuple[torch.Tensor, ...]]:
    def make() -> tuple[torch.Tensor, ...]:
        return tuple(torch.tensor(r, dtype=torch.float64, requires_grad=True) for r in rows)

    return make


def _case(values: object, transpose: bool = False) -> Callable[[], tuple[torch.Tensor, ...]]:
    """One float64 input that requires grad (``transpose``: a transposed view, not contiguous)."""

    def make() -> tuple[torch.Tensor, ...]:
        t = torch.tensor(values, dtype=torch.float64)
        return ((t.T if transpose else t).requires_grad_(),)

    return make


def _exercise(key: str, **fields: object) -> Exercise:
    return Exercise(
        key=key, starter=code_of("starters", key), solution=code_of("solutions", key), **fields
    )


#: The exercises of the write-your-own lesson, by key.
EXERCISES: dict[str, Exercise] = {
    e.key: e
    for e in [
        _exercise(
            "sin_square",
            title="Your turn: the chain rule",
            task="Write MySinSquare, a Function computing sin(x²), with a backward rule that "
            "passes gradcheck.",
            class_name="MySinSquare",
            forward=lambda x: torch.sin(x**2),
            make_inputs=_inputs((0.3, -0.8, 1.2)),
            hints=(
                "sin(x²) is sin of an inner function, x²: the chain rule multiplies the outer "
                "derivative, cos(x²), by the derivative of the inner function.",
                "The inner function is x², whose derivative is 2x.",
                "return grad_output * torch.cos(x**2) * 2 * x",
            ),
        ),
        _exercise(
            "cube",
            title="Exercise 1: the cube",
            task="Write MyCube, a Function computing x³, with a backward rule that passes "
            "gradcheck.",
            class_name="MyCube",
            forward=lambda x: x**3,
            make_inputs=_inputs((0.5, -1.25, 2.0)),
            hints=(
                "The power rule: the derivative of x³ is 3x² (bring the exponent down, then "
                "lower it by one).",
                "backward receives grad_output, the gradient arriving from later in the graph; "
                "return grad_output times the local derivative.",
                "With (x,) = ctx.saved_tensors, the local derivative is 3 * x**2.",
            ),
        ),
        _exercise(
            "sigmoid",
            title="Exercise 2: the sigmoid",
            task="Write MySigmoid, a Function computing sigmoid(x) = 1 / (1 + exp(-x)), with a "
            "backward rule that passes gradcheck.",
            class_name="MySigmoid",
            forward=torch.sigmoid,
            make_inputs=_inputs((-2.0, 0.0, 0.5, 3.0)),
            hints=(
                "The derivative of the sigmoid is written with its output y = sigmoid(x): "
                "y · (1 − y).",
                "(1 − x) is not (1 − y): the formula needs the output in both places.",
                "Save the output in forward with ctx.save_for_backward(y) and return "
                "grad_output * y * (1 - y) in backward.",
            ),
        ),
        _exercise(
            "product",
            title="Exercise 3: a product of two inputs",
            task="Write MyProduct, a Function computing a * b for two tensors of the same shape, "
            "with a backward rule that returns one gradient per input.",
            class_name="MyProduct",
            forward=lambda a, b: a * b,
            make_inputs=_inputs((0.5, -1.5, 2.0), (1.25, 0.75, -0.5)),
            hints=(
                "backward returns gradients in the order forward takes its inputs: first the "
                "gradient for a, then the one for b.",
                "The derivative of a · b with respect to a is b, and with respect to b it is a: "
                "each input's gradient uses the other input.",
                "return grad_output * b, grad_output * a",
            ),
        ),
        _exercise(
            "tanh_all_checks",
            title="Exercise 4: a tanh that passes every check",
            task="MyTanh computes tanh(x), and its backward's Jacobian is right, but it fails "
            "three of gradcheck's other checks. Make it pass them all: vmap, forward mode and "
            "None gradients. The feedback names the first check that fails.",
            class_name="MyTanh",
            forward=torch.tanh,
            make_inputs=_inputs((0.5, -1.25, 2.0)),
            hints=(
                "Fix one check at a time, in the order the feedback names them; each has its "
                "section in this lesson, and SinFn's code shows each fix for sin.",
                "vmap (check_batched_grad): out= writes into a fresh buffer, which holds one "
                "row, not a batch of grad_outputs. Return one whole-tensor expression instead: "
                "grad_output times the slope 1 − y².",
                "Forward mode (check_forward_ad): add a staticmethod jvp(ctx, x_tangent) that "
                "returns x_tangent times the same slope, and save y for it in setup_context with "
                "ctx.save_for_forward(output).",
                "None gradients (check_undefined_grad): setup_context turns materialized "
                "gradients off, so grad_output may be None. Begin backward with "
                "`if grad_output is None: return None`.",
            ),
            checks=BEYOND_THE_JACOBIAN,
        ),
        _exercise(
            "prod",
            title="Exercise 5: the product of every entry",
            task="Fix MyProd, a Function computing the product of all entries of x, so that its "
            "backward passes gradcheck on every input the grader chose on purpose, not only on "
            "[0.5, 1.25, 2].",
            class_name="MyProd",
            forward=torch.prod,
            make_inputs=_inputs((0.5, 1.25, 2.0)),
            hints=(
                "Read which input fails: the slope for entry j of a product is the product of "
                "every other entry, and y / x is that product only while entry j is not 0.",
                "With exactly one entry equal to 0, the product of the others is not 0 at that "
                "entry: setting it to 0 hides the 0 / 0 instead of computing it.",
                "Compute each product of the others without dividing: a row per entry j holding "
                "x with entry j set to 1, then the product of each row (reshape x to 1-d first, "
                "and the result back to x's shape).",
            ),
            cases=(
                ("0-d", _case(0.7)),
                ("empty", _case([])),
                ("negative entries", _case([-1.5, 0.5, -2.0])),
                ("a zero entry", _case([0.5, 0.0, 2.0])),
                ("two zero entries", _case([0.0, 1.5, 0.0])),
                ("transposed (not contiguous)", _case([[0.5, -1.0, 1.5], [2.0, -0.5, 1.25]], True)),
            ),
        ),
    ]
}
