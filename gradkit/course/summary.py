"""Where the class is stuck: per lesson, from nbgrader's gradebook and the submissions.

:func:`read_course` gathers, for one assignment, each learner's exercise scores (the gradebook),
the failing cause of each exercise check (the autograded notebooks' check records) and the first
guesses (the record each submitted notebook carries, :mod:`gradkit.course.saved`).
:func:`summarize` turns that into shares and counts, naming no learner unless asked
(``names=True``); :func:`summary_text` prints it, with a note for each record that could not be
read whole (counted as no guess, never as a wrong one).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .checks import CHECK_MIME
from .saved import read_saved_guesses

__all__ = [
    "HEADS",
    "LearnerRecord",
    "Stuck",
    "lesson_sections",
    "read_course",
    "record_notes",
    "summarize",
    "summary_text",
]


@dataclass
class LearnerRecord:
    """One learner's submission of one notebook."""

    learner: str
    notebook: str
    exercises: dict[str, tuple[bool, str]] = field(default_factory=dict)  # key -> (passed, cause)
    guesses: dict[str, dict[str, dict]] = field(default_factory=dict)  # kind -> id -> first
    problems: list[str] = field(default_factory=list)  # what of the record could not be read


@dataclass
class Stuck:
    """One item of a lesson (an exercise, a Predict, a quiz, a zoo specimen), over the class."""

    kind: str
    key: str
    right: int
    total: int
    wrong: list[tuple[str, int]]  # the most common failing causes or wrong first guesses
    learners: list[str] = field(default_factory=list)  # who is stuck: only with names=True

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 0.0


def _check_records(notebook: Path) -> dict[str, tuple[bool, str]]:
    """The exercise check records in an autograded notebook."""
    found: dict[str, tuple[bool, str]] = {}
    if not notebook.is_file():
        return found
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            record = output.get("data", {}).get(CHECK_MIME)
            if record:
                found[record["exercise"]] = (bool(record["passed"]), str(record["cause"]))
    return found


def read_course(course: str | Path, assignment: str) -> list[LearnerRecord]:
    """Every learner's record of ``assignment`` in the nbgrader course directory ``course``.

    The gradebook (``gradebook.db`` there, nbgrader's SQLite default) says who submitted which
    notebooks and each exercise check's score; the autograded notebooks add the failing cause;
    the submitted notebooks' records the first guesses.
    """
    from nbgrader.api import Gradebook, MissingEntry

    course = Path(course)
    db = course / "gradebook.db"
    if not db.is_file():
        raise FileNotFoundError(f"no gradebook at {db}: run nbgrader autograde in {course} first")
    records: list[LearnerRecord] = []
    with Gradebook(f"sqlite:///{db}") as gb:
        try:
            submissions = gb.assignment_submissions(assignment)
        except MissingEntry:
            raise KeyError(f"the gradebook has no assignment {assignment!r}") from None
        for sub in sorted(submissions, key=lambda s: s.student.id):
            learner = sub.student.id
            for nb in sub.notebooks:
                record = LearnerRecord(learner, nb.name)
                causes = _check_records(
                    course / "autograded" / learner / assignment / f"{nb.name}.ipynb"
                )
                for grade in nb.grades:
                    if grade.name.startswith("check-"):
                        key = grade.name[len("check-") :]
                        passed = grade.max_score > 0 and grade.score >= grade.max_score
                        cause = "pass" if passed else causes.get(key, (False, "unknown"))[1]
                        record.exercises[key] = (passed, cause)
                folder = course / "submitted" / learner / assignment
                saved = read_saved_guesses(folder, nb.name)
                record.guesses, record.problems = saved.guesses, saved.problems
                records.append(record)
    return records


def _stuck(kind: str, key: str, results: list[tuple[str, bool, str]], names: bool) -> Stuck:
    right = sum(ok for _l, ok, _w in results)
    wrong = Counter(w for _l, ok, w in results if not ok).most_common(3)
    who = sorted(learner for learner, ok, _w in results if not ok) if names else []
    return Stuck(kind, key, right, len(results), wrong, who)


def summarize(records: list[LearnerRecord], names: bool = False) -> dict[str, list[Stuck]]:
    """Per notebook (lesson), its items over the class, stuck-most first within each kind.

    Exercises: passes and the most common failing causes; Predicts and quizzes: right at the
    first try and the most common wrong first guesses; zoo specimens: judged right at the first
    try and the most common wrong causes predicted. Learners are named only with ``names``.
    """
    by_item: dict[str, dict[tuple[str, str], list]] = {}
    for r in records:
        items = by_item.setdefault(r.notebook, {})
        for key, (passed, cause) in r.exercises.items():
            items.setdefault(("exercise", key), []).append((r.learner, passed, cause))
        for kind, kept in r.guesses.items():
            for key, first in kept.items():
                items.setdefault((kind, key), []).append(
                    (r.learner, bool(first.get("right")), str(first.get("guess")))
                )
    order = {"exercise": 0, "predict": 1, "quiz": 2, "zoo": 3}
    return {
        notebook: sorted(
            (_stuck(kind, key, results, names) for (kind, key), results in items.items()),
            key=lambda s: (order[s.kind], s.share, s.key),
        )
        for notebook, items in sorted(by_item.items())
    }


#: Each kind of item's heading, in the order a lesson's summary shows them.
HEADS = {
    "exercise": "Exercises (autograded): pass rate, most common failing cause",
    "predict": "Predicts: right at the first try, most common wrong first guesses",
    "quiz": "Quizzes: right at the first try, most common wrong first picks",
    "zoo": "Zoo specimens, most often misjudged first: judged right at the first try",
}


def lesson_sections(items: list[Stuck]) -> list[tuple[str, list[Stuck]]]:
    """One lesson's items as (heading, items) per kind that has any, in :data:`HEADS`' order:
    what the printed summary and the page both show."""
    sections = [(head, [s for s in items if s.kind == kind]) for kind, head in HEADS.items()]
    return [(head, chosen) for head, chosen in sections if chosen]


def record_notes(records: list[LearnerRecord], names: bool = False) -> list[str]:
    """One line per submitted notebook whose first-guess record could not be read whole: what
    was left out (counted as no guess), whose only with ``names``."""
    notes = []
    for r in records:
        if r.problems:
            who = f"{r.learner}, " if names else ""
            notes.append(f"{who}{r.notebook}: {'; '.join(r.problems)}")
    return notes


def summary_text(
    summary: dict[str, list[Stuck]], assignment: str, notes: list[str] | None = None
) -> str:
    """The summary as the command prints it, with ``notes`` (:func:`record_notes`) at the end."""
    lines = [f"Where the class is stuck: assignment {assignment}"]
    if not summary:
        lines.append("  (no submissions in the gradebook yet)")
    for notebook, items in summary.items():
        lines.append(f"\nLesson {notebook}")
        for head, chosen in lesson_sections(items):
            lines.append(f"  {head}")
            for s in chosen:
                wrong = ", ".join(f"{w} ×{n}" for w, n in s.wrong) or "none"
                line = f"    {s.key}: {s.right} of {s.total} ({s.share:.0%}); wrong: {wrong}"
                if s.learners:
                    line += f"; stuck: {', '.join(s.learners)}"
                lines.append(line)
    if notes:
        lines.append(
            f"\n{len(notes)} first-guess record(s) not read whole; what was left out counts as "
            "no guess, never as a wrong one:"
        )
        lines += [f"  {note}" for note in notes]
    return "\n".join(lines)
