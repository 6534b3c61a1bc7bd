"""A notebook's cells as static HTML: markdown rendered, code highlighted, outputs shown.

- Markdown: :mod:`.markdown` (mistune; formulas drawn by :mod:`.math`, HTML made safe).
- Code: read-only, highlighted by pygments (:mod:`.highlight`, the same as fenced code).
- Outputs: text, stderr as a warning box, errors, images, HTML and markdown; a widget's view goes
  to :class:`~.widgets.PageWidgets` (live, or a note saying it needs a running notebook). An
  output's HTML is cleaned as a markdown cell's is (:mod:`.safe_html`): a notebook's outputs are
  written by whatever code it ran, so they are published by the same allow-list.

A cell's outputs together show at most :data:`MAX_CELL_OUTPUT` characters (text, HTML, a
picture's data): what is past it is cut, the page says so under the cell and ``warn`` gets one
line naming the cell, so a cell that prints 100 MB makes no 100 MB page.

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

__all__ = [
    "MAX_CELL_OUTPUT",
    "NOTEBOOK_ONLY",
    "Budget",
    "cell_html",
    "output_html",
    "public_text",
    "shown_cells",
]

#: The tag of a cell that only makes sense in a running notebook: not exported.
NOTEBOOK_ONLY = "notebook-only"
#: The characters one cell's outputs may show on a page (4 Mi: pages of text, a dozen plots).
MAX_CELL_OUTPUT = 4 * 2**20
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


class Budget:
    """What is left of a cell's :data:`MAX_CELL_OUTPUT` characters, and how many were cut."""

    def __init__(self, limit: int = MAX_CELL_OUTPUT) -> None:
        self.limit, self.left, self.cut = limit, limit, 0

    def take(self, text: str) -> str:
        """``text``, or as much of its start as is left."""
        shown = text[: self.left]
        self.left -= len(shown)
        self.cut += len(text) - len(shown)
        return shown

    def fits(self, size: int) -> bool:
        """Whether a whole piece of ``size`` characters (a picture) fits; if not, it is cut."""
        if size <= self.left:
            self.left -= size
            return True
        self.cut += size
        return False

    def note(self) -> str:
        """The line under a cell whose outputs were cut (empty when nothing was)."""
        if not self.cut:
            return ""
        return (
            f'<p class="gk-site-cut" role="note">{self.cut:,} characters of this cell\'s output '
            f"were cut here: a page shows the first {self.limit:,} of a cell's output.</p>"
        )


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
    budget: Budget | None = None,
) -> str:
    """One output of a code cell as HTML (empty for one with nothing a page can show).

    ``folder`` and ``warn`` are for a markdown output (see :func:`~.markdown.markdown_html`);
    ``budget`` is what is left of its cell's characters (a fresh :class:`Budget` if not given).
    """
    budget = budget if budget is not None else Budget()
    kind = output.get("output_type")
    if kind == "stream":
        text = budget.take(_text(output.get("text", "")))
        if output.get("name") == "stderr":
            body = _pre(text, "gk-site-stderr-text")
            return f'<div class="gk-site-stderr" role="note">{body}</div>'
        return _pre(text, "gk-site-stdout")
    if kind == "error":
        trace = "\n".join(
            output.get("traceback") or [f"{output.get('ename')}: {output.get('evalue')}"]
        )
        shown = _pre(budget.take(trace), "gk-site-trace")
        return f'<div class="gk-site-error" role="alert">{shown}</div>'
    return _data_html(output.get("data") or {}, widgets, folder, warn, budget)


def _data_html(
    data: dict, widgets: PageWidgets, folder: Path, warn: Callable[[str], None], budget: Budget
) -> str:
    """A display's richest form a static page can show."""
    if VIEW_MIME in data:
        return widgets.view_html(str(data[VIEW_MIME].get("model_id", "")))
    if "text/html" in data:
        raw = RawHTML(lambda url: image_src(url, folder, None, warn))
        text = budget.take(_text(data["text/html"]))
        return f'<div class="gk-site-html">{raw.clean(text)}{raw.close()}</div>'
    if "image/svg+xml" in data:
        svg = _text(data["image/svg+xml"]).encode()
        uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
        return _picture(uri, budget)
    for mime in _IMAGES:
        if mime in data:
            return _picture(html.escape(f"data:{mime};base64,{_text(data[mime]).strip()}"), budget)
    if "text/markdown" in data:
        text = markdown_html(budget.take(_text(data["text/markdown"])), folder, None, warn)
        return f'<div class="gk-site-html">{text}</div>'
    if "text/latex" in data:
        return math_html(budget.take(_text(data["text/latex"])).strip().strip("$"), display=True)
    if "application/json" in data:
        text = json.dumps(data["application/json"], indent=2)
        return _pre(budget.take(text), "gk-site-stdout")
    if "text/plain" in data:
        return _pre(budget.take(_text(data["text/plain"])), "gk-site-stdout")
    return ""


def _picture(uri: str, budget: Budget) -> str:
    """A picture the code drew, whole, or nothing when it does not fit the cell's budget."""
    if not budget.fits(len(uri)):
        return ""
    return f'<img class="gk-site-image" src="{uri}" alt="a picture the code drew">'


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
    budget = Budget()
    outputs = "".join(
        output_html(out, widgets, folder, warn, budget) for out in cell.get("outputs", [])
    )
    if budget.cut:
        first = (source.strip().splitlines() or [""])[0][:60]
        warn(
            f"the cell '{first}' output {budget.limit + budget.cut:,} characters; its page shows "
            f"the first {budget.limit:,} and says so (make the cell print less to show it all)"
        )
        outputs += budget.note()
    code = code_html(source) if source.strip() else ""
    shown = f'<div class="gk-site-outputs">{outputs}</div>' if outputs else ""
    label = '<span class="gk-site-code-label">code</span>' if code else ""
    return (
        f'<section class="gk-site-cell gk-site-code">{label}'
        f'<div class="gk-site-source">{code}</div>{shown}</section>'
    )
