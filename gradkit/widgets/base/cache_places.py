"""Where the scene cache lives, how big it may grow, and which of its folders are read.

The settings (``$GRADKIT_CACHE``, ``$GRADKIT_CACHE_SIZE``) and the trust rule of
:mod:`gradkit._folders` applied to the cache's two folders: the chosen one (a class's, or the
learner's own) and the learner's own, where misses go when the chosen one is read-only. The
store itself is :mod:`.cache`.

- **Folders**: ``$GRADKIT_CACHE`` (one folder for a whole class or hub; ``off`` turns the cache
  off), else the learner's own cache folder (platformdirs: ``~/.cache/gradkit`` on Linux);
  entries go in its ``scenes/``. When ``$GRADKIT_CACHE`` cannot be written by this learner (a
  hub's read-only class cache) it is read, and misses go to the learner's own folder.
- **Trust**: a folder is read only when it, its ``scenes/`` and each entry file are owned by this
  user or root and cannot be written by group or others, and none is a symlink
  (:mod:`gradkit._folders`). Anything else is ignored, with one :class:`CacheWarning` naming the
  folder and the fix. Any bytes in a trusted entry that are not exactly an entry of this key
  (truncated, corrupt, foreign, of another shape, larger than any entry: its size is
  checked before reading) mean "recompute", never an error.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path

from ..._folders import CACHE_OFF, distrust, fix_for, user_cache_folder

__all__ = [
    "DEFAULT_LIMIT",
    "CacheWarning",
    "cache_folder",
    "default_folder",
    "distrust_folder",
    "folder_state",
    "places",
    "size_limit",
    "writable",
]

DEFAULT_LIMIT = 512 * 2**20
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
#: What has been warned about in this process (a folder, a size): one warning each.
_WARNED: set[str] = set()


class CacheWarning(UserWarning):
    """The scene cache ignored a folder or a setting (the widgets still work, uncached)."""


def _warn_once(subject: str, message: str) -> None:
    if subject not in _WARNED:
        _WARNED.add(subject)
        warnings.warn(message, CacheWarning, stacklevel=5)


# -------------------------------------------------------------------------------- settings
def default_folder() -> Path:
    """The learner's own cache folder (platformdirs' per-user cache folder for gradkit)."""
    return user_cache_folder()


def cache_folder() -> Path | None:
    """``$GRADKIT_CACHE`` (None when it says ``off``), else :func:`default_folder`."""
    chosen = os.environ.get("GRADKIT_CACHE", "").strip()
    if chosen.lower() in CACHE_OFF:
        return None
    return Path(chosen).expanduser() if chosen else default_folder()


def size_limit() -> int:
    """``$GRADKIT_CACHE_SIZE`` in bytes (``500M``, ``2G``, ``1000000``), else 512 MiB.

    A value that is not a positive, finite size (``inf``, ``nan``, ``-1``, ``0``, ``lots``) is
    the default, with one :class:`CacheWarning` naming it.
    """
    raw = os.environ.get("GRADKIT_CACHE_SIZE", "").strip()
    text = raw.upper().removesuffix("B")
    if not text:
        return DEFAULT_LIMIT
    unit = text[-1] if text[-1] in _UNITS else ""
    try:
        size = float(text.removesuffix(unit)) * _UNITS[unit]  # bytes = number x unit
    except ValueError:
        size = math.nan
    if not (math.isfinite(size) and size >= 1):
        _warn_once(
            f"size:{raw}",
            f"GRADKIT_CACHE_SIZE={raw!r} is not a size in bytes (such as 500M or 2G): the scene "
            f"cache keeps its default of {DEFAULT_LIMIT // 2**20}M. Fix: set it to a positive "
            "size, or unset it.",
        )
        return DEFAULT_LIMIT
    return int(size)


# ----------------------------------------------------------------------------------- trust
def folder_state(folder: Path) -> str:
    """``"trusted"``, ``"missing"`` or ``"untrusted"``: ``folder`` (a ``scenes/``) and the
    folder above it, each owned by this user or root and written by no one else, no symlink.

    ``"missing"``: not there yet (what is there is trusted); ``"untrusted"`` warns once,
    naming the folder and the fix.
    """
    for part in (folder.parent, folder):
        try:
            info = os.lstat(part)
        except FileNotFoundError:
            return "missing"
        except OSError as error:
            fix = "set GRADKIT_CACHE to a folder (or unset it)"
            distrust_folder(folder.parent, f"{part} cannot be opened ({error.strerror})", fix)
            return "untrusted"
        reason = distrust(info)
        if reason is not None:
            distrust_folder(folder.parent, f"{part} {reason}")
            return "untrusted"
    return "trusted"


def distrust_folder(root: Path, why: str, fix: str | None = None) -> None:
    """Warn, once per folder, that ``root`` (or an entry in it: ``why`` says) is not read."""
    what = "an entry of" if why.startswith("its entry") else "the whole"
    _warn_once(
        f"folder:{root}",
        f"gradkit does not read {what} scene cache {root}: {why}. Only what no one but its "
        "owner (you or root) can write is read, so that no one else can plant the numbers "
        f"it shows. Fix: {fix or fix_for(root)}, or set GRADKIT_CACHE to a folder only you "
        "can write.",
    )


def writable(folder: Path, read_only: set[Path]) -> bool:
    """Whether entries can be written to ``folder`` (one found read-only joins ``read_only``)."""
    if folder in read_only:
        return False
    existing = next((p for p in (folder, folder.parent) if p.exists()), None)
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        read_only.add(folder)
        return False
    return True


def places(main: Path | None, own: Path, read_only: set[Path]) -> tuple[list[Path], Path | None]:
    """(the folders read, in order; the folder misses are written to, None: nowhere).

    ``main`` (the chosen ``scenes/``; None: the cache is off) is read when trusted and written
    when it also can be (or is not there yet: it is made); otherwise the learner's ``own``
    folder takes the misses and is read after it.
    """
    if main is None:
        return [], None
    main_state = folder_state(main)
    reads = [main] if main_state == "trusted" else []
    if main_state != "untrusted" and writable(main, read_only):
        return reads, main
    if own == main:
        return reads, None
    own_state = folder_state(own)
    if own_state == "trusted":
        reads.append(own)
    write = own if own_state != "untrusted" and writable(own, read_only) else None
    return reads, write
