"""HTML an author wrote in markdown, made safe to publish: an allow-list, as Jupyter's view does.

Jupyter sanitises the HTML in a markdown cell before it shows it; a published page must do no
less. :class:`RawHTML` parses each piece of raw HTML (:mod:`html.parser`) and writes it again
from scratch: only the tags of :data:`TAGS`, only the attributes of :data:`ATTRIBUTES` (no
``on*`` handler, no ``style``, no ``id`` or ``data-*`` that could reach the page's own scripts),
every text and value escaped, comments dropped. ``script``, ``style``, ``iframe``, ``object``,
``form``, ``svg`` and the like (:data:`DROPPED`) go with everything inside them; any other
unknown tag goes, its text stays. A link keeps its ``href`` only when it is http(s), mailto, a
``#`` anchor or relative (:func:`safe_link`); an image's ``src`` is decided by the caller (the
same rule as a markdown image), and a picture on the internet, which a page never loads,
becomes a link to it (:func:`remote_image_link`). Tags left open are closed at the end of the
text, and a closing tag that opened nothing here is dropped, so a cell's HTML cannot reach
outside its cell.

Text a widget saved is not rewritten (its code reads it as it is) but checked:
:func:`runs_or_loads` names the first thing in it that, read as HTML, could run script or load
from elsewhere (an event handler, a script or frame, a ``javascript:`` link, a picture not in
``data:``), or None.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from html.parser import HTMLParser

__all__ = [
    "ATTRIBUTES",
    "DROPPED",
    "TAGS",
    "RawHTML",
    "remote_image_link",
    "runs_or_loads",
    "safe_link",
    "url_scheme",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The tags kept (text, structure, lists, tables, pictures; no forms, media or embeds).
TAGS = _words(
    "a abbr address article aside b bdi bdo big blockquote br caption center cite code col "
    "colgroup dd del details dfn div dl dt em figcaption figure footer h1 h2 h3 h4 h5 h6 header "
    "hgroup hr i img ins kbd li mark ol p pre q rp rt ruby s samp section small span strike "
    "strong sub summary sup table tbody td tfoot th thead time tr tt u ul var wbr"
)
#: The tags left out with everything inside them.
DROPPED = _words(
    "script style iframe object applet template noscript noembed noframes frameset textarea "
    "select title xmp svg math form head"
)
_VOID = frozenset({"br", "col", "hr", "img", "wbr"})
_GLOBAL = frozenset({"title", "lang", "dir", "class", "hidden"})
#: The attributes kept, per tag (with :data:`_GLOBAL` on every tag).
ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": frozenset({"href"}),
    "img": frozenset({"src", "alt", "width", "height"}),
    "td": frozenset({"colspan", "rowspan"}),
    "th": frozenset({"colspan", "rowspan", "scope"}),
    "col": frozenset({"span"}),
    "colgroup": frozenset({"span"}),
    "ol": frozenset({"start", "reversed", "type"}),
    "li": frozenset({"value"}),
    "details": frozenset({"open"}),
    "time": frozenset({"datetime"}),
}
_NUMBERS = frozenset({"width", "height", "colspan", "rowspan", "span", "start", "value"})
_NUMBER = re.compile(r"\d{1,5}%?")
_CLASS = re.compile(r"[A-Za-z0-9_-]+")
_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):")
_EDGES = "".join(chr(c) for c in range(33))  # what a browser strips from a URL's ends


def _as_browser_reads(url: str) -> str:
    """A URL as a browser reads it: tabs and newlines removed, controls and spaces at the ends."""
    return re.sub(r"[\t\n\r]", "", url).strip(_EDGES)


def url_scheme(url: str) -> str | None:
    """The scheme a browser would see in ``url`` (``javascript``, ``https``, ...), or None."""
    found = _SCHEME.match(_as_browser_reads(url).lower())
    return found.group(1) if found else None


def safe_link(url: str) -> str | None:
    """``url`` fit for an ``href``: http(s), mailto, a ``#`` anchor or relative; else None."""
    return _as_browser_reads(url) if url_scheme(url) in (None, "http", "https", "mailto") else None


def remote_image_link(url: str, alt: str) -> str | None:
    """A picture on the internet as a link to it (the page loads nothing); None for any other.

    Parameters
    ----------
    url : str
        The picture's URL as written.
    alt : str
        Its words (plain text), shown as the link's text.
    """
    if url_scheme(url) not in ("http", "https"):
        return None
    words = html.escape(" ".join(alt.split()) or "a picture")
    return (
        f'<a class="gk-site-remote-image" href="{html.escape(_as_browser_reads(url))}">'
        f"{words} (a picture on the internet, not loaded here)</a>"
    )


#: Tags that run, embed or load (a saved text holding one is refused; ``style`` is gradkit's own
#: cards' and the page's policy keeps it from loading).
_RUNS = _words(
    "script iframe frame frameset object embed applet base link meta form svg math template "
    "portal video audio source track picture input button image"
)
#: Attributes that run or load, beyond ``on*`` handlers (``href`` and ``src`` are checked).
_LOADS = _words("style srcset formaction action background poster data xlink:href ping")


