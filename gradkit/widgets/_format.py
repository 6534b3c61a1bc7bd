"""Numbers and readouts as the widgets print them, and typed numbers parsed back.

The browser half prints with the same rules (``pyFormat`` in ``static/base.js``), so a readout
reads the same whether Python or the browser wrote it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._args import EPS_GRID

__all__ = [
    "InputError",
    "eps_label",
    "fmt",
    "fmt_eps",
    "fmt_plain",
    "json_safe",
    "pack_strings",
    "parse_positive",
    "readout_html",
    "scene_row",
    "unpack_strings",
]


class InputError(ValueError):
    """A value typed into a control that cannot be used; shown without a traceback."""


def eps_label(index: int) -> str:
    """The grid eps at ``index`` exactly as the controls show it: ``1e-07``, ``0.001``."""
    return fmt_eps(EPS_GRID[index])


def fmt_eps(eps: float) -> str:
    """eps the way a learner types it: ``1e-06``, ``3.16e-07``, ``0.001``."""
    return f"{eps:.3g}"


def fmt_plain(value: float) -> str:
    """A number written out without exponent, e.g. 1e-06 -> 0.000001."""
    if not math.isfinite(value):
        return str(value)
    return np.format_float_positional(value, trim="-")


def fmt(value: float, spec: str = ".3g") -> str:
    """A number for a readout; NaN and inf spelled out (static/base.js pyFormat does the same)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return format(value, spec)


def readout_html(label: str, value: str, detail: str = "") -> str:
    """Label, value and a grey detail, the shared readout layout."""
    extra = f" <span class='gk-r-detail'>{detail}</span>" if detail else ""
    return f"<span class='gk-r-label'>{label}</span>&nbsp; <b>{value}</b>{extra}"


def parse_positive(text: str, name: str, lo: float, hi: float) -> float:
    """Parse a typed number such as ``1e-6``; raise InputError with a clear message otherwise."""
    cleaned = str(text).strip().replace("−", "-").replace(" ", "")
    try:
        value = float(cleaned)
    except ValueError:
        raise InputError(
            f"{name} must be a number written like 1e-6 or 0.001; “{html.escape(str(text))}” "
            "is not one"
        ) from None
    if not math.isfinite(value) or not lo <= value <= hi:
        raise InputError(f"{name} must be between {lo:g} and {hi:g}; got {cleaned}")
    return value


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


def pack_strings(rows: Sequence[Sequence]) -> tuple[list, list[int]]:
    """Deduplicate the cells of ``rows``: the distinct values and each cell's index into them.

    Every row of a scene's table has its readouts as Python formatted them; most rows share most
    of them (the analytic slope, the eps, the tolerance), so the browser gets each distinct string
    once and a flat list of indices, row after row (``index[row * len(cells) + k]``).
    """
    position: dict = {}
    index = [position.setdefault(cell, len(position)) for cells in rows for cell in cells]
    return list(position), index


def scene_row(scene: dict, s: int, d: int, g: int) -> int:
    """The row of (scheme s, dtype d, grid eps g) in a scene table laid out [S][D][G].

    The same as ``sceneRow`` in static/base.js.
    """
    return (s * scene["D"] + d) * scene["G"] + g


def unpack_strings(scene: dict, index_key: str, row: int) -> dict[str, str]:
    """Row ``row`` of strings packed by :func:`pack_strings`: each of ``scene["keys"]``, its text.

    ``scene[index_key]`` holds the flat indices into ``scene["strings"]``. The same as
    ``unpackStrings`` in static/base.js.
    """
    keys = scene["keys"]
    start = row * len(keys)
    return {k: scene["strings"][scene[index_key][start + i]] for i, k in enumerate(keys)}
