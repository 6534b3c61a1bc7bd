"""Exercises for the lessons: the learner writes a backward rule, gradkit checks it.

Each :class:`Exercise` names the class the learner defines (e.g. ``MyCube``), the forward it
must compute, sample inputs, hints revealed one at a time, and a solution shown only on request.

- :func:`grade` checks a learner's Function: first its forward against the reference (a wrong
  forward makes gradcheck compare the wrong thing), then its backward through
  :func:`gradkit.check` in float64, and returns :class:`Feedback` with the cause, the worst
  Jacobian entry and a suggestion.
- :func:`hint` and :func:`solution` give the same help as plain text.
- :class:`ExercisePanel` is the notebook version: "Check my code", "Hint", "Show solution"
  (which asks twice) buttons, feedback as text in the widget tree, and an error area where any
  callback error lands.

>>> import torch
>>> class MyCube(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x**3
...     @staticmethod
...     def backward(ctx, grad_output):
...         (x,) = ctx.saved_tensors
...         return grad_output * 3 * x**2
>>> grade("cube", MyCube).passed
True
"""

from __future__ import annotations

import ast
import html
import inspect
import textwrap
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import ipywidgets as widgets
import torch

from . import zoo
from .check import CAUSES, CheckReport, check

__all__ = [
    "EXERCISES",
    "Exercise",
    "ExercisePanel",
    "Feedback",
    "ZooHunt",
    "grade",
    "hint",
    "solution",
]


