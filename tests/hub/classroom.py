"""What both nbgrader loops share: the teacher's commands, the two learners' answers, and the
checks of the class's results (``test_nbgrader_loop.py`` and ``test_class_hub.py``)."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "ps1"
LESSONS = ("01_nudging", "08_write_your_own")
GRADKIT = [sys.executable, "-m", "gradkit.cli", "course"]


def run(command: list[str], cwd: Path, home: Path | None = None) -> str:
    """Run a command to its end; its output (the test fails with it on a non-zero exit)."""
    # nbgrader runs its environment's own `alembic` for the gradebook: that folder comes first
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": path}
    if home is not None:
        env["HOME"] = str(home)
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def nbgrader(*args: str) -> list[str]:
    return [sys.executable, "-m", "nbgrader", *args]


def teacher_releases(course: Path, exchange: Path) -> None:
    """``source/`` from lessons 01 and 08 (first guesses graded), generated and released."""
    options = ["--assignment", ASSIGNMENT, "--exchange", str(exchange), "--predicts", "graded"]
    run([*GRADKIT, "nbgrader", str(course), *LESSONS, *options], course.parent)
    run(nbgrader("generate_assignment", ASSIGNMENT), course)
    run(nbgrader("release_assignment", ASSIGNMENT), course)


def teacher_grades(course: Path) -> None:
    """nbgrader's collect, autograde and generate_feedback in the course directory."""
    run(nbgrader("collect", ASSIGNMENT), course)
    run(nbgrader("autograde", ASSIGNMENT), course)
    run(nbgrader("generate_feedback", ASSIGNMENT), course)


#: What each learner does in the kernel after Run All: the first guesses, locked in as the
#: page's buttons do (Predict.lock, Quiz.choose go through the same widget state).
ANSWERS = {
    "ada": {
        "01_nudging": "predict.lock(str(gradkit.numeric_slope(f, 2.0, 0.1, scheme='forward')))\n"
        "quiz.choose(quiz.answer)",
        "08_write_your_own": "quiz.choose(quiz.answer)",
    },
    "bob": {
        "01_nudging": "predict.lock('4')\n"
        "quiz.choose(next(o for o in quiz.choices if o != quiz.answer))",
        "08_write_your_own": "quiz.choose(next(o for o in quiz.choices if o != quiz.answer))",
    },
}

#: Each learner's scores in the gradebook: the exercise checks and the graded first guesses.
SCORES = {
    "ada": {
        "01_nudging": {"first-predict-01-forward-slope": 1, "first-quiz-01-central-error": 1},
        "08_write_your_own": {"check-cube": 2, "check-sigmoid": 2, "first-quiz-08-log-backward": 1},
    },
    "bob": {
        "01_nudging": {"first-predict-01-forward-slope": 0, "first-quiz-01-central-error": 0},
        "08_write_your_own": {"check-cube": 0, "check-sigmoid": 0, "first-quiz-08-log-backward": 0},
    },
}


def check_the_class(course: Path, pictures: Path) -> str:
    """The gradebook holds the scores (first guesses read from the submitted notebooks), bob's
    feedback names the failing entry, the summary shows one learner stuck; the summary."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {
            learner: {
                lesson: {
                    g.name: g.score
                    for g in gb.find_submission_notebook(lesson, ASSIGNMENT, learner).grades
                }
                for lesson in LESSONS
            }
            for learner in ANSWERS
        }
    assert scores == SCORES

    from gradkit.exercises import EXERCISES, grade

    feedback = (course / "feedback" / "bob" / ASSIGNMENT / "08_write_your_own.html").read_text()
    started = {"torch": torch}
    exec(EXERCISES["cube"].starter, started)
    expected = grade("cube", started["MyCube"])
    assert html.escape(expected.headline) in feedback
    assert html.escape(expected.report.worst.input_position) in feedback  # the failing entry

    text = run([*GRADKIT, "summary", str(course), ASSIGNMENT, "--out", str(pictures)], course)
    assert "cube: 1 of 2 (50%); wrong: bug ×1" in text
    assert "01-forward-slope: 1 of 2 (50%); wrong: 4 ×1" in text
    assert "not read whole" not in text  # every record was read
    page = (pictures / f"stuck-{ASSIGNMENT}.html").read_text()
    assert "bob" not in text and "bob" not in page and "ada" not in page
    named = run([*GRADKIT, "summary", str(course), ASSIGNMENT, "--names"], course)
    assert "stuck: bob" in named and "ada" not in named
    return text
