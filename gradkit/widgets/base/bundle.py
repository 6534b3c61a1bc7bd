"""One ES module per widget family, from the plain ES files beside the code (no build step).

The browser files are real ES modules (``import {x} from "./y.js"``, ``export function``) so
``node --test`` imports them one by one. anywidget loads one module per widget class, so
:func:`bundle` joins a family's files, dependencies first, dropping their relative imports and
``export`` keywords, and appends ``export default { initialize, render, standIn }``: the
base's ``initialize`` (once per model: what its views share), its ``render(args, view)`` with
the family's view, and ``standIn(model, refused)``, which makes the model of a page with no
kernel answer from the answers saved with it (``standin.js``). Top-level names must be unique
across a bundle (a test checks it).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

__all__ = ["BASE_FILES", "bundle", "module_files"]

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


def module_files(*family_files: str) -> tuple[Path, ...]:
    """The base's files and then ``family_files`` (paths relative to ``gradkit/widgets``)."""
    return tuple(WIDGETS / name for name in (*BASE_FILES, *family_files))


def strip_module(source: str) -> str:
    """One ES module's text as part of a bundle: no relative imports, no ``export`` keywords
    (each removed with its line, or the keyword alone before a declaration at a line's start)."""
    source = _IMPORT.sub("", "\n" + source)
    source = _EXPORT_LIST.sub("", source)
    return _EXPORT.sub("\n", source)[1:]


@functools.cache
def bundle(view: str, *family_files: str) -> str:
    """The ES module of one widget family: base files, family files, ``export default``.

    ``view`` names the object (defined in a family file) the base's ``render`` draws with: its
    ``drawsFrom`` (the state keys it draws from), ``size(ctx)`` and ``paint(ctx)``, and the
    optional hooks ``host.js`` lists at its top (``init``, ``attached``, ``ready``, ...).
    """
    parts = [
        f"// ---- {path.relative_to(WIDGETS)}\n" + strip_module(path.read_text(encoding="utf-8"))
        for path in module_files(*family_files)
    ]
    parts.append(
        "export default {\n"
        "  initialize: (args) => initialize(args),\n"
        f"  render: (args) => render(args, {view}),\n"
        f"  standIn: (model, refused) => standIn(model, {view}, refused),\n"
        "};\n"
    )
    return "\n".join(parts)
