"""Quiz and Predict: the data each sends (question, options, verdicts, feedback, the true value
and its tolerance) and what Python reads back from the state the page sends. The page's side is
tested in tests/js/practice.test.mjs, against a fixture these widgets write."""

from __future__ import annotations

import random

import pytest
import torch
from ipywidgets.widgets.widget import _instances

from gradkit import quiz_bank
from gradkit.quiz_bank import load_bank
from gradkit.widgets import Predict, Quiz
from gradkit.widgets.base import InputError
from gradkit.widgets.practice.predict import GUESS_SLIPS
from tests.widgets.page_messages import page_sends

BANK = load_bank()  # the real gradkit/data/quizzes.toml
QUIZ_IDS = sorted(BANK.quizzes)
PREDICT_IDS = sorted(BANK.predictions)


@pytest.fixture(autouse=True)
def fixed_order(monkeypatch):
    monkeypatch.setenv(quiz_bank.ORDER_VARIABLE, "fixed")


def _without_seq(state):  # the state as a click leaves it, whoever clicked
    return {k: v for k, v in state.items() if not k.startswith("__")}


# ------------------------------------------------------------------------------------- Quiz


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_every_quiz_sends_each_option_with_its_verdict_and_explanation(make, quiz_id):
    entry = BANK.quiz(quiz_id)
    q = make(Quiz, quiz_id)
    scene = q.scene
    assert scene["question"] == entry.question and q.spec["title"] == entry.question
    assert [o["text"] for o in scene["options"]] == list(entry.options) == list(q.choices)
    assert [o["text"] for o in scene["options"] if o["right"]] == [entry.answer]
    for option in scene["options"]:
        assert option["explanation"] == entry.explanation_for(option["text"])
    assert scene["seed"] is None  # GRADKIT_QUIZ_ORDER=fixed: the file's order
    assert q.choice is None and q.correct is None


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_a_click_in_the_page_is_read_back_by_python(make, quiz_id):
    entry = BANK.quiz(quiz_id)
    q = make(Quiz, quiz_id)
    for k, wrong in enumerate(entry.wrong, start=1):
        page_sends(q, choice=wrong.option)
        assert q.choice == wrong.option and q.correct is False and q.attempts == k
    page_sends(q, choice=entry.answer)
    assert q.correct is True
    assert q.error == ""


def test_the_page_is_sent_pythons_words_for_a_slip(make):
    """The page words a slip from the scene (``parseGuess`` in predict.js): one table, Python's;
    the page's filled-in messages are checked against Python's in practice.test.mjs."""
    p = make(Predict, PREDICT_IDS[0], compute=lambda: 22.0)
    assert p.scene["slips"] == GUESS_SLIPS


def test_choose_sets_the_state_a_click_sets(make):
    entry = BANK.quiz(QUIZ_IDS[0])
    by_page, by_python = make(Quiz, entry.id), make(Quiz, entry.id)
    page_sends(by_page, choice=entry.wrong[0].option)
    by_python.choose(entry.wrong[0].option)
    assert _without_seq(by_page.state) == _without_seq(by_python.state)
    assert (by_page.correct, by_page.attempts) == (by_python.correct, by_python.attempts)
    with pytest.raises(ValueError, match="not one of"):
        by_python.choose("none of these")
    by_python.choose(None)
    assert by_python.correct is None


def test_a_page_sending_an_unknown_option_is_refused(make):
    q = make(Quiz, QUIZ_IDS[0])
    page_sends(q, choice="<b>made up</b>")
    assert "must be one of" in q.error and q.choice is None and q.attempts == 0


