"""The shared scene cache: tables torch computed for a scene, kept on disk for the next learner.

A family asks for a scene's tables in one line::

    rows = scene_cache.fetch(scene_key("slope", f, x, EPS_GRID), lambda: measure(f, x))

and gets what ``compute()`` returns: read from disk when this torch already computed it here (or
on the hub image, at build time: ``gradkit warm``), else computed and stored. A scene of no
function is keyed by its own tuple, ``fetch(("ruler", x, eps, dtype), ...)``; a key holds
strings, numbers, dtypes and sequences of them. Every number is still torch's, in the learner's
dtype: an entry is only ever what ``compute()`` returned with the same torch, gradkit and code
(the key and the file format: :mod:`.cache_entry`).

- **Folder**: ``$GRADKIT_CACHE`` (one folder for a whole hub; ``off`` turns the cache off), else
  the platform's cache folder (``~/.cache/gradkit``); entries go in its ``scenes/``. A folder
  that cannot be written is read only: reads, never an error.
- **Writes** go to a temp file in the same folder, renamed into place (``os.replace``): a reader
  sees a whole entry or none, and two processes filling one entry both leave a whole one.
- **Trust**: a truncated, corrupt, foreign or mismatched entry is ignored and recomputed.
- **Size**: at most ``$GRADKIT_CACHE_SIZE`` (bytes, or ``500M``, ``2G``; default 512 MiB); past
  it the oldest entries go first (a hit keeps an entry young). Each process counts what it
  wrote since its last look at the folder, so the limit holds to within what other processes
  wrote meanwhile.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from .cache_entry import Uncacheable, decode_entry, encode_entry, function_id, key_text, scene_key

__all__ = [
    "DEFAULT_LIMIT",
    "SceneCache",
    "cache_folder",
    "default_folder",
    "function_id",
    "scene_cache",
    "scene_key",
    "size_limit",
]

T = TypeVar("T")
DEFAULT_LIMIT = 512 * 2**20
SUFFIX, TEMP = ".gks", ".tmp-"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
_TRUST_ERRORS = (OSError, ValueError, KeyError, TypeError, IndexError, struct.error)


# ---------------------------------------------------------------------------------- folder
def default_folder() -> Path:
    """The platform's per-user cache folder for gradkit."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
        return Path(base) / "gradkit" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "gradkit"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gradkit"


def cache_folder() -> Path | None:
    """``$GRADKIT_CACHE`` (None when it says ``off``), else :func:`default_folder`."""
    chosen = os.environ.get("GRADKIT_CACHE", "").strip()
    if chosen.lower() in ("off", "0", "no", "false"):
        return None
    return Path(chosen).expanduser() if chosen else default_folder()


def size_limit() -> int:
    """``$GRADKIT_CACHE_SIZE`` in bytes (``500M``, ``2G``, ``1000000``), else 512 MiB."""
    text = os.environ.get("GRADKIT_CACHE_SIZE", "").strip().upper().removesuffix("B")
    if not text:
        return DEFAULT_LIMIT
    unit = text[-1] if text[-1] in _UNITS else ""
    try:
        return int(float(text.removesuffix(unit)) * _UNITS[unit])
    except ValueError:
        return DEFAULT_LIMIT


