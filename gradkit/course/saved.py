"""The first guesses as the submitted notebook carries them: the recording cell's saved output.

The learner's kernel shows its record in the read-only recording cell (``grade_id``
``gradkit-record``) as one output with the mimetype :data:`RECORD_MIME`, and refreshes it with
each first guess kept. The page keeps that output in the notebook like any other, so the
learner's own save writes it into the ``.ipynb``, with no setting and no extension, and
nbgrader's submit carries it. The record is plain JSON in that output::

    {"notebook": "01_nudging",
     "predict": {"01-forward-slope": {"guess": "4", "right": false}},
     "quiz": {...}, "zoo": {"WrongSquareFn": {"guess": "pass", "right": false, "cause": "bug"}}}

Before nbgrader's autograde clears the outputs (its ``ClearOutput`` step), gradkit's
:class:`gradkit.course.release.KeepFirstGuesses` copies the record into the notebook's metadata
(``metadata.gradkit.first_guesses``), where the autograder's test cells read it; the
summary reads the submitted notebooks themselves.

Everything read here is the learner's file, so it is checked entry by entry: an entry that is not
a first guess is left out with a note naming it (:attr:`SavedGuesses.problems`), never an error
and never another learner's business. A notebook with no record has no first guesses: each
reads as "no guess", never as a wrong one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "KIND_NAMES",
    "RECORD_CELL",
    "RECORD_MIME",
    "SavedGuesses",
    "check_record",
    "guesses_in_notebook",
    "guesses_kept_for_autograde",
    "read_saved_guesses",
    "record_outputs",
]

#: The mimetype of the recording cell's output that holds the record.
RECORD_MIME = "application/vnd.gradkit.first-guesses+json"

#: The recording cell's nbgrader ``grade_id``.
RECORD_CELL = "gradkit-record"

#: The kinds of first guess, and what the learner calls each.
KIND_NAMES = {"predict": "Predict", "quiz": "Quiz", "zoo": "Zoo specimen"}

_LONGEST = 200  # characters in an id, a guess or a cause: longer is no answer a widget gives


@dataclass
class SavedGuesses:
    """The first guesses a notebook carries, and what could not be read (empty when all is well)."""

    guesses: dict[str, dict[str, dict]] = field(
        default_factory=lambda: {kind: {} for kind in KIND_NAMES}
    )
    problems: list[str] = field(default_factory=list)


def _text(value: object) -> str | None:
    """A guess, id or cause as text, or None when it is none of those."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value)
    return text if 0 < len(text) <= _LONGEST else None


def _entry(kind: str, first: object) -> dict | None:
    """One first guess, checked: ``guess`` a short text or number, ``right`` a bool."""
    if not isinstance(first, dict) or not isinstance(first.get("right"), bool):
        return None
    guess = _text(first.get("guess"))
    if guess is None:
        return None
    entry: dict[str, Any] = {"guess": guess, "right": first["right"]}
    if kind == "zoo":
        cause = _text(first.get("cause"))
        if cause is None:
            return None
        entry["cause"] = cause
    return entry


def check_record(record: object, notebook: str) -> SavedGuesses:
    """The first guesses in a record (see the module), each entry checked."""
    saved = SavedGuesses()
    if not isinstance(record, dict):
        saved.problems.append(f"the record is a {type(record).__name__}, not a JSON object")
        return saved
    if record.get("notebook", notebook) != notebook:
        saved.problems.append(
            f"the record is {record.get('notebook')!r}'s, not {notebook!r}'s (copied from "
            "another notebook?)"
        )
        return saved
    for kind, kept in record.items():
        if kind == "notebook":
            continue
        if kind not in KIND_NAMES:
            saved.problems.append(f"{str(kind)[:40]!r} is no kind of first guess")
            continue
        if not isinstance(kept, dict):
            saved.problems.append(f"the {kind} entries are not a JSON object")
            continue
        for key, first in kept.items():
            entry = _entry(kind, first) if _text(key) is not None else None
            if entry is None:
                saved.problems.append(f"{KIND_NAMES[kind]} {str(key)[:40]!r}: not a first guess")
            else:
                saved.guesses[kind][str(key)] = entry
    return saved


def record_outputs(nb: dict) -> list[object]:
    """The records in the recording cell's outputs, in order."""
    found = []
    for cell in nb.get("cells") or []:
        meta = cell.get("metadata") if isinstance(cell, dict) else None
        nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
        if not isinstance(nbgrader, dict) or nbgrader.get("grade_id") != RECORD_CELL:
            continue
        for output in cell.get("outputs") or []:
            data = output.get("data") if isinstance(output, dict) else None
            if isinstance(data, dict) and RECORD_MIME in data:
                found.append(data[RECORD_MIME])
    return found


def guesses_in_notebook(nb: object, notebook: str) -> SavedGuesses:
    """The first guesses a submitted notebook (as JSON, or an ``nbformat`` node) carries in its
    recording cell's output. No record: no first guesses."""
    if not isinstance(nb, dict):
        return SavedGuesses(problems=["the notebook is not a JSON object"])
    records = record_outputs(nb)
    if not records:
        return SavedGuesses()
    saved = check_record(records[-1], notebook)  # the page updates one output in place
    if len(records) > 1:
        saved.problems.append(f"the recording cell holds {len(records)} records; the last counts")
    return saved


def guesses_kept_for_autograde(nb: object, notebook: str) -> SavedGuesses:
    """The first guesses in ``metadata.gradkit.first_guesses``, where
    :class:`~gradkit.course.release.KeepFirstGuesses` put them before autograde cleared the
    outputs (the notebook autograde runs)."""
    meta = nb.get("metadata") if isinstance(nb, dict) else None
    kept = meta.get("gradkit") if isinstance(meta, dict) else None
    if not isinstance(kept, dict) or "first_guesses" not in kept:
        return SavedGuesses(
            problems=[
                "autograde ran without gradkit's KeepFirstGuesses step: add the lines `gradkit "
                "course nbgrader` prints to the course's nbgrader_config.py"
            ]
        )
    record = kept["first_guesses"]
    return SavedGuesses() if record is None else check_record(record, notebook)


def read_saved_guesses(
    folder: str | Path, notebook: str, *, autograding: bool = False
) -> SavedGuesses:
    """The first guesses ``folder/NOTEBOOK.ipynb`` carries (none when there is no such file):
    from the recording cell's output, or (``autograding``) from what autograde's first step kept.
    """
    path = Path(folder) / f"{notebook}.ipynb"
    if not path.is_file():
        return SavedGuesses()
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return SavedGuesses(problems=[f"{path.name} could not be read as a notebook: {error}"])
    if autograding:
        return guesses_kept_for_autograde(nb, notebook)
    return guesses_in_notebook(nb, notebook)