def test_each_learner_gets_a_seed_the_page_shuffles_with(monkeypatch, make):
    monkeypatch.delenv(quiz_bank.ORDER_VARIABLE)
    seeds = {make(Quiz, QUIZ_IDS[0], user=f"learner{k}").scene["seed"] for k in range(12)}
    assert len(seeds) == 12 and all(isinstance(s, int) and 0 <= s < 2**32 for s in seeds)
    ann = make(Quiz, QUIZ_IDS[0], user="ann").scene["seed"]
    assert ann == make(Quiz, QUIZ_IDS[0], user="ann").scene["seed"]
    assert ann != make(Quiz, QUIZ_IDS[1], user="ann").scene["seed"]  # per quiz, too
    # the options go out in the file's order: the page, not Python, puts them in the learner's
    assert make(Quiz, QUIZ_IDS[0], user="ann").choices == BANK.quiz(QUIZ_IDS[0]).options


def test_inline_questions_keep_their_order_and_explanations(make):
    q = make(Quiz, "Q `x`?", ["a", "b", "c"], "b", explain=["no a", "yes b", "no c"])
    assert q.choices == ("a", "b", "c") and q.scene["seed"] is None
    assert [o["right"] for o in q.scene["options"]] == [False, True, False]
    assert [o["explanation"] for o in q.scene["options"]] == ["no a", "yes b", "no c"]
    q.choice_buttons.value = "c"
    assert q.correct is False
    q.choice_buttons.value = "b"
    assert q.correct
    with pytest.raises(TypeError, match="inline question"):
        Quiz(QUIZ_IDS[0], answer=1)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"choices": ["a"], "answer": 0}, ValueError, "at least two"),
        ({"choices": ["a", "a"], "answer": 0}, ValueError, "distinct"),
        ({"choices": ["a", "b"], "answer": 2}, ValueError, "not an index"),
        ({"choices": ["a", "b"], "answer": "c"}, ValueError, "not one of the choices"),
        ({"choices": "ab", "answer": 0}, TypeError, "list of strings"),
        ({"choices": ["a", "b"], "answer": 0, "explain": ["x"]}, ValueError, "one per choice"),
        ({"choices": ["a", "b"], "answer": 0, "explain": {"z": "?"}}, ValueError, "unknown"),
    ],
)
def test_inline_questions_refuse_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        Quiz("Q?", **kwargs)


def test_quiz_unknown_id_suggests_close_ones():
    with pytest.raises(KeyError, match=rf"Did you mean '{QUIZ_IDS[0]}'"):
        Quiz(QUIZ_IDS[0] + "x")
    with pytest.raises(KeyError, match="predict-then-run entry"):
        Quiz(PREDICT_IDS[0])


def test_many_answers_in_a_row_stay_consistent(make):
    q = make(Quiz, "Q?", ["a", "b", "c"], "b", explain=["no", "yes", "no"])
    rng = random.Random(5)
    for _ in range(300):
        choice = rng.choice(["a", "b", "c", None])
        if rng.random() < 0.5 and choice is not None:
            page_sends(q, choice=choice)
        else:
            q.choose(choice)
        assert q.correct == (None if choice is None else choice == "b")
        assert q.error == ""


# ---------------------------------------------------------------------------------- Predict


def _true_value(entry):
    """A value compute() could return for this entry (the file's answer when it has one)."""
    if entry.answer is not None:
        return entry.answer
    return 22.0 if entry.kind == "number" else entry.options[-1]


def _wrong_guess(entry, actual):
    if entry.kind == "number":
        return actual * (1 + 3 * entry.tolerance) + 1  # outside the relative tolerance
    return next(o for o in entry.options if o != actual)


@pytest.mark.parametrize("predict_id", PREDICT_IDS)
def test_the_true_value_is_computed_at_build_and_sent_with_tolerance_and_feedback(make, predict_id):
    entry = BANK.predict(predict_id)
    actual = _true_value(entry)
    calls = []
    p = make(Predict, predict_id, compute=lambda: calls.append(1) or actual)
    assert calls == [1]  # once, when the widget is built
    scene = p.scene
    assert scene["actual"] == actual and scene["tolerance"] == entry.tolerance
    assert (scene["kind"], scene["options"], scene["unit"]) == (
        entry.kind,
        list(entry.options),
        entry.unit,
    )
    assert (scene["right"], scene["wrong"], scene["prompt"]) == (
        entry.right,
        entry.wrong,
        entry.prompt,
    )
    assert not p.locked and p.actual is None and p.correct is None  # hidden until the lock
    # a number is graded once, in Python: the page is sent the range of right guesses
    want = list(quiz_bank.right_range(entry, actual)) if entry.kind == "number" else None
    assert scene["right_range"] == want


