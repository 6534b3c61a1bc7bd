"""The whole nbgrader loop, for real, with two learners (opt-in: ``make test-class``).

nbgrader's own command line drives it, with a local exchange folder and one HOME folder per
learner (no live hub: nbgrader's exchange works the same under JupyterHub, where each learner's
server runs as its own user). The teacher writes ``source/`` with ``gradkit course nbgrader``
(lessons 01 and 08 in one assignment), generates and releases it; each learner fetches it,
answers in a real kernel (ada: the solutions and right first guesses; bob: the starter's bug and
wrong first guesses) and submits; the teacher collects, autogrades and generates feedback. Then:
the gradebook holds the scores, bob's feedback names the failing entry as gradkit's grader does,
and ``gradkit course summary`` shows one learner stuck where bob is. Every kernel is started and
stopped by nbclient; every command runs to its end (nothing is left running).
"""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import torch

pytestmark = pytest.mark.skipif(
    os.environ.get("GRADKIT_TEST_CLASS") != "1", reason="opt-in: make test-class"
)

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = "ps1"
LESSONS = ("01_nudging", "08_write_your_own")


def _run(command: list[str], cwd: Path, home: Path | None = None) -> str:
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


def _nbgrader(*args: str) -> list[str]:
    return [sys.executable, "-m", "nbgrader", *args]


#: nbgrader's command as a learner: on a hub each learner's server runs as their own user, and
#: nbgrader's exchange takes the student id from it; here one OS user stands in for both, so
#: the name is given as that user's (nbgrader.utils.get_osusername), nothing else changed.
_AS_LEARNER = (
    "import sys\n"
    "import nbgrader.utils\n"
    "name = sys.argv.pop(1)\n"
    "nbgrader.utils.get_osusername = lambda: name\n"
    "from nbgrader.apps.nbgraderapp import main\n"
    "sys.exit(main())\n"
)


def _learner(name: str, *args: str) -> list[str]:
    return [sys.executable, "-c", _AS_LEARNER, name, *args]


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


def _answer(learner: str, folder: Path) -> None:
    """Answer as the learner: ada writes the solutions, bob keeps the starters; Run All in a
    kernel in the assignment folder, then the first guesses; saved as a learner saves."""
    from gradkit.cli.runner import run_notebook
    from gradkit.exercises import EXERCISES

    for lesson in LESSONS:
        path = folder / f"{lesson}.ipynb"
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            key = cell.metadata.get("gradkit", {}).get("exercise")
            if key and learner == "ada":
                cell.source = EXERCISES[key].solution
        nb.cells.append(nbformat.v4.new_code_cell(ANSWERS[learner][lesson]))
        # gradkit's one runner: a kernel of this interpreter, started and stopped by it
        run_notebook(nb, folder, timeout=600, quiet=True)
        nb.cells.pop()
        nbformat.write(nb, path)


def test_two_learners_through_nbgrader(tmp_path):
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    exchange.mkdir()
    gradkit = [sys.executable, "-m", "gradkit.cli", "course"]
    options = ["--assignment", ASSIGNMENT, "--exchange", str(exchange)]
    _run([*gradkit, "nbgrader", str(course), *LESSONS, *options], tmp_path)
    _run(_nbgrader("generate_assignment", ASSIGNMENT), course)
    _run(_nbgrader("release_assignment", ASSIGNMENT), course)
    where = ["--course", "gradkit", f"--Exchange.root={exchange}"]
    for learner in ANSWERS:
        home = tmp_path / "home" / learner
        home.mkdir(parents=True)
        _run(_learner(learner, "fetch_assignment", ASSIGNMENT, *where), home, home)
        _answer(learner, home / ASSIGNMENT)
        _run(_learner(learner, "submit", ASSIGNMENT, *where), home, home)
    _run(_nbgrader("collect", ASSIGNMENT), course)
    _run(_nbgrader("autograde", ASSIGNMENT), course)
    _run(_nbgrader("generate_feedback", ASSIGNMENT), course)

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {
            learner: {
                g.name: g.score
                for g in gb.find_submission_notebook(
                    "08_write_your_own", ASSIGNMENT, learner
                ).grades
            }
            for learner in ANSWERS
        }
    assert scores == {
        "ada": {"check-cube": 2, "check-sigmoid": 2},
        "bob": {"check-cube": 0, "check-sigmoid": 0},
    }

    from gradkit.exercises import EXERCISES, grade

    feedback = (course / "feedback" / "bob" / ASSIGNMENT / "08_write_your_own.html").read_text()
    started = {"torch": torch}
    exec(EXERCISES["cube"].starter, started)
    expected = grade("cube", started["MyCube"])
    assert html.escape(expected.headline) in feedback
    assert html.escape(expected.report.worst.input_position) in feedback  # the failing entry

    pictures = tmp_path / "pictures"
    text = _run([*gradkit, "summary", str(course), ASSIGNMENT, "--out", str(pictures)], tmp_path)
    assert "cube: 1 of 2 (50%); wrong: bug ×1" in text
    assert "01-forward-slope: 1 of 2 (50%); wrong: 4 ×1" in text
    page = (pictures / f"stuck-{ASSIGNMENT}.html").read_text()
    assert "bob" not in text and "bob" not in page and "ada" not in page
    named = _run([*gradkit, "summary", str(course), ASSIGNMENT, "--names"], tmp_path)
    assert "stuck: bob" in named and "ada" not in named
    print(text)
