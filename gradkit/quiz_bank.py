"""The lessons' quiz questions and predict-then-run moments, kept out of the learner's cells.

The questions live in ``gradkit/data/quizzes.toml`` (or any file of the same format), never in
the code cell a learner sees, so the answer key is not in plain sight. This module loads and
validates that file, looks entries up by id, shuffles each question's options per learner and
grades answers; the widgets :class:`gradkit.widgets.Quiz` and :class:`gradkit.widgets.Predict`
only display what it returns.

File format::

    [[quiz]]
    id = "03-why-float32"
    question = "Why does a correct backward fail gradcheck in float32?"
    answer = "Rounding error of about u·|f|/eps swamps the tiny difference"
    explanation = "Why the right answer is right (shown after a right answer)."
    [[quiz.wrong]]
    option = "float32 backward rules are less accurate"
    explanation = "Why this one is wrong (shown when the learner picks it)."

    [[predict]]
    id = "06-calls-n10"
    prompt = "How many forward calls does slow-mode gradcheck make for 10 input entries?"
    kind = "number"      # or "choice", with options = [...] and answer = "..."
    tolerance = 0        # relative tolerance for kind = "number"
    answer = 22          # optional for "number": the value when no compute is given
    right = "Feedback when the guess was right."
    wrong = "Feedback when it was not (the true value is shown beside the guess)."

Options are shuffled per learner: the order depends on the learner's user name and the quiz
id, so it is stable for one learner across runs and differs between learners. The environment
variable ``GRADKIT_QUIZ_ORDER=fixed`` puts them in the file's order (the answer first), for tests.

>>> bank = load_bank()  # doctest: +SKIP
>>> entry = bank.quiz("03-why-float32")  # doctest: +SKIP
>>> grade_choice(entry, entry.answer).correct  # doctest: +SKIP
True
"""

from __future__ import annotations

import difflib
import getpass
import hashlib
import math
import os
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

__all__ = [
    "DEFAULT_PATH",
    "ORDER_VARIABLE",
    "Grade",
    "PredictEntry",
    "QuizBank",
    "QuizBankError",
    "QuizEntry",
    "UnknownEntryError",
    "WrongOption",
    "as_actual",
    "grade_choice",
    "grade_prediction",
    "learner_name",
    "load_bank",
    "option_order",
    "parse_bank",
    "parse_guess",
    "shuffled_options",
]

#: The quiz file shipped with gradkit (its content belongs to the lessons).
DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "quizzes.toml"
#: Set to "fixed" to show options in the file's order (tests do); "shuffled" is the default.
ORDER_VARIABLE = "GRADKIT_QUIZ_ORDER"
_ORDERS = ("shuffled", "fixed")
_QUIZ_FIELDS = {"id", "question", "answer", "explanation", "wrong"}
_WRONG_FIELDS = {"option", "explanation"}
_PREDICT_FIELDS = {
    "id",
    "prompt",
    "kind",
    "tolerance",
    "answer",
    "options",
    "right",
    "wrong",
    "unit",
}
_KINDS = ("number", "choice")


class QuizBankError(ValueError):
    """The quiz file cannot be used: the message names the entry id and the field."""


class UnknownEntryError(KeyError):
    """No entry with that id; the message lists close matches."""

    def __str__(self) -> str:  # KeyError would print the message with quotes around it
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class WrongOption:
    """A wrong option of a quiz and why it is wrong."""

    option: str
    explanation: str


@dataclass(frozen=True)
class QuizEntry:
    """One multiple-choice question.

    Attributes
    ----------
    id : str
    question : str
    answer : str
        The right option's text.
    explanation : str
        Why the right answer is right.
    wrong : tuple of WrongOption
        The other options, each with its own explanation.
    """

    id: str
    question: str
    answer: str
    explanation: str
    wrong: tuple[WrongOption, ...]

    @property
    def options(self) -> tuple[str, ...]:
        """Every option in the file's order: the answer first, then the wrong ones."""
        return (self.answer, *(w.option for w in self.wrong))

    def explanation_for(self, option: str) -> str:
        """The explanation shown when ``option`` is picked."""
        if option == self.answer:
            return self.explanation
        for w in self.wrong:
            if w.option == option:
                return w.explanation
        raise ValueError(
            f"option {option!r} is not one of quiz {self.id!r}'s options {list(self.options)}"
        )


