"""The shared scene cache: tables torch computed for a scene, kept on disk for the next learner.

``scene_cache.fetch(key, compute, expect)`` returns ``compute()``'s value, read from disk when
stored with this key (:mod:`.cache_entry`: the key and the file), else computed and stored. The
settings (``$GRADKIT_CACHE``, ``$GRADKIT_CACHE_SIZE``: the top-level README's "The scene cache")
and :mod:`gradkit._folders`' trust rule: a folder or entry not trusted is ignored, with one
:class:`CacheWarning` naming the folder and the fix. Writes go to a temp file in the same folder,
renamed into place, so a reader sees a whole entry or none. Each process counts what it wrote
since its last look at the folder, so the size limit holds to within what other processes wrote
meanwhile.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import math
import os
import stat
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..._folders import CACHE_OFF, distrust, fix_for, user_cache_folder
from .cache_entry import (
    MAX_ENTRY_BYTES,
    Uncacheable,
    decode_entry,
    encode_entry,
    fields,
    key_text,
    scene_key,
)

__all__ = [
    "DEFAULT_LIMIT",
    "CacheWarning",
    "SceneCache",
    "cache_folder",
    "fields",
    "scene_cache",
    "scene_key",
    "size_limit",
]

T = TypeVar("T")
SUFFIX, TEMP = ".gks", ".tmp-"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
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


def cache_folder() -> Path | None:
    """``$GRADKIT_CACHE`` (None when it says ``off``), else the learner's own cache folder."""
    chosen = os.environ.get("GRADKIT_CACHE", "").strip()
    if chosen.lower() in CACHE_OFF:
        return None
    return Path(chosen).expanduser() if chosen else user_cache_folder()


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


def folder_state(folder: Path) -> str:
    """``"trusted"``, ``"missing"`` (not there yet) or ``"untrusted"`` (warned once): whether
    ``folder`` (a ``scenes/``) and the folder above it pass :func:`gradkit._folders.distrust`."""
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


def _name(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:40] + SUFFIX


