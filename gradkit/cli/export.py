"""``gradkit export [PATH ...] --out SITE [--force]``: the lessons as a static site.

Each PATH is a lesson notebook or a folder of them (default: the lessons shipped with gradkit;
from the repository, ``gradkit export notebooks --out site``). The work is
:func:`gradkit.cli.site.export_site`; this module is the subcommand's arguments and messages.
Exit status 0, or 2 for a PATH or ``--out`` that cannot be used (nothing written).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .errors import EXIT_PASS, UsageError

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


def run_export(args: argparse.Namespace) -> int:
    """Run ``gradkit export``; returns the exit status (UsageError for bad input)."""
    from .site import ExportError, export_site

    try:
        summary = export_site(args.paths, args.out, args.force, log=print)
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