def runs_or_loads(text: str) -> str | None:
    """What in ``text``, read as HTML, could run script or load from elsewhere, or None.

    For a widget's saved text, which its code paints as HTML: an event handler, a tag of
    :data:`_RUNS`, an attribute of :data:`_LOADS`, a link :func:`safe_link` refuses or a
    picture's ``src`` that is not a ``data:`` URL.
    """
    if "<" not in text:
        return None
    finder = _Finder()
    finder.feed(text)
    finder.close()
    return finder.found


class _Finder(HTMLParser):
    """The first tag or attribute of one text that could run or load (see runs_or_loads)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.found is None:
            self.found = _runs_or_loads(tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


def _runs_or_loads(tag: str, attrs: list[tuple[str, str | None]]) -> str | None:
    if tag in _RUNS:
        return f"<{tag}>"
    for name, value in attrs:
        if name.startswith("on") or name in _LOADS:
            return f"<{tag} {name}>"
        if name == "href" and safe_link(value or "") is None:
            return f"<{tag} href={value}>"
        if name == "src" and url_scheme(value or "") != "data":
            return f"<{tag} src={value}>"
    return None


class RawHTML:
    """The raw HTML of one markdown text, cleaned piece by piece (see the module docstring).

    Parameters
    ----------
    image_src : callable
        An ``<img>``'s ``src`` -> the URL to publish, or None to leave the picture out.
    """

    def __init__(self, image_src: Callable[[str], str | None]) -> None:
        self.image_src = image_src
        self.open: list[str] = []  # kept tags opened and not yet closed
        self.dropping: list[str] = []  # dropped tags we are inside

    @property
    def hiding(self) -> bool:
        """Whether the text now is inside a dropped tag (``<style>`` ... ``</style>``)."""
        return bool(self.dropping)

    def clean(self, fragment: str) -> str:
        """One piece of raw HTML (a block, or one inline tag), written again from its parts."""
        parser = _Cleaner(self)
        parser.feed(fragment)
        parser.close()
        return "".join(parser.out)

    def close(self) -> str:
        """The closing tags of whatever is still open; the state is reset for the next text."""
        closing = "".join(f"</{tag}>" for tag in reversed(self.open))
        self.open.clear()
        self.dropping.clear()
        return closing

    def attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> str | None:
        """The kept attributes as HTML (`` name="value"``), or None to leave the tag out."""
        allowed = _GLOBAL | ATTRIBUTES.get(tag, frozenset())
        kept: dict[str, str | None] = {}
        for name, value in attrs:
            if name not in allowed or name in kept:
                continue
            value = _value(name, value)
            if name == "src" and value is not None:
                value = self.image_src(value)
            if value is not None or name in ("hidden", "open", "reversed"):
                kept[name] = value
        if tag == "img" and "src" not in kept:
            return None  # a picture that may not be shown: left out, not a broken icon
        return "".join(
            f' {name}="{html.escape(value)}"' if value is not None else f" {name}"
            for name, value in kept.items()
        )


def _value(name: str, value: str | None) -> str | None:
    """An attribute's value, kept when it is safe; None drops it (or marks a bare flag)."""
    if value is None:
        return None
    if name == "href":
        return safe_link(value)
    if name in _NUMBERS:
        return value.strip() if _NUMBER.fullmatch(value.strip()) else None
    if name == "class":
        words = [w for w in value.split() if _CLASS.fullmatch(w) and not w.startswith("gk-")]
        return " ".join(words) or None
    if name == "dir":
        return value if value.lower() in ("ltr", "rtl", "auto") else None
    return value


class _Cleaner(HTMLParser):
    """Writes back what :class:`RawHTML` keeps of one fragment."""

    def __init__(self, raw: RawHTML) -> None:
        super().__init__(convert_charrefs=True)
        self.raw, self.out = raw, []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED:
            self.raw.dropping.append(tag)
        if self.raw.dropping or tag not in TAGS:
            return
        attributes = self.raw.attributes(tag, attrs)
        if attributes is None:  # a picture left out: one on the internet becomes a link
            found = dict(attrs)
            link = remote_image_link(found.get("src") or "", found.get("alt") or "")
            self.out.append(link or "")
            return
        self.out.append(f"<{tag}{attributes}>")
        if tag not in _VOID:
            self.raw.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)  # a browser reads <div/> as <div>

    def handle_endtag(self, tag: str) -> None:
        dropping, open_tags = self.raw.dropping, self.raw.open
        if dropping:
            if tag in dropping:
                del dropping[len(dropping) - 1 - dropping[::-1].index(tag) :]
            return
        if tag in open_tags:
            at = len(open_tags) - 1 - open_tags[::-1].index(tag)
            self.out.extend(f"</{name}>" for name in reversed(open_tags[at:]))
            del open_tags[at:]

    def handle_data(self, data: str) -> None:
        if not self.raw.dropping:
            self.out.append(html.escape(data, quote=False))
