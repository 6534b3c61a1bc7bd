"""ExercisePanel: an exercise of the write-your-own lesson, with check, hints and a solution.

Grading, hints and solutions live in :mod:`gradkit.exercises`; this is the notebook version.
The scene holds the grader's feedback, every hint and the solution from the first picture; *Hint*
and *Show solution* are counters the page presses itself (``panel.js``), with a kernel or
without. Only *Check my code* needs the kernel: a page without one says why it cannot check
(:data:`NO_KERNEL_FEEDBACK`), and Voilà, which hides the code, greys it out.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping

import traitlets

from ... import exercises
from ...exercises import Exercise, Feedback, hint
from ...exercises.grader import exercise_of
from ..base.rows import button
from .common import PracticeWidget

__all__ = ["ExercisePanel"]

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
    check_button : Control
        ``.click()`` grades the class, as the page's *Check my code* does (it asks the kernel).
    hint_button, solution_button : Control
        Counters the page presses itself (``.click()`` raises a TypeError): from Python set
        ``hints_shown`` and ``solution_step``.
    hints_shown, solution_step
        How many hints the page shows; the solution: 0 not asked, 1 asked once, 2 shown.
    last : Feedback or None
        The latest feedback object.
    """

    css = "gradkit-exercise"
    view = "exerciseView"
    scripts = ("practice/panel.js",)

    hints_shown = traitlets.Int(
        0, help="how many hints the page shows (hint_button counts up to all of them)"
    ).tag(sync=True, state=True)
    solution_step = traitlets.Int(
        0, help="the solution: 0 not asked, 1 asked once (the button asks again), 2 shown"
    ).tag(sync=True, state=True)

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
            self.last: Feedback | None = None
            buttons = self._buttons(ex)
            readouts = [
                ("feedback", "gradkit-exercise-feedback"),
                ("hints", "gradkit-exercise-hints"),
                ("solution", "gradkit-exercise-solution-code"),
            ]
            self.layout(ex.title, ex.task, buttons, readouts, alt=f"exercise: {ex.title}")
            self.on_click("check", self.check)
            self._show("")
        if any(name.startswith("VOILA_") for name in os.environ):  # Voilà: no code to edit
            self.set_control_state("check", disabled=True)
            self._show(READ_ONLY_FEEDBACK)
        else:
            self.guard(self.check)()

    def _buttons(self, ex: Exercise) -> list:
        """Check my code (the kernel), Hint and Show solution (counters the page presses)."""
        self.check_button = button(
            self,
            "check",
            "Check my code",
            css="gradkit-exercise-check",
            tooltip=f"Run gradcheck on the class {ex.class_name} from your cell",
        )
        last = len(ex.hints)
        self.hint_button = button(
            self,
            "hint",
            "Hint",
            css="gradkit-exercise-hint",
            tooltip=f"Show the next hint ({last} in all)",
            counts=("hints_shown", last),
            texts={last: "No more hints"},
        )
        self.solution_button = button(
            self,
            "solution",
            "Show solution",
            css="gradkit-exercise-solution",
            tooltip="Reveal a correct solution (asks once more first)",
            counts=("solution_step", 2),
            texts={1: "Sure? Click again", 2: "Solution shown"},
        )
        return [self.check_button, self.hint_button, self.solution_button]

    def _show(self, feedback: str) -> None:
        """Send the scene: the feedback, every hint and the solution (the page picks by state)."""
        ex = self.exercise
        hints = [hint(ex, k) for k in range(1, len(ex.hints) + 1)]
        scene = {
            "feedback": feedback,
            "hints": [f"<div class='gk-hint-line'>{html.escape(h)}</div>" for h in hints],
            "solution": "<div>A correct solution (copy it into your cell, run it, then check):"
            f"</div><pre>{html.escape(ex.solution)}</pre>",
        }
        self.send_scene(scene, key=self._scene_count + 1)

    def scene_without_kernel(self) -> dict:
        """A page with no kernel cannot check code: its feedback says so
        (:data:`NO_KERNEL_FEEDBACK`), never the feedback the export's run gave the starter."""
        return {"feedback": NO_KERNEL_FEEDBACK}

    def check(self, function: object = None) -> Feedback:
        """Grade ``function`` (default: the class named ``class_name`` in the namespace)."""
        namespace = self._namespace
        if namespace is None:  # the notebook's own (ipywidgets brings IPython)
            from IPython import get_ipython

            shell = get_ipython()
            namespace = shell.user_ns if shell is not None else {}
        target = function if function is not None else namespace.get(self.exercise.class_name)
        # through the package, so that replacing gradkit.exercises.grade reaches the panel
        self.last = exercises.grade(self.exercise, target)
        self._show(self.last._repr_html_())
        return self.last
