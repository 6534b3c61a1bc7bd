"""gradkit as an nbgrader course (``gradkit course``): the fast part, plus one nbgrader validate.

The generated source notebooks keep every lesson cell, turn each exercise's class cell into an
autograded answer (solution in source/, the lesson's starter kept for the release) and add a
test cell running gradkit's grader; the summary counts the class without names unless asked.
The first guesses, kept in the notebook the learner saves, are tests/test_course_record.py.
The whole loop with nbgrader's exchange is tests/hub/test_nbgrader_loop.py (make test-class)
and, on a live JupyterHub, tests/hub/test_class_hub.py (make test-class-hub).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
import torch

from gradkit.cli import main
from gradkit.cli.lesson_copy import lesson_files
from gradkit.course import check_exercise
from gradkit.course.assignment import assignment_notebook
from gradkit.course.picture import summary_html
from gradkit.course.summary import LearnerRecord, summarize, summary_text
from gradkit.exercises import EXERCISES, grade

LESSONS = {p.stem: p for p in lesson_files()}


def _source(stem: str, **options) -> nbformat.NotebookNode:
    return assignment_notebook(nbformat.read(LESSONS[stem], as_version=4), stem, **options)[0]


def _graded(nb: nbformat.NotebookNode, kind: str) -> list[nbformat.NotebookNode]:
    meta = {"answer": ("solution", True), "test": ("grade", True)}[kind]
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get(meta[0]) is meta[1]]


#: The lessons whose code builds an ExercisePanel: each becomes an assignment with answers.
WITH_EXERCISES = sorted(
    stem for stem, path in LESSONS.items() if "ExercisePanel(" in path.read_text()
)


def test_every_exercise_is_an_answer_cell_with_a_test_cell_and_nothing_else_changes():
    assert {"10_beyond_the_jacobian", "12_gradcheck_in_your_tests"} < set(WITH_EXERCISES)
    built = []
    for stem in WITH_EXERCISES:
        lesson = nbformat.read(LESSONS[stem], as_version=4)
        nb = _source(stem)
        answers = _graded(nb, "answer")
        keys = [c.metadata["gradkit"]["exercise"] for c in answers]
        assert keys and all(k in EXERCISES for k in keys)
        for cell in answers:  # source/ holds the solution; the lesson's starter waits in metadata
            key = cell.metadata["gradkit"]["exercise"]
            assert cell.source.strip() == EXERCISES[key].solution.strip()
            assert cell.metadata["gradkit"]["starter"].strip() == EXERCISES[key].starter.strip()
        tests = [c.metadata.nbgrader["grade_id"] for c in _graded(nb, "test")]
        assert tests == [f"check-{k}" for k in keys]
        kept = [c.source for c in nb.cells if "nbgrader" not in c.metadata]
        starters = {c.metadata["gradkit"]["starter"] for c in answers}
        assert kept == [c.source for c in lesson.cells if c.source not in starters]
        built += keys
    assert sorted(built) == sorted(EXERCISES), "every exercise is in a lesson's assignment"


def _run(code: str, namespace: dict) -> None:
    exec(compile(code, "<cell>", "exec"), namespace)


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_the_autograder_test_passes_on_the_solution_and_fails_on_the_starter(key, capsys):
    # the lesson whose code builds the exercise's panel
    stem = next(
        path.stem
        for path in lesson_files()
        for cell in nbformat.read(path, as_version=4).cells
        if f'ExercisePanel("{key}")' in cell.source
    )
    nb = _source(stem)
    answer = next(c for c in _graded(nb, "answer") if c.metadata["gradkit"]["exercise"] == key)
    test = next(c for c in _graded(nb, "test") if c.metadata.nbgrader["grade_id"] == f"check-{key}")
    solved: dict = {"torch": torch}
    _run(answer.source, solved)
    _run(test.source, solved)
    started: dict = {"torch": torch}
    _run(answer.metadata["gradkit"]["starter"], started)
    with pytest.raises(AssertionError) as failed:
        _run(test.source, started)
    expected = grade(key, started[EXERCISES[key].class_name])
    assert str(failed.value) == str(expected)  # gradkit's own feedback, word for word
    with pytest.raises(AssertionError, match="No class named"):
        check_exercise(key, None)


def test_graded_first_guesses_add_a_test_cell_per_predict_and_quiz():
    nb = _source("01_nudging", predicts="graded", points_guess=3)
    ids = [c.metadata.nbgrader["grade_id"] for c in _graded(nb, "test")]
    assert ids == ["first-predict-01-forward-slope", "first-quiz-01-central-error"]
    assert all(c.metadata.nbgrader["points"] == 3 for c in _graded(nb, "test"))
    assert _graded(_source("01_nudging"), "test") == []
    with pytest.raises(ValueError, match="predicts must be one of"):
        _source("01_nudging", predicts="sometimes")
    with pytest.raises(ValueError, match="points_exercise must be a number above 0"):
        _source("08_write_your_own", points_exercise=0)


def _class() -> list[LearnerRecord]:
    right = LearnerRecord("ada", "08_write_your_own", {"cube": (True, "pass")})
    right.guesses = {"predict": {"p1": {"guess": "4.1", "right": True}}, "quiz": {}, "zoo": {}}
    stuck = LearnerRecord("bob", "08_write_your_own", {"cube": (False, "bug")})
    stuck.guesses = {
        "predict": {"p1": {"guess": "4.0", "right": False}},
        "quiz": {},
        "zoo": {"WrongSquareFn": {"guess": "pass", "right": False, "cause": "bug"}},
    }
    return [right, stuck]


def test_the_summary_counts_the_class_and_names_nobody_unless_asked():
    text = summary_text(summarize(_class()), "ps1")
    assert "cube: 1 of 2 (50%); wrong: bug ×1" in text
    assert "p1: 1 of 2 (50%); wrong: 4.0 ×1" in text
    assert "WrongSquareFn: 0 of 1 (0%); wrong: pass ×1" in text
    page = summary_html(summarize(_class()), "ps1")
    assert "1 of 2 (50%) · wrong: bug ×1" in page
    for shown in (text, page):
        assert "ada" not in shown and "bob" not in shown
    named = summary_text(summarize(_class(), names=True), "ps1")
    assert "stuck: bob" in named and "ada" not in named
    assert "stuck: bob" in summary_html(summarize(_class(), names=True), "ps1")


def test_the_command_writes_only_inside_dir_and_never_over_a_teachers_file(tmp_path, capsys):
    course = tmp_path / "course"
    assert main(["course", "nbgrader", str(course), "08", "--assignment", "ps1"]) == 0
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["course/nbgrader_config.py", "course/source/ps1/08_write_your_own.ipynb"]
    config = (course / "nbgrader_config.py").read_text()
    before = (course / "source/ps1/08_write_your_own.ipynb").read_bytes()
    assert main(["course", "nbgrader", str(course), "01", "08", "--assignment", "ps1"]) == 2
    assert "never writes over a teacher's file" in capsys.readouterr().err
    assert not (course / "source/ps1/01_nudging.ipynb").exists()  # nothing written at all
    assert (course / "source/ps1/08_write_your_own.ipynb").read_bytes() == before
    (course / "nbgrader_config.py").write_text("c = get_config()\n")  # the teacher's own
    assert main(["course", "nbgrader", str(course), "01", "--assignment", "ps2"]) == 0
    told = capsys.readouterr().out
    assert "release_preprocessors()" in told and "autograde_preprocessors()" in told
    assert (course / "nbgrader_config.py").read_text() == "c = get_config()\n"
    assert "release_preprocessors()" in config
    assert "c.Autograde.sanitize_preprocessors = autograde_preprocessors()" in config
    out = tmp_path / "pictures"
    out.mkdir()
    (out / "stuck-ps1.html").write_text("mine")
    assert main(["course", "summary", str(course), "ps1", "--out", str(out)]) == 2
    assert "never writes over it" in capsys.readouterr().err
    assert main(["course", "summary", str(tmp_path / "nowhere"), "ps1"]) == 2
    assert "no gradebook at" in capsys.readouterr().err


def _nbgrader(app: type, *argv: str, capsys) -> str:
    """``nbgrader APP ARGV...`` in this process, in the course folder: what it printed."""
    made = app()
    made.initialize(list(argv))
    made.start()
    return capsys.readouterr().out


@pytest.mark.slow
def test_nbgrader_validate_passes_the_solution_and_fails_the_starter(tmp_path, monkeypatch, capsys):
    """nbgrader's own apps (generate_assignment, validate: each notebook run in a kernel of its
    own), in this process as ``nbgrader`` runs them, reading the course's nbgrader_config.py."""
    from nbgrader.apps import GenerateAssignmentApp, ValidateApp
    from nbgrader.validator import Validator

    # validate prints to Validator.stream, the sys.stdout of whichever test first imported it
    monkeypatch.setattr(Validator, "stream", sys.stdout)
    course = tmp_path / "course"
    assert main(["course", "nbgrader", str(course), "08", "--assignment", "ps1"]) == 0
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # alembic
    monkeypatch.setenv("PATH", path)
    monkeypatch.chdir(course)
    capsys.readouterr()
    _nbgrader(GenerateAssignmentApp, "ps1", capsys=capsys)
    released = nbformat.read(course / "release/ps1/08_write_your_own.ipynb", as_version=4)
    answers = [c.source.strip() for c in _graded(released, "answer")]
    assert answers == [EXERCISES["cube"].starter.strip(), EXERCISES["sigmoid"].starter.strip()]
    solved = _nbgrader(ValidateApp, "source/ps1/08_write_your_own.ipynb", capsys=capsys)
    assert "Success! Your notebook passes all the tests." in solved, solved
    starter = _nbgrader(ValidateApp, "release/ps1/08_write_your_own.ipynb", capsys=capsys)
    for key in ("cube", "sigmoid"):
        started: dict = {"torch": torch}
        _run(EXERCISES[key].starter, started)
        headline = grade(key, started[EXERCISES[key].class_name]).headline
        assert f"check_exercise('{key}'" in starter
        assert headline in starter, starter[-3000:]
    monkeypatch.chdir(tmp_path)
    shutil.rmtree(course)