@dataclass(frozen=True)
class Exercise:
    """One write-your-own-backward exercise.

    Attributes
    ----------
    key : str
        Short name used by :func:`grade`, e.g. ``"cube"``.
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


def _inputs(*rows: tuple[float, ...]) -> Callable[[], tuple[torch.Tensor, ...]]:
    def make() -> tuple[torch.Tensor, ...]:
        return tuple(torch.tensor(r, dtype=torch.float64, requires_grad=True) for r in rows)

    return make


_CUBE_STARTER = """class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x  # is this the derivative of x**3?
"""

_CUBE_SOLUTION = """class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2
"""

_SIGMOID_STARTER = """class MySigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x) * (1 - x)  # sigma'(x) = ?
"""

_SIGMOID_SOLUTION = """class MySigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y * (1 - y)
"""

_PRODUCT_STARTER = """class MyProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * a, grad_output * b  # one gradient per input, in order
"""

_PRODUCT_SOLUTION = """class MyProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b, grad_output * a
"""

#: The exercises of lesson 07, by key.
EXERCISES: dict[str, Exercise] = {
    e.key: e
    for e in [
        Exercise(
            "cube",
            "Exercise 1: the cube",
            "Write MyCube, a Function computing x³, with a backward rule that passes gradcheck.",
            "MyCube",
            lambda x: x**3,
            _inputs((0.5, -1.25, 2.0)),
            _CUBE_STARTER,
            (
                "The power rule: the derivative of x³ is 3x² (bring the exponent down, then "
                "lower it by one).",
                "backward receives grad_output, the gradient arriving from later in the graph; "
                "return grad_output times the local derivative.",
                "With (x,) = ctx.saved_tensors, the local derivative is 3 * x**2.",
            ),
            _CUBE_SOLUTION,
        ),
        Exercise(
            "sigmoid",
            "Exercise 2: the sigmoid",
            "Write MySigmoid, a Function computing sigmoid(x) = 1 / (1 + exp(-x)), with a "
            "backward rule that passes gradcheck.",
            "MySigmoid",
            torch.sigmoid,
            _inputs((-2.0, 0.0, 0.5, 3.0)),
            _SIGMOID_STARTER,
            (
                "The derivative of the sigmoid is written with its output y = sigmoid(x): "
                "y · (1 − y).",
                "(1 − x) is not (1 − y): the formula needs the output in both places.",
                "Save the output in forward with ctx.save_for_backward(y) and return "
                "grad_output * y * (1 - y) in backward.",
            ),
            _SIGMOID_SOLUTION,
        ),
        Exercise(
            "product",
            "Exercise 3: a product of two inputs",
            "Write MyProduct, a Function computing a * b for two tensors of the same shape, with "
            "a backward rule that returns one gradient per input.",
            "MyProduct",
            lambda a, b: a * b,
            _inputs((0.5, -1.5, 2.0), (1.25, 0.75, -0.5)),
            _PRODUCT_STARTER,
            (
                "backward returns gradients in the order forward takes its inputs: first the "
                "gradient for a, then the one for b.",
                "The derivative of a · b with respect to a is b, and with respect to b it is a: "
                "each input's gradient uses the other input.",
                "return grad_output * b, grad_output * a",
            ),
            _PRODUCT_SOLUTION,
        ),
    ]
}


@dataclass
class Feedback:
    """The result of :func:`grade`.

    ``passed`` is True only when the forward matches the reference and gradcheck (float64,
    default tolerances) passes. ``report`` is gradkit's check report when gradcheck ran.
    """

    exercise: str
    passed: bool
    headline: str
    details: list[str] = field(default_factory=list)
    report: CheckReport | None = None

    def __str__(self) -> str:
        lines = [self.headline, *(f"  {d}" for d in self.details)]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        color = "#1b7f3b" if self.passed else "#b3261e"
        items = "".join(f"<li>{html.escape(d)}</li>" for d in self.details)
        body = f"<ul style='margin:0.2em 0'>{items}</ul>" if items else ""
        return (
            f"<div class='gradkit-feedback'><div style='font-weight:bold;color:{color}'>"
            f"{html.escape(self.headline)}</div>{body}</div>"
        )


def _exercise(exercise: str | Exercise) -> Exercise:
    if isinstance(exercise, Exercise):
        return exercise
    if exercise not in EXERCISES:
        raise KeyError(f"no exercise named {exercise!r}; choose one of {sorted(EXERCISES)}")
    return EXERCISES[exercise]


def _callable_of(function: object, ex: Exercise) -> Callable | str:
    """The callable to check, or a message saying why there is none."""
    if function is None:
        return (
            f"No class named {ex.class_name} yet: run the cell that defines it "
            f"(class {ex.class_name}(torch.autograd.Function): ...), then check again."
        )
    if isinstance(function, type):
        if not issubclass(function, torch.autograd.Function):
            return (
                f"{function.__name__} is a class but not a torch.autograd.Function: write "
                f"class {ex.class_name}(torch.autograd.Function)."
            )
        return function.apply
    if callable(function):
        return function
    return f"Expected the class {ex.class_name}, got {type(function).__name__}."


def _check_forward(fn: Callable, ex: Exercise) -> list[str]:
    """Problems with the forward, as sentences (empty when it matches the reference)."""
    inputs = tuple(t.detach() for t in ex.make_inputs())
    try:
        with torch.no_grad():
            got = fn(*inputs)
    except Exception as error:  # noqa: BLE001 - a learner's mistake becomes feedback
        return [f"forward raised {type(error).__name__}: {error}"]
    expected = ex.forward(*inputs)
    if not isinstance(got, torch.Tensor):
        return [f"forward returned a {type(got).__name__}; it must return a tensor."]
    if got.shape != expected.shape:
        return [f"forward returned shape {tuple(got.shape)}, expected {tuple(expected.shape)}."]
    if not torch.allclose(got.double(), expected, rtol=1e-10, atol=1e-12):
        k = int((got.double() - expected).abs().argmax())
        where = ", ".join(f"{float(t.reshape(-1)[k]):g}" for t in inputs)
        return [
            f"forward computes the wrong values: at input ({where}) it returns "
            f"{float(got.reshape(-1)[k]):.6g}, expected {float(expected.reshape(-1)[k]):.6g}. "
            "gradcheck compares backward with your forward, so fix forward first."
        ]
    return []


def grade(exercise: str | Exercise, function: object) -> Feedback:
    """Check a learner's Function for an exercise.

    Parameters
    ----------
    exercise : str or Exercise
        A key of :data:`EXERCISES` (``"cube"``, ``"sigmoid"``, ``"product"``) or an Exercise.
    function : torch.autograd.Function subclass or callable
        The learner's class (or its ``apply``).

    Returns
    -------
    Feedback
        ``passed`` with a headline and details; never raises for mistakes in the learner's code
        (they become feedback).
    """
    ex = _exercise(exercise)
    fn = _callable_of(function, ex)
    if isinstance(fn, str):
        return Feedback(ex.key, False, "Nothing to check yet.", [fn])
    problems = _check_forward(fn, ex)
    if problems:
        return Feedback(ex.key, False, "Not yet: the forward is off.", problems)
    try:
        report = check(fn, ex.make_inputs())
    except Exception as error:  # noqa: BLE001 - a learner's mistake becomes feedback
        return Feedback(
            ex.key,
            False,
            "Not yet: gradcheck could not run.",
            [f"{type(error).__name__}: {error}"],
        )
    inputs = ", ".join(
        "[" + ", ".join(f"{v:g}" for v in t.detach().tolist()) + "]" for t in ex.make_inputs()
    )
    if report.passed:
        return Feedback(
            ex.key,
            True,
            "Correct: gradcheck passes in float64.",
            [f"Checked at input(s) {inputs}.", _sentence(report.explanation)],
            report,
        )
    details = [f"gradcheck: {report.verdict}, cause {report.cause} ({CAUSES[report.cause]})."]
    where = _where(report, ex)
    if where:
        details.append(where)
    explanation = report.explanation
    if where:
        explanation = explanation.split(" The worst entry")[0]
    details.append(_sentence(explanation))
    if report.suggestion:
        details.append(f"Try: {report.suggestion}.")
    details.append(f"Checked at input(s) {inputs}. Ask for a hint if you are stuck.")
    return Feedback(
        ex.key, False, _HEADLINES.get(report.cause, _HEADLINES["other"]), details, report
    )


_HEADLINES = {
    "bug": "Not yet: the backward rule disagrees with the nudges.",
    "error": "Not yet: torch raised an error while checking your Function.",
    "other": "Not yet: gradcheck fails.",
}


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def _where(report: CheckReport, ex: Exercise) -> str:
    """The worst entry in the learner's terms: which input, which value, what each side says."""
    w = report.worst
    if w is None or report.cause != "bug":
        return ""
    inputs = ex.make_inputs()
    if w.input >= len(inputs):
        return ""
    value = float(inputs[w.input].detach().reshape(-1)[w.index[1]])
    which = f"input {w.input} " if len(inputs) > 1 else ""
    return (
        f"At {which}entry {w.index[1]} (value {value:g}) the nudges measure a slope of "
        f"{w.numeric:.6g}, but your backward returns {w.analytic:.6g}."
    )