# ----------------------------------------------------------------------------------- cache
class SceneCache:
    """Scene tables on disk (see the module's docstring); :data:`scene_cache` is the shared one.

    Parameters
    ----------
    folder : path, optional
        Where entries live (in ``folder/scenes``). Default: :func:`cache_folder`, read at every
        call, so ``$GRADKIT_CACHE`` may change while a process runs (tests do).
    limit : int, optional
        Size limit in bytes. Default: :func:`size_limit`.

    Attributes
    ----------
    hits, misses, stores : int
        Entries read, computed (not found, or not trusted) and written by this object.
    """

    def __init__(self, folder: str | os.PathLike | None = None, limit: int | None = None) -> None:
        self._folder = None if folder is None else Path(folder)
        self._limit = limit
        self.hits = self.misses = self.stores = 0
        self._estimate: dict[Path, int] = {}  # bytes in a folder, as of our last scan + writes
        self._read_only: set[Path] = set()

    @property
    def folder(self) -> Path | None:
        """The folder of the entries (None: the cache is off)."""
        root = self._folder if self._folder is not None else cache_folder()
        return None if root is None else root / "scenes"

    @property
    def limit(self) -> int:
        """The size limit in bytes."""
        return self._limit if self._limit is not None else size_limit()

    def path(self, key: tuple, text: str | None = None) -> Path | None:
        """The file of ``key``'s entry (None: the cache is off); ``text``: its key_text."""
        folder = self.folder
        name = hashlib.sha256((text or key_text(key)).encode()).hexdigest()[:40]
        return None if folder is None else folder / f"{name}{SUFFIX}"

    def fetch(self, key: tuple | None, compute: Callable[[], T]) -> T:
        """``compute()``'s value for ``key``: read when stored and intact, else computed, stored.

        ``key`` None (a function without a stable identity) computes and stores nothing.
        """
        if key is None or self.folder is None:
            return compute()
        text = key_text(key)
        path = self.path(key, text)
        try:
            data = path.read_bytes()
            value = decode_entry(data, text)
        except _TRUST_ERRORS:
            value = compute()
            self.misses += 1
            self.store(path, text, value)
            return value
        self.hits += 1
        self._touch(path)
        return value

    def store(self, path: Path, text: str, value: Any) -> bool:
        """Write ``value`` as the entry at ``path`` atomically; False when it was not written."""
        folder = path.parent
        if folder in self._read_only:
            return False
        try:
            data = encode_entry(text, value)
        except Uncacheable:
            return False
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with self._temp_file(folder) as (handle, temp):
                handle.write(data)
                handle.flush()
                os.fchmod(handle.fileno(), 0o644)  # a hub's learners read what the image wrote
                handle.close()
                os.replace(temp, path)
        except OSError:
            self._read_only.add(folder)  # read-only (or full): reads only from now on
            return False
        self.stores += 1
        self._grew(folder, len(data))
        return True

    @staticmethod
    @contextlib.contextmanager
    def _temp_file(folder: Path) -> Iterator[tuple[Any, str]]:
        """A new temp file in ``folder``, removed unless renamed away."""
        fd, temp = tempfile.mkstemp(prefix=TEMP, suffix=SUFFIX, dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                yield handle, temp
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temp)

    def _touch(self, path: Path) -> None:
        """Keep a used entry young for eviction (at most once an hour; never an error)."""
        with contextlib.suppress(OSError):
            if time.time() - path.stat().st_mtime > 3600 and path.parent not in self._read_only:
                os.utime(path)

    def entries(self, folder: Path | None = None) -> list[tuple[float, int, Path]]:
        """(mtime, bytes, path) of every entry in ``folder`` (default: :attr:`folder`), oldest
        first; temp files a writer left more than 10 minutes ago are removed on the way."""
        folder = folder or self.folder
        found: list[tuple[float, int, Path]] = []
        if folder is None:
            return found
        with contextlib.suppress(OSError), os.scandir(folder) as scan:
            for item in scan:
                if not item.name.endswith(SUFFIX):
                    continue  # never anything but our own files
                with contextlib.suppress(OSError):
                    stat = item.stat()
                    if not item.name.startswith("."):
                        found.append((stat.st_mtime, stat.st_size, Path(item.path)))
                    elif item.name.startswith(TEMP) and time.time() - stat.st_mtime > 600:
                        os.unlink(item.path)  # a writer that died mid-write
        return sorted(found)

    def size(self, folder: Path | None = None) -> int:
        """Bytes in the cache folder now."""
        return sum(size for _, size, _ in self.entries(folder))

    def _grew(self, folder: Path, added: int) -> None:
        if folder not in self._estimate:
            self._estimate[folder] = self.size(folder)
        else:
            self._estimate[folder] += added
        if self._estimate[folder] > self.limit:
            self._estimate[folder] = self.evict(int(0.8 * self.limit), folder)

    def evict(self, target: int, folder: Path | None = None) -> int:
        """Remove the oldest entries until at most ``target`` bytes are left; the bytes left."""
        entries = self.entries(folder)
        total = sum(size for _, size, _ in entries)
        for _, size, path in entries:
            if total <= target:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                total -= size
        return total

    def clear(self) -> None:
        """Remove every entry."""
        self.evict(0)


#: The cache every widget family uses.
scene_cache = SceneCache()
