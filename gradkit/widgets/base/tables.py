"""Tables computed ahead, as the page receives them (``tables.js`` beside this file decodes them).

A scene's arrays travel in one binary buffer: float64 for every number a readout shows, float32
where only pixels depend on it. :func:`pack` lays them out one after another, 8-byte aligned,
with the layout ``{name: {"offset", "shape", "dtype"}}`` that goes into ``scene["tables"]``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["json_safe", "pack", "unpack"]


def pack(arrays: Mapping[str, np.ndarray]) -> tuple[bytes, dict[str, dict]]:
    """Arrays as one buffer (C order, each 8-byte aligned; float32 stays float32, the rest is
    float64) and its layout."""
    layout: dict[str, dict] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, array in arrays.items():
        kind = np.float32 if np.asarray(array).dtype == np.float32 else np.float64
        data = np.ascontiguousarray(array, dtype=kind)
        layout[name] = {"offset": offset, "shape": list(data.shape), "dtype": data.dtype.name}
        pad = -data.nbytes % 8
        chunks.append(data.tobytes() + b"\0" * pad)
        offset += data.nbytes + pad
    return b"".join(chunks), layout


def unpack(buffer: bytes, layout: Mapping[str, Mapping]) -> dict[str, np.ndarray]:
    """The arrays of :func:`pack` (read-only views into ``buffer``)."""
    out = {}
    for name, spec in layout.items():
        shape = tuple(spec["shape"])
        count = int(np.prod(shape)) if shape else 1
        kind = np.dtype(spec.get("dtype", "float64"))
        out[name] = np.frombuffer(buffer, kind, count, spec["offset"]).reshape(shape)
    return out


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        return json_safe(value.item())
    return value
