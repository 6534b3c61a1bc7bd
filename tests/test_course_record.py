"""The learner's first guesses in an nbgrader course: kept by the kernel, first only, in the
recording cell's output that the saved notebook carries, read back entry by entry (no record is
no guess; an odd record is named, never a crash nor another learner's business), and kept for
the autograder before nbgrader clears the outputs (``gradkit.course.record``, ``.saved``,
``.release``)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from gradkit.cli.lesson_copy import lesson_files
from gradkit.course import (
    GUESS_FILE,
    RECORD_MIME,
    check_first_guess,
    read_first_guesses,
    read_saved_guesses,
)
from gradkit.course.assignment import assignment_notebook
from gradkit.course.record import FirstGuesses
from gradkit.course.saved import RECORD_CELL
from gradkit.course.summary import LearnerRecord, record_notes, summarize, summary_text

LESSONS = {p.stem: p for p in lesson_files()}


def _source(stem: str) -> nbformat.NotebookNode:
    return assignment_notebook(nbformat.read(LESSONS[stem], as_version=4), stem)[0]


def _saved(folder: Path, stem: str, *records: object) -> Path:
    """The assignment notebook as the page saves it after the recording cell showed ``records``:
    each a display_data output of that cell, the record under its mimetype (what the front end
    writes: transient display ids are never saved)."""
    nb = _source(stem)
    cell = next(
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == RECORD_CELL
    )
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
    monkeypatch.setattr("gradkit.course.record._ACTIVE", {"recorder": recorder})
    with pytest.raises(AssertionError, match=r"first guess at 01-forward-slope was 4\.0"):
        check_first_guess("01_nudging", "predict", "01-forward-slope", tmp_path)


def test_a_record_that_says_right_is_judged_again_never_believed(tmp_path, monkeypatch):
    """The notebook is the learner's file: its "right" is ignored, the grader judges the guess
    (a quiz against gradkit's quiz file, a Predict against its widget's value in this kernel)."""
    from gradkit.quiz_bank import load_bank
    from gradkit.widgets import Predict

    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    quiz = load_bank().quiz("01-central-error")
    wrong = next(o for o in quiz.options if o != quiz.answer)
    claims = {
        "predict": {"01-forward-slope": {"guess": "4.0", "right": True}},
        "quiz": {"01-central-error": {"guess": wrong, "right": True}},
    }
    nb = nbformat.read(_saved(tmp_path, "01_nudging", claims), as_version=4)
    nb.metadata["gradkit"] = {"first_guesses": claims}  # as autograde's first step keeps it
    nbformat.write(nb, tmp_path / "01_nudging.ipynb")
    recorder = FirstGuesses("01_nudging", tmp_path)  # the autograder runs the notebook: its cells
    recorder.watch({"predict": Predict("01-forward-slope", compute=lambda: 4.1)})
    monkeypatch.setattr("gradkit.course.record._ACTIVE", {"recorder": recorder})
    with pytest.raises(AssertionError, match=r"01-forward-slope was 4\.0: not right"):
        check_first_guess("01_nudging", "predict", "01-forward-slope", tmp_path)
    with pytest.raises(AssertionError, match="not right"):
        check_first_guess("01_nudging", "quiz", "01-central-error", tmp_path)
    monkeypatch.setattr("gradkit.course.record._ACTIVE", {})  # the Predict's cell did not run
    with pytest.raises(AssertionError, match="could not be checked"):
        check_first_guess("01_nudging", "predict", "01-forward-slope", tmp_path)
    honest = {"quiz": {"01-central-error": {"guess": quiz.answer, "right": False}}}
    nb.metadata["gradkit"] = {"first_guesses": honest}  # right, though the record says not
    nbformat.write(nb, tmp_path / "01_nudging.ipynb")
    check_first_guess("01_nudging", "quiz", "01-central-error", tmp_path)


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
    from gradkit.quiz_bank import load_bank

    answer = load_bank().quiz("01-central-error").answer
    first = {"quiz": {"01-central-error": {"guess": answer, "right": True}}}
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
    label = hunt.entry
    hunt.set_state({"runs": {label: "pass"}, "first_guesses": {label: "pass"}})
    hunt.set_state({"runs": {label: "bug"}})  # the second run is no first try
    assert recorder.guesses["zoo"] == {
        "WrongSquareFn": {"guess": "pass", "right": False, "cause": "bug"}
    }
    _saved(tmp_path, "06_bug_zoo", recorder.record())
    assert read_first_guesses(tmp_path, "06_bug_zoo")["zoo"] == recorder.guesses["zoo"]


def test_a_zoo_run_in_the_page_is_kept_and_a_run_before_any_prediction_never_is(
    tmp_path, monkeypatch
):
    """The page runs a specimen itself (its runs and first guesses, no kernel button): the
    recorder keeps the first predicted run; a specimen first run unpredicted never scores."""
    from gradkit.widgets import ZooHunt
    from tests.widgets.page_messages import page_sends

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    recorder = FirstGuesses("06_bug_zoo", tmp_path)
    hunt = ZooHunt(names=["WrongSquareFn", "SquareFn"])
    recorder.watch({"hunt": hunt})
    wrong, square = (label for label, _name in hunt.entry_dropdown.options)
    page_sends(hunt, runs={wrong: "bug"}, first_guesses={wrong: "bug"})
    page_sends(hunt, runs={wrong: "pass"})  # a second run is no first guess
    page_sends(hunt, runs={wrong: "pass", square: None}, first_guesses={wrong: "bug", square: None})
    page_sends(hunt, runs={wrong: "pass", square: "pass"})  # after the verdict: never kept
    assert recorder.guesses["zoo"] == {
        "WrongSquareFn": {"guess": "bug", "right": True, "cause": "bug"}
    }
    hunt.close()


def test_nothing_is_written_while_nbgrader_runs_the_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert FirstGuesses("01_nudging", tmp_path).keep("quiz", "q", {"guess": "a"}) is False
    assert not (tmp_path / GUESS_FILE).exists()
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    check_first_guess("01_nudging", "predict", "01-forward-slope", tmp_path)  # passes, a note


def test_in_the_learners_kernel_a_graded_check_reads_the_running_recorder(tmp_path, monkeypatch):
    from gradkit.course import record_first_guesses
    from gradkit.quiz_bank import load_bank

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("gradkit.course.record._ACTIVE", {})  # this test's recorder only
    recorder = record_first_guesses("01_nudging")  # the recording cell, run by the learner
    answer = load_bank().quiz("01-central-error").answer
    recorder.keep("quiz", "01-central-error", {"guess": answer, "right": True})
    _saved(tmp_path, "01_nudging")  # not saved since: the file has no record yet
    check_first_guess("01_nudging", "quiz", "01-central-error", tmp_path)  # the kernel knows
    with pytest.raises(AssertionError, match="never answered"):  # another notebook: its file
        check_first_guess("08_write_your_own", "quiz", "08-log-backward", tmp_path)
