"""The shared scene cache: tables torch computed for a scene, kept on disk for the next learner.

A family asks for a scene's tables in one line::

    rows = scene_cache.fetch(scene_key("slope", f, x, EPS_GRID), lambda: measure(f, x))

and gets what ``compute()`` returns: read from disk when this torch already computed it here (or
on the hub image, at build time: ``gradkit warm``), else computed and stored. A scene of no
function is keyed by its own tuple, ``fetch(("ruler", x, eps, dtype), ...)``; a key holds
strings, numbers, dtypes and sequences of them. An entry is only ever what ``compute()`` returned
with the same torch, gradkit, code and CPU capability (the key and the file format:
:mod:`.cache_entry`), read from a folder only its owner can write.

- **Folders and trust**: :mod:`.cache_places` (``$GRADKIT_CACHE``, the learner's own folder,
  and which of them are read).
- **Writes** go to a temp file in the same folder, renamed into place (``os.replace``): a reader
  sees a whole entry or none, and two processes filling one entry both leave a whole one.
- **Size**: at most ``$GRADKIT_CACHE_SIZE`` (bytes, or ``500M``, ``2G``; default 512 MiB; any
  other value: the default, with a warning); past it the oldest entries go first (a hit keeps an
  entry young). Each process counts what it wrote since its last look at the folder, so the limit
  holds to within what other processes wrote meanwhile. Eviction removes only the folder's own
  regular ``*.gks`` files, never through a symlink.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ..._folders import distrust
from .cache_entry import (
    MAX_ENTRY_BYTES,
    Uncacheable,
    decode_entry,
    encode_entry,
    fields,
    function_id,
    key_text,
    scene_key,
    value_shape,
)
from .cache_places import (
    DEFAULT_LIMIT,
    CacheWarning,
    cache_folder,
    default_folder,
    distrust_folder,
    folder_state,
    places,
    size_limit,
)

__all__ = [
    "DEFAULT_LIMIT",
    "CacheWarning",
    "SceneCache",
    "cache_folder",
    "default_folder",
    "fields",
    "function_id",
    "scene_cache",
    "scene_key",
    "size_limit",
]

T = TypeVar("T")
SUFFIX, TEMP = ".gks", ".tmp-"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_MISS = object()


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
    own : path, optional
        The learner's own folder, where misses go when ``folder`` cannot be written or is not
        trusted. Default: :func:`default_folder`.

    Attributes
    ----------
    hits, misses, stores : int
        Entries read, computed (not found, or not trusted) and written by this object.
    """

    def __init__(
        self,
        folder: str | os.PathLike | None = None,
        limit: int | None = None,
        own: str | os.PathLike | None = None,
    ) -> None:
        self._folder = None if folder is None else Path(folder)
        self._own = None if own is None else Path(own)
        self._limit = limit
        self.hits = self.misses = self.stores = 0
        self._estimate: dict[Path, int] = {}  # bytes in a folder, as of our last scan + writes
        self._read_only: set[Path] = set()
        self._shapes: dict[str, Any] = {}  # family -> the shape of a value computed for it

    @property
    def folder(self) -> Path | None:
        """The folder of the entries (None: the cache is off)."""
        root = self._folder if self._folder is not None else cache_folder()
        return None if root is None else root / "scenes"

    @property
    def own_folder(self) -> Path:
        """The learner's own folder of entries, where misses go when :attr:`folder` is not
        trusted or cannot be written."""
        return (self._own if self._own is not None else default_folder()) / "scenes"

    @property
    def limit(self) -> int:
        """The size limit in bytes."""
        return self._limit if self._limit is not None else size_limit()

    @staticmethod
    def _name(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:40] + SUFFIX

    def path(self, key: tuple, text: str | None = None) -> Path | None:
        """The file of ``key``'s entry in :attr:`folder` (None: the cache is off)."""
        folder = self.folder
        return None if folder is None else folder / self._name(text or key_text(key))

    # ------------------------------------------------------------------------------- trust
    def state(self, folder: Path) -> str:
        """``folder``'s trust: :func:`~.cache_places.folder_state`."""
        return folder_state(folder)

    def trusted(self, folder: Path) -> bool:
        """Whether ``folder`` (a ``scenes/``) is there and may be read (:meth:`state`)."""
        return self.state(folder) == "trusted"

    def places(self) -> tuple[list[Path], Path | None]:
        """(the folders read, in order; the folder misses go to): :func:`~.cache_places.places`."""
        return places(self.folder, self.own_folder, self._read_only)

    # ------------------------------------------------------------------------------- fetch
    def fetch(
        self,
        key: tuple | None,
        compute: Callable[[], T],
        expect: Callable[[Any], bool] | None = None,
    ) -> T:
        """``compute()``'s value for ``key``: read when stored and intact, else computed, stored.

        ``key`` None (a function without a stable identity) computes and stores nothing. A value
        read must have the shape of what ``compute()`` returned for the same family (``key[0]``)
        in this process (tuples, lists, dicts and their keys, arrays' dtype and rank), and pass
        ``expect(value)`` when given; anything else is recomputed, never handed to a widget.
        """
        if key is None or self.folder is None:
            return compute()
        text = key_text(key)
        name = self._name(text)
        reads, write = self.places()
        for folder in reads:
            value = self._read(folder, name, text, touch=folder == write)
            if value is not _MISS and self._expected(key, value, expect):
                self.hits += 1
                return value
        value = compute()
        self._shapes.setdefault(str(key[0]), value_shape(value))
        self.misses += 1
        if write is not None and not self.store(write / name, text, value):
            again = self.places()[1]  # the folder turned out read-only: the learner's own
            if again is not None and again != write:
                self.store(again / name, text, value)
        return value

    def _expected(self, key: tuple, value: Any, expect: Callable[[Any], bool] | None) -> bool:
        """Whether a value read has the shape its family's values have (never an error)."""
        try:
            known = self._shapes.get(str(key[0]))
            return (known is None or known == value_shape(value)) and (
                expect is None or bool(expect(value))
            )
        except Exception:  # noqa: BLE001 - expect() on a value of another shape: not expected
            return False

    def _read(self, folder: Path, name: str, text: str, touch: bool) -> Any:
        """The value of the entry ``folder/name``, or _MISS (never an error)."""
        try:
            fd = os.open(folder / name, os.O_RDONLY | _NOFOLLOW)
        except OSError as error:
            if error.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink: never followed
                distrust_folder(folder.parent, f"its entry {folder / name} is a symlink")
            return _MISS
        try:
            info = os.fstat(fd)
            reason = distrust(info, "file")
            if reason is not None:
                distrust_folder(folder.parent, f"its entry {folder / name} {reason}")
                return _MISS
            if info.st_size > MAX_ENTRY_BYTES:  # no entry is this big: never read into memory
                return _MISS
            with os.fdopen(os.dup(fd), "rb") as handle:
                data = handle.read(MAX_ENTRY_BYTES + 1)  # it may have grown since fstat
            if len(data) > MAX_ENTRY_BYTES:
                return _MISS
            value = decode_entry(data, text)
            if touch and time.time() - info.st_mtime > 3600:  # keep a used entry young
                with contextlib.suppress(OSError, NotImplementedError):
                    os.utime(fd)
            return value
        except (OSError, ValueError):
            return _MISS  # any bytes but an entry of this key: recompute
        finally:
            os.close(fd)

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
            for part in (folder.parent, folder):
                if not part.exists() and not part.is_symlink():
                    with contextlib.suppress(FileExistsError):  # another kernel, just now
                        part.mkdir(parents=True)
                        os.chmod(part, 0o755)  # owner writes; a hub's learners read (any umask)
            if not self.trusted(folder):
                return False
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

    # ---------------------------------------------------------------------------- eviction
    def entries(self, folder: Path | None = None) -> list[tuple[float, int, Path]]:
        """(mtime, bytes, path) of every entry in ``folder`` (default: :attr:`folder`), oldest
        first; temp files a writer left more than 10 minutes ago are removed on the way.

        Only regular files named ``*.gks`` in a trusted folder count: a symlink (the folder or
        an entry) is never followed, so nothing outside the folder is ever touched.
        """
        folder = folder or self.folder
        found: list[tuple[float, int, Path]] = []
        if folder is None or not self.trusted(folder):
            return found
        with contextlib.suppress(OSError), os.scandir(folder) as scan:
            for item in scan:
                if not item.name.endswith(SUFFIX):
                    continue  # never anything but our own files
                with contextlib.suppress(OSError):
                    info = item.stat(follow_symlinks=False)
                    if not stat.S_ISREG(info.st_mode):
                        continue  # a symlink or anything else: not ours
                    if not item.name.startswith("."):
                        found.append((info.st_mtime, info.st_size, Path(item.path)))
                    elif item.name.startswith(TEMP) and time.time() - info.st_mtime > 600:
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
                path.unlink()  # a regular file (entries): unlink never follows a symlink
                total -= size
        return total

    def clear(self) -> None:
        """Remove every entry."""
        self.evict(0)


#: The cache every widget family uses.
scene_cache = SceneCache()
