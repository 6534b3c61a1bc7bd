"""The quiz file loader, validator, option shuffler and grader (gradkit.quiz_bank)."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradkit import quiz_bank
from gradkit.quiz_bank import (
    PredictEntry,
    QuizBankError,
    UnknownEntryError,
    grade_choice,
    grade_prediction,
    load_bank,
    parse_guess,
    right_range,
    shuffled_options,
)
from gradkit.quiz_bank.grading import GUESS_SPACES

GOOD = """
[[quiz]]
id = "03-why-float32"
question = "Why does a correct backward fail gradcheck in float32?"
answer = "Rounding error swamps the difference"
explanation = "u·|f|/eps is large in float32."
[[quiz.wrong]]
option = "float32 backward rules are less accurate"
explanation = "The rule is exact; the numeric side is not."
[[quiz.wrong]]
option = "gradcheck does not support float32"
explanation = "It runs, it just warns."
[[quiz.wrong]]
option = "The tolerance is too large"
explanation = "A larger tolerance would make it pass more often."

[[predict]]
id = "06-calls-n10"
prompt = "How many forward calls for 10 entries?"
kind = "number"
tolerance = 0
answer = 22
unit = "calls"
right = "Yes: 2n + 2."
wrong = "Count: one plain run, two per entry, one more."

[[predict]]
id = "06-fast-catches"
prompt = "Does fast_mode catch the one wrong entry?"
kind = "choice"
options = ["yes", "no"]
answer = "no"
right = "One random projection hides it."
wrong = "It misses it: the bug is below the tolerance of one number."