def hint(exercise: str | Exercise, number: int = 1) -> str:
    """Hint ``number`` (1-based) for an exercise, as ``"Hint k of n: ..."``."""
    ex = _exercise(exercise)
    total = len(ex.hints)
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= total:
        raise ValueError(f"number must be a whole number from 1 to {total}, got {number!r}")
    return f"Hint {number} of {total}: {ex.hints[number - 1]}"


def solution(exercise: str | Exercise) -> str:
    """The solution code for an exercise (try the hints first)."""
    return _exercise(exercise).solution


def _user_namespace() -> Mapping[str, object]:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return {}
    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


class ExercisePanel(widgets.VBox):
    """An exercise in a notebook: check, hints one at a time, and a solution on request.

    Parameters
    ----------
    exercise : str or Exercise
        Which exercise.
    namespace : mapping, optional
        Where to look up the learner's class by name when "Check my code" is pressed; defaults
        to the notebook's own namespace (pass ``globals()`` to be explicit).

    Attributes
    ----------
    check_button, hint_button, solution_button : ipywidgets.Button
    feedback : ipywidgets.HTML
        The latest feedback (checked once when the panel is built).
    hints_html : ipywidgets.HTML
        The hints revealed so far.
    solution_html : ipywidgets.HTML
        Empty until the solution is asked for twice.
    error : ipywidgets.HTML
        Empty unless a callback failed; then a short message.
    last : Feedback or None
        The latest feedback object.
    """

    def __init__(
        self, exercise: str | Exercise, namespace: Mapping[str, object] | None = None
    ) -> None:
        self.exercise = _exercise(exercise)
        self._namespace = namespace
        self.hints_shown = 0
        self._solution_armed = False
        self.last: Feedback | None = None
        ex = self.exercise
        title = widgets.HTML(
            f"<b>{html.escape(ex.title)}</b><br>{html.escape(ex.task)}",
            layout=widgets.Layout(min_width="320px"),
        )
        self.check_button = widgets.Button(
            description="Check my code",
            button_style="primary",
            icon="check",
            tooltip=f"Run gradcheck on the class {ex.class_name} from your cell above",
        )
        self.hint_button = widgets.Button(
            description="Hint",
            icon="lightbulb-o",
            tooltip=f"Show the next hint ({len(ex.hints)} in all)",
        )
        self.solution_button = widgets.Button(
            description="Show solution",
            icon="eye",
            tooltip="Reveal a correct solution (asks once more first)",
        )
        self.feedback = widgets.HTML(layout=widgets.Layout(min_width="320px"))
        self.hints_html = widgets.HTML()
        self.solution_html = widgets.HTML()
        self.error = widgets.HTML()
        self.check_button.on_click(self._guard(lambda _b: self.check()))
        self.hint_button.on_click(self._guard(lambda _b: self.next_hint()))
        self.solution_button.on_click(self._guard(lambda _b: self.reveal_solution()))
        super().__init__(
            [
                title,
                widgets.HBox([self.check_button, self.hint_button, self.solution_button]),
                self.feedback,
                self.hints_html,
                self.solution_html,
                self.error,
            ],
            layout=widgets.Layout(min_width="320px"),
        )
        self._guard(lambda _b: self.check())(None)

    def _guard(self, callback: Callable[[object], object]) -> Callable[[object], None]:
        return _guarded(self.error)(callback)

    def _lookup(self) -> object:
        namespace = self._namespace if self._namespace is not None else _user_namespace()
        return namespace.get(self.exercise.class_name)

    def check(self, function: object = None) -> Feedback:
        """Grade ``function`` (default: the class named ``class_name`` in the namespace)."""
        target = function if function is not None else self._lookup()
        self.last = grade(self.exercise, target)
        self.feedback.value = self.last._repr_html_()
        return self.last

    def next_hint(self) -> str:
        """Reveal the next hint (the last one stays once all are shown)."""
        self.hints_shown = min(self.hints_shown + 1, len(self.exercise.hints))
        shown = [hint(self.exercise, k) for k in range(1, self.hints_shown + 1)]
        self.hints_html.value = "".join(f"<div>{html.escape(h)}</div>" for h in shown)
        if self.hints_shown == len(self.exercise.hints):
            self.hint_button.disabled = True
            self.hint_button.description = "No more hints"
        return shown[-1]

    def reveal_solution(self) -> str:
        """First call asks for confirmation; the second shows the solution code."""
        if not self._solution_armed:
            self._solution_armed = True
            self.solution_button.description = "Sure? Click again"
            self.solution_button.button_style = "warning"
            return ""
        self.solution_button.disabled = True
        self.solution_button.description = "Solution shown"
        self.solution_html.value = (
            "<div>A correct solution (copy it into your cell, run it, then check):</div>"
            f"<pre>{html.escape(self.exercise.solution)}</pre>"
        )
        return self.exercise.solution


