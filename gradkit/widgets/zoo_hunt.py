"""ZooHunt: read a zoo Function's code, predict gradcheck's verdict, then run it.

On the shared widget base (its theme and its error area); also importable from
``gradkit.exercises``.
"""

from __future__ import annotations

import ast
import html
import inspect
import textwrap
from typing import Any

import torch

from .. import zoo
from ..diagnosis import check
from ..report import CAUSES, CheckReport
from ._base import GradkitWidget
from ._controls import Control
from ._panel_helpers import EXERCISE_CSS, add_nullable_choice, with_theme

__all__ = ["ZooHunt"]


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
    """The Function's source without what gives it away: decorators (the zoo's metadata names
    the bug), the docstring, and the telling class name."""
    try:
        source = _whole_class_source(e.function)
    except (OSError, TypeError):
        return f"# the source of this Function is not available; it computes {e.formula}"
    lines = textwrap.dedent(source).splitlines()
    node = ast.parse("\n".join(lines)).body[0]
    if isinstance(node, ast.ClassDef) and node.decorator_list:  # e.g. @zoo_entry(bug=...)
        lines = lines[node.lineno - 1 :]
        node = ast.parse("\n".join(lines)).body[0]
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


def _hunt_names(names: tuple[str, ...] | list[str] | None) -> list[str]:
    """The zoo names to hunt through, checked; default every buggy entry plus the decoys."""
    if names is None:
        names = [n for n, e in zoo.CATALOGUE.items() if not e.correct]
        for position, decoy in _HUNT_DECOYS:
            names.insert(min(position, len(names)), decoy)
    if isinstance(names, str):
        raise TypeError(f"names must be a list of zoo names, e.g. [{names!r}]")
    names = list(names)
    if not names:
        raise ValueError("names must list at least one zoo entry, e.g. ['WrongSquareFn']")
    for name in names:
        zoo.entry(name)  # a clear KeyError naming the choices
    return names


class _SpecimenMenu(Control):
    """The drop-down of specimens: the browser shows labels, Python sees zoo names."""

    @property
    def options(self) -> tuple[tuple[str, Any], ...]:
        """(label, zoo name) pairs, as an ipywidgets Dropdown lists them."""
        return tuple(self._options)


class ZooHunt(GradkitWidget):
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
    entry_dropdown : Control
        Labels "Specimen k: formula"; values are the zoo names (``.options`` lists the pairs).
    code_html : Readout
        The specimen's source code.
    prediction : Control
        The learner's guess of the cause (``None`` until chosen).
    run_button : Control
        Runs :func:`gradkit.check` on the entry's sample inputs (float64).
    result : Readout
        Whether the prediction was right, the verdict card and the bug in one sentence.
    score : Readout
        How many entries were predicted right at the first try.
    error_area : ErrorArea
        ``.value`` is the HTML of the error area (empty when all is well).
    last : CheckReport or None
    """

    css = "gradkit-zoo-hunt"
    view = "generic"
    _stage = None  # close() from __del__ after a constructor refused its arguments
    _css = with_theme(EXERCISE_CSS)

    def __init__(self, names: tuple[str, ...] | list[str] | None = None) -> None:
        names = _hunt_names(names)
        super().__init__()
        with self._building():
            self.names = names
            self._labels = {n: f"Specimen{k}Fn" for k, n in enumerate(names, start=1)}
            self.last: CheckReport | None = None
            self._first_tries: dict[str, bool] = {}
            self._build_controls(names)
            self.code_html = self.readout("code", "gradkit-specimen-code")
            self.result = self.readout("result", "gradkit-hunt-result")
            self.score = self.readout("score", "gradkit-hunt-score")
            self.entry_dropdown.observe(lambda change: self._show_entry())
            self.run_button.on_click(lambda _button: self.run())
            self._layout(
                "Zoo hunt",
                "read the code, predict gradcheck's verdict, then run it",
                [self.entry_dropdown, self.prediction, self.run_button],
                [self.code_html, self.result, self.score],
            )
            self.alt = "zoo hunt"
            self._show_entry()

    def _build_controls(self, names: list[str]) -> None:
        """The specimen menu, the prediction buttons and the run button."""
        pairs = [(f"Specimen {k}: {zoo.entry(n).formula}", n) for k, n in enumerate(names, start=1)]
        self.entry_dropdown = _SpecimenMenu(
            self,
            "entry",
            "dropdown",
            css="gradkit-specimen",
            description="Function",
            tooltip="Which Function from the zoo to examine",
            options=pairs,
            scene=True,
        )
        self._add(self.entry_dropdown)
        self.prediction = add_nullable_choice(
            self,
            "prediction",
            "toggle",
            css="gradkit-prediction",
            description="I predict",
            tooltip="your guess of the cause gradcheck will report",
            options=[(k, k) for k in CAUSES],
            tooltips=[f"{k}: {v}" for k, v in CAUSES.items()],
            scene=False,
        )
        self.values = {**self.values, "entry": pairs[0][0]}
        self.run_button = self.button(
            "run",
            "Run gradcheck",
            css="gradkit-run-gradcheck",
            tooltip="Run gradkit.check on this Function's sample inputs (float64)",
        )

    def _show_entry(self) -> None:
        e = zoo.entry(self.entry_dropdown.value)
        label = self._labels[e.name]
        shapes = ", ".join(str(tuple(t.shape)) for t in e.make_input())
        self.code_html.value = (
            f"<div>{html.escape(label)} computes <b>{html.escape(e.formula)}</b> "
            f"(sample input shapes {html.escape(shapes)}, float64).</div>"
            f"<pre>{html.escape(_specimen_source(e, label))}</pre>"
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
            css = ""
        elif guess == report.cause:
            verdict = f"Right: the cause is {report.cause}."
            css = "gk-good"
        else:
            verdict = f"Not quite: you predicted {guess}, the cause is {report.cause}."
            css = "gk-bad"
        if guess is not None:
            self._first_tries.setdefault(e.name, guess == report.cause)
        bug = e.bug or "none: this Function is correct."
        self.result.value = (
            f"<div class='{css}' style='font-weight:bold'>{html.escape(verdict)}</div>"
            f"{report._repr_html_()}<div>{html.escape(self._labels[e.name])} is the zoo's "
            f"<b>{html.escape(e.name)}</b>. The bug: {html.escape(bug)}</div>"
        )
        right = sum(self._first_tries.values())
        self.score.value = (
            f"Score: {right} right at the first try, out of {len(self._first_tries)} predicted "
            f"({len(self.names)} Functions in the hunt)."
        )
        return report
