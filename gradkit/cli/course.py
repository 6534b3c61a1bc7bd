"""``gradkit course``: the lessons as an nbgrader course, and where the class is stuck.

- ``gradkit course nbgrader DIR [LESSON ...]`` writes nbgrader's ``source/`` in the course
  directory DIR (one assignment per lesson, or all chosen lessons in one with ``--assignment``)
  and the course's ``nbgrader_config.py``; nothing outside DIR, never over a teacher's file.
- ``gradkit course summary DIR ASSIGNMENT`` prints where the class is stuck, from the gradebook
  and the submissions; ``--out FOLDER`` also writes it as a page; ``--names`` names learners.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from .errors import EXIT_PASS, UsageError
from .lesson_copy import lesson_files, write_atomically

__all__ = ["add_parser", "run_course"]

#: gradkit's steps in nbgrader's pipelines, for a teacher's own nbgrader_config.py.
_STEPS = (
    (
        "release_preprocessors",
        "the lessons' starter code in the release (not nbgrader's stub)",
        "from gradkit.course.release import release_preprocessors\n"
        "  c.GenerateAssignment.preprocessors = release_preprocessors()",
    ),
    (
        "autograde_preprocessors",
        "the learners' first guesses kept for the autograder",
        "from gradkit.course.release import autograde_preprocessors\n"
        "  c.Autograde.sanitize_preprocessors = autograde_preprocessors()",
    ),
)

#: The summary page's file name in the teacher's folder.
PAGE = "stuck-{assignment}.html"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``gradkit course`` on the ``gradkit`` command's subparsers."""
    course = sub.add_parser(
        "course", help="the lessons as an nbgrader course; where the class is stuck"
    )
    kinds = course.add_subparsers(dest="course_command", required=True)
    gen = kinds.add_parser("nbgrader", help="write nbgrader's source/ from the lessons into DIR")
    gen.add_argument("dir", metavar="DIR", help="the nbgrader course directory")
    gen.add_argument("lessons", metavar="LESSON", nargs="*", help="e.g. 01 08 (default: all)")
    gen.add_argument("--assignment", help="put the chosen lessons in one assignment of this name")
    gen.add_argument(
        "--course-id", default="gradkit", help="nbgrader's course id (default gradkit)"
    )
    gen.add_argument("--exchange", help="nbgrader's exchange folder (default nbgrader's own)")
    gen.add_argument(
        "--predicts",
        choices=("ungraded", "graded"),
        default="ungraded",
        help="first guesses only recorded (default), or also graded by test cells",
    )
    gen.add_argument("--points", type=float, default=2, help="points per exercise (default 2)")
    gen.add_argument("--guess-points", type=float, default=1, help="points per graded guess")
    summ = kinds.add_parser("summary", help="where the class is stuck, from the gradebook")
    summ.add_argument("dir", metavar="DIR", help="the nbgrader course directory")
    summ.add_argument("assignment", metavar="ASSIGNMENT")
    summ.add_argument("--out", metavar="FOLDER", help="also write the summary as a page there")
    summ.add_argument("--names", action="store_true", help="name the learners who are stuck")


def _chosen(names: list[str]) -> list[Path]:
    shipped = lesson_files()
    if not names:
        return shipped
    chosen: list[Path] = []
    for name in names:
        found = [p for p in shipped if p.stem.startswith(name) or p.name == name]
        if not found:
            known = ", ".join(p.stem for p in shipped)
            raise UsageError(f"no lesson named {name!r}; choose from {known}")
        chosen.extend(p for p in found if p not in chosen)
    return chosen


def _notebooks(args: argparse.Namespace, course: Path) -> tuple[list[tuple[Path, bytes]], list]:
    """Each chosen lesson's source notebook: where it goes and its bytes; what it holds."""
    import nbformat

    from ..course.assignment import assignment_notebook

    plan: list[tuple[Path, bytes]] = []
    made = []
    for path in _chosen(list(args.lessons)):
        lesson = nbformat.read(path, as_version=4)
        try:
            nb, made_one = assignment_notebook(
                lesson,
                path.stem,
                points_exercise=args.points,
                points_guess=args.guess_points,
                predicts=args.predicts,
            )
        except ValueError as error:
            raise UsageError(str(error)) from None
        folder = args.assignment or path.stem
        plan.append((course / "source" / folder / path.name, nbformat.writes(nb).encode()))
        made.append((folder, made_one))
    return plan, made


def write_source(args: argparse.Namespace, out: TextIO) -> int:
    """``gradkit course nbgrader``: every file checked first, then written inside DIR."""
    from ..course.assignment import course_config

    course = Path(args.dir).expanduser().resolve()
    if course.exists() and not course.is_dir():
        raise UsageError(f"DIR {course} is a file; name a folder for the course")
    plan, made = _notebooks(args, course)
    try:
        config = course_config(args.course_id, args.exchange)
    except ValueError as error:
        raise UsageError(str(error)) from None
    config_path = course / "nbgrader_config.py"
    existing = [dest for dest, _data in plan if dest.exists()]
    if existing:
        raise UsageError(
            f"{existing[0]} exists; gradkit never writes over a teacher's file: move it away (or "
            "choose another --assignment name), then run this again. Nothing was written."
        )
    if not config_path.exists():
        plan.append((config_path, config.encode()))
    else:
        mine = config_path.read_text(encoding="utf-8")
        missing = [step for step in _STEPS if step[0] not in mine]
        if missing:
            print(
                f"note: {config_path} is yours and is left as it is; add to it:\n"
                + "\n".join(f"  # {why}\n  {line}" for _name, why, line in missing),
                file=out,
            )
    for dest, data in plan:
        dest.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(dest, data)
    for folder, a in made:
        print(
            f"source/{folder}/{a.notebook}.ipynb: {len(a.exercises)} exercise(s) "
            f"{', '.join(a.exercises) or '-'}; {len(a.predicts)} Predict(s), {len(a.quizzes)} "
            f"quiz(zes){' and a zoo hunt' if a.hunts else ''} recorded ({args.predicts}); "
            f"{a.points:g} points",
            file=out,
        )
    for folder in dict.fromkeys(folder for folder, _a in made):
        print(f"next, in {course}: nbgrader generate_assignment {folder}", file=out)
    return EXIT_PASS


def print_summary(args: argparse.Namespace, out: TextIO) -> int:
    """``gradkit course summary``: printed, and as a page in ``--out`` (never over a file)."""
    from ..course.picture import summary_html
    from ..course.summary import read_course, record_notes, summarize, summary_text

    page = None
    if args.out:
        page = Path(args.out).expanduser().resolve() / PAGE.format(assignment=args.assignment)
        if page.exists():
            raise UsageError(
                f"{page} exists; gradkit never writes over it: move it or name another --out"
            )
    try:
        records = read_course(Path(args.dir).expanduser(), args.assignment)
    except ModuleNotFoundError as error:
        raise UsageError(
            f"the summary reads nbgrader's gradebook, and {error.name} is not installed: "
            "pip install 'gradkit[class]'"
        ) from None
    except (FileNotFoundError, KeyError) as error:
        raise UsageError(str(error).strip("'\"")) from None
    summary = summarize(records, names=args.names)
    notes = record_notes(records, names=args.names)
    print(summary_text(summary, args.assignment, notes), file=out)
    if page is not None:
        page.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(page, summary_html(summary, args.assignment).encode())
        print(f"\nthe picture: {page}", file=out)
    return EXIT_PASS


def run_course(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``gradkit course ...``; the exit status."""
    out = out or sys.stdout
    if args.course_command == "nbgrader":
        return write_source(args, out)
    return print_summary(args, out)
