"""A notebook's cells as static HTML: markdown rendered, code highlighted, outputs shown.

- Markdown: :mod:`.markdown` (mistune; formulas drawn by :mod:`.math`, HTML made safe).
- Code: read-only, highlighted by pygments (:mod:`.highlight`, the same as fenced code).
- Outputs: text, stderr as a warning box, errors, images, HTML and markdown; a widget's view goes
  to :class:`~.widgets.PageWidgets` (live, or a note saying it needs a running notebook). An
  output's HTML is cleaned as a markdown cell's is (:mod:`.safe_html`): a notebook's outputs are
  written by whatever code it ran, so they are published by the same allow-list.

Cells tagged :data:`NOTEBOOK_ONLY` (instructions about running code) are left out.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .highlight import code_html
from .markdown import image_src, markdown_html
from .math import math_html
from .safe_html import RawHTML
from .widgets import VIEW_MIME, PageWidgets

__all__ = ["NOTEBOOK_ONLY", "cell_html", "output_html", "public_text", "shown_cells"]

#: The tag of a cell that only makes sense in a running notebook: not exported.
NOTEBOOK_ONLY = "notebook-only"
_IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_INSTALLED = re.compile(r"(?:[A-Za-z]:)?[\\/][^\s\"':]*?[\\/](site|dist)-packages(?=[\\/])")


def shown_cells(notebook: Any) -> list[Any]:
    """The cells a page shows: every cell but those tagged ``notebook-only``."""
    return [
        c for c in notebook["cells"] if NOTEBOOK_ONLY not in c.get("metadata", {}).get("tags", [])
    ]


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def public_text(text: str) -> str:
    """Printed text fit to publish: no terminal colour codes, no path of the exporting machine.

    ``/home/me/venv/lib/python3.11/site-packages/torch/x.py`` becomes ``…/site-packages/torch/x.py``
    and the home folder ``~``.
    """
    text = _INSTALLED.sub(lambda m: f"…/{m.group(1)}-packages", _ANSI.sub("", text))
    home = str(Path.home()).rstrip("/\\")
    return text.replace(home + "/", "~/").replace(home + "\\", "~\\") if home else text


def _pre(text: str, css: str) -> str:
    """Text as it was printed (:func:`public_text`), HTML-escaped."""
    return f'<pre class="{css}">{html.escape(public_text(text))}</pre>'


def _ignore(_line: str) -> None:
    return None


def output_html(
    output: Any,
    widgets: PageWidgets,
    folder: Path = Path("."),
    warn: Callable[[str], None] = _ignore,
) -> str:
    """One output of a code cell as HTML (empty for one with nothing a page can show).

    ``folder`` and ``warn`` are for a markdown output (see :func:`~.markdown.markdown_html`).
    """
    kind = output.get("output_type")
    if kind == "stream":
        if output.get("name") == "stderr":
            body = _pre(_text(output.get("text", "")), "gk-site-stderr-text")
            return f'<div class="gk-site-stderr" role="note">{body}</div>'
        return _pre(_text(output.get("text", "")), "gk-site-stdout")
    if kind == "error":
        trace = "\n".join(
            output.get("traceback") or [f"{output.get('ename')}: {output.get('evalue')}"]
        )
        return f'<div class="gk-site-error" role="alert">{_pre(trace, "gk-site-trace")}</div>'
    return _data_html(output.get("data") or {}, widgets, folder, warn)


def _data_html(data: dict, widgets: PageWidgets, folder: Path, warn: Callable[[str], None]) -> str:
    """A display's richest form a static page can show."""
    if VIEW_MIME in data:
        return widgets.view_html(str(data[VIEW_MIME].get("model_id", "")))
    if "text/html" in data:
        raw = RawHTML(lambda url: image_src(url, folder, None, warn))
        return f'<div class="gk-site-html">{raw.clean(_text(data["text/html"]))}{raw.close()}</div>'
    if "image/svg+xml" in data:
        svg = _text(data["image/svg+xml"]).encode()
        uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
        return f'<img class="gk-site-image" src="{uri}" alt="a picture the code drew">'
    for mime in _IMAGES:
        if mime in data:
            uri = html.escape(f"data:{mime};base64,{_text(data[mime]).strip()}")
            return f'<img class="gk-site-image" src="{uri}" alt="a picture the code drew">'
    if "text/markdown" in data:
        text = markdown_html(_text(data["text/markdown"]), folder, None, warn)
        return f'<div class="gk-site-html">{text}</div>'
    if "text/latex" in data:
        return math_html(_text(data["text/latex"]).strip().strip("$"), display=True)
    if "application/json" in data:
        return _pre(json.dumps(data["application/json"], indent=2), "gk-site-stdout")
    if "text/plain" in data:
        return _pre(_text(data["text/plain"]), "gk-site-stdout")
    return ""


def cell_html(
    cell: Any,
    widgets: PageWidgets,
    folder: Path = Path("."),
    warn: Callable[[str], None] = _ignore,
) -> str:
    """One cell as HTML: markdown rendered (``warn``: its images left out), or code and outputs."""
    source = _text(cell.get("source", ""))
    if cell.get("cell_type") == "markdown":
        text = markdown_html(source, folder, cell.get("attachments"), warn)
        return f'<section class="gk-site-cell gk-site-markdown">{text}</section>'
    if cell.get("cell_type") != "code":
        return ""  # a raw cell: meant for a converter, not for readers
    outputs = "".join(output_html(out, widgets, folder, warn) for out in cell.get("outputs", []))
    code = code_html(source) if source.strip() else ""
    shown = f'<div class="gk-site-outputs">{outputs}</div>' if outputs else ""
    label = '<span class="gk-site-code-label">code</span>' if code else ""
    return (
        f'<section class="gk-site-cell gk-site-code">{label}'
        f'<div class="gk-site-source">{code}</div>{shown}</section>'
    )