@dataclass(frozen=True)
class PredictEntry:
    """One predict-then-run moment.

    Attributes
    ----------
    id : str
    prompt : str
    kind : str
        "number" (a typed number, right within ``tolerance``) or "choice" (one of ``options``).
    tolerance : float
        Relative tolerance for numbers: right when ``|guess - actual| <= tolerance * |actual|``.
    answer : float, str or None
        The expected value; used when the widget is given no ``compute``.
    options : tuple of str
        The choices for kind "choice" (empty for numbers).
    right, wrong : str
        Feedback after a right or a wrong guess.
    unit : str
        A word shown after numbers ("calls", "ms"); may be empty.
    """

    id: str
    prompt: str
    kind: str
    tolerance: float
    answer: float | str | None
    options: tuple[str, ...]
    right: str
    wrong: str
    unit: str = ""


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer.

    Attributes
    ----------
    correct : bool
    given : float or str
        What the learner chose or guessed.
    expected : float or str
        The right option, or the true value.
    explanation : str
        The feedback text for this answer (from the quiz file).
    """

    correct: bool
    given: float | str
    expected: float | str
    explanation: str


@dataclass(frozen=True)
class QuizBank:
    """Every quiz and predict entry of one file, by id."""

    quizzes: Mapping[str, QuizEntry]
    predictions: Mapping[str, PredictEntry]
    path: Path | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        """All ids, quizzes first."""
        return (*self.quizzes, *self.predictions)

    def quiz(self, quiz_id: str) -> QuizEntry:
        """The quiz with this id (an error lists close matches when there is none)."""
        if quiz_id in self.quizzes:
            return self.quizzes[quiz_id]
        if quiz_id in self.predictions:
            raise UnknownEntryError(
                f"{quiz_id!r} is a predict-then-run entry, not a quiz: use "
                f"Predict({quiz_id!r}, compute=...)"
            )
        raise UnknownEntryError(self._unknown("quiz", quiz_id, self.quizzes))

    def predict(self, predict_id: str) -> PredictEntry:
        """The predict entry with this id (an error lists close matches when there is none)."""
        if predict_id in self.predictions:
            return self.predictions[predict_id]
        if predict_id in self.quizzes:
            raise UnknownEntryError(
                f"{predict_id!r} is a quiz, not a predict-then-run entry: use Quiz({predict_id!r})"
            )
        raise UnknownEntryError(self._unknown("predict", predict_id, self.predictions))

    def _unknown(self, table: str, wanted: object, known: Mapping[str, object]) -> str:
        where = f" in {self.path}" if self.path else ""
        if not isinstance(wanted, str):
            return f"a {table} id must be a string like {next(iter(known), '01-example')!r}"
        close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.5)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        return f"no {table} entry with id {wanted!r}{where}.{hint} Known ids: {sorted(known)}"


# --------------------------------------------------------------------------- loading


_CACHE: dict[tuple[str, int, int], QuizBank] = {}


def load_bank(path: str | os.PathLike[str] | None = None) -> QuizBank:
    """Load and validate a quiz file.

    Parameters
    ----------
    path : str or path-like, optional
        The TOML file; default :data:`DEFAULT_PATH`, the file shipped with gradkit.

    Returns
    -------
    QuizBank
        Cached until the file changes, so an edited file is read again on the next call.

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    QuizBankError
        When the file is not valid TOML or an entry is malformed; the message names the id
        (or the entry's position) and the field.
    """
    file = Path(DEFAULT_PATH if path is None else path)
    if not file.is_file():
        raise FileNotFoundError(f"quiz file {str(file)!r} not found; pass path= to a quizzes.toml")
    stat = file.stat()
    key = (str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _CACHE:
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise QuizBankError(f"{file} is not valid TOML: {error}") from error
        _CACHE.clear()  # only the latest version of a file is worth keeping
        _CACHE[key] = parse_bank(data, file)
    return _CACHE[key]


def parse_bank(data: Mapping[str, object], path: Path | None = None) -> QuizBank:
    """Validate the parsed TOML of a quiz file (see the module docstring for the format)."""
    where = f"{path}: " if path else ""
    unknown_tables = sorted(set(data) - {"quiz", "predict"})
    if unknown_tables:
        raise QuizBankError(
            f"{where}unknown table(s) {unknown_tables}; a quiz file holds [[quiz]] and "
            "[[predict]] entries only"
        )
    seen: dict[str, str] = {}
    quizzes: dict[str, QuizEntry] = {}
    predictions: dict[str, PredictEntry] = {}
    for position, raw in enumerate(_entries(data, "quiz", where), start=1):
        entry = _parse_quiz(raw, f"{where}[[quiz]] #{position}")
        _claim(seen, entry.id, "quiz", where)
        quizzes[entry.id] = entry
    for position, raw in enumerate(_entries(data, "predict", where), start=1):
        entry = _parse_predict(raw, f"{where}[[predict]] #{position}")
        _claim(seen, entry.id, "predict", where)
        predictions[entry.id] = entry
    return QuizBank(quizzes, predictions, path)


def _entries(data: Mapping[str, object], table: str, where: str) -> list[Mapping[str, object]]:
    raw = data.get(table, [])
    if not isinstance(raw, list) or not all(isinstance(e, Mapping) for e in raw):
        raise QuizBankError(f"{where}{table} must be an array of tables: write [[{table}]]")
    return raw


def _claim(seen: dict[str, str], entry_id: str, table: str, where: str) -> None:
    if entry_id in seen:
        raise QuizBankError(
            f"{where}id {entry_id!r} is used twice (by a {seen[entry_id]} and a {table} entry); "
            "every id must be unique"
        )
    seen[entry_id] = table


def _text(raw: Mapping[str, object], field: str, label: str) -> str:
    if field not in raw:
        raise QuizBankError(f"{label}: field {field!r} is missing")
    value = raw[field]
    if not isinstance(value, str) or not value.strip():
        raise QuizBankError(f"{label}: field {field!r} must be non-empty text, got {value!r}")
    return value.strip()


def _check_fields(raw: Mapping[str, object], allowed: set[str], label: str) -> None:
    extra = sorted(set(raw) - allowed)
    if extra:
        hints = [
            f"{name!r} (did you mean {close[0]!r}?)"
            if (close := difflib.get_close_matches(name, sorted(allowed), n=1))
            else repr(name)
            for name in extra
        ]
        raise QuizBankError(
            f"{label}: unknown field {', '.join(hints)}; allowed fields are {sorted(allowed)}"
        )


def _entry_id(raw: Mapping[str, object], label: str) -> str:
    entry_id = _text(raw, "id", label)
    if any(c.isspace() for c in entry_id):
        raise QuizBankError(f"{label}: id {entry_id!r} must not contain spaces")
    return entry_id


def _parse_quiz(raw: Mapping[str, object], label: str) -> QuizEntry:
    entry_id = _entry_id(raw, label)
    label = f"quiz {entry_id!r}"
    _check_fields(raw, _QUIZ_FIELDS, label)
    question = _text(raw, "question", label)
    answer = _text(raw, "answer", label)
    explanation = _text(raw, "explanation", label)
    wrong_raw = raw.get("wrong")
    if not isinstance(wrong_raw, list) or not wrong_raw:
        raise QuizBankError(
            f"{label}: field 'wrong' needs at least one wrong option: add a [[quiz.wrong]] table "
            "with option = ... and explanation = ..."
        )
    wrong = []
    for k, item in enumerate(wrong_raw, start=1):
        where = f"{label}, wrong option #{k}"
        if not isinstance(item, Mapping):
            raise QuizBankError(f"{where}: must be a table with option and explanation")
        _check_fields(item, _WRONG_FIELDS, where)
        wrong.append(WrongOption(_text(item, "option", where), _text(item, "explanation", where)))
    options = [answer, *(w.option for w in wrong)]
    duplicates = sorted({o for o in options if options.count(o) > 1})
    if duplicates:
        raise QuizBankError(f"{label}: option(s) {duplicates} appear twice; options must differ")
    return QuizEntry(entry_id, question, answer, explanation, tuple(wrong))


def _parse_predict(raw: Mapping[str, object], label: str) -> PredictEntry:
    entry_id = _entry_id(raw, label)
    label = f"predict {entry_id!r}"
    _check_fields(raw, _PREDICT_FIELDS, label)
    prompt = _text(raw, "prompt", label)
    kind = _text(raw, "kind", label)
    if kind not in _KINDS:
        raise QuizBankError(f"{label}: field 'kind' must be one of {list(_KINDS)}, got {kind!r}")
    right, wrong = _text(raw, "right", label), _text(raw, "wrong", label)
    unit = raw.get("unit", "")
    if not isinstance(unit, str):
        raise QuizBankError(f"{label}: field 'unit' must be text, got {unit!r}")
    if kind == "number":
        if "options" in raw:
            raise QuizBankError(f"{label}: field 'options' is only for kind = \"choice\"")
        tolerance = raw.get("tolerance", 0)
        if (
            isinstance(tolerance, bool)
            or not isinstance(tolerance, (int, float))
            or not math.isfinite(tolerance)
            or tolerance < 0
        ):
            raise QuizBankError(
                f"{label}: field 'tolerance' must be a number >= 0 (0 means exact), "
                f"got {tolerance!r}"
            )
        answer = raw.get("answer")
        if answer is not None:
            answer = _number(answer, f"{label}: field 'answer'")
        return PredictEntry(
            entry_id, prompt, kind, float(tolerance), answer, (), right, wrong, unit
        )
    if "tolerance" in raw:
        raise QuizBankError(f"{label}: field 'tolerance' is only for kind = \"number\"")
    options = raw.get("options")
    if (
        not isinstance(options, list)
        or len(options) < 2
        or not all(isinstance(o, str) and o.strip() for o in options)
    ):
        raise QuizBankError(
            f"{label}: field 'options' must list at least two texts for kind = \"choice\", "
            f"got {options!r}"
        )
    options = [o.strip() for o in options]
    if len(set(options)) != len(options):
        raise QuizBankError(f"{label}: field 'options' has repeated entries {options}")
    answer = raw.get("answer")
    if answer is not None and answer not in options:
        raise QuizBankError(f"{label}: field 'answer' {answer!r} is not one of options {options}")
    return PredictEntry(entry_id, prompt, kind, 0.0, answer, tuple(options), right, wrong, unit)


def _number(value: object, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QuizBankError(f"{label} must be a finite number, got {value!r}")
    return float(value)


# --------------------------------------------------------------------------- option order


def learner_name() -> str:
    """Who is learning: ``JUPYTERHUB_USER`` on a hub (where everyone is ``jovyan``), else the
    login name."""
    hub_user = os.environ.get("JUPYTERHUB_USER", "").strip()
    if hub_user:
        return hub_user
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (some containers)
        return "learner"


def option_order() -> str:
    """ "fixed" when ``GRADKIT_QUIZ_ORDER=fixed`` is set, else "shuffled"."""
    value = os.environ.get(ORDER_VARIABLE, "").strip().lower() or "shuffled"
    if value not in _ORDERS:
        raise ValueError(
            f"environment variable {ORDER_VARIABLE}={value!r} is not one of {list(_ORDERS)}; "
            f"unset it or set {ORDER_VARIABLE}=fixed"
        )
    return value


def shuffled_options(
    options: Sequence[str], entry_id: str, user: str | None = None
) -> tuple[str, ...]:
    """The options in this learner's order.

    Parameters
    ----------
    options : sequence of str
        The options in the file's order.
    entry_id : str
        The quiz id; with the user name it picks the order.
    user : str, optional
        Default :func:`learner_name`.

    Returns
    -------
    tuple of str
        A permutation of ``options``: the same for the same user and id on every run, the
        file's order when ``GRADKIT_QUIZ_ORDER=fixed``.
    """
    options = tuple(options)
    if option_order() == "fixed":
        return options
    user = learner_name() if user is None else user
    # the random generator's start value: a hash of (user, id), stable across Python runs
    digest = hashlib.sha256(f"{user}\x00{entry_id}".encode()).digest()
    order = list(options)
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return tuple(order)


# --------------------------------------------------------------------------- grading


def grade_choice(entry: QuizEntry, choice: str) -> Grade:
    """Grade a quiz answer: a right one gets the explanation, a wrong one its own explanation."""
    if not isinstance(choice, str):
        raise TypeError(f"choice must be an option's text, got {choice!r}")
    explanation = entry.explanation_for(choice)  # raises for an unknown option
    return Grade(choice == entry.answer, choice, entry.answer, explanation)


def parse_guess(entry: PredictEntry, guess: object) -> float | str:
    """A learner's guess as the entry's kind wants it: a finite number or one of the options.

    Text such as ``"22"``, ``"1e-3"`` or ``" 4.0 "`` is accepted for numbers.
    """
    if entry.kind == "number":
        value = guess
        if isinstance(guess, str):
            try:
                value = float(guess.strip().replace("−", "-").replace("_", ""))
            except ValueError:
                raise ValueError(
                    f"guess {guess!r} is not a number; type digits such as 22 or 1e-3"
                ) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"guess must be a number for {entry.id!r}, got {guess!r}")
        if not math.isfinite(value):
            raise ValueError(f"guess must be a finite number, got {guess!r}")
        return float(value)
    text = guess.strip() if isinstance(guess, str) else guess
    if text not in entry.options:
        raise ValueError(f"guess {guess!r} is not one of the options {list(entry.options)}")
    return text


def as_actual(entry: PredictEntry, actual: object) -> float | str:
    """The true value as the entry's kind wants it (a ``compute`` result or the file's answer)."""
    if entry.kind == "number":
        if hasattr(actual, "item") and callable(actual.item):  # a one-entry tensor or array
            actual = actual.item()
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            raise TypeError(
                f"compute() must return a number for {entry.id!r}, got {type(actual).__name__}"
            )
        if not math.isfinite(actual):
            raise ValueError(f"compute() returned {actual!r} for {entry.id!r}, not a finite number")
        return float(actual)
    if isinstance(actual, bool):  # True/False against options such as "yes"/"no"
        words = {True: ("true", "yes", "passes", "pass"), False: ("false", "no", "fails", "fail")}
        matches = [o for o in entry.options if o.strip().lower() in words[actual]]
        if len(matches) == 1:
            return matches[0]
    if actual not in entry.options:
        raise ValueError(
            f"compute() returned {actual!r} for {entry.id!r}; it must return one of the "
            f"options {list(entry.options)}"
        )
    return actual


def grade_prediction(entry: PredictEntry, guess: object, actual: object) -> Grade:
    """Grade a prediction against the true value.

    A number is right when ``|guess - actual| <= tolerance * |actual|`` (relative tolerance;
    0 means exact); a choice is right when it is the actual option.
    """
    given = parse_guess(entry, guess)
    actual = as_actual(entry, actual)
    if entry.kind == "number":
        correct = abs(given - actual) <= entry.tolerance * abs(actual)  # relative tolerance
    else:
        correct = given == actual
    return Grade(correct, given, actual, entry.right if correct else entry.wrong)