@pytest.mark.parametrize("predict_id", PREDICT_IDS)
def test_a_lock_in_the_page_is_read_back_and_graded(make, predict_id):
    entry = BANK.predict(predict_id)
    actual = _true_value(entry)
    for guess, right in ((actual, True), (_wrong_guess(entry, actual), False)):
        p = make(Predict, predict_id, compute=lambda actual=actual: actual)
        page_sends(p, guess=str(guess), locked=True)
        assert p.locked and p.correct is right
        retry = not right and p.second_try_offered
        if retry:  # never the true value until the second try
            assert p.actual is None and not p.revealed
            page_sends(p, second=str(guess))
        assert p.actual == actual and p.revealed
        assert p.state["guess"] == str(guess)
        assert p.error == ""
        by_python = make(Predict, predict_id, compute=lambda actual=actual: actual)
        by_python.lock(str(guess))
        if retry:
            by_python.try_again(str(guess))
        assert _without_seq(by_python.state) == _without_seq(p.state)
        assert by_python.correct is right


def test_a_number_is_right_within_the_relative_tolerance(tmp_path, make):
    path = tmp_path / "p.toml"
    path.write_text(
        '[[predict]]\nid = "p"\nprompt = "slope?"\nkind = "number"\ntolerance = 0.01\n'
        'unit = "ms"\nright = "Yes."\nwrong = "No."\n',
        encoding="utf-8",
    )
    for guess, right in (("1.01", True), ("1.0234", True), ("1.0", False), ("1.0235", False)):
        p = make(Predict, "p", compute=lambda: 1.0133, bank=path)
        assert p.lock_in(guess) is right, guess
    p = make(Predict, "p", compute=lambda: torch.tensor(1.0133), bank=path)
    assert p.scene["actual"] == pytest.approx(1.0133) and isinstance(p.scene["actual"], float)


def test_a_slip_is_said_in_the_pages_words(make):
    """check_guess fills in GUESS_SLIPS (sent to the page) as parseGuess does; the page's
    messages are checked against these in practice.test.mjs."""
    entry = next(BANK.predict(i) for i in PREDICT_IDS if BANK.predict(i).kind == "choice")
    p = make(Predict, entry.id, compute=lambda: entry.options[0])
    options = ", ".join(f"'{o}'" for o in p.entry.options)
    with pytest.raises(InputError) as slip:
        p.lock(" {maybe} ")
    assert str(slip.value) == f"“{{maybe}}” is not one of the options [{options}]."
    with pytest.raises(InputError) as slip:
        p.lock("\u3000")
    assert str(slip.value) == "Pick one of the options first, then lock it in."
    assert set(GUESS_SLIPS) == {"number_first", "choice_first", "not_number", "not_option"}


def test_a_locked_guess_cannot_change(make):
    entry = next(BANK.predict(i) for i in PREDICT_IDS if BANK.predict(i).kind == "choice")
    actual = _true_value(entry)
    wrong = _wrong_guess(entry, actual)
    p = make(Predict, entry.id, compute=lambda: actual)
    page_sends(p, guess=wrong)
    p.lock_button.click()  # Python's lock button locks the guess shown, as the page's does
    assert p.locked and p.correct is False
    page_sends(p, guess=actual)  # a stale page
    assert "locked in" in p.error and p.current("guess") == wrong
    page_sends(p, locked=False)
    assert "stays locked" in p.error and p.locked
    p.guess_buttons.value = actual  # Python's handle: put back
    assert p.current("guess") == wrong and "cannot change" in p.error
    with pytest.raises(RuntimeError, match="locked in and cannot be changed"):
        p.lock_in(actual)
    p.lock_button.click()
    assert "already locked in" in p.error and p.correct is False


