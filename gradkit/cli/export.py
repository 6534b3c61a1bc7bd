"""``gradkit export [PATH ...] --out SITE [--force] [--timeout SECONDS]``: the lessons as a site.

Each PATH is a lesson notebook or a folder of them (default: the lessons shipped with gradkit;
from the repository, ``gradkit export notebooks --out site``). The work is
:func:`gradkit.cli.site.export_site`; this module is the subcommand's arguments and messages.
Exit status 0, or 2 with one line naming the file and the fix, and nothing written: a PATH or
``--out`` that cannot be used, a broken notebook, two notebooks whose pages would be one file,
a notebook name too long for ``--out``'s file system, a site its disk has no room for, a bad
``--timeout``, or a cell that runs longer than ``--timeout`` (default 120 s). A warning line
(``warning  ...``) says what the teacher can act on: an image left out or linked to, a cell's
output cut, a widget shown as a note because its code is not this gradkit's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .errors import EXIT_PASS, UsageError
from .site.export import TIMEOUT

__all__ = ["add_export_parser", "run_export"]


def add_export_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``gradkit export`` on the command's subparsers."""
    export = sub.add_parser(
        "export",
        help="write the lessons as a static site (works from file://, no server, no network)",
    )
    export.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        type=Path,
        help="lesson notebooks or folders of them (default: the lessons shipped with gradkit)",
    )
    export.add_argument(
        "--out", metavar="SITE", type=Path, required=True, help="the folder to write (new or empty)"
    )
    export.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that is not empty (only the site's own files are replaced)",
    )
    export.add_argument(
        "--timeout",
        metavar="SECONDS",
        default=str(TIMEOUT),
        help=f"seconds one cell may run (default {TIMEOUT}); a cell that runs longer stops the "
        "export: exit status 2, nothing written",
    )


def _timeout(text: str) -> int:
    """``--timeout``'s value: a whole number of seconds, 1 or more (UsageError otherwise)."""
    try:
        seconds = int(text.strip())
    except ValueError:
        seconds = 0
    if seconds < 1:
        raise UsageError(
            f"--timeout {text!r} is not a whole number of seconds, 1 or more; e.g. --timeout "
            f"{TIMEOUT} (the default)"
        )
    return seconds


def run_export(args: argparse.Namespace) -> int:
    """Run ``gradkit export``; returns the exit status (UsageError for bad input)."""
    from .site import ExportError, export_site

    timeout = _timeout(args.timeout)
    try:
        summary = export_site(args.paths, args.out, args.force, log=print, timeout=timeout)
    except ExportError as error:
        raise UsageError(str(error)) from None
    mib = summary.size / 2**20
    notes = (
        f"; {len(summary.notes)} shown as a note (need a running notebook)" if summary.notes else ""
    )
    print(
        f"wrote {len(summary.pages)} lesson page(s) and index.html to {summary.site} "
        f"({mib:.1f} MiB, {summary.seconds:.0f} s); {summary.live} live widget(s){notes}"
    )
    print(f"open {(summary.site / 'index.html').resolve().as_uri()} or publish the folder as it is")
    return EXIT_PASS