#: Correct entries mixed into the hunt (at these positions), so "pass" is a real possibility.
_HUNT_DECOYS = ((2, "CubeFn"), (7, "SigmoidFn"))


def _whole_class_source(function: type) -> str:
    """A Function's source as one class: a zoo twin's inherited forward is spliced back in."""
    source = inspect.getsource(function)
    base = function.__mro__[1]
    if base is torch.autograd.Function or "forward" in vars(function):
        return source
    forward = inspect.getsource(base.forward)  # indented, with its @staticmethod line
    backward_at = source.index("    @staticmethod\n    def backward")
    source = source[:backward_at] + forward + "\n" + source[backward_at:]
    return source.replace(f"({base.__name__}):", "(torch.autograd.Function):", 1)


def _specimen_source(e: zoo.ZooEntry, label: str) -> str:
    """The Function's source with its docstring removed and its telling name replaced."""
    try:
        source = _whole_class_source(e.function)
    except (OSError, TypeError):
        return f"# the source of this Function is not available; it computes {e.formula}"
    lines = source.splitlines()
    node = ast.parse(textwrap.dedent(source)).body[0]
    first = node.body[0] if isinstance(node, ast.ClassDef) and node.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        del lines[first.lineno - 1 : first.end_lineno]
        if first.lineno - 1 < len(lines) and not lines[first.lineno - 1].strip():
            del lines[first.lineno - 1]
    return "\n".join(lines).replace(e.name, label)


