"""The whole nbgrader loop, for real, with two learners (opt-in: ``make test-class``).

nbgrader's own command line drives it, with a local exchange folder and one HOME folder per
learner (the same loop on a live JupyterHub is ``test_class_hub.py``, ``make test-class-hub``).
The teacher writes ``source/`` with ``gradkit course nbgrader`` (lessons 01 and 08 in one
assignment, first guesses graded), generates and releases it; each learner fetches it, answers
in a real kernel (ada: the solutions and right first guesses; bob: the starter's bug and wrong
first guesses), saves the notebook with its outputs (the recording cell's record among them) and
submits; the teacher collects, autogrades and generates feedback. Then (``classroom.py``): the
gradebook holds the scores (the first guesses' too, read from the submitted notebooks), bob's
feedback names the failing entry as gradkit's grader does, and ``gradkit course summary`` shows
one learner stuck where bob is. Every kernel is started and stopped by nbclient; every command
runs to its end.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from classroom import (
    ANSWERS,
    ASSIGNMENT,
    LESSONS,
    check_the_class,
    run,
    teacher_grades,
    teacher_releases,
)

pytestmark = pytest.mark.skipif(
    os.environ.get("GRADKIT_TEST_CLASS") != "1", reason="opt-in: make test-class"
)


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


def _answer(learner: str, folder: Path) -> None:
    """Answer as the learner: ada writes the solutions, bob keeps the starters; Run All in a
    kernel in the assignment folder, then the first guesses; saved with the outputs as a learner
    saves (the recording cell's record among them, updated through its display id)."""
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
    course.mkdir()
    teacher_releases(course, exchange)
    where = ["--course", "gradkit", f"--Exchange.root={exchange}"]
    for learner in ANSWERS:
        home = tmp_path / "home" / learner
        home.mkdir(parents=True)
        run(_learner(learner, "fetch_assignment", ASSIGNMENT, *where), home, home)
        _answer(learner, home / ASSIGNMENT)
        run(_learner(learner, "submit", ASSIGNMENT, *where), home, home)
    teacher_grades(course)
    print(check_the_class(course, tmp_path / "pictures"))