class SceneCache:
    """Scene tables on disk; :data:`scene_cache` is the shared one. Its folders and size limit
    are read from the environment at every call, so they may change while a process runs.

    Attributes
    ----------
    hits, misses, stores : int
        Entries read, computed (not found, or not trusted) and written by this object.
    """

    def __init__(self) -> None:
        self.hits = self.misses = self.stores = 0
        self._estimate: dict[Path, int] = {}  # bytes in a folder: our last scan + our writes
        self._read_only: set[Path] = set()

    @property
    def folder(self) -> Path | None:
        """The folder of the entries (None: the cache is off)."""
        root = cache_folder()
        return None if root is None else root / "scenes"

    @property
    def own_folder(self) -> Path:
        """The learner's own folder of entries, where misses go when :attr:`folder` is not
        trusted or cannot be written."""
        return user_cache_folder() / "scenes"

    def path(self, key: tuple) -> Path | None:
        """The file of ``key``'s entry in :attr:`folder` (None: the cache is off)."""
        folder = self.folder
        return None if folder is None else folder / _name(key_text(key))

    def places(self) -> tuple[list[Path], Path | None]:
        """(the folders read, in order; the folder misses are written to, None: nowhere).

        :attr:`folder` is read when trusted and written when it also can be (or is not there
        yet: it is made); otherwise :attr:`own_folder` takes the misses and is read after it.
        """
        main, reads = self.folder, []
        for folder in dict.fromkeys([main, self.own_folder] if main is not None else []):
            state = folder_state(folder)
            if state == "trusted":
                reads.append(folder)
            if state == "untrusted" or folder in self._read_only:
                continue
            existing = next((p for p in (folder, folder.parent) if p.exists()), None)
            if existing is None or os.access(existing, os.W_OK | os.X_OK):
                return reads, folder
            self._read_only.add(folder)
        return reads, None

    def fetch(
        self, key: tuple | None, compute: Callable[[], T], expect: Callable[[Any], bool]
    ) -> T:
        """``compute()``'s value for ``key``: read when stored, intact and ``expect(value)``
        (the family's :func:`fields`), else computed and stored; ``key`` None (a function
        without a stable identity) computes and stores nothing."""
        if key is None or self.folder is None:
            return compute()
        text = key_text(key)
        name = _name(text)
        reads, write = self.places()
        for folder in reads:
            value = self._read(folder / name, text, touch=folder == write)
            if value is not None and expect(value):
                self.hits += 1
                return value
        value = compute()
        self.misses += 1
        if write is not None:
            self._store(write / name, text, value)
        return value

    @staticmethod
    def _read(path: Path, text: str, touch: bool) -> dict[str, Any] | None:
        """The value of the entry at ``path``, or None (never an error)."""
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        except OSError as error:
            if error.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink: never followed
                distrust_folder(path.parent.parent, f"its entry {path} is a symlink")
            return None
        try:
            info = os.fstat(fd)
            reason = distrust(info, "file")
            if reason is not None:
                distrust_folder(path.parent.parent, f"its entry {path} {reason}")
                return None
            if info.st_size > MAX_ENTRY_BYTES:  # no entry is this big: never read into memory
                return None
            with os.fdopen(os.dup(fd), "rb") as handle:
                value = decode_entry(handle.read(MAX_ENTRY_BYTES + 1), text)  # it may have grown
            if touch and time.time() - info.st_mtime > 3600:  # keep a used entry young
                with contextlib.suppress(OSError, NotImplementedError):
                    os.utime(fd)
            return value
        except (OSError, ValueError):
            return None  # any bytes but an entry of this key: recompute
        finally:
            os.close(fd)

    def _store(self, path: Path, text: str, value: Any) -> None:
        """Write ``value`` as the entry at ``path`` atomically (nothing, when it cannot be)."""
        folder = path.parent
        try:
            data = encode_entry(text, value)
        except Uncacheable:
            return
        try:
            for part in (folder.parent, folder):
                with contextlib.suppress(FileExistsError):  # there, or another kernel just made it
                    part.mkdir(parents=True)
                    os.chmod(part, 0o755)  # owner writes; a hub's learners read (any umask)
            if folder_state(folder) != "trusted":
                return
            fd, temp = tempfile.mkstemp(prefix=TEMP, suffix=SUFFIX, dir=folder)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    os.fchmod(handle.fileno(), 0o644)  # a hub's learners read what the image wrote
                os.replace(temp, path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(temp)  # not renamed: a failed write
        except OSError:
            self._read_only.add(folder)  # read only (or full): misses go to the learner's own
            return
        self.stores += 1
        known = self._estimate.get(folder)
        total = self.size(folder) if known is None else known + len(data)
        if total > size_limit():
            total = self.evict(int(0.8 * size_limit()), folder)
        self._estimate[folder] = total

    def entries(self, folder: Path | None = None) -> list[tuple[float, int, Path]]:
        """(mtime, bytes, path) of every entry in ``folder`` (default: :attr:`folder`), oldest
        first: only regular ``*.gks`` files in a trusted folder, never through a symlink. Temp
        files a writer left more than 10 minutes ago are removed on the way."""
        folder = folder or self.folder
        found: list[tuple[float, int, Path]] = []
        if folder is None or folder_state(folder) != "trusted":
            return found
        with contextlib.suppress(OSError), os.scandir(folder) as scan:
            for item in scan:
                with contextlib.suppress(OSError):
                    info = item.stat(follow_symlinks=False)
                    if not item.name.endswith(SUFFIX) or not stat.S_ISREG(info.st_mode):
                        continue  # never anything but our own files, never a symlink
                    if not item.name.startswith("."):
                        found.append((info.st_mtime, info.st_size, Path(item.path)))
                    elif item.name.startswith(TEMP) and time.time() - info.st_mtime > 600:
                        os.unlink(item.path)  # a writer that died mid-write
        return sorted(found)

    def size(self, folder: Path | None = None) -> int:
        """Bytes in the cache folder now."""
        return sum(size for _, size, _ in self.entries(folder))

    def evict(self, target: int, folder: Path | None = None) -> int:
        """Remove the oldest entries until at most ``target`` bytes are left; the bytes left."""
        entries = self.entries(folder)
        total = sum(size for _, size, _ in entries)
        for _, size, path in entries:
            if total <= target:
                break
            with contextlib.suppress(OSError):
                path.unlink()  # a regular file (entries): unlink never follows a symlink
                total -= size
        return total

    def clear(self) -> None:
        """Remove every entry."""
        self.evict(0)


#: The cache every widget family uses.
scene_cache = SceneCache()
