"""The ``gradkit`` command: copy the lessons out, check a Function, open the lessons.

- ``gradkit lessons DIR [--force]``: copy the lesson notebooks shipped with gradkit to DIR. A
  file that exists is never overwritten, unless ``--force``, which first saves it as ``.bak``.
  Nothing is written outside DIR: a symbolic link in DIR is never followed (it is refused, or
  with ``--force`` the link itself is renamed to ``.bak``), and each lesson is written to a
  temporary file in DIR and renamed into place, so a failure never leaves half a lesson.
- ``gradkit check MODULE:ATTR [--shape 3,4] [--dtype float32] [--eps 1e-6] [--atol 1e-5]
  [--rtol 1e-3] [--fast] [--engine {torch,batched}] [--arg NAME=VALUE] [--traceback]``: run
  :func:`gradkit.check` on a Function (its ``apply``) or a plain callable with random inputs
  (``--arg`` gives a parameter that is no tensor, as a Python literal), in a child process.
  Exit status 0 pass, 1 fail (or a target that ends the process: ``sys.exit``, ``os._exit``, a
  signal, a crash; one line says which), 2 usage error, 130 Ctrl-C.
- ``gradkit notebook [DIR] [--port 8888] [-- JUPYTER_OPTIONS]``: Jupyter Notebook 7 on DIR, bound to
  127.0.0.1 with a random token (never an empty one); after ``--`` only the options of an
  allow-list reach Jupyter (:data:`~gradkit.cli.server.PASSED`: log level, rate limits, culling),
  anything else is refused (exit 2). Only ``notebook`` takes ``--``.
- ``gradkit export [PATH ...] --out SITE [--force] [--timeout 120]``: the lessons as a static
  site whose widgets still move (:mod:`~gradkit.cli.export`, :mod:`~gradkit.cli.site`); exit 2
  for a bad input or a cell that runs past ``--timeout`` seconds (nothing written).
- ``gradkit warm [LESSONS...] [--cache DIR]``: fill the scene cache with the lessons' scenes
  (:mod:`~gradkit.cli.warm`; a hub image runs it once at build time).

One module per subcommand: :mod:`~gradkit.cli.lesson_copy`, :mod:`~gradkit.cli.check_run`,
:mod:`~gradkit.cli.server` (:mod:`~gradkit.cli.check_target` is the check's child process);
:mod:`~gradkit.cli.errors` holds the exit statuses.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .check_run import MAX_INPUT_ENTRIES, run_check
from .check_run import add_parser as add_check_parser
from .course import add_parser as add_course_parser
from .course import run_course
from .errors import EXIT_FAIL, EXIT_INTERRUPTED, EXIT_PASS, EXIT_USAGE, UsageError
from .export import add_export_parser, run_export
from .lesson_copy import copy_lessons, lesson_files, lessons_dir, write_atomically
from .server import notebook_command, run_notebook
from .warm import add_parser as add_warm_parser
from .warm import run_warm

__all__ = [
    "EXIT_FAIL",
    "EXIT_INTERRUPTED",
    "EXIT_PASS",
    "EXIT_USAGE",
    "MAX_INPUT_ENTRIES",
    "UsageError",
    "lesson_files",
    "lessons_dir",
    "main",
    "notebook_command",
    "write_atomically",
]


class _OneLineParser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line (``gradkit check: error: ...``), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {' '.join(message.split())}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="gradkit", description="Learn how torch.autograd.gradcheck works, and why it fails."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    lessons = sub.add_parser("lessons", help="copy the lesson notebooks to DIR")
    lessons.add_argument("dir", metavar="DIR", help="folder to copy the lessons into")
    lessons.add_argument(
        "--force", action="store_true", help="overwrite existing files, saving each as .bak first"
    )

    add_check_parser(sub)

    nb = sub.add_parser("notebook", help="open the lessons in Jupyter Notebook 7 (127.0.0.1)")
    nb.add_argument("dir", metavar="DIR", nargs="?", default=".", help="folder to serve")
    nb.add_argument("--port", type=int, default=8888)
    nb.add_argument("--token", default=None, help="access token (default: a random one)")
    add_export_parser(sub)
    add_warm_parser(sub)
    add_course_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gradkit`` command; returns the exit status.

    0 pass, 1 fail (a check that fails, a target that stops the process, a lesson that raised),
    2 usage (one line naming the argument), 130 interrupted (Ctrl-C): never a traceback.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] | None = None
    if "--" in argv:  # everything after -- goes to Jupyter (checked: server.check_jupyter_options)
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    args = _parser().parse_args(argv)
    args.extra = extra or []
    if extra is not None and args.command != "notebook":
        print(
            f"gradkit {args.command}: error: -- (and options after it) are only for "
            "'gradkit notebook'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        if args.command == "lessons":
            return copy_lessons(Path(args.dir), args.force)
        if args.command == "check":
            return run_check(args)
        if args.command == "export":
            return run_export(args)
        if args.command == "warm":
            return run_warm(args)
        if args.command == "course":
            return run_course(args)
        return run_notebook(args)
    except UsageError as error:
        print(f"gradkit {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"gradkit {args.command}: interrupted (Ctrl-C); stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
