"""gradkit as an nbgrader course (``gradkit course``): the fast part, plus one nbgrader validate.

The generated source notebooks keep every lesson cell, turn each exercise's class cell into an
autograded answer (solution in source/, the lesson's starter kept for the release) and add a
test cell running gradkit's grader; the learner's kernel keeps first guesses in the recording
cell's output, which the saved notebook carries (read back entry by entry, an odd record named,
never a crash); the summary counts them without names unless asked. The whole loop with
nbgrader's exchange is tests/hub/test_nbgrader_loop.py (make test-class) and, on a live
JupyterHub, tests/hub/test_class_hub.py (make test-class-hub).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import torch

from gradkit.cli import main
from gradkit.cli.lesson_copy import lesson_files
from gradkit.course import (
    GUESS_FILE,
    RECORD_MIME,
    check_exercise,
    check_first_guess,
    read_first_guesses,
    read_saved_guesses,
)
from gradkit.course.assignment import assignment_notebook
from gradkit.course.picture import summary_html
from gradkit.course.record import FirstGuesses
from gradkit.course.saved import RECORD_CELL as RECORD_ID
from gradkit.course.summary import LearnerRecord, record_notes, summarize, summary_text
from gradkit.exercises import EXERCISES, grade

LESSONS = {p.stem: p for p in lesson_files()}


def _source(stem: str, **options) -> nbformat.NotebookNode:
    return assignment_notebook(nbformat.read(LESSONS[stem], as_version=4), stem, **options)[0]


def _graded(nb: nbformat.NotebookNode, kind: str) -> list[nbformat.NotebookNode]:
    meta = {"answer": ("solution", True), "test": ("grade", True)}[kind]
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get(meta[0]) is meta[1]]


def test_every_exercise_is_an_answer_cell_with_a_test_cell_and_nothing_else_changes():
    for stem in ("02_correct_backward", "08_write_your_own", "09_capstone_softmax"):
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


def _saved(folder: Path, stem: str, *records: object) -> Path:
    """The assignment notebook as the page saves it after the recording cell showed ``records``:
    each a display_data output of that cell, the record under its mimetype (what the front end
    writes: transient display ids are never saved)."""
    nb = _source(stem)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == RECORD_ID)
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"text/plain": "kept", RECORD_MIME: r})
        for r in records
    ]
    path = folder / f"{stem}.ipynb"
    nbformat.write(nb, path)
    return path


def test_first_guesses_are_kept_first_only_and_saved_with_the_notebook(tmp_path, monkeypatch):
    from gradkit.widgets import Predict, Quiz

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    recorder = FirstGuesses("01_nudging", tmp_path)
    predict, quiz = Predict("01-forward-slope", compute=lambda: 4.1), Quiz("01-central-error")
    recorder.watch({"predict": predict, "quiz": quiz, "other": 3})
    predict.lock("4.0")
    wrong = next(o for o in quiz.choices if o != quiz.answer)
    quiz.choose(wrong)
    quiz.choose(quiz.answer)  # a second pick is no first guess
    again = Predict("01-forward-slope", compute=lambda: 4.1)  # the cell run again
    recorder.watch({"predict": again})
    again.lock("4.1")
    expected = {
        "predict": {"01-forward-slope": {"guess": "4.0", "right": False}},
        "quiz": {"01-central-error": {"guess": wrong, "right": False}},
        "zoo": {},
    }
    assert recorder.guesses == expected
    restarted = FirstGuesses("01_nudging", tmp_path)  # a new kernel reads its note back
    assert restarted.keep("predict", "01-forward-slope", {"guess": "4.1", "right": True}) is False
    assert restarted.guesses == expected
    assert read_first_guesses(tmp_path, "01_nudging") == {"predict": {}, "quiz": {}, "zoo": {}}
    _saved(tmp_path, "01_nudging", recorder.record())  # the learner saves
    assert read_first_guesses(tmp_path, "01_nudging") == expected
    assert read_saved_guesses(tmp_path, "01_nudging").problems == []
    with pytest.raises(AssertionError, match=r"first guess at 01-forward-slope was 4\.0"):
        check_first_guess("01_nudging", "predict", "01-forward-slope", tmp_path)


def test_a_notebook_with_no_record_has_no_guess_never_a_wrong_one(tmp_path, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    _saved(tmp_path, "01_nudging")  # the recording cell never ran, or its output was cleared
    saved = read_saved_guesses(tmp_path, "01_nudging")
    assert saved.guesses == {"predict": {}, "quiz": {}, "zoo": {}} and saved.problems == []
    with pytest.raises(AssertionError, match="never answered") as failed:
        check_first_guess("01_nudging", "quiz", "01-central-error", tmp_path)
    assert "not right" not in str(failed.value)
    assert read_saved_guesses(tmp_path, "no_such_notebook").guesses["quiz"] == {}
    record = LearnerRecord("ada", "01_nudging", guesses=saved.guesses)
    assert summarize([record]) == {"01_nudging": []}  # nothing counted, right or wrong


ODD_RECORDS = {
    "a list": ([1, 2], "the record is a list"),
    "another notebook's": ({"notebook": "08_write_your_own"}, "copied from another notebook"),
    "right as text": (
        {"quiz": {"01-central-error": {"guess": "a", "right": "yes"}}},
        "Quiz '01-central-error': not a first guess",
    ),
    "a huge guess": (
        {"quiz": {"01-central-error": {"guess": "9" * 5000, "right": True}}},
        "Quiz '01-central-error': not a first guess",
    ),
    "an unknown kind": ({"grades": {"x": 1}}, "'grades' is no kind of first guess"),
    "entries not an object": ({"quiz": ["a"]}, "the quiz entries are not a JSON object"),
    "a zoo entry with no cause": (
        {"zoo": {"WrongSquareFn": {"guess": "pass", "right": True}}},
        "Zoo specimen 'WrongSquareFn': not a first guess",
    ),
}


@pytest.mark.parametrize("name", sorted(ODD_RECORDS))
def test_an_odd_record_is_named_never_a_crash_nor_anyone_elses_score(name, tmp_path, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    odd, said = ODD_RECORDS[name]
    good = {"predict": {"01-forward-slope": {"guess": "4", "right": False}}}
    record = {**odd, "predict": good["predict"]} if isinstance(odd, dict) else odd
    (tmp_path / "bob").mkdir()
    _saved(tmp_path / "bob", "01_nudging", record)
    saved = read_saved_guesses(tmp_path / "bob", "01_nudging")
    assert any(said in problem for problem in saved.problems), saved.problems
    assert set(saved.guesses) == {"predict", "quiz", "zoo"}
    ada = LearnerRecord("ada", "01_nudging", guesses={"predict": {}, "quiz": {}, "zoo": {}})
    ada.guesses["quiz"]["01-central-error"] = {"guess": "b", "right": True}
    bob = LearnerRecord("bob", "01_nudging", guesses=saved.guesses, problems=saved.problems)
    alone = summarize([ada])["01_nudging"]
    with_bob = summarize([ada, bob])["01_nudging"]
    assert [s for s in with_bob if s.kind == "quiz"] == [s for s in alone if s.kind == "quiz"]
    notes = record_notes([ada, bob])
    assert len(notes) == 1 and said in notes[0] and "bob" not in notes[0]
    assert "bob, 01_nudging" in record_notes([ada, bob], names=True)[0]
    text = summary_text(summarize([ada, bob]), "ps1", notes)
    assert "1 first-guess record(s) not read whole" in text and "never as a wrong one" in text


def test_a_notebook_that_is_no_json_is_a_note(tmp_path):
    (tmp_path / "01_nudging.ipynb").write_text("{not json")
    saved = read_saved_guesses(tmp_path, "01_nudging")
    assert saved.guesses["predict"] == {} and "could not be read as a notebook" in saved.problems[0]
    _saved(tmp_path, "01_nudging", {"quiz": {}}, {"quiz": {"q": {"guess": "a", "right": True}}})
    saved = read_saved_guesses(tmp_path, "01_nudging")  # two outputs: the last one counts
    assert saved.guesses["quiz"] == {"q": {"guess": "a", "right": True}}
    assert "holds 2 records; the last counts" in saved.problems[0]


def test_autograde_keeps_the_record_before_clearing_outputs(tmp_path, monkeypatch):
    from nbgrader.preprocessors import ClearOutput

    from gradkit.course.release import KeepFirstGuesses, autograde_preprocessors

    steps = autograde_preprocessors()
    assert steps.index(KeepFirstGuesses) + 1 == steps.index(ClearOutput)
    first = {"quiz": {"01-central-error": {"guess": "b", "right": True}}}
    nb = nbformat.read(_saved(tmp_path, "01_nudging", first), as_version=4)
    nb.metadata["gradkit"] = {"first_guesses": {"quiz": {"x": {"guess": "y", "right": True}}}}
    nb, _ = KeepFirstGuesses().preprocess(nb, {})  # what the learner's file put there is replaced
    nb, _ = ClearOutput().preprocess(nb, {})
    nbformat.write(nb, tmp_path / "01_nudging.ipynb")  # the copy autograde runs
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    check_first_guess("01_nudging", "quiz", "01-central-error", tmp_path)  # right: passes
    with pytest.raises(AssertionError, match="never answered"):
        check_first_guess("01_nudging", "quiz", "x", tmp_path)
    assert FirstGuesses("01_nudging", tmp_path).guesses["quiz"] == first["quiz"]  # shown
    del nb.metadata["gradkit"]  # a course config without gradkit's step: said, not a crash
    nbformat.write(nb, tmp_path / "01_nudging.ipynb")
    with pytest.raises(AssertionError, match="without gradkit's KeepFirstGuesses step"):
        check_first_guess("01_nudging", "quiz", "01-central-error", tmp_path)


def test_a_zoo_specimens_first_predicted_cause_is_kept(tmp_path, monkeypatch):
    from gradkit.widgets import ZooHunt

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    recorder = FirstGuesses("06_bug_zoo", tmp_path)
    hunt = ZooHunt(names=["WrongSquareFn"])
    recorder.watch({"hunt": hunt})
    for guess in ("pass", "bug"):  # the second run is no first try
        hunt.prediction.value = guess
        hunt.run_button.click()
    assert recorder.guesses["zoo"] == {
        "WrongSquareFn": {"guess": "pass", "right": False, "cause": "bug"}
    }
    _saved(tmp_path, "06_bug_zoo", recorder.record())
    assert read_first_guesses(tmp_path, "06_bug_zoo")["zoo"] == recorder.guesses["zoo"]


def test_nothing_is_written_while_nbgrader_runs_the_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert FirstGuesses("01_nudging", tmp_path).keep("quiz", "q", {"guess": "a"}) is False
    assert not (tmp_path / GUESS_FILE).exists()
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    check_first_guess("01_nudging", "predict", "01-forward-slope", tmp_path)  # passes, a note


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


@pytest.mark.slow
def test_nbgrader_validate_passes_the_solution_and_fails_the_starter(tmp_path):
    course = tmp_path / "course"
    assert main(["course", "nbgrader", str(course), "08", "--assignment", "ps1"]) == 0
    nbgrader = [sys.executable, "-m", "nbgrader"]
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # alembic
    env = {**os.environ, "PATH": path}
    run = {"cwd": course, "env": env, "capture_output": True, "text": True, "timeout": 600}
    run["check"] = False
    made = subprocess.run([*nbgrader, "generate_assignment", "ps1"], **run)
    assert made.returncode == 0, made.stdout + made.stderr
    released = nbformat.read(course / "release/ps1/08_write_your_own.ipynb", as_version=4)
    answers = [c.source.strip() for c in _graded(released, "answer")]
    assert answers == [EXERCISES["cube"].starter.strip(), EXERCISES["sigmoid"].starter.strip()]
    solved = subprocess.run([*nbgrader, "validate", "source/ps1/08_write_your_own.ipynb"], **run)
    assert "Success! Your notebook passes all the tests." in solved.stdout, solved.stdout
    starter = subprocess.run([*nbgrader, "validate", "release/ps1/08_write_your_own.ipynb"], **run)
    for key in ("cube", "sigmoid"):
        started: dict = {"torch": torch}
        _run(EXERCISES[key].starter, started)
        headline = grade(key, started[EXERCISES[key].class_name]).headline
        assert f"check_exercise('{key}'" in starter.stdout
        assert headline in starter.stdout, starter.stdout[-3000:]
    shutil.rmtree(course)