class ZooHunt(widgets.VBox):
    """A hunt through the zoo: read a Function's code, predict gradcheck's verdict, then run it.

    Each Function is shown as "Specimen k" with its docstring removed and its class name
    replaced, so the code, not the name, tells what is wrong. Running it reveals the zoo name,
    the cause gradcheck reports, the explanation and the bug in one sentence.

    Parameters
    ----------
    names : sequence of str, optional
        Zoo entries to hunt through; default: every buggy entry plus two correct decoys.

    Attributes
    ----------
    names : list of str
        The zoo names, in hunt order.
    entry_dropdown : ipywidgets.Dropdown
        Labels "Specimen k: formula"; values are the zoo names.
    code_html : ipywidgets.HTML
        The specimen's source code.
    prediction : ipywidgets.ToggleButtons
        The learner's guess of the cause (``None`` until chosen).
    run_button : ipywidgets.Button
        Runs :func:`gradkit.check` on the entry's sample inputs (float64).
    result : ipywidgets.HTML
        Whether the prediction was right, the verdict card and the bug in one sentence.
    score : ipywidgets.HTML
        How many entries were predicted right at the first try.
    error : ipywidgets.HTML
        Empty unless a callback failed.
    last : CheckReport or None
    """

    def __init__(self, names: tuple[str, ...] | list[str] | None = None) -> None:
        if names is None:
            names = [n for n, e in zoo.CATALOGUE.items() if not e.correct]
            for position, decoy in _HUNT_DECOYS:
                names.insert(min(position, len(names)), decoy)
        names = list(names)
        if not names:
            raise ValueError("names must list at least one zoo entry, e.g. ['WrongSquareFn']")
        for name in names:
            zoo.entry(name)  # a clear KeyError naming the choices
        self.names = names
        self._labels = {n: f"Specimen{k}Fn" for k, n in enumerate(names, start=1)}
        self.last: CheckReport | None = None
        self._first_tries: dict[str, bool] = {}
        self.entry_dropdown = widgets.Dropdown(
            options=[
                (f"Specimen {k}: {zoo.entry(n).formula}", n) for k, n in enumerate(names, start=1)
            ],
            value=names[0],
            description="Function",
            tooltip="Which Function from the zoo to examine",
            layout=widgets.Layout(min_width="320px"),
        )
        self.code_html = widgets.HTML()
        self.prediction = widgets.ToggleButtons(
            options=list(CAUSES),
            value=None,
            description="I predict",
            tooltips=[f"{k}: {v}" for k, v in CAUSES.items()],
            style={"button_width": "10.5em"},
        )
        self.run_button = widgets.Button(
            description="Run gradcheck",
            button_style="primary",
            icon="play",
            tooltip="Run gradkit.check on this Function's sample inputs (float64)",
        )
        self.result = widgets.HTML(layout=widgets.Layout(min_width="320px"))
        self.score = widgets.HTML()
        self.error = widgets.HTML()
        guard = _guarded(self.error)
        self.entry_dropdown.observe(guard(lambda _change: self._show_entry()), names="value")
        self.run_button.on_click(guard(lambda _button: self.run()))
        super().__init__(
            [
                self.entry_dropdown,
                self.code_html,
                self.prediction,
                self.run_button,
                self.result,
                self.score,
                self.error,
            ],
            layout=widgets.Layout(min_width="320px"),
        )
        guard(lambda _x: self._show_entry())(None)

    def _show_entry(self) -> None:
        e = zoo.entry(self.entry_dropdown.value)
        label = self._labels[e.name]
        shapes = ", ".join(str(tuple(t.shape)) for t in e.make_input())
        self.code_html.value = (
            f"<div>{html.escape(label)} computes <b>{html.escape(e.formula)}</b> "
            f"(sample input shapes {html.escape(shapes)}, float64).</div>"
            f"<pre style='font-size:0.85em'>{html.escape(_specimen_source(e, label))}</pre>"
        )
        self.prediction.value = None
        self.result.value = "Read the code, choose a prediction, then run gradcheck."

    def run(self) -> CheckReport:
        """Check the selected entry and compare the verdict's cause with the prediction."""
        e = zoo.entry(self.entry_dropdown.value)
        report = check(e.apply, e.inputs())
        self.last = report
        guess = self.prediction.value
        if guess is None:
            verdict = "You ran it without a prediction: guess first next time, it sticks better."
            color = "#555"
        elif guess == report.cause:
            verdict = f"Right: the cause is {report.cause}."
            color = "#1b7f3b"
        else:
            verdict = f"Not quite: you predicted {guess}, the cause is {report.cause}."
            color = "#b3261e"
        if guess is not None:
            self._first_tries.setdefault(e.name, guess == report.cause)
        bug = e.bug or "none: this Function is correct."
        self.result.value = (
            f"<div style='font-weight:bold;color:{color}'>{html.escape(verdict)}</div>"
            f"{report._repr_html_()}<div>{html.escape(self._labels[e.name])} is the zoo's "
            f"<b>{html.escape(e.name)}</b>. The bug: {html.escape(bug)}</div>"
        )
        right = sum(self._first_tries.values())
        self.score.value = (
            f"Score: {right} right at the first try, out of {len(self._first_tries)} predicted "
            f"({len(self.names)} Functions in the hunt)."
        )
        return report


def _guarded(error_area: widgets.HTML) -> Callable[[Callable], Callable]:
    """Wrap callbacks so that their errors show in ``error_area`` instead of vanishing."""

    def wrap(callback: Callable[[object], object]) -> Callable[[object], None]:
        def run(argument: object) -> None:
            try:
                callback(argument)
                error_area.value = ""
            except Exception as error:  # noqa: BLE001 - shown in the widget's error area
                error_area.value = (
                    "<span style='color:#b3261e'>The panel hit an error: "
                    f"{html.escape(type(error).__name__)}: {html.escape(str(error))}</span>"
                    f"<pre style='font-size:0.8em'>{html.escape(traceback.format_exc(limit=3))}"
                    "</pre>"
                )

        return run

    return wrap