[[predict]]
id = "03-slope-f32"
prompt = "The float32 slope of x² at 2 with eps 1e-6?"
kind = "number"
tolerance = 0.05
right = "Close enough."
wrong = "Rounding dominates."
"""


@pytest.fixture
def bank_file(tmp_path: Path) -> Path:
    path = tmp_path / "quizzes.toml"
    path.write_text(GOOD, encoding="utf-8")
    return path


@pytest.fixture
def shuffled(monkeypatch):
    monkeypatch.delenv(quiz_bank.ORDER_VARIABLE, raising=False)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_loads_entries_by_id(bank_file):
    bank = load_bank(bank_file)
    assert bank.ids == ("03-why-float32", "06-calls-n10", "06-fast-catches", "03-slope-f32")
    q = bank.quiz("03-why-float32")
    assert q.options[0] == q.answer and len(q.options) == 4
    p = bank.predict("06-calls-n10")
    assert (p.kind, p.answer, p.tolerance, p.unit) == ("number", 22.0, 0.0, "calls")
    assert bank.predict("06-fast-catches").options == ("yes", "no")
    assert bank.predict("03-slope-f32").answer is None


def test_a_transfer_question_says_what_it_carries_the_idea_to(tmp_path, bank_file):
    text = GOOD.replace(
        'answer = "Rounding error swamps the difference"',
        'answer = "Rounding error swamps the difference"\ntransfer = "dtype"',
    )
    path = tmp_path / "transfer.toml"
    path.write_text(text, encoding="utf-8")
    assert load_bank(path).quiz("03-why-float32").transfer == "dtype"
    assert load_bank(bank_file).quiz("03-why-float32").transfer == ""


def test_an_edited_file_is_read_again(bank_file):
    first = load_bank(bank_file)
    assert load_bank(bank_file) is first  # cached while unchanged
    bank_file.write_text(GOOD.replace("How many forward calls", "Forward calls"), "utf-8")
    assert load_bank(bank_file).predict("06-calls-n10").prompt.startswith("Forward calls")


def test_unknown_id_lists_close_matches(bank_file):
    bank = load_bank(bank_file)
    with pytest.raises(UnknownEntryError, match=r"Did you mean '03-why-float32'\?") as info:
        bank.quiz("03-why-float-32")
    assert "Known ids" in str(info.value) and not str(info.value).startswith('"')
    with pytest.raises(UnknownEntryError, match=r"is a predict-then-run entry.*Predict\("):
        bank.quiz("06-calls-n10")
    with pytest.raises(UnknownEntryError, match=r"is a quiz.*Quiz\('03-why-float32'\)"):
        bank.predict("03-why-float32")
    with pytest.raises(UnknownEntryError, match="no predict entry"):
        bank.predict("zz-nothing-like-it")


def test_missing_file_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nowhere\.toml"):
        load_bank(tmp_path / "nowhere.toml")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[[quiz]\nid=", "not valid TOML"),
        ('[[quiz]]\nquestion = "Q?"', r"\[\[quiz\]\] #1: field 'id' is missing"),
        (
            '[[quiz]]\nid = "q1"\nquestion = "Q?"\nanswer = "a"\nexplanation = "e"',
            r"quiz 'q1': field 'wrong' needs at least one wrong option",
        ),
        (
            '[[quiz]]\nid = "q1"\nquestion = ""\nanswer = "a"\nexplanation = "e"',
            r"quiz 'q1': field 'question' must be non-empty text",
        ),
        (
            '[[quiz]]\nid = "q1"\nquestion = "Q"\nanswer = "a"\nexplaination = "e"',
            r"quiz 'q1': unknown field 'explaination' \(did you mean 'explanation'\?\)",
        ),
        (
            '[[quiz]]\nid = "q1"\nquestion = "Q"\nanswer = "a"\nexplanation = "e"\n'
            '[[quiz.wrong]]\noption = "a"\nexplanation = "x"',
            r"quiz 'q1': option\(s\) \['a'\] appear twice",
        ),
        (
            '[[quiz]]\nid = "q1"\nquestion = "Q"\nanswer = "a"\nexplanation = "e"\n'
            '[[quiz.wrong]]\noption = "b"',
            r"quiz 'q1', wrong option #1: field 'explanation' is missing",
        ),
        (
            '[[quiz]]\nid = "q1"\nquestion = "Q"\nanswer = "a"\nexplanation = "e"\n'
            'transfer = "size"\n[[quiz.wrong]]\noption = "b"\nexplanation = "x"',
            r"quiz 'q1': field 'transfer' must be one of \['function', 'dtype', 'shape'\]",
        ),
        (
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "guess"\nright = "r"\nwrong = "w"',
            r"predict 'p1': field 'kind' must be one of \['number', 'choice'\], got 'guess'",
        ),
        (
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "number"\ntolerance = -1\n'
            'right = "r"\nwrong = "w"',
            r"predict 'p1': field 'tolerance' must be a number >= 0",
        ),
        (
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "choice"\noptions = ["a"]\n'
            'right = "r"\nwrong = "w"',
            r"predict 'p1': field 'options' must list at least two",
        ),
        (
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "choice"\noptions = ["a", "b"]\n'
            'answer = "c"\nright = "r"\nwrong = "w"',
            r"predict 'p1': field 'answer' 'c' is not one of options",
        ),
        (
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "number"\nright = "r"\nwrong = "w"\n'
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "number"\nright = "r"\nwrong = "w"',
            r"id 'p1' is used twice",
        ),
        ('[[quizz]]\nid = "a"', r"unknown table\(s\) \['quizz'\]"),
        (
            '[[predict]]\nid = "p 1"\nprompt = "P"\nkind = "number"\nright = "r"\nwrong = "w"',
            "must not contain spaces",
        ),
        (
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "number"\nright = "Right: 22."\n'
            'wrong = "w"',
            r"predict 'p1': field 'right' starts with 'Right', which the page already says",
        ),
        (
            '[[quiz]]\nid = "q1"\nquestion = "Q"\nanswer = "a"\nexplanation = "e"\n'
            '[[quiz.wrong]]\noption = "b"\nexplanation = "Not quite: b is c."',
            r"wrong option #1: field 'explanation' starts with 'Not quite'",
        ),
        (
            '[[predict]]\nid = "p1"\nprompt = "P"\nkind = "number"\nright = "r"\nwrong = "w"\n'
            'unit_one = "call"',
            r"predict 'p1': field 'unit_one' needs a 'unit'",
        ),
    ],
)
def test_malformed_files_name_the_id_and_field(tmp_path, text, match):
    with pytest.raises(QuizBankError, match=match):
        load_bank(_write(tmp_path, text))


def test_fixed_order_is_the_file_order(bank_file, monkeypatch):
    monkeypatch.setenv(quiz_bank.ORDER_VARIABLE, "fixed")
    q = load_bank(bank_file).quiz("03-why-float32")
    assert shuffled_options(q.options, q.id, user="ann") == q.options


def test_order_depends_on_learner_and_id_and_is_stable(shuffled):
    options = tuple("abcdefgh")
    ann = shuffled_options(options, "q1", user="ann")
    assert ann == shuffled_options(options, "q1", user="ann")
    assert sorted(ann) == sorted(options)
    # with 8 options (40320 orders) distinct learners and ids give distinct orders
    learners = {shuffled_options(options, "q1", user=f"learner{k}") for k in range(20)}
    ids = {shuffled_options(options, f"q{k}", user="ann") for k in range(20)}
    assert len(learners) > 15 and len(ids) > 15
    # the answer (listed first in the file) is not always shown first
    firsts = {shuffled_options(options, f"q{k}", user="ann")[0] for k in range(40)}
    assert len(firsts) > 3


def test_hub_user_decides_the_order(shuffled, monkeypatch):
    options = tuple("abcdefgh")
    monkeypatch.setenv("JUPYTERHUB_USER", "ann")
    assert quiz_bank.learner_name() == "ann"
    assert shuffled_options(options, "q1") == shuffled_options(options, "q1", user="ann")


def test_bad_order_variable_is_named(monkeypatch):
    monkeypatch.setenv(quiz_bank.ORDER_VARIABLE, "sorted")
    with pytest.raises(ValueError, match="GRADKIT_QUIZ_ORDER='sorted'"):
        shuffled_options(["a", "b"], "q1")


def test_grade_choice_gives_each_option_its_explanation(bank_file):
    q = load_bank(bank_file).quiz("03-why-float32")
    right = grade_choice(q, q.answer)
    assert right.correct and right.explanation == "u·|f|/eps is large in float32."
    for wrong in q.wrong:
        verdict = grade_choice(q, wrong.option)
        assert not verdict.correct and verdict.explanation == wrong.explanation
        assert verdict.expected == q.answer
    with pytest.raises(ValueError, match="not one of quiz '03-why-float32'"):
        grade_choice(q, "something else")


def test_grade_prediction_numbers_and_choices(bank_file):
    bank = load_bank(bank_file)
    calls = bank.predict("06-calls-n10")
    assert grade_prediction(calls, "22", 22).correct
    assert grade_prediction(calls, 22.0, 22).explanation == "Yes: 2n + 2."
    wrong = grade_prediction(calls, 21, 22)
    assert not wrong.correct and wrong.explanation.startswith("Count:")
    assert (wrong.given, wrong.expected) == (21.0, 22.0)
    slope = bank.predict("03-slope-f32")  # 5 % relative tolerance
    assert grade_prediction(slope, 4.1, 4.0).correct
    assert not grade_prediction(slope, 4.3, 4.0).correct
    assert grade_prediction(slope, "-4.1", -4.0).correct
    fast = bank.predict("06-fast-catches")
    assert grade_prediction(fast, "no", "no").correct
    assert not grade_prediction(fast, "yes", "no").correct
    assert grade_prediction(fast, "no", False).correct  # a bool maps onto yes/no options


@pytest.mark.parametrize(
    ("entry_id", "guess", "actual", "error", "match"),
    [
        ("06-calls-n10", "twenty", 22, ValueError, "not a number"),
        ("06-calls-n10", float("nan"), 22, ValueError, "finite"),
        ("06-calls-n10", 22, "22", TypeError, "must return a number"),
        ("06-calls-n10", 22, float("inf"), ValueError, "not a finite number"),
        ("06-fast-catches", "maybe", "no", ValueError, "not one of the options"),
        ("06-fast-catches", "no", "perhaps", ValueError, "must return one of the options"),
    ],
)
def test_grade_prediction_rejects_bad_values(bank_file, entry_id, guess, actual, error, match):
    entry = load_bank(bank_file).predict(entry_id)
    with pytest.raises(error, match=match):
        grade_prediction(entry, guess, actual)


def test_the_shipped_predicts_tolerances_make_the_point():
    """A count is right only exactly (21 is not 22); any other number within 15 % at most (an
    eps of 0.001 is not float32's 0.00155): a tolerance loose enough to pass a near miss would
    mark right the slip the predict is there to show."""
    for entry in load_bank().predictions.values():
        if entry.kind != "number":
            continue
        if entry.unit in ("calls", "passes", "entries"):
            assert entry.tolerance == 0, f"{entry.id} counts {entry.unit}: only the exact count"
        if entry.unit and entry.tolerance == 0:  # a count: "1 call", never "1 calls"
            assert entry.unit_one, f"{entry.id}: give unit_one, the word after exactly 1"
        assert entry.tolerance <= 0.15, f"{entry.id}: tolerance {entry.tolerance} > 15 %"


def _number_entry(tolerance: float) -> PredictEntry:
    return PredictEntry("n", "?", "number", tolerance, None, (), "yes", "no")


@settings(max_examples=300, deadline=None)
@given(
    actual=st.floats(allow_nan=False, allow_infinity=False),
    tolerance=st.sampled_from([0.0, 1e-3, 0.01, 0.05, 0.15, 0.5, 1.0, 3.0]),
)
def test_the_range_sent_is_exactly_the_guesses_graded_right(actual, tolerance):
    """right_range is the rule ``|g - actual| <= tolerance * |actual|`` in float64, as one
    interval: its two edges pass it, the float past each edge fails it (the page grades by
    comparing with the range, so no float is graded differently on the two sides)."""
    lo, hi = right_range(_number_entry(tolerance), actual)
    assert lo <= actual <= hi and math.isfinite(lo) and math.isfinite(hi)
    allowed = tolerance * abs(actual)
    for edge, away in ((lo, -math.inf), (hi, math.inf)):
        assert abs(edge - actual) <= allowed
        past = math.nextafter(edge, away)
        assert not math.isfinite(past) or not abs(past - actual) <= allowed
    for g in (lo, hi, (lo + hi) / 2, math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)):
        if math.isfinite(g):
            assert (lo <= g <= hi) == (abs(g - actual) <= allowed)


def test_a_range_is_for_numbers_and_exact_for_counts(bank_file):
    bank = load_bank(bank_file)
    assert right_range(bank.predict("06-calls-n10"), 22) == (22.0, 22.0)
    assert right_range(_number_entry(0.05), 100) == (95.0, 105.0)
    with pytest.raises(ValueError, match="only a number entry"):
        right_range(bank.predict("06-fast-catches"), "no")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("22", 22.0),
        ("\u00a0−1_000\u3000", -1000.0),
        (".5e1", 5.0),
        ("5.", 5.0),
        ("\ufeff+3", 3.0),
        ("٢٢", None),
        ("２２", None),
        ("infinity", None),
        ("0x10", None),
        ("1e5.5", None),
        ("\x1c22", None),
        ("1,5", None),
    ],
)
def test_a_typed_number_is_ascii_digits_trimmed_as_the_page_trims(text, value):
    """The grammar both sides parse by (the page's is tested against Python's in practice.json):
    ASCII digits only (Python's float() would read "٢٢" as 22), trimmed of exactly the spaces
    JavaScript's trim drops (Python's strip would also drop "\\x1c")."""
    entry = _number_entry(0.0)
    if value is None:
        with pytest.raises(ValueError, match="not a number"):
            parse_guess(entry, text)
    else:
        assert parse_guess(entry, text) == value
    assert "\x1c" not in GUESS_SPACES and "\ufeff" in GUESS_SPACES
