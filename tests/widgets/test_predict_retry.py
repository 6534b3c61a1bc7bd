"""Predict's second try: after a wrong guess and its feedback, one more guess is graded, and the
first guess keeps the score. The page's side (the second row, the hint, the verdict under the
feedback, in the page's words) is tested in tests/js/practice.test.mjs."""

from __future__ import annotations

import pytest

from gradkit.widgets import Predict
from tests.widgets.page_messages import page_sends


def test_a_wrong_guess_gets_a_second_try_and_keeps_its_score(make):
    p = make(Predict, "07-calls-n10", compute=lambda: 22)
    assert p.lock_in(21) is False
    assert p.state["second"] == "" and not p.revealed
    assert p.try_again("22") is True
    assert p.correct is False and p.state["guess"] == "21"  # the score: the first guess
    assert p.state["second"] == "22" and p.judge(p.state["second"]) is True


def test_a_wrong_second_try_is_said_too(make):
    p = make(Predict, "07-calls-n10", compute=lambda: 22)
    p.lock_in("21")
    assert p.try_again("23") is False
    assert p.state["second"] == "23" and p.judge("23") is False
    assert p.correct is False and p.actual == 22


def test_a_wrong_guess_gets_a_hint_and_the_true_value_only_after_the_second_try(make):
    p = make(Predict, "07-calls-n10", compute=lambda: 22)
    p.lock_in("30")
    assert not p.revealed and p.actual is None
    p.try_again("22")
    assert p.revealed and p.actual == 22 and p.correct is False


def test_a_choice_of_two_reveals_at_once_and_has_no_second_try(make):
    p = make(Predict, "07-fast-mode-catches", compute=lambda: True)
    p.lock_in("fails")
    assert not p.second_try_offered and p.revealed and p.actual == "passes"
    with pytest.raises(RuntimeError, match="a choice of two has no second try"):
        p.try_again("passes")


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        (None, "22", "lock in a first guess"),
        ("22", "22", "the first guess was right"),
        ("21", "23", "cannot change"),  # a second try is given once
    ],
)
def test_a_second_try_only_after_a_wrong_guess_and_only_once(make, first, second, why):
    p = make(Predict, "07-calls-n10", compute=lambda: 22)
    if first is not None:
        p.lock_in(first)
    if first == "21":
        p.try_again("20")
    with pytest.raises(RuntimeError, match=why):
        p.try_again(second)
    page_sends(p, second=second)  # a page that skipped its own check
    assert why in p.error
    assert p.current("second") == ("20" if first == "21" else "")


def test_the_page_gives_the_second_try_as_python_does(make):
    p = make(Predict, "07-calls-n10", compute=lambda: 22)
    page_sends(p, guess="21", locked=True)
    page_sends(p, second="twenty two")
    assert "is not a number" in p.error and p.state["second"] == ""
    page_sends(p, second="22")
    assert p.error == "" and p.state["second"] == "22" and p.correct is False
    page_sends(p, second="")
    assert "cannot change" in p.error and p.state["second"] == "22"


def test_a_lock_recalled_after_a_reload_comes_whole_and_is_taken(make):
    """progress.js sends a recalled lock as one message: guess, locked and the second try."""
    p = make(Predict, "07-calls-n10", compute=lambda: 22)
    page_sends(p, guess="21", locked=True, second="22")
    assert p.error == ""
    assert p.locked and p.correct is False and p.state["second"] == "22" and p.actual == 22
    q = make(Predict, "07-calls-n10", compute=lambda: 22)
    page_sends(q, guess="22", locked=True, second="21")  # right at once: no second try
    assert "there is no second try" in q.error and not q.locked
