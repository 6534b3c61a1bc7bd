"""``gradkit lessons DIR [--force]``: copy the shipped lesson notebooks, never outside DIR.

A file that exists is never overwritten, unless ``--force``, which first saves it as ``.bak``. A
symbolic link in DIR is never followed: it is refused, or with ``--force`` the link itself is
renamed to ``.bak``. Each lesson is written to a temporary file in DIR and renamed into place
(:func:`write_atomically`), so a failure such as a full disk never leaves half a lesson.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from pathlib import Path

from .errors import EXIT_PASS, UsageError

__all__ = ["copy_lessons", "lesson_files", "lessons_dir", "write_atomically"]


def lessons_dir() -> Path:
    """Where the lesson notebooks live: inside the wheel, or ``notebooks/`` in a checkout."""
    package = Path(__file__).resolve().parents[1]  # gradkit/
    packaged = package / "lessons"
    if packaged.is_dir():
        return packaged
    return package.parent / "notebooks"


def lesson_files() -> list[Path]:
    """The shipped lesson notebooks, in lesson order."""
    return sorted(lessons_dir().glob("*.ipynb"))


def copy_lessons(target: Path, force: bool) -> int:
    """Copy every shipped lesson into ``target``, never writing outside it.

    Parameters
    ----------
    target : Path
        DIR, created with its parents when missing.
    force : bool
        Overwrite existing lessons, each saved first as ``NAME.bak`` (``.bak1``, ... when taken).

    Returns
    -------
    int
        The exit status, 0; every problem raises :class:`~gradkit.cli.errors.UsageError`.
    """
    files = lesson_files()
    if not files:
        raise UsageError(f"no lesson notebooks found in {lessons_dir()}; reinstall gradkit")
    _make_folder(target)
    _refuse_odd_entries(target, [source.name for source in files], force)
    copied, skipped, backed_up = [], [], []
    try:
        for source in files:
            dest = target / source.name
            if os.path.lexists(dest) and not force:
                skipped.append(dest.name)
                continue
            try:
                if os.path.lexists(dest):
                    backed_up.append(f"{dest.name} -> {_back_up(dest).name}")
                write_atomically(dest, source.read_bytes())
            except OSError as error:
                raise UsageError(_write_failure(dest, error, copied)) from error
            copied.append(dest.name)
    finally:  # what was done is reported even when a later lesson failed
        for name in copied:
            print(f"copied   {target / name}")
        for entry in backed_up:
            print(f"saved    {entry} (your previous version)")
    if skipped:
        print(f"skipped  {len(skipped)} existing file(s), left untouched: {', '.join(skipped)}")
        print("         (use --force to overwrite them; each is saved as .bak first)")
    print(f"{len(copied)} lesson(s) in {target}. Open 00_start_here.ipynb first.")
    return EXIT_PASS


def _write_failure(dest: Path, error: OSError, copied: list[str]) -> str:
    """One message for a lesson that could not be written: what, why, and what is left."""
    reason = error.strerror or str(error)
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason += f" ({dest.parent} is read-only; choose a folder you can write to)"
    done = f" The complete lessons copied before it: {', '.join(copied)}." if copied else ""
    return (
        f"could not write {dest}: {reason}. No half-written lesson was left behind; "
        f"{dest.name} is as it was.{done}"
    )


def _make_folder(target: Path) -> None:
    """Create DIR (and its parents), or say in one sentence why it cannot be."""
    if target.is_dir():
        if not os.access(target, os.W_OK | os.X_OK):
            raise UsageError(f"DIR {target} is read-only; choose a folder you can write to")
        return
    if os.path.lexists(target):
        raise UsageError(f"DIR {target} is a file; give a folder to copy the lessons into")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as error:
        raise UsageError(
            f"cannot create DIR {target}: {error.filename or target} is a file, not a folder; "
            "give a path made of folders"
        ) from error
    except OSError as error:
        raise UsageError(
            f"cannot create DIR {target}: {error.strerror or error}; choose a folder you can "
            "write to"
        ) from error


def _refuse_odd_entries(target: Path, names: list[str], force: bool) -> None:
    """Refuse, before writing anything, lesson names in DIR that are links or folders.

    A symbolic link is never written through (that would write outside DIR); with ``force`` it
    is moved aside as ``.bak`` (the link itself, not its target) like any other existing file.
    """
    links, others = [], []
    for name in names:
        dest = target / name
        if dest.is_symlink():
            links.append(f"{name} -> {os.readlink(dest)}")
        elif os.path.lexists(dest) and not dest.is_file():
            others.append(name)
    if others:
        raise UsageError(
            f"{', '.join(others)} in {target} is not a regular file (a folder?); move it away, "
            "then run gradkit lessons again"
        )
    if links and not force:
        raise UsageError(
            f"{target} holds symbolic link(s) named like lessons: {'; '.join(links)}. gradkit "
            "lessons never writes through a link (it could write outside DIR). Remove the "
            "link(s), or pass --force to replace each link itself after saving it as .bak "
            "(its target is left untouched). Nothing was copied"
        )


def _back_up(dest: Path) -> Path:
    """Save ``dest`` under a free ``.bak`` name in the same folder and return that name.

    A symbolic link is renamed (the link moves; its target is not read or written); a regular
    file is copied by :func:`write_atomically`, so ``dest`` stays in place until replaced.
    """
    backup = _free_backup_name(dest)
    if dest.is_symlink():
        os.rename(dest, backup)
    else:
        write_atomically(backup, dest.read_bytes())
        shutil.copystat(dest, backup, follow_symlinks=False)
    return backup


def _free_backup_name(path: Path) -> Path:
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while os.path.lexists(candidate):  # a dangling link "exists" too: never reuse its name
        candidate = path.with_name(f"{path.name}.bak{n}")
        n += 1
    return candidate


def write_atomically(dest: Path, data: bytes) -> None:
    """Write ``data`` to ``dest`` all at once: a temporary file in the same folder, renamed.

    The temporary file is created exclusively (``O_EXCL``, so never through a link) next to
    ``dest``; the rename replaces ``dest`` itself, even when ``dest`` is a symbolic link, and is
    atomic on one file system. On any error the temporary file is removed and ``dest`` is left
    as it was.

    Parameters
    ----------
    dest : Path
        The file to write.
    data : bytes
        Its whole new content.
    """
    handle, temporary = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644 & ~_umask())
        os.replace(temporary, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
