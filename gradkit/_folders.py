"""The folders gradkit keeps things in, and the rule for reading from one: only its owner writes it.

A folder or file is *trusted* when no one but its owner can write it and that owner is the user
running gradkit or root (a teacher's hub image is built as root). Anything a group or other users
can write, or that another user owns, is not read: whoever can write it could plant what gradkit
then shows as torch's. Symlinks are never followed where this rule is applied.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import platformdirs

__all__ = ["CACHE_OFF", "distrust", "fix_for", "trusted_owners", "user_cache_folder"]

#: ``$GRADKIT_CACHE`` values that turn the scene cache off.
CACHE_OFF = ("off", "0", "no", "false")


def user_cache_folder() -> Path:
    """The platform's per-user cache folder for gradkit (platformdirs: ``~/.cache/gradkit`` on
    Linux, honouring ``$XDG_CACHE_HOME``; ``~/Library/Caches/gradkit``; ``%LOCALAPPDATA%``)."""
    return Path(platformdirs.user_cache_dir("gradkit", appauthor=False))


def trusted_owners() -> frozenset[int]:
    """The owners whose folders are read: this user (effective uid) and root."""
    return frozenset({os.geteuid(), 0})


def distrust(info: os.stat_result, kind: str = "folder") -> str | None:
    """Why a thing with stat ``info`` may hold what its owner did not write; None: trusted.

    Parameters
    ----------
    info : os.stat_result
        From ``os.lstat`` or ``os.fstat`` (never a followed symlink).
    kind : {"folder", "file"}
        What it must be.

    Returns
    -------
    str or None
        A reason in words ("is a symlink", "is owned by uid 12345", ...), or None.
    """
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        return "is a symlink"
    if kind == "folder" and not stat.S_ISDIR(mode):
        return "is not a folder"
    if kind == "file" and not stat.S_ISREG(mode):
        return "is not a regular file"
    if os.name == "nt":  # no Unix owners or mode bits: the folder's ACLs are Windows' business
        return None
    if info.st_uid not in trusted_owners():
        return f"is owned by uid {info.st_uid}, neither you (uid {os.geteuid()}) nor root"
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"can be written by {'its group' if mode & stat.S_IWGRP else 'other users'}"
    return None


def fix_for(folder: Path) -> str:
    """The shell line that makes ``folder`` (and all in it) trusted by its owner."""
    return f"chown -R $(id -u) '{folder}' && chmod -R go-w '{folder}'"
