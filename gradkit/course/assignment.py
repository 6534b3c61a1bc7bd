"""A lesson notebook as an nbgrader source notebook, and the course's ``nbgrader_config.py``.

The lesson is the one source: every cell is kept as it is, except

- each exercise's class cell (the cell defining ``class MyCube(...)`` before
  ``ExercisePanel("cube")``) becomes an autograded answer: the solution from
  :mod:`gradkit.exercises` in ``source/``, the lesson's starter (kept in the cell's metadata)
  in the release (:mod:`gradkit.course.release`);
- after each ``ExercisePanel`` cell, an autograder test cell runs gradkit's grader
  (:func:`gradkit.course.check_exercise`);
- a read-only cell at the top keeps the learner's first guesses (:mod:`gradkit.course.record`);
- with ``predicts="graded"``, test cells at the end grade each Predict's and quiz's first guess.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

import nbformat

from ..exercises import EXERCISES

__all__ = ["GRADINGS", "Assignment", "assignment_notebook", "course_config"]

#: How first guesses count: recorded only, or also graded by a test cell.
GRADINGS = ("ungraded", "graded")

_PANEL = re.compile(r"ExercisePanel\(\s*[\"'](\w+)[\"']")
_PREDICT = re.compile(r"\bPredict\(\s*[\"']([\w.-]+)[\"']")
_QUIZ = re.compile(r"\bQuiz\(\s*[\"']([\w.-]+)[\"']")
_HUNT = re.compile(r"\bZooHunt\(")


@dataclass(frozen=True)
class Assignment:
    """What one generated notebook holds (for the command's report)."""

    notebook: str
    exercises: tuple[str, ...]
    predicts: tuple[str, ...]
    quizzes: tuple[str, ...]
    hunts: int
    points: float


def _meta(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float = 0) -> dict:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return meta


def _code(source: str, meta: dict) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = meta
    return cell


def _check_options(points_exercise: float, points_guess: float, predicts: str) -> None:
    for name, value in (("points_exercise", points_exercise), ("points_guess", points_guess)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ValueError(f"{name} must be a number above 0, got {value!r}")
    if predicts not in GRADINGS:
        raise ValueError(f"predicts must be one of {GRADINGS}, got {predicts!r}")


def assignment_notebook(
    lesson: nbformat.NotebookNode,
    name: str,
    *,
    points_exercise: float = 2,
    points_guess: float = 1,
    predicts: str = "ungraded",
) -> tuple[nbformat.NotebookNode, Assignment]:
    """The nbgrader source notebook of a lesson.

    Parameters
    ----------
    lesson : NotebookNode
        The lesson notebook as shipped.
    name : str
        The notebook's name without ``.ipynb`` (the key of its first guesses).
    points_exercise, points_guess : float
        Points of each exercise check, and of each graded first guess.
    predicts : {"ungraded", "graded"}
        Whether first guesses are only recorded (default) or also graded.

    Returns
    -------
    (NotebookNode, Assignment)
    """
    _check_options(points_exercise, points_guess, predicts)
    nb = copy.deepcopy(lesson)
    panels = [
        m[1] for c in nb.cells if c.cell_type == "code" for m in [_PANEL.search(c.source)] if m
    ]
    unknown = [k for k in panels if k not in EXERCISES]
    if unknown:
        raise ValueError(f"{name}: ExercisePanel({unknown[0]!r}) names no exercise of gradkit")
    cells = [new for cell in nb.cells for new in _cells_of(cell, panels, points_exercise)]
    at = 1 if cells and cells[0].cell_type == "markdown" else 0
    cells.insert(at, _code(_RECORD.format(name=name), _meta("gradkit-record", **_READ_ONLY)))
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    predict_ids = [k for source in code for k in _PREDICT.findall(source)]
    quiz_ids = [k for source in code for k in _QUIZ.findall(source)]
    points = points_exercise * len(panels)
    if predicts == "graded":
        guesses = [("predict", k) for k in predict_ids] + [("quiz", k) for k in quiz_ids]
        cells += [_guess_test(name, kind, key, points_guess) for kind, key in guesses]
        points += points_guess * len(guesses)
    nb.cells = cells
    nb.metadata.pop("jupytext", None)
    nb.metadata.setdefault(
        "kernelspec", {"display_name": "Python 3", "language": "python", "name": "python3"}
    )
    nbformat.validate(nb)
    hunts = sum(len(_HUNT.findall(source)) for source in code)
    summary = Assignment(name, tuple(panels), tuple(predict_ids), tuple(quiz_ids), hunts, points)
    return nb, summary


_READ_ONLY = {"grade": False, "solution": False, "locked": True}

_RECORD = (
    "# Your first guess at each Predict, quiz and zoo specimen is kept in this cell's output,\n"
    "# saved with the notebook; it reaches your teacher only when you submit.\n"
    "from gradkit.course import record_first_guesses\n\n"
    "first_guesses = record_first_guesses({name!r})"
)


def _cells_of(
    cell: nbformat.NotebookNode, panels: list[str], points: float
) -> list[nbformat.NotebookNode]:
    """A lesson cell in the assignment: itself, an answer cell, or itself and a test cell."""
    if cell.cell_type != "code":
        return [cell]
    cell.outputs, cell.execution_count = [], None
    key = next((k for k in panels if f"class {EXERCISES[k].class_name}(" in cell.source), None)
    if key is not None:
        answer_meta = _meta(f"answer-{key}", grade=False, solution=True, locked=False)
        answer = _code(EXERCISES[key].solution.rstrip("\n"), answer_meta)
        answer.metadata["gradkit"] = {"exercise": key, "starter": cell.source}
        return [answer]
    panel = _PANEL.search(cell.source)
    if not panel:
        return [cell]
    ex = EXERCISES[panel[1]]
    test = (
        f"from gradkit.course import check_exercise\n\ncheck_exercise({ex.key!r}, {ex.class_name})"
    )
    meta = _meta(f"check-{ex.key}", grade=True, solution=False, locked=True, points=points)
    return [cell, _code(test, meta)]


def _guess_test(name: str, kind: str, key: str, points: float) -> nbformat.NotebookNode:
    """A test cell grading the first guess at a Predict or quiz."""
    test = (
        "from gradkit.course import check_first_guess\n\n"
        f"check_first_guess({name!r}, {kind!r}, {key!r})"
    )
    meta = _meta(f"first-{kind}-{key}", grade=True, solution=False, locked=True, points=points)
    return _code(test, meta)


def course_config(course_id: str, exchange: str | None) -> str:
    """The text of the course's ``nbgrader_config.py`` (SQLite gradebook: nbgrader's default)."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", course_id):
        raise ValueError(f"course id must be letters, digits, _ . or -; got {course_id!r}")
    exchange_line = (
        f"c.Exchange.root = {exchange!r}\n"
        if exchange
        else "# c.Exchange.root = '/srv/nbgrader/exchange'  # nbgrader's default exchange\n"
    )
    return (
        "# nbgrader's settings for a gradkit course, written by `gradkit course nbgrader`.\n"
        "# The gradebook is nbgrader's default: gradebook.db (SQLite) in this course directory.\n"
        "c = get_config()  # noqa: F821 - nbgrader provides it\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n"
        + exchange_line
        + "# Lessons run longer than nbgrader's 30 s per cell on a busy server.\n"
        "c.Execute.timeout = 600\n"
        "# Release each exercise with the lesson's own starter code (nbgrader's default would\n"
        "# replace it with 'raise NotImplementedError()').\n"
        "from gradkit.course.release import release_preprocessors\n\n"
        "c.GenerateAssignment.preprocessors = release_preprocessors()\n"
        "# Keep each learner's first guesses (their notebook's recording cell) for the autograder\n"
        "# before nbgrader clears the submitted outputs.\n"
        "from gradkit.course.release import autograde_preprocessors\n\n"
        "c.Autograde.sanitize_preprocessors = autograde_preprocessors()\n"
    )
