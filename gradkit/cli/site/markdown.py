"""Markdown cells as HTML: mistune with tables and formulas, images embedded, headings linked.

mistune (which Jupyter's nbconvert uses, installed with it) renders the text; formulas
(``$...$``, ``$$...$$``) are drawn by :mod:`.math`; fenced code is highlighted like code cells;
an image from the notebook's folder or an ``attachment:`` becomes a data URI, so the site has
no loose files; each heading gets an id and a ``¶`` link to it. HTML in the text is kept, as
Jupyter shows it.
"""

from __future__ import annotations

import base64
import html
import mimetypes
import re
from pathlib import Path
from typing import Any

from .math import math_html

__all__ = ["markdown_html", "slug"]

_PLUGINS = ["strikethrough", "table", "url", "task_lists", "def_list", "math"]


def slug(text: str) -> str:
    """A heading's id, as Jupyter makes it (its words joined by hyphens)."""
    plain = html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
    return re.sub(r"\s+", "-", plain) or "section"


def _renderer(folder: Path, attachments: dict | None) -> Any:
    from mistune import HTMLRenderer

    class Renderer(HTMLRenderer):
        def heading(self, text: str, level: int, **attrs: Any) -> str:
            anchor = html.escape(slug(text), quote=True)
            link = f'<a class="anchor-link" href="#{anchor}" aria-hidden="true">¶</a>'
            return f'<h{level} id="{anchor}">{text}{link}</h{level}>\n'

        def block_code(self, code: str, info: str | None = None) -> str:
            from .cells import code_html

            language = (info or "").strip().split(maxsplit=1)
            if language and language[0] in ("python", "py", "python3", "ipython"):
                return code_html(code)
            return super().block_code(code, info)

        def image(self, text: str, url: str, title: str | None = None) -> str:
            return super().image(text, _embedded(url, folder, attachments or {}), title)

    return Renderer(escape=False)


def _embedded(url: str, folder: Path, attachments: dict) -> str:
    """An image's URL as a data URI when it is an attachment or a file beside the notebook."""
    if url.startswith("attachment:"):
        bundle = attachments.get(url.removeprefix("attachment:"), {})
        for mime, data in bundle.items():
            text = "".join(data) if isinstance(data, list) else str(data)
            return f"data:{mime};base64,{text.strip()}"
        return url
    if re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", url, re.I):
        return url  # http(s), data:, an absolute path or an anchor: as written
    path = (folder / url).resolve()
    mime = mimetypes.guess_type(path.name)[0]
    if mime is None or not mime.startswith("image/") or not path.is_file():
        return url
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def markdown_html(source: str, folder: Path = Path("."), attachments: dict | None = None) -> str:
    """Markdown (with ``$`` / ``$$`` formulas) as HTML.

    Parameters
    ----------
    source : str
        The cell's text.
    folder : Path
        Where relative image paths are found (embedded as data URIs).
    attachments : dict, optional
        The cell's attachments (``attachment:name`` images).
    """
    import mistune

    markdown = mistune.create_markdown(
        escape=False, renderer=_renderer(folder, attachments), plugins=_PLUGINS
    )
    # the math plugin registers its own (MathJax) output: ours, drawn at export time, instead
    markdown.renderer.register("block_math", lambda _r, text: math_html(text, display=True))
    markdown.renderer.register("inline_math", lambda _r, text: math_html(text, display=False))
    return str(markdown(source))
