"""One ES module per widget family, from the plain ES files beside the code (no build step).

The browser files are real ES modules, so ``node --test`` imports them one by one; anywidget
loads one module per widget class, so :func:`bundle` joins a family's files, dependencies first,
drops their relative imports and ``export`` keywords, and appends ``export default {
initialize, render, standIn }``. Top-level names must be unique across a bundle (a test checks it).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["BASE_FILES", "bundle"]

HERE = Path(__file__).parent
WIDGETS = HERE.parent

#: The base's files, dependencies first.
BASE_FILES: tuple[str, ...] = (
    "base/format.js",
    "base/eps.js",
    "base/tables.js",
    "base/theme.js",
    "base/fit.js",
    "base/plot.js",
    "base/controls.js",
    "base/page.js",
    "base/host.js",
    "base/standin.js",
)

# Each pattern starts with the newline before its line (the text gets one in front): a literal
# start the regex engine finds by a fast scan, where "^" with re.M tries every position (4x
# slower over a family's 90 kB). A match leaves the newline after it for the next line's match.
_IMPORT = re.compile(r"\nimport\s[^;]*?from\s*[\"'][^\"']+[\"'];?[ \t]*(?=\n)", re.S)
_EXPORT = re.compile(r"\nexport\s+(?=(?:async\s+)?(?:function|const|let|class)\b)")
_EXPORT_LIST = re.compile(r"\nexport\s*\{[^}]*\};?[ \t]*(?=\n)")


def strip_module(source: str) -> str:
    """One ES module's text as part of a bundle: no relative imports, no ``export`` keywords."""
    source = _IMPORT.sub("", "\n" + source)
    source = _EXPORT_LIST.sub("", source)
    return _EXPORT.sub("\n", source)[1:]


@functools.cache
def bundle(view: str, *family_files: str) -> str:
    """The ES module of one widget family: base files, family files, ``export default``
    (``view`` names the family's object that the base's ``render`` draws with)."""
    parts = [
        f"// ---- {name}\n" + strip_module((WIDGETS / name).read_text(encoding="utf-8"))
        for name in (*BASE_FILES, *family_files)
    ]
    parts.append(
        "export default {\n"
        "  initialize: (args) => initialize(args),\n"
        f"  render: (args) => render(args, {view}),\n"
        f"  standIn: (model, refused) => standIn(model, {view}, refused),\n"
        "};\n"
    )
    return "\n".join(parts)
