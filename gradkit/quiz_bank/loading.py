"""Loading and validating a quiz file: every malformed entry is refused with its id and field.

Part of :mod:`gradkit.quiz_bank` (the file format is described there).
"""

from __future__ import annotations

import difflib
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from .entries import PredictEntry, QuizBank, QuizBankError, QuizEntry, WrongOption

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

__all__ = ["DEFAULT_PATH", "TRANSFERS", "as_bank", "load_bank", "parse_bank"]

#: The quiz file shipped with gradkit (its content belongs to the lessons).
DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "quizzes.toml"
_QUIZ_FIELDS = {"id", "question", "answer", "explanation", "wrong", "transfer"}
#: What a transfer question carries the lesson's idea to: ``transfer = "dtype"``, etc.
TRANSFERS = ("function", "dtype", "shape")
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
    "unit_one",
}
_KINDS = ("number", "choice")

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


def as_bank(bank: str | os.PathLike[str] | QuizBank | None = None) -> QuizBank:
    """``bank`` itself when it is a :class:`QuizBank`, else :func:`load_bank` of that path."""
    return bank if isinstance(bank, QuizBank) else load_bank(bank)


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


#: The words the page puts before every feedback (feedback.js VERDICT): a feedback text that
#: starts with one reads twice ("✔ Right. Right: ...").
_VERDICT_WORDS = ("right", "not quite", "wrong", "correct", "try another")


def _feedback(raw: Mapping[str, object], field: str, label: str) -> str:
    """A feedback text: non-empty, and not starting with a word the page's verdict already says."""
    text = _text(raw, field, label)
    first = text.lower().lstrip("✔✘ ")
    said = next(
        (w for w in _VERDICT_WORDS if first.startswith(w) and not first[len(w) :][:1].isalpha()),
        None,
    )
    if said is not None:
        raise QuizBankError(
            f"{label}: field {field!r} starts with {text[: len(said)]!r}, which the page already "
            "says before it (✔ Right. / ✘ Not quite.); start with the reason instead"
        )
    return text


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


def _id_and_label(
    raw: Mapping[str, object], position: str, table: str, allowed: set[str]
) -> tuple[str, str]:
    """An entry's id and the label its errors start with, once its fields are checked."""
    entry_id = _entry_id(raw, position)
    label = f"{table} {entry_id!r}"
    _check_fields(raw, allowed, label)
    return entry_id, label


def _parse_quiz(raw: Mapping[str, object], label: str) -> QuizEntry:
    entry_id, label = _id_and_label(raw, label, "quiz", _QUIZ_FIELDS)
    question = _text(raw, "question", label)
    answer = _text(raw, "answer", label)
    explanation = _feedback(raw, "explanation", label)
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
        wrong.append(
            WrongOption(_text(item, "option", where), _feedback(item, "explanation", where))
        )
    options = [answer, *(w.option for w in wrong)]
    duplicates = sorted({o for o in options if options.count(o) > 1})
    if duplicates:
        raise QuizBankError(f"{label}: option(s) {duplicates} appear twice; options must differ")
    transfer = raw.get("transfer", "")
    if transfer not in ("", *TRANSFERS):
        raise QuizBankError(
            f"{label}: field 'transfer' must be one of {list(TRANSFERS)} (what the question "
            f"carries the lesson's idea to), got {transfer!r}"
        )
    return QuizEntry(entry_id, question, answer, explanation, tuple(wrong), transfer)


def _parse_predict(raw: Mapping[str, object], label: str) -> PredictEntry:
    entry_id, label = _id_and_label(raw, label, "predict", _PREDICT_FIELDS)
    prompt = _text(raw, "prompt", label)
    kind = _text(raw, "kind", label)
    if kind not in _KINDS:
        raise QuizBankError(f"{label}: field 'kind' must be one of {list(_KINDS)}, got {kind!r}")
    right, wrong = _feedback(raw, "right", label), _feedback(raw, "wrong", label)
    unit, unit_one = raw.get("unit", ""), raw.get("unit_one", "")
    for name, word in (("unit", unit), ("unit_one", unit_one)):
        if not isinstance(word, str):
            raise QuizBankError(f"{label}: field {name!r} must be text, got {word!r}")
    if unit_one and not unit:
        raise QuizBankError(f"{label}: field 'unit_one' needs a 'unit' (the word after 2 or more)")
    if kind == "number":
        tolerance, answer, options = *_number_fields(raw, label), ()
    else:
        tolerance, (answer, options) = 0.0, _choice_fields(raw, label)
    fields = (entry_id, prompt, kind, tolerance, answer, options, right, wrong, unit, unit_one)
    return PredictEntry(*fields)


def _number_fields(raw: Mapping[str, object], label: str) -> tuple[float, float | None]:
    """The tolerance and the optional answer of a kind = "number" entry."""
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
            f"{label}: field 'tolerance' must be a number >= 0 (0 means exact), got {tolerance!r}"
        )
    answer = raw.get("answer")
    if answer is not None:
        answer = _number(answer, f"{label}: field 'answer'")
    return float(tolerance), answer


def _choice_fields(raw: Mapping[str, object], label: str) -> tuple[str | None, tuple[str, ...]]:
    """The optional answer and the options of a kind = "choice" entry."""
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
    return answer, tuple(options)


def _number(value: object, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QuizBankError(f"{label} must be a finite number, got {value!r}")
    return float(value)
