"""The site's pages: one per lesson and ``index.html``, with the words a learner reads.

Every page is plain HTML with one stylesheet (``assets/site.css``); a page with live widgets
adds their state (JSON in ``#gk-site-widgets``), their modules (``assets/widget-*.js``) and the
loader (``assets/loader.js``), all classic scripts, so it works from ``file://`` as from any
static host. Near the top of each lesson, a box says what works on the page and how to open the
lesson live (:func:`live_box`).

Every page carries :data:`CONTENT_SECURITY_POLICY` (a ``<meta http-equiv>``, the first thing in
its head), which stops whatever the cleaning might miss: no inline script or event handler, no
request to the network. Measured in Chromium from ``file://``: the site's own classic scripts
and stylesheet load (``'self'``; ``file:`` too, for browsers that give each local file an
origin of its own), the widget modules import from ``blob:`` URLs (``loader.js``), a widget
adds its ``<style>`` (``'unsafe-inline'`` styles: no script, and with nothing allowed to load
they cannot fetch), pictures are ``data:`` URIs (matplotlib's PNG, SVG); anything else, a
picture on the internet included, is blocked.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from importlib import metadata
from urllib.parse import quote

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "OFFLINE_NOTE",
    "WRITES_CODE",
    "Lesson",
    "describe",
    "index_page",
    "lesson_page",
    "live_box",
    "page_href",
]

#: The line a widget shows under a control that needs the kernel (its greyed-out controls).
OFFLINE_NOTE = (
    "Greyed-out controls need a running notebook (Python): open this lesson in Jupyter to use them."
)
#: What a lesson with exercises says at its top and in its index entry (they check code: Python).
WRITES_CODE = (
    "This lesson's exercises check a Function you write, which needs Python: open the lesson live "
    "to do them (their hints and solutions show here)."
)
#: The policy of every page (see the module docstring): the site's own scripts, nothing remote.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self' file: blob:; style-src 'self' file: 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
_BINDER = "https://mybinder.org/v2/gh/gradkit/gradkit/HEAD?urlpath=%2Fnotebooks%2Fnotebooks%2F"
_TAGS = re.compile(r"<[^>]+>")


@dataclass
class Lesson:
    """One exported lesson: its page name, words, rendered cells and widgets.

    ``live`` counts the widgets the page plays; ``notes`` names those shown as a note (they need
    a running notebook); ``writes_code``: the lesson has exercises that check code the learner
    writes, which this page cannot run (its index entry and its top say so).
    """

    name: str
    title: str
    description: str
    cells: list[str]
    scripts: list[str] = field(default_factory=list)
    models_json: str = ""
    shipped: bool = False
    live: int = 0
    notes: list[str] = field(default_factory=list)
    writes_code: bool = False


def page_href(name: str) -> str:
    """A lesson page's link, fit for an ``href``: ``name.html`` URL-encoded, then escaped.

    A notebook may be named anything (``#``, ``?``, ``%``, quotes): its link still leads to its
    page and can never end the attribute.
    """
    return html.escape(quote(f"{name}.html"), quote=True)


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(_TAGS.sub("", fragment)).split())


def describe(first_markdown_html: str, name: str) -> tuple[str, str]:
    """(title, one-line description) from a lesson's first markdown cell, rendered.

    The title is its first heading; the description its first paragraph (the lessons'
    "After this lesson you will be able to ..."). Without a heading the title is the file name.
    """
    text = re.sub(r'<a class="anchor-link".*?</a>', "", first_markdown_html, flags=re.S)
    heading = re.search(r"<h[1-3][^>]*>(.*?)</h[1-3]>", text, re.S)
    paragraph = re.search(r"<p>(.*?)</p>", text, re.S)
    title = _plain(heading.group(1)) if heading else name.replace("_", " ")
    return title, _plain(paragraph.group(1)) if paragraph else ""


def _how_to_run(what: str, binder: str) -> str:
    """The ways to open the lessons live, as one paragraph (``binder``: a link, or empty)."""
    return (
        f"<p><b>To run {what} live:</b> <code>pip install gradkit</code>, then "
        "<code>gradkit lessons my-lessons</code> and <code>gradkit notebook my-lessons</code>; "
        f"from a clone of the gradkit repository, <code>make notebook</code>{binder}.</p>"
    )


def live_box(lesson: Lesson) -> str:
    """What works on this static page, and three ways to open the lesson live."""
    where = html.escape(quote(f"{lesson.name}.ipynb", safe=""))
    binder = (
        f'; or <a href="{_BINDER}{where}">open it on Binder</a> (a temporary server in your '
        "browser)"
        if lesson.shipped
        else ""
    )
    return (
        '<aside class="gk-site-live" aria-label="about this page">'
        "<p><b>A static copy of this lesson.</b> Its widgets move here without Python "
        "(sliders, ÷10 and ×10, dtype and x steps, from numbers computed ahead); the code is "
        "shown but does not run, and a control that needs Python is greyed out.</p>"
        + (f'<p class="gk-site-writes-code"><b>{WRITES_CODE}</b></p>' if lesson.writes_code else "")
        + f"{_how_to_run('it', binder)}</aside>"
    )


def _head(title: str) -> str:
    try:
        version = metadata.version("gradkit")
    except metadata.PackageNotFoundError:  # pragma: no cover - gradkit run from a checkout
        version = "dev"
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" '
        f'content="{html.escape(CONTENT_SECURITY_POLICY)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="gradkit export {html.escape(version)}">\n'
        f"<title>{html.escape(title)}</title>\n"
        '<link rel="stylesheet" href="assets/site.css">\n</head>\n'
    )


def _nav(previous: Lesson | None, following: Lesson | None) -> str:
    links = ['<a class="gk-site-home" href="index.html">All lessons</a>']
    if previous is not None:
        links.append(
            f'<a rel="prev" href="{page_href(previous.name)}">← {html.escape(previous.title)}</a>'
        )
    if following is not None:
        links.append(
            f'<a rel="next" href="{page_href(following.name)}">{html.escape(following.title)} →</a>'
        )
    return f'<nav class="gk-site-nav" aria-label="lessons">{"".join(links)}</nav>'


def lesson_page(lesson: Lesson, previous: Lesson | None, following: Lesson | None) -> str:
    """The HTML page of one lesson."""
    cells = list(lesson.cells)
    at = 1 if cells and "<h1" in cells[0] else 0
    cells.insert(at, live_box(lesson))
    scripts = "".join(
        f'<script src="{name}" defer></script>\n' for name in [*lesson.scripts, "assets/loader.js"]
    )
    if lesson.models_json:
        data = lesson.models_json
        scripts = f'<script type="application/json" id="gk-site-widgets">{data}</script>\n{scripts}'
    nav = _nav(previous, following)
    return (
        _head(f"{lesson.title} · gradkit lessons")
        + f'<body class="gk-site" data-gk-offline-note="{html.escape(OFFLINE_NOTE)}">\n'
        + f'<header class="gk-site-bar">{nav}</header>\n<main class="gk-site-main">\n'
        + "\n".join(cells)
        + f'\n</main>\n<footer class="gk-site-bar">{nav}</footer>\n{scripts}</body>\n</html>\n'
    )


def index_page(lessons: list[Lesson]) -> str:
    """``index.html``: the lessons in order, each with its one-line description."""
    items = "".join(
        f'<li><a href="{page_href(lesson.name)}">{html.escape(lesson.title)}</a>'
        f"<p>{html.escape(lesson.description)}"
        + (f' <span class="gk-site-writes-code">{WRITES_CODE}</span>' if lesson.writes_code else "")
        + "</p></li>"
        for lesson in lessons
    )
    return (
        _head("gradkit lessons")
        + '<body class="gk-site gk-site-index">\n<main class="gk-site-main">\n'
        "<h1>gradkit lessons</h1>\n"
        '<p class="gk-site-lede">How <code>torch.autograd.gradcheck</code> works, and why it '
        "fails: lessons with widgets you can move. This copy needs no Python: the widgets move "
        "from numbers computed ahead, and each lesson says how to open it live.</p>\n"
        f'<ol class="gk-site-lessons">{items}</ol>\n'
        f'<aside class="gk-site-live">{_how_to_run("the lessons", "")}</aside>\n'
        "</main>\n</body>\n</html>\n"
    )
