"""The SITE folder: checked before anything runs, written only inside, never through a link.

:func:`check_site` refuses, with one sentence naming ``--out`` and the fix, a SITE that is a
symbolic link, a file, read-only, impossible to create, or not empty (unless ``force``). Nothing
is created until every lesson has been executed and rendered; then :func:`write_site` creates
SITE and writes each file atomically (a temporary file in the same folder, renamed), so a link
planted in SITE under one of the site's names is replaced, never written through. Nothing the
user put in SITE is ever deleted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..lesson_copy import write_atomically

__all__ = ["ExportError", "check_site", "write_site"]


class ExportError(ValueError):
    """A PATH or ``--out`` that cannot be used: the message names the argument and the fix."""


def check_site(site: Path, force: bool, names: list[str]) -> None:
    """Refuse a SITE that cannot be written safely, before anything is written.

    Parameters
    ----------
    site : Path
        The ``--out`` folder.
    force : bool
        Write into a SITE that is not empty (only the site's own file names are replaced).
    names : list of str
        The relative paths the export will write (``index.html``, ``assets/site.css``, ...).
    """
    if site.is_symlink():
        raise ExportError(
            f"--out {site} is a symbolic link (to {os.readlink(site)}); gradkit export never "
            "writes through a link, which could write outside SITE. Give a real folder"
        )
    if site.exists() and not site.is_dir():
        raise ExportError(f"--out {site} is a file; give a folder for the site (new or empty)")
    if not site.exists():
        _check_creatable(site)
        return
    if not os.access(site, os.W_OK | os.X_OK):
        raise ExportError(f"--out {site} is read-only; choose a folder you can write to")
    entries = sorted(p.name for p in site.iterdir())
    if entries and not force:
        shown = ", ".join(entries[:4]) + (", ..." if len(entries) > 4 else "")
        raise ExportError(
            f"--out {site} is not empty ({shown}); choose a new or empty folder, or pass --force "
            "to write the site into it anyway (only index.html, the lesson pages and assets/ "
            "files of the same names are replaced; nothing else is touched or deleted)"
        )
    _check_own_names(site, names)


def _check_creatable(site: Path) -> None:
    """SITE does not exist: its nearest existing parent must be a folder we can write to."""
    parent = site.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ExportError(
            f"--out {site} cannot be created: {parent} is a file, not a folder; give a path "
            "made of folders"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ExportError(
            f"--out {site} cannot be created: {parent} is read-only; choose a folder you can "
            "write to"
        )


def _check_own_names(site: Path, names: list[str]) -> None:
    """With --force: every folder the site writes into must be a real folder inside SITE."""
    folders = sorted({str(Path(name).parent) for name in names} - {"."})
    for folder in folders:
        path = site / folder
        if path.is_symlink() or (path.exists() and not path.is_dir()):
            kind = "a symbolic link" if path.is_symlink() else "a file"
            raise ExportError(
                f"--out {site} holds {path.name} as {kind}, where the site keeps its scripts "
                f"and styles; move it away (gradkit export never writes through it)"
            )
    for name in names:
        if (site / name).is_dir() and not (site / name).is_symlink():
            raise ExportError(
                f"--out {site} holds a folder named {name}, a file name of the site; move it away"
            )


def write_site(site: Path, files: Mapping[str, bytes]) -> None:
    """Create SITE (and its parents) and write each file atomically inside it.

    Parameters
    ----------
    site : Path
        The checked ``--out`` folder.
    files : mapping of str to bytes
        Relative path -> content.
    """
    try:
        site.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            dest = site / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(dest, data)
    except OSError as error:
        raise ExportError(
            f"--out {site}: could not write {error.filename or site}: {error.strerror or error}; "
            "choose a folder you can write to"
        ) from error