def test_slips_show_in_the_error_area_and_leave_the_guess_open(make):
    predict_id = next(i for i in PREDICT_IDS if BANK.predict(i).kind == "number")
    p = make(Predict, predict_id, compute=lambda: 22)
    p.lock_button.click()
    assert "Type a number first" in p.error and not p.locked
    p.guess_text.value = "twenty two"
    p.lock_button.click()
    assert "“twenty two” is not a number" in p.error and not p.locked
    page_sends(p, guess="abc", locked=True)  # a page that skipped its own check
    assert "is not a number" in p.error and not p.locked
    p.guess_text.value = " 22 "
    p.lock_button.click()
    assert p.error == "" and p.locked and p.correct and p.state["guess"] == " 22 "


def test_a_failing_compute_is_shown_and_nothing_can_be_locked(make):
    predict_id = PREDICT_IDS[0]

    def compute():
        raise RuntimeError("kernel hiccup")

    p = make(Predict, predict_id, compute=compute)
    assert "RuntimeError: kernel hiccup" in p.error
    assert p.scene["actual"] is None
    guess = (
        "1" if BANK.predict(predict_id).kind == "number" else BANK.predict(predict_id).options[0]
    )
    with pytest.raises(ValueError, match="could not be computed"):
        p.lock(guess)
    page_sends(p, guess=guess, locked=True)
    assert not p.locked and "could not be computed" in p.error


def test_predict_arguments_are_checked():
    number = next(i for i in PREDICT_IDS if BANK.predict(i).answer is None)
    with pytest.raises(TypeError, match="needs compute="):
        Predict(number)
    with pytest.raises(TypeError, match="compute must be a function"):
        Predict(number, compute=22)
    with pytest.raises(KeyError, match="is a quiz"):
        Predict(QUIZ_IDS[0])


def test_compute_returning_the_wrong_kind_is_shown(make):
    number = next(i for i in PREDICT_IDS if BANK.predict(i).kind == "number")
    p = make(Predict, number, compute=lambda: "many")
    assert "compute() must return a number" in p.error and p.scene["actual"] is None


# ------------------------------------------------------------------------------- both


@pytest.mark.parametrize(
    "build", [lambda: Quiz(QUIZ_IDS[0]), lambda: Predict(PREDICT_IDS[0], compute=lambda: 22.0)]
)
def test_close_leaks_nothing(build):
    before = len(_instances)
    w = build()
    w.close()
    assert w.closed and len(_instances) == before


def test_the_page_builds_the_options_the_guess_and_the_lock_itself(make):
    q = make(Quiz, QUIZ_IDS[0])
    p = make(Predict, PREDICT_IDS[0], compute=lambda: 22.0)
    for w in (q, p):
        assert w.spec["controls"] == []  # no base control, so none that needs the kernel
        assert {"gradkit-widget", w.css} <= set(w._dom_classes)
    assert [r["name"] for r in p.spec["readouts"]] == ["result", "feedback"]
    assert q.spec["readouts"] == [{"name": "feedback", "css": "gradkit-feedback gradkit-verdict"}]


@pytest.mark.parametrize(
    ("value", "opened"), [("", False), ("0", False), ("1", True), ("yes", True)]
)
def test_a_teacher_opens_every_lesson_with_one_variable(monkeypatch, make, value, opened):
    """GRADKIT_OPEN_LESSONS=1 sends open_all: the page hides nothing behind the Predict."""
    monkeypatch.setenv("GRADKIT_OPEN_LESSONS", value)
    assert make(Predict, "07-calls-n10", compute=lambda: 22).scene["open_all"] is opened
