"""One scene-cache entry: its key (:func:`scene_key`, :func:`key_text`) and its file format.

:mod:`.cache` (beside this file) keeps entries on disk; here is what an entry is:

- **Key**: the family's parts (family, function, x, dtypes, eps grid, ...) behind this format's
  version, gradkit's and torch's versions, the CPU capability torch's kernels use
  (``torch.backends.cpu.get_cpu_capability()``: float32 sums round differently on AVX2 and
  AVX-512) and the SHA-256 of gradkit's Python sources, as canonical JSON. A function is a key
  part only when it has a stable identity (:func:`function_id`: a built-in menu function or a
  deterministic zoo entry); a learner's own function has none, and its scenes are never cached.
- **File**: ``GKSCENE\\n``, the header's length (uint32, little-endian), the header (JSON: format,
  the full key, the value with each array replaced by a reference, the arrays' layout of
  :func:`.tables.pack`), the SHA-256 of header + arrays, the arrays (float64 and float32 only,
  stored exactly). :func:`decode_entry` trusts nothing: magic, digest, format, key, lengths,
  the header's and the value's shape, and every array's shape against the buffer are checked;
  any bytes that are not exactly an entry of the key are a ``ValueError`` (and nothing else).
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ...zoo import CATALOGUE, scalar_functions
from .functions import _function_owner
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
    "value_shape",
]

#: Bumped whenever the file layout or the meaning of a stored value changes.
FORMAT = 1
MAGIC = b"GKSCENE\n"
_ARRAY_KINDS = ("float64", "float32")
#: The most bytes one entry file may hold (a scene's entry is some 100 KiB): a larger file is
#: never read (its size is checked before reading) and a larger value never stored.
MAX_ENTRY_BYTES = 32 * 2**20
#: How deep a stored value may nest (gradkit's scenes nest 3 deep); deeper is not an entry.
MAX_DEPTH = 32
_HEADER = {"format", "key", "value", "layout", "nbytes"}
_FINGERPRINT: list[str] = []


class Uncacheable(TypeError):  # noqa: N818 - not an error the learner sees: "store nothing"
    """A value the cache cannot hold exactly (it is returned, never stored)."""


def function_id(f: Callable) -> str | None:
    """What ``f`` is, stable across processes, or None when it has no stable identity.

    ``"menu:x²"`` for a built-in menu function, ``"zoo:CubeFn"`` for a zoo Function (its class
    or ``apply``) whose results are deterministic; None for anything else (a learner's own).
    """
    owner = _function_owner(f)
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


def _fingerprint() -> str:
    """SHA-256 of gradkit's Python sources (computed once per process)."""
    if not _FINGERPRINT:
        root = Path(__file__).resolve().parents[2]
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
        _FINGERPRINT.append(digest.hexdigest())
    return _FINGERPRINT[0]


def _part(value: Any) -> Any:
    """A key part in its canonical JSON form (TypeError for anything without one)."""
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_part(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    raise TypeError(f"a scene key holds str, numbers, dtypes and sequences, not {value!r}")


def key_text(key: tuple) -> str:
    """The full key as stored: the family's parts and the versions they were computed with."""
    gradkit = sys.modules[__name__.split(".")[0]]  # loaded before any of its modules
    cpu = torch.backends.cpu.get_cpu_capability()
    full = [FORMAT, gradkit.__version__, torch.__version__, cpu, _fingerprint(), *_part(list(key))]
    return json.dumps(full, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


# ---------------------------------------------------------------------------------- values
def _encode(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    """``value`` as JSON, its arrays moved into ``arrays`` (Uncacheable when not exact)."""
    if isinstance(value, np.ndarray):
        if value.dtype.name not in _ARRAY_KINDS:
            raise Uncacheable(f"arrays of {value.dtype} are not stored")
        arrays[str(len(arrays))] = value
        return {"$a": str(len(arrays) - 1)}
    if isinstance(value, tuple):
        return {"$t": [_encode(v, arrays) for v in value]}
    if isinstance(value, list):
        return [_encode(v, arrays) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"$d": {k: _encode(v, arrays) for k, v in value.items()}}
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    raise Uncacheable(f"{type(value).__name__} values are not stored")


def _decode(tree: Any, arrays: dict[str, np.ndarray], depth: int = 0) -> Any:
    """The value :func:`_encode` took apart (ValueError when the tree is not one)."""
    if depth > MAX_DEPTH:
        raise ValueError("a value nested deeper than any scene")
    if isinstance(tree, list):
        return [_decode(v, arrays, depth + 1) for v in tree]
    if isinstance(tree, dict):
        if len(tree) != 1:
            raise ValueError("not an encoded value")
        ((tag, inner),) = tree.items()
        if tag == "$a" and isinstance(inner, str) and inner in arrays:
            return arrays[inner]
        if tag == "$t" and isinstance(inner, list):
            return tuple(_decode(v, arrays, depth + 1) for v in inner)
        if tag == "$d" and isinstance(inner, dict):
            return {k: _decode(v, arrays, depth + 1) for k, v in inner.items()}
        raise ValueError("not an encoded value")
    return tree


def encode_entry(text: str, value: Any) -> bytes:
    """One entry file: magic, header length, header, SHA-256 of header + arrays, arrays."""
    arrays: dict[str, np.ndarray] = {}
    tree = _encode(value, arrays)
    buffer, layout = pack(arrays)
    header = {"format": FORMAT, "key": text, "value": tree, "layout": layout, "nbytes": len(buffer)}
    head = json.dumps(header, separators=(",", ":")).encode()
    digest = hashlib.sha256(head + buffer).digest()
    entry = MAGIC + struct.pack("<I", len(head)) + head + digest + buffer
    if len(entry) > MAX_ENTRY_BYTES:
        raise Uncacheable(f"an entry of {len(entry)} bytes is over {MAX_ENTRY_BYTES}")
    return entry


def decode_entry(data: bytes, text: str) -> Any:
    """The value of an entry for key ``text``; ValueError for anything not exactly that.

    Any ``data`` at all gives the value or a ValueError, never another error (a property test
    feeds it arbitrary bytes): the header may be any JSON a forger wrote under a valid digest.
    """
    try:
        return _decode_entry(bytes(data), text)
    except ValueError:
        raise
    except (
        TypeError,
        KeyError,
        IndexError,
        AttributeError,
        RecursionError,
        OverflowError,
        MemoryError,
        struct.error,
    ) as error:
        raise ValueError(f"not a gradkit scene entry ({type(error).__name__})") from None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _decode_entry(data: bytes, text: str) -> Any:
    start = len(MAGIC) + 4
    if len(data) < start or not data.startswith(MAGIC):
        raise ValueError("not a gradkit scene entry")
    (size,) = struct.unpack("<I", data[len(MAGIC) : start])
    head, digest = data[start : start + size], data[start + size : start + size + 32]
    buffer = data[start + size + 32 :]
    if len(digest) != 32 or hashlib.sha256(head + buffer).digest() != digest:
        raise ValueError("truncated or corrupt entry")
    header = json.loads(head)  # UnicodeDecodeError and JSONDecodeError are ValueErrors
    if not isinstance(header, dict) or set(header) != _HEADER:
        raise ValueError("a header of another shape")
    if header["format"] != FORMAT or header["key"] != text:
        raise ValueError("an entry for another key or format")
    if header["nbytes"] != len(buffer) or not isinstance(header["layout"], dict):
        raise ValueError("arrays of the wrong length")
    for spec in header["layout"].values():
        _check_array(spec, len(buffer))
    return _decode(header["value"], unpack(buffer, header["layout"]))


def _check_array(spec: Any, nbytes: int) -> None:
    """ValueError unless ``spec`` is one array's layout lying inside a buffer of ``nbytes``."""
    if not isinstance(spec, dict) or set(spec) != {"offset", "shape", "dtype"}:
        raise ValueError("an array of another kind or shape")
    shape, offset = spec["shape"], spec["offset"]
    if spec["dtype"] not in _ARRAY_KINDS or not isinstance(shape, list):
        raise ValueError("an array of another kind or shape")
    if not all(map(_is_count, shape)) or not _is_count(offset):
        raise ValueError("an array of another kind or shape")
    itemsize = np.dtype(spec["dtype"]).itemsize
    # the array's bytes: offset .. offset + prod(shape) * itemsize, inside the buffer
    if offset % itemsize or offset + math.prod(shape) * itemsize > nbytes:
        raise ValueError("array shapes off the buffer")


def fields(**kinds: type | tuple[str, tuple[int, ...]]) -> Callable[[Any], bool]:
    """A :meth:`~.cache.SceneCache.fetch` ``expect``: a dict of exactly these keys, each a number
    (``float``: an int or float, never a bool) or an array of a dtype and shape (``("float64",
    (2, 4))``). What a family's compute returns, declared: a value read from disk is checked
    against it before the widget sees it, in a process that has computed none yet too."""

    def one(value: Any, kind: type | tuple[str, tuple[int, ...]]) -> bool:
        if kind is float:
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        dtype, shape = kind  # type: ignore[misc]
        return isinstance(value, np.ndarray) and value.dtype.name == dtype and value.shape == shape

    def expect(value: Any) -> bool:
        return (
            isinstance(value, dict)
            and set(value) == set(kinds)
            and all(one(value[k], kind) for k, kind in kinds.items())
        )

    return expect


def value_shape(value: Any, depth: int = 0) -> Any:
    """What a value is made of, without its numbers: containers, dict keys, arrays' dtype and
    rank, and each leaf's kind (a number, None and a bool are one kind: a reading may be any)."""
    if depth > 32:
        raise ValueError("nested deeper than any scene")
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.ndim)
    if isinstance(value, tuple):
        return ("tuple", *(value_shape(v, depth + 1) for v in value))
    if isinstance(value, list):
        return ("list",)  # its entries may differ from x to x
    if isinstance(value, dict):
        return ("dict", *sorted((k, repr(value_shape(v, depth + 1))) for k, v in value.items()))
    return "text" if isinstance(value, str) else "number"
