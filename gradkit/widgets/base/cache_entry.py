"""One scene-cache entry: its key (:func:`scene_key`, :func:`key_text`) and its file format.

- **Key**: the family's parts (family, function, x, dtypes, eps grid, ...; strings, numbers,
  dtypes and sequences of them) behind this format's version, gradkit's and torch's versions,
  the CPU capability torch's kernels use (float32 sums round differently on AVX2 and AVX-512)
  and the SHA-256 of gradkit's Python sources, as JSON.
- **File**: ``GKSCENE\\n``, the header's length (uint32, little-endian), the header (JSON: the
  full key, the numbers, the arrays' layout of :func:`.tables.pack`), the SHA-256 of header +
  arrays, the arrays. Only a dict of numbers and float64/float32 arrays is stored, exactly.
"""

from __future__ import annotations

import functools
import hashlib
import json
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ...zoo import CATALOGUE, scalar_functions
from .functions import function_owner
from .tables import pack, unpack

__all__ = [
    "FORMAT",
    "MAX_ENTRY_BYTES",
    "Uncacheable",
    "decode_entry",
    "encode_entry",
    "fields",
    "function_id",
    "key_text",
    "scene_key",
]

#: Bumped whenever the file layout or the meaning of a stored value changes (it leads the key).
FORMAT = 2
MAGIC = b"GKSCENE\n"
_ARRAY_KINDS = ("float64", "float32")
#: The most bytes one entry file may hold (a scene's entry is some 100 KiB): a larger file is
#: never read (its size is checked before reading) and a larger value never stored.
MAX_ENTRY_BYTES = 32 * 2**20


class Uncacheable(TypeError):  # noqa: N818 - not an error the learner sees: "store nothing"
    """A value the cache cannot hold exactly (it is returned, never stored)."""


def function_id(f: Callable) -> str | None:
    """What ``f`` is, stable across processes, or None when it has no stable identity.

    ``"menu:x²"`` for a built-in menu function, ``"zoo:CubeFn"`` for a zoo Function (its class
    or ``apply``) whose results are deterministic; None for anything else (a learner's own).
    """
    owner = function_owner(f)
    if owner is not None:
        entry = CATALOGUE.get(owner.__name__)
        if entry is None or entry.function is not owner:
            return None
        deterministic = "nondeterministic" not in entry.expected_cause.values()
        return f"zoo:{owner.__name__}" if deterministic else None
    code = getattr(f, "__code__", None)
    for label, g in scalar_functions().items():
        same_code = code is not None and code is getattr(g, "__code__", None)
        if f is g or (same_code and not f.__closure__ and f.__defaults__ == g.__defaults__):
            return f"menu:{label}"
    return None


def scene_key(family: str, f: Callable, *parts: Any) -> tuple | None:
    """The key of ``family``'s scene of ``f`` (None, never cached, when ``f`` has no identity)."""
    name = function_id(f)
    return None if name is None else (family, name, *parts)


@functools.cache
def _fingerprint() -> str:
    """SHA-256 of gradkit's Python sources."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _dtype_part(value: Any) -> str:
    if isinstance(value, torch.dtype):
        return str(value)
    raise TypeError(f"a scene key holds str, numbers, dtypes and sequences, not {value!r}")


def key_text(key: tuple) -> str:
    """The full key as stored: the family's parts and the versions they were computed with."""
    gradkit = sys.modules[__name__.split(".")[0]]  # loaded before any of its modules
    cpu = torch.backends.cpu.get_cpu_capability()
    full = [FORMAT, gradkit.__version__, torch.__version__, cpu, _fingerprint(), *key]
    return json.dumps(
        full, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_dtype_part
    )


# ---------------------------------------------------------------------------------- values
def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_layout(spec: Any) -> bool:
    """Whether ``spec`` is one array's layout (:func:`.tables.unpack` checks the rest)."""
    keys = {"offset", "shape", "dtype"}
    return isinstance(spec, dict) and set(spec) == keys and spec["dtype"] in _ARRAY_KINDS


def encode_entry(text: str, value: Any) -> bytes:
    """One entry file: magic, header length, header, SHA-256 of header + arrays, arrays."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise Uncacheable("only a dict of numbers and arrays is stored")
    numbers = {k: v for k, v in value.items() if _is_number(v)}
    arrays = {
        k: v for k, v in value.items() if isinstance(v, np.ndarray) and v.dtype.name in _ARRAY_KINDS
    }
    if len(numbers) + len(arrays) != len(value):
        raise Uncacheable("only numbers and float64 or float32 arrays are stored")
    buffer, layout = pack(arrays)
    header = {"key": text, "numbers": numbers, "layout": layout}
    head = json.dumps(header, separators=(",", ":")).encode()
    digest = hashlib.sha256(head + buffer).digest()
    entry = MAGIC + struct.pack("<I", len(head)) + head + digest + buffer
    if len(entry) > MAX_ENTRY_BYTES:
        raise Uncacheable(f"an entry of {len(entry)} bytes is over {MAX_ENTRY_BYTES}")
    return entry


def decode_entry(data: bytes, text: str) -> dict[str, Any]:
    """The value of an entry for key ``text``; ValueError for anything not exactly that.

    Any ``data`` at all gives the value or a ValueError, never another error (a property test
    feeds it arbitrary bytes): the header may be any JSON a forger wrote under a valid digest.
    """
    start = len(MAGIC) + 4
    if len(data) < start or not data.startswith(MAGIC):
        raise ValueError("not a gradkit scene entry")
    (size,) = struct.unpack("<I", data[len(MAGIC) : start])
    head, digest = data[start : start + size], data[start + size : start + size + 32]
    buffer = data[start + size + 32 :]
    if len(digest) != 32 or hashlib.sha256(head + buffer).digest() != digest:
        raise ValueError("truncated or corrupt entry")
    try:
        header = json.loads(head)  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        if not isinstance(header, dict) or header.get("key") != text:
            raise ValueError("an entry of another key, format or shape")
        numbers, layout = header.get("numbers"), header.get("layout")
        if not isinstance(numbers, dict) or not all(map(_is_number, numbers.values())):
            raise ValueError("numbers of another kind")
        if not isinstance(layout, dict) or not all(map(_is_layout, layout.values())):
            raise ValueError("arrays of another kind")
        return {**numbers, **unpack(buffer, layout)}
    except (ArithmeticError, LookupError, TypeError, RecursionError, MemoryError) as error:
        raise ValueError(f"not a gradkit scene entry ({type(error).__name__})") from None


def fields(**kinds: type | tuple[str, tuple[int, ...]]) -> Callable[[Any], bool]:
    """A :meth:`~.cache.SceneCache.fetch` ``expect``: a dict of exactly these keys, each a number
    (``float``: an int or float, never a bool) or an array of a dtype and shape (``("float64",
    (2, 4))``). What a family's compute returns, declared: a value read from disk is checked
    against it before the widget sees it."""

    def one(value: Any, kind: type | tuple[str, tuple[int, ...]]) -> bool:
        if kind is float:
            return _is_number(value)
        dtype, shape = kind  # type: ignore[misc]
        return isinstance(value, np.ndarray) and value.dtype.name == dtype and value.shape == shape

    def expect(value: Any) -> bool:
        return (
            isinstance(value, dict)
            and set(value) == set(kinds)
            and all(one(value[k], kind) for k, kind in kinds.items())
        )

    return expect
