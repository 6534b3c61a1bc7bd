"""What the autograder's test cells call: gradkit's grader, and the learner's first guesses.

A failing check raises ``AssertionError`` with gradkit's own feedback as its message, which
nbgrader shows in the feedback it generates. Each exercise check also leaves a small record in
the cell's output (``application/vnd.gradkit.check+json``: passed and the failing cause), which
the teacher's summary reads from the autograded notebooks.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..exercises import Feedback, grade
from ..quiz_bank import as_actual, grade_choice, grade_prediction, load_bank, parse_guess
from .record import running_recorder
from .saved import read_saved_guesses

__all__ = [
    "CHECK_MIME",
    "check_exercise",
    "check_first_guess",
    "failing_cause",
    "judge_first_guess",
]

#: The mimetype of an exercise check's record in the autograded notebook.
CHECK_MIME = "application/vnd.gradkit.check+json"


def failing_cause(feedback: Feedback, function: object) -> str:
    """Why a check failed in one word: gradcheck's cause (``bug``, ``precision``, ``error``,
    ...), ``forward`` (the forward is off or raised before gradcheck ran), ``missing`` (no class
    to check), or ``pass``."""
    if feedback.passed:
        return "pass"
    if feedback.report is not None:
        return feedback.report.cause
    if function is None or not callable(function):
        return "missing"
    return "forward"


def check_exercise(exercise: str, function: object) -> None:
    """The autograder test of an exercise: gradkit's grader on the learner's class.

    Parameters
    ----------
    exercise : str
        A key of :data:`gradkit.exercises.EXERCISES`, e.g. ``"cube"``.
    function : torch.autograd.Function subclass
        The learner's class (``None`` when the cell defining it did not run).

    Raises
    ------
    AssertionError
        With gradkit's feedback (what fails, the entry, what to try) when the check fails.
    """
    feedback = grade(exercise, function)
    cause = failing_cause(feedback, function)
    record = {"exercise": exercise, "passed": feedback.passed, "cause": cause}
    try:
        from IPython.display import display

        display({"text/plain": f"gradkit check {exercise}: {cause}", CHECK_MIME: record}, raw=True)
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        pass
    if not feedback.passed:
        raise AssertionError(str(feedback))
    print(feedback)


def check_first_guess(notebook: str, kind: str, key: str, folder: str | Path = ".") -> None:
    """The autograder test of a first guess (when the teacher grades them).

    Parameters
    ----------
    notebook : str
        The notebook's name, as the recording cell gives it.
    kind : {"predict", "quiz"}
    key : str
        The Predict's or quiz's id.
    folder : path, optional
        Where the notebook is (the autograder's folder).

    Raises
    ------
    AssertionError
        When no first guess was kept or it was not right. ``nbgrader validate`` (which has no
        learner's guesses) passes it with a note.

    Notes
    -----
    Under ``nbgrader autograde`` the first guesses come from the submitted notebook (what
    autograde's first step kept of its recording cell's output); in the learner's own kernel,
    from the recorder running there (else the notebook as last saved).
    """
    if kind not in ("predict", "quiz"):
        raise ValueError(f"kind must be 'predict' or 'quiz', got {kind!r}")
    execution = os.environ.get("NBGRADER_EXECUTION")
    recorder = running_recorder()
    if not execution and recorder is not None and recorder.notebook == notebook:
        guesses, problems = recorder.guesses, []
    else:
        saved = read_saved_guesses(folder, notebook, autograding=execution == "autograde")
        guesses, problems = saved.guesses, saved.problems
    first = guesses[kind].get(key)
    if first is None:
        if execution == "validate":
            print(f"validating: no learner's first guess at {key} here; graded on submission")
            return
        why = f" (the record could not be read: {'; '.join(problems)})" if problems else ""
        raise AssertionError(f"No first guess was kept for {key}: it was never answered{why}.")
    guess = first.get("guess")
    right = judge_first_guess(kind, key, guess, recorder)
    if right is None:
        raise AssertionError(
            f"The first guess at {key} ({guess}) could not be checked: the cell that makes its "
            "widget did not run here. Run the whole notebook, top to bottom, then this cell."
        )
    if not right:
        raise AssertionError(f"The first guess at {key} was {guess}: not right.")
    print(f"The first guess at {key}, {guess}, was right.")


def judge_first_guess(kind: str, key: str, guess: object, recorder: object = None) -> bool | None:
    """Whether a first guess is right, judged here: never the "right" a notebook says.

    The notebook is the learner's file, so its record is taken for the guess alone. A quiz's
    answer is in gradkit's quiz file; a Predict's true value is what its widget computed in
    this kernel (the autograder runs the whole notebook first), or the quiz file's answer when
    it gives one.

    Parameters
    ----------
    kind : {"predict", "quiz"}
    key : str
        The entry's id.
    guess : object
        The guess as the record holds it (an option's text, a number or its text).
    recorder : FirstGuesses, optional
        The running recorder, whose watched widgets hold this kernel's true values.

    Returns
    -------
    bool or None
        None when nothing here can judge it (a Predict whose cell did not run).
    """
    bank = load_bank()
    if kind == "quiz":
        try:
            return grade_choice(bank.quiz(key), guess).correct
        except (KeyError, TypeError, ValueError):
            return False
    widget = getattr(recorder, "widgets", {}).get((kind, key))
    if widget is not None:
        return widget.judge(guess)
    try:
        entry = bank.predict(key)
    except KeyError:
        return False
    if entry.answer is None:
        return None
    try:
        return grade_prediction(
            entry, parse_guess(entry, guess), as_actual(entry, entry.answer)
        ).correct
    except (TypeError, ValueError):
        return False
