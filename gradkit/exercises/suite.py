"""The pytest file of lesson 12, ``test_my_function.py``: its text, and writing it into the
learner's own folder without ever replacing a file that is there.

The file's text is ``suite_file.py`` beside this module (a real module that ruff checks and the
tests run with pytest; gradkit never imports it). :func:`write_suite` creates the file
exclusively (``O_EXCL``): a file already there, the learner's edited copy or a symbolic link, is
left as it is, and the result says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SUITE_NAME", "SuiteFile", "suite_text", "write_suite"]

#: The name of the file in the learner's folder.
SUITE_NAME = "test_my_function.py"
_TEXT = Path(__file__).with_name("suite_file.py")


def suite_text() -> str:
    """The text lesson 12 writes as :data:`SUITE_NAME`."""
    return _TEXT.read_text(encoding="utf-8")


@dataclass(frozen=True)
class SuiteFile:
    """What :func:`write_suite` did.

    Attributes
    ----------
    path : Path
        ``FOLDER/test_my_function.py``.
    written : bool
        Whether this call wrote it (False: a file was there, or the folder is not writable).
    message : str
        One sentence for the learner: written, already there as the lesson wrote it, left as it
        is because it is the learner's own, or why it could not be written.
    """

    path: Path
    written: bool
    message: str

    @property
    def runnable(self) -> bool:
        """Whether a file is there to run (written now or before; not a link)."""
        return self.path.is_file() and not self.path.is_symlink()


def write_suite(folder: str | os.PathLike[str] = ".") -> SuiteFile:
    """Write :data:`SUITE_NAME` into ``folder``, never over anything already there.

    Parameters
    ----------
    folder : path
        The learner's lesson folder (a notebook's kernel runs in its own folder: ``"."``).

    Returns
    -------
    SuiteFile
        What was done, with a message; a folder that cannot be written is a message too.

    Raises
    ------
    ValueError
        ``folder`` is not an existing folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"folder must be an existing folder (the lesson's own), got {folder}")
    path = folder / SUITE_NAME
    text = suite_text()
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return SuiteFile(path, False, _already_there(path, text))
    except OSError as error:
        reason = error.strerror or str(error)
        return SuiteFile(path, False, f"could not write {path.name}: {reason}; nothing was written")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    return SuiteFile(path, True, f"wrote {SUITE_NAME} in this lesson's folder")


def _already_there(path: Path, text: str) -> str:
    """Why an existing ``path`` is left alone, in one sentence."""
    if path.is_symlink() or not path.is_file():
        return (
            f"{SUITE_NAME} in this lesson's folder is a link or a folder, not a file: left as it "
            "is (gradkit never writes through a link); move it away to get the lesson's file"
        )
    if path.read_text(encoding="utf-8", errors="replace") == text:
        return f"{SUITE_NAME} is already in this lesson's folder, as the lesson wrote it"
    return (
        f"{SUITE_NAME} is already in this lesson's folder and differs from the lesson's: it is "
        "yours, so it was not overwritten (rename it to get the lesson's version again)"
    )
