"""Markdown cells as HTML: mistune with tables and formulas, images embedded, HTML made safe.

mistune (which Jupyter's nbconvert uses, installed with it) renders the text; formulas
(``$...$``, ``$$...$$``) are drawn by :mod:`.math`; fenced Python is highlighted like code cells
(:mod:`.highlight`); each heading gets an id and a ``¶`` link to it. HTML written in the text is
cleaned as Jupyter's own view cleans it (:mod:`.safe_html`: an allow-list of tags and
attributes, no script, no event handler, no ``javascript:`` link); a markdown link keeps only an
http(s), mailto, ``#`` or relative URL.

An image (markdown or ``<img>``) from an ``attachment:`` or a file inside the notebook's folder
tree becomes a data URI, so the site has no loose files; raster ``data:`` images stay as
written. Nothing in a page loads from the network: a picture on the internet (http, https)
becomes a link to it, and ``warn`` gets a line starting :data:`REMOTE_IMAGE` (the export says
so once). Any other image, such as one outside the notebook's folder (``../../private/id.png``,
or a link that leads out of it) or a path to no picture file, is left out with a warning: a page
never publishes a file the author did not put beside the lesson.
"""

from __future__ import annotations

import base64
import html
import mimetypes
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from .highlight import code_html
from .math import math_html
from .safe_html import RawHTML, remote_image_link, safe_link, url_scheme

__all__ = ["REMOTE_IMAGE", "image_src", "markdown_html", "slug"]

#: How a warning about a picture on the internet begins (its URL follows).
REMOTE_IMAGE = "picture on the internet, shown as a link: "

_PLUGINS = ["strikethrough", "table", "url", "task_lists", "def_list", "math"]
_RASTER = re.compile(r"data:image/(png|jpeg|gif|webp);base64,", re.I)
_PYTHON = ("python", "py", "python3", "ipython")


def slug(text: str) -> str:
    """A heading's id, as Jupyter makes it (its words joined by hyphens)."""
    plain = html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
    return re.sub(r"\s+", "-", plain) or "section"


def _ignore(_line: str) -> None:
    return None


def image_src(
    url: str, folder: Path, attachments: dict | None = None, warn: Callable[[str], None] = _ignore
) -> str | None:
    """An image's URL as the page shows it, or None (and a warning) to leave the image out.

    An attachment or a picture file inside ``folder`` (followed links and all) becomes a data
    URI; raster ``data:`` URLs stay as written. An http(s) picture is not loaded (None, and a
    line starting :data:`REMOTE_IMAGE`: the page links to it). Anything else, a relative path
    to no picture file included (the site holds no loose files), is left out with a warning.
    """
    scheme = url_scheme(url)
    if scheme == "attachment":
        bundle = (attachments or {}).get(url.split(":", 1)[1], {})
        for mime, data in bundle.items():
            if mime.startswith("image/"):
                text = "".join(data) if isinstance(data, list) else str(data)
                return f"data:{mime};base64,{text.strip()}"
        warn(f"image {url} is not attached to its cell; left out of the page")
        return None
    if scheme in ("http", "https"):
        warn(f"{REMOTE_IMAGE}{url}")
        return None
    if scheme == "data" and _RASTER.match(url.strip()):
        return url
    if scheme is not None:
        warn(f"image {url} is not an http(s) picture or a file beside the notebook; left out")
        return None
    root = folder.resolve()
    try:
        path = (root / unquote(url.split("?")[0].split("#")[0])).resolve()
        inside = path.is_relative_to(root)
        found = inside and path.is_file()
    except (OSError, ValueError):
        return None
    if not inside:
        warn(f"image {url} is outside the notebook's folder ({folder}); left out of the page")
        return None
    mime = mimetypes.guess_type(path.name)[0]
    if not found or mime is None or not mime.startswith("image/"):
        warn(f"image {url} is not a picture file beside the notebook; left out of the page")
        return None  # the site holds no loose files: it could never load
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _renderer(raw: RawHTML, images: Callable[[str], str | None]) -> Any:
    from mistune import HTMLRenderer

    class Renderer(HTMLRenderer):
        def heading(self, text: str, level: int, **attrs: Any) -> str:
            anchor = html.escape(slug(text), quote=True)
            link = f'<a class="anchor-link" href="#{anchor}" aria-hidden="true">¶</a>'
            return f'<h{level} id="{anchor}">{text}{link}</h{level}>\n'

        def block_code(self, code: str, info: str | None = None) -> str:
            language = (info or "").strip().split(maxsplit=1)
            if language and language[0] in _PYTHON:
                return code_html(code)
            return super().block_code(code, info)

        def link(self, text: str, url: str, title: str | None = None) -> str:
            return _link_html(text, safe_link(url), title)

        def image(self, text: str, url: str, title: str | None = None) -> str:
            return _image_html(text, url, images(url), title)

        def text(self, text: str) -> str:
            return "" if raw.hiding else super().text(text)

        def codespan(self, text: str) -> str:
            return "" if raw.hiding else super().codespan(text)

        def inline_html(self, html: str) -> str:
            return raw.clean(html)

        def block_html(self, html: str) -> str:
            return raw.clean(html) + "\n"

    return Renderer(escape=False)


def _title(title: str | None) -> str:
    return f' title="{html.escape(html.unescape(title))}"' if title else ""


def _link_html(text: str, href: str | None, title: str | None) -> str:
    """A markdown link; its text alone when its URL was refused (``javascript:``, ...)."""
    return text if href is None else f'<a href="{html.escape(href)}"{_title(title)}>{text}</a>'


def _plain(alt: str) -> str:
    """An image's rendered words as plain text."""
    return html.unescape(re.sub(r"<[^>]*>", "", alt))


def _image_html(alt: str, url: str, src: str | None, title: str | None) -> str:
    """A markdown image at ``src``; when :func:`image_src` left it out (None), a link to one on
    the internet, else nothing."""
    if src is None:
        return remote_image_link(url, _plain(alt)) or ""
    return f'<img src="{html.escape(src)}" alt="{html.escape(_plain(alt))}"{_title(title)} />'


def markdown_html(
    source: str,
    folder: Path = Path("."),
    attachments: dict | None = None,
    warn: Callable[[str], None] = _ignore,
) -> str:
    """Markdown (with ``$`` / ``$$`` formulas and HTML) as safe HTML.

    Parameters
    ----------
    source : str
        The cell's text.
    folder : Path
        The notebook's folder: relative images inside it are embedded as data URIs.
    attachments : dict, optional
        The cell's attachments (``attachment:name`` images).
    warn : callable
        Receives one line per image left out (outside ``folder``, or not a picture).
    """
    import mistune

    raw = RawHTML(lambda url: image_src(url, folder, attachments, warn))
    renderer = _renderer(raw, raw.image_src)
    markdown = mistune.create_markdown(escape=False, renderer=renderer, plugins=_PLUGINS)
    # the math plugin registers its own (MathJax) output: ours, drawn at export time, instead
    markdown.renderer.register("block_math", lambda _r, text: math_html(text, display=True))
    markdown.renderer.register("inline_math", lambda _r, text: math_html(text, display=False))
    return str(markdown(source)) + raw.close()
