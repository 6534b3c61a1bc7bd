"""Quiz and Predict: every entry of the real quiz file answered right and wrong, and the widgets'
own behaviour (option order, lock-in, errors, closing)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from ipywidgets.widgets.widget import _instances

from gradkit import quiz_bank
from gradkit.quiz_bank import load_bank
from gradkit.widgets.predict import Predict
from gradkit.widgets.quiz import Quiz

BANK = load_bank()  # the real gradkit/data/quizzes.toml
QUIZ_IDS = sorted(BANK.quizzes)
PREDICT_IDS = sorted(BANK.predictions)


@pytest.fixture(autouse=True)
def fixed_order(monkeypatch):
    monkeypatch.setenv(quiz_bank.ORDER_VARIABLE, "fixed")


def test_the_real_file_has_entries():
    assert len(QUIZ_IDS) >= 5 and len(PREDICT_IDS) >= 2, (QUIZ_IDS, PREDICT_IDS)


# ------------------------------------------------------------------------------------ Quiz


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_every_quiz_gives_each_option_its_feedback(make, quiz_id):
    entry = BANK.quiz(quiz_id)
    q = make(Quiz, quiz_id)
    assert q.correct is None and q.feedback_html.value == "" and q.attempts == 0
    assert set(q.choice_buttons.options) == set(entry.options)
    for k, wrong in enumerate(entry.wrong, start=1):
        q.choice_buttons.value = wrong.option
        assert q.correct is False and q.attempts == k
        shown = q.feedback_html.value
        assert "Not quite" in shown and "Right" not in shown
        assert _plain(wrong.explanation) in _plain_html(shown), (wrong.option, shown)
    q.choice_buttons.value = entry.answer
    assert q.correct is True
    assert "Right" in q.feedback_html.value
    assert _plain(entry.explanation) in _plain_html(q.feedback_html.value)
    assert q.error_area.value == ""
    # the browser gets the same feedback ahead, one entry per option
    assert q.scene["feedback"][entry.answer] == q.feedback_html.value
    assert q.scene["right"] == {o: o == entry.answer for o in q.choices}


def _plain(text: str) -> str:
    import html

    return html.escape(text).replace("`", "")


def _plain_html(shown: str) -> str:
    return shown.replace("<code>", "").replace("</code>", "")


def test_quiz_options_follow_the_learner(monkeypatch, make):
    quiz_id = max(QUIZ_IDS, key=lambda i: len(BANK.quiz(i).options))
    entry = BANK.quiz(quiz_id)
    assert make(Quiz, quiz_id).choices == entry.options  # fixed: the file's order
    monkeypatch.delenv(quiz_bank.ORDER_VARIABLE)
    orders = {make(Quiz, quiz_id, user=f"learner{k}").choices for k in range(12)}
    assert len(orders) > 1 and all(sorted(o) == sorted(entry.options) for o in orders)
    assert make(Quiz, quiz_id, user="ann").choices == make(Quiz, quiz_id, user="ann").choices
    # the browser draws the options in the same order
    q = make(Quiz, quiz_id, user="ann")
    assert q.controls[0]["options"] == list(q.choices)


def test_quiz_unknown_id_suggests_close_ones():
    some = QUIZ_IDS[0]
    with pytest.raises(KeyError, match=rf"Did you mean '{some}'"):
        Quiz(some + "x")
    if PREDICT_IDS:
        with pytest.raises(KeyError, match="predict-then-run entry"):
            Quiz(PREDICT_IDS[0])


def test_quiz_from_another_file(tmp_path, make):
    path = tmp_path / "q.toml"
    path.write_text(
        '[[quiz]]\nid = "t1"\nquestion = "Which is `torch.float64`?"\nanswer = "double"\n'
        'explanation = "64 bits."\n[[quiz.wrong]]\noption = "single"\n'
        'explanation = "That is `float32`."\n',
        encoding="utf-8",
    )
    q = make(Quiz, "t1", bank=path)
    q.choice_buttons.value = "single"
    assert "<code>float32</code>" in q.feedback_html.value
    with pytest.raises(ValueError, match="not one of the options"):
        q.choice_buttons.value = "half"


def test_inline_questions_still_work(make):
    q = make(Quiz, "Q?", ["a", "b", "c"], "b", explain=["no a", "yes b", "no c"])
    assert q.choices == ("a", "b", "c")
    q.choice_buttons.value = "c"
    assert q.correct is False and "no c" in q.feedback_html.value
    q.choice_buttons.value = None
    assert q.correct is None and q.feedback_html.value == ""
    q.choice_buttons.value = "b"
    assert q.correct and "yes b" in q.feedback_html.value
    with pytest.raises(TypeError, match="inline question"):
        Quiz(QUIZ_IDS[0], answer=1)


def test_quiz_closes_without_leaks():
    before = len(_instances)
    q = Quiz(QUIZ_IDS[0])
    assert len(_instances) > before
    q.close()
    assert q.closed and len(_instances) == before


# --------------------------------------------------------------------------------- Predict


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
def test_every_prediction_right_and_wrong(make, predict_id):
    entry = BANK.predict(predict_id)
    actual = _true_value(entry)
    for guess, correct in ((actual, True), (_wrong_guess(entry, actual), False)):
        calls = []

        def compute(calls=calls):
            calls.append(1)
            return actual

        p = make(Predict, predict_id, compute=compute)
        assert p.correct is None and p.actual is None and p.feedback_html.value == ""
        assert calls == []  # nothing runs before the guess is locked in
        assert p.guess(guess) is correct
        assert calls == [1] and p.locked and p.correct is correct
        assert p.actual == actual
        shown = p.feedback_html.value
        expected = entry.right if correct else entry.wrong
        assert expected.split(".")[0].replace("'", "&#x27;") in shown, (expected, shown)
        assert ("Right" in shown) is correct and ("Not quite" in shown) is not correct
        # the true value stands beside the guess
        result = p.result_html.value
        assert "your guess" in result and "true value" in result
        assert p._shown(actual) in result
        assert p.error_area.value == ""


@pytest.mark.parametrize("predict_id", PREDICT_IDS)
def test_a_locked_guess_cannot_change(make, predict_id):
    entry = BANK.predict(predict_id)
    actual = _true_value(entry)
    wrong = _wrong_guess(entry, actual)
    p = make(Predict, predict_id, compute=lambda: actual)
    # through the browser's path: type or pick, then click the lock button
    control = p.guess_text if entry.kind == "number" else p.guess_buttons
    control.value = str(wrong) if entry.kind == "number" else wrong
    p.lock_button.click()
    assert p.correct is False and p.lock_button.disabled and control.disabled
    kept = p.values["guess"]
    with pytest.raises(RuntimeError, match="locked in and cannot be changed"):
        p.guess(actual)
    control.value = str(actual) if entry.kind == "number" else actual  # a stale browser
    assert p.values["guess"] == kept and p.correct is False
    p.lock_button.click()
    assert "already locked in" in p.error_area.value
    assert p.correct is False and p.actual == actual


def test_number_guesses_parse_and_errors_show(make):
    predict_id = next(i for i in PREDICT_IDS if BANK.predict(i).kind == "number")
    p = make(Predict, predict_id, compute=lambda: 22)
    p.lock_button.click()
    assert "Type a number first" in p.error_area.value and not p.locked
    p.guess_text.value = "twenty two"
    p.lock_button.click()
    assert "not a number" in p.error_area.value and not p.locked
    p.guess_text.value = " 22 "
    p.lock_button.click()
    assert p.error_area.value == "" and p.locked and p.correct


def test_a_failing_compute_leaves_the_guess_open(make):
    predict_id = PREDICT_IDS[0]
    entry = BANK.predict(predict_id)
    actual = _true_value(entry)
    outcomes = iter([RuntimeError("kernel hiccup"), actual])

    def compute():
        value = next(outcomes)
        if isinstance(value, Exception):
            raise value
        return value

    p = make(Predict, predict_id, compute=compute)
    control = p.guess_text if entry.kind == "number" else p.guess_buttons
    control.value = str(actual) if entry.kind == "number" else actual
    p.lock_button.click()
    assert "RuntimeError: kernel hiccup" in p.error_area.value
    assert not p.locked and not p.lock_button.disabled and p.actual is None
    p.lock_button.click()
    assert p.error_area.value == "" and p.locked and p.correct


def test_predict_arguments_are_checked():
    number = next(i for i in PREDICT_IDS if BANK.predict(i).answer is None)
    with pytest.raises(TypeError, match="needs compute="):
        Predict(number)
    with pytest.raises(TypeError, match="compute must be a function"):
        Predict(number, compute=22)
    with pytest.raises(KeyError, match="is a quiz"):
        Predict(QUIZ_IDS[0])


def test_relative_tolerance_in_the_readout(tmp_path, make):
    path = tmp_path / "p.toml"
    path.write_text(
        '[[predict]]\nid = "p"\nprompt = "slope?"\nkind = "number"\ntolerance = 0.01\n'
        'right = "Yes."\nwrong = "No."\n',
        encoding="utf-8",
    )
    near = make(Predict, "p", compute=lambda: 1.0133, bank=path)
    assert near.guess("1.01") is True and "within 1 % counts as right" in near.result_html.value
    far = make(Predict, "p", compute=lambda: 1.0133, bank=path)
    assert far.guess(1.0) is False
    off = abs(1.0 - 1.0133) / 1.0133 * 100
    assert f"{off:.2g} % below the true value" in far.result_html.value
    assert math.isclose(far.actual, 1.0133)


def test_predict_closes_without_leaks():
    before = len(_instances)
    p = Predict(PREDICT_IDS[0], compute=lambda: _true_value(BANK.predict(PREDICT_IDS[0])))
    p.close()
    assert p.closed and len(_instances) == before


def test_view_files_exist():
    static = Path(__file__).resolve().parents[1] / "gradkit" / "widgets" / "static"
    for view in ("quiz", "predict"):
        text = (static / f"{view}.js").read_text(encoding="utf-8")
        assert f"VIEWS.{view} = " in text
