"""ExercisePanel: an exercise of the write-your-own lesson, with check, hints and a solution.

Grading, hints and solutions live in :mod:`gradkit.exercises`; this is the notebook version, on
the shared widget base (its theme and its error area).
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from .. import exercises
from ..exercises import Exercise, Feedback, hint
from ..exercises.grader import exercise_of
from ._base import GradkitWidget
from ._panel_helpers import EXERCISE_CSS, with_theme

__all__ = ["ExercisePanel", "user_namespace"]


def user_namespace() -> Mapping[str, object]:
    """The notebook's namespace (empty outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return {}
    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


class ExercisePanel(GradkitWidget):
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
    check_button, hint_button, solution_button : Control
        ``.click()`` as in the browser; ``.disabled``.
    feedback : Readout
        The latest feedback (checked once when the panel is built).
    hints_html : Readout
        The hints revealed so far.
    solution_html : Readout
        Empty until the solution is asked for twice.
    error_area : ErrorArea
        ``.value`` is the HTML of the error area (empty when all is well).
    last : Feedback or None
        The latest feedback object.
    """

    css = "gradkit-exercise"
    view = "generic"
    _stage = None  # close() from __del__ after a constructor refused its arguments
    _css = with_theme(EXERCISE_CSS)

    def __init__(
        self, exercise: str | Exercise, namespace: Mapping[str, object] | None = None
    ) -> None:
        ex = exercise_of(exercise)
        if namespace is not None and not isinstance(namespace, Mapping):
            raise TypeError(
                f"namespace must be a dict such as globals(), got {type(namespace).__name__}"
            )
        super().__init__()
        with self._building():
            self.exercise = ex
            self._namespace = namespace
            self.hints_shown = 0
            self._solution_armed = False
            self.last: Feedback | None = None
            self.check_button = self.button(
                "check",
                "Check my code",
                css="gradkit-exercise-check",
                tooltip=f"Run gradcheck on the class {ex.class_name} from your cell above",
            )
            self.hint_button = self.button(
                "hint",
                "Hint",
                css="gradkit-exercise-hint",
                tooltip=f"Show the next hint ({len(ex.hints)} in all)",
            )
            self.solution_button = self.button(
                "solution",
                "Show solution",
                css="gradkit-exercise-solution",
                tooltip="Reveal a correct solution (asks once more first)",
            )
            self.feedback = self.readout("feedback", "gradkit-exercise-feedback")
            self.hints_html = self.readout("hints", "gradkit-exercise-hints")
            self.solution_html = self.readout("solution", "gradkit-exercise-solution-code")
            self.check_button.on_click(lambda _b: self.check())
            self.hint_button.on_click(lambda _b: self.next_hint())
            self.solution_button.on_click(lambda _b: self.reveal_solution())
            self._layout(
                ex.title,
                ex.task,
                [self.check_button, self.hint_button, self.solution_button],
                [self.feedback, self.hints_html, self.solution_html],
            )
            self.alt = f"exercise: {ex.title}"
        self.guard(self.check)()

    def _lookup(self) -> object:
        namespace = self._namespace if self._namespace is not None else user_namespace()
        return namespace.get(self.exercise.class_name)

    def check(self, function: object = None) -> Feedback:
        """Grade ``function`` (default: the class named ``class_name`` in the namespace)."""
        target = function if function is not None else self._lookup()
        # through the package, so that replacing gradkit.exercises.grade reaches the panel
        self.last = exercises.grade(self.exercise, target)
        self.feedback.value = self.last._repr_html_()
        return self.last

    def next_hint(self) -> str:
        """Reveal the next hint (the last one stays once all are shown)."""
        self.hints_shown = min(self.hints_shown + 1, len(self.exercise.hints))
        shown = [hint(self.exercise, k) for k in range(1, self.hints_shown + 1)]
        self.hints_html.value = "".join(
            f"<div class='gk-hint-line'>{html.escape(h)}</div>" for h in shown
        )
        if self.hints_shown == len(self.exercise.hints):
            self.hint_button.disabled = True
            self.hint_button._set_state(text="No more hints")
        return shown[-1]

    def reveal_solution(self) -> str:
        """First call asks for confirmation; the second shows the solution code."""
        if not self._solution_armed:
            self._solution_armed = True
            self.solution_button._set_state(text="Sure? Click again")
            return ""
        self.solution_button.disabled = True
        self.solution_button._set_state(text="Solution shown")
        self.solution_html.value = (
            "<div>A correct solution (copy it into your cell, run it, then check):</div>"
            f"<pre>{html.escape(self.exercise.solution)}</pre>"
        )
        return self.exercise.solution
