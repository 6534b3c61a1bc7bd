"""ExercisePanel: an exercise of the write-your-own lesson, with check, hints and a solution.

Grading, hints and solutions live in :mod:`gradkit.exercises`; this is the notebook version.
Python writes the readouts (the grader's feedback, the hints, the solution) into the scene; the
page (``panel.js``) shows them. Checking runs the learner's code, so on a page without a kernel
(a static export) *Check my code* is greyed out with a note; the hints and the solution are
text, sent with the panel (its ``offline`` trait), so such a page shows them by itself; its
feedback area says why it cannot check (:data:`NO_KERNEL_FEEDBACK`), never the feedback the
export's own run gave the starter. Voilà
runs the lesson with its code hidden, so there too *Check my code* is greyed out, its feedback
saying why (:func:`read_only_app`).
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping

from ... import exercises
from ...exercises import Exercise, Feedback, hint
from ...exercises.grader import exercise_of
from ..base.rows import button
from .common import PageText, PracticeWidget

__all__ = ["ExercisePanel", "read_only_app", "user_namespace"]

#: The check's feedback where the learner cannot edit the code (Voilà).
READ_ONLY_FEEDBACK = (
    "<div>This page shows the lesson with its code hidden, so there is no class of yours to "
    "check here. Open the notebook in Jupyter to write it and press <i>Check my code</i>; "
    "the hints and the solution work here too.</div>"
)

#: The check's feedback on a page with no kernel (the static site): the feedback Python wrote when
#: the lesson was exported graded the starter, not the reader's code, so the page says this instead.
NO_KERNEL_FEEDBACK = (
    "<div>This page has no Python, so it cannot check code. Open the lesson in Jupyter to write "
    "your class and press <i>Check my code</i>; the hints and the solution work here too.</div>"
)

#: What the hint and solution buttons say as they change (Python and a page with no kernel).
BUTTON_WORDS = {
    "no_more": "No more hints",
    "confirm": "Sure? Click again",
    "shown": "Solution shown",
}
_READOUTS = (
    ("feedback", "gradkit-exercise-feedback"),
    ("hints", "gradkit-exercise-hints"),
    ("solution", "gradkit-exercise-solution-code"),
)


def _buttons(ex: Exercise) -> tuple[tuple[str, str, str], ...]:
    """(name, text, tooltip) of the three buttons (a page with no kernel plays the hints and the
    solution itself)."""
    return (
        ("check", "Check my code", f"Run gradcheck on the class {ex.class_name} from your cell"),
        ("hint", "Hint", f"Show the next hint ({len(ex.hints)} in all)"),
        ("solution", "Show solution", "Reveal a correct solution (asks once more first)"),
    )


def read_only_app() -> bool:
    """Whether this kernel runs for Voilà (which sets ``VOILA_*`` variables in its kernels),
    where the page shows no code for the learner to edit."""
    return any(name.startswith("VOILA_") for name in os.environ)


def user_namespace() -> Mapping[str, object]:
    """The notebook's namespace (empty outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return {}
    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


class ExercisePanel(PracticeWidget):
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
        ``.click()`` as in the page; ``.disabled``.
    feedback, hints_html, solution_html : PageText
        ``.value`` is the HTML the page shows: the latest feedback (checked once when the panel
        is built), the hints revealed so far, the solution (empty until asked for twice).
    error_area
        ``.value`` is the HTML of the error area (empty when all is well).
    last : Feedback or None
        The latest feedback object.
    hints_shown : int
    """

    css = "gradkit-exercise"
    view = "exerciseView"
    scripts = ("practice/panel.js",)

    def __init__(
        self, exercise: str | Exercise, namespace: Mapping[str, object] | None = None
    ) -> None:
        ex = exercise_of(exercise)
        if namespace is not None and not isinstance(namespace, Mapping):
            raise TypeError(
                f"namespace must be a dict such as globals(), got {type(namespace).__name__}"
            )
        super().__init__()
        with self.building():
            self.exercise = ex
            self._namespace = namespace
            self.hints_shown = 0
            self._solution_armed = False
            self.last: Feedback | None = None
            self._shown = {name: "" for name, _css in _READOUTS}
            self.check_button, self.hint_button, self.solution_button = (
                button(self, name, text, css=f"gradkit-exercise-{name}", tooltip=tip)
                for name, text, tip in _buttons(ex)
            )
            self.feedback, self.hints_html, self.solution_html = (
                PageText(lambda name=name: self.scene["readouts"][name]) for name, _css in _READOUTS
            )
            buttons = [self.check_button, self.hint_button, self.solution_button]
            self.layout(ex.title, ex.task, buttons, _READOUTS, alt=f"exercise: {ex.title}")
            self.on_click("check", self.check)
            self.on_click("hint", self.next_hint)
            self.on_click("solution", self.reveal_solution)
            self.add_offline(
                hints=[_hint_html(ex, k) for k in range(1, len(ex.hints) + 1)],
                solution=_solution_html(ex),
                words=BUTTON_WORDS,
                feedback=NO_KERNEL_FEEDBACK,
            )
            self._show()
        if read_only_app():
            self.set_control_state("check", disabled=True)
            self._show(feedback=READ_ONLY_FEEDBACK)
        else:
            self.guard(self.check)()

    def _show(self, **readouts: str) -> None:
        """Send the readouts (changed ones replace their old HTML)."""
        self._shown.update(readouts)
        self.send_scene({"readouts": dict(self._shown)}, key=self._scene_count + 1)

    def _lookup(self) -> object:
        namespace = self._namespace if self._namespace is not None else user_namespace()
        return namespace.get(self.exercise.class_name)

    def check(self, function: object = None) -> Feedback:
        """Grade ``function`` (default: the class named ``class_name`` in the namespace)."""
        target = function if function is not None else self._lookup()
        # through the package, so that replacing gradkit.exercises.grade reaches the panel
        self.last = exercises.grade(self.exercise, target)
        self._show(feedback=self.last._repr_html_())
        return self.last

    def next_hint(self) -> str:
        """Reveal the next hint (the last one stays once all are shown)."""
        self.hints_shown = min(self.hints_shown + 1, len(self.exercise.hints))
        shown = range(1, self.hints_shown + 1)
        if self.hints_shown == len(self.exercise.hints):
            self.set_control_state("hint", disabled=True, text=BUTTON_WORDS["no_more"])
        self._show(hints="".join(_hint_html(self.exercise, k) for k in shown))
        return hint(self.exercise, self.hints_shown)

    def reveal_solution(self) -> str:
        """First call asks for confirmation; the second shows the solution code."""
        if not self._solution_armed:
            self._solution_armed = True
            self.set_control_state("solution", text=BUTTON_WORDS["confirm"])
            return ""
        self.set_control_state("solution", disabled=True, text=BUTTON_WORDS["shown"])
        self._show(solution=_solution_html(self.exercise))
        return self.exercise.solution


def _hint_html(ex: Exercise, k: int) -> str:
    """Hint ``k`` (from 1) as one line of the hints readout."""
    return f"<div class='gk-hint-line'>{html.escape(hint(ex, k))}</div>"


def _solution_html(ex: Exercise) -> str:
    """The solution readout: what to do with it, and the code."""
    return (
        "<div>A correct solution (copy it into your cell, run it, then check):</div>"
        f"<pre>{html.escape(ex.solution)}</pre>"
    )
