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
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..lesson_copy import write_atomically

__all__ = ["TEMPORARY_EXTRA", "ExportError", "check_room", "check_site", "name_limit", "write_site"]

#: The bytes a file's temporary name adds to its own (``.NAME.xxxxxxxx.tmp``, see
#: :func:`~gradkit.cli.lesson_copy.write_atomically`).
TEMPORARY_EXTRA = 14


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


def _existing(site: Path) -> Path:
    """SITE, or its nearest parent that exists (where its file system is asked)."""
    place = site
    while not place.exists() and place != place.parent:
        place = place.parent
    return place


def name_limit(site: Path) -> int:
    """The longest file name (bytes) the file system of SITE takes (255 where it will not say)."""
    try:
        return int(os.pathconf(_existing(site), "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows), or no answer
        return 255


def check_room(site: Path, size: int) -> None:
    """Refuse, before anything is written, a site of ``size`` bytes its disk has no room for."""
    try:
        free = shutil.disk_usage(_existing(site)).free
    except OSError:
        return
    if size > free:
        raise ExportError(
            f"--out {site}: the site is {size / 2**20:.1f} MiB and its disk has "
            f"{free / 2**20:.1f} MiB free; free some space or choose another folder. Nothing "
            "was written"
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
