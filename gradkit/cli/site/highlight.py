"""Python code as the pages show it: highlighted by pygments (class ``highlight``), read-only.

Used by :mod:`.cells` (code cells) and :mod:`.markdown` (fenced Python in the text), so neither
imports the other.
"""

from __future__ import annotations

__all__ = ["code_html", "highlight_css"]


def code_html(source: str) -> str:
    """Python source, highlighted (pygments, class ``highlight``), read-only."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return highlight(source, PythonLexer(), HtmlFormatter(cssclass="highlight"))


#: pygments' styles for a light and a dark page: every token colour reads 4.5:1 or more on the
#: site's code background of that scheme (site.css ``--site-code-block-bg``).
_LIGHT_STYLE, _DARK_STYLE = "default", "github-dark"


def highlight_css() -> str:
    """The pygments stylesheet for class ``highlight`` (code cells and fenced code): the light
    style's token colours, and the dark style's where the reader asks for a dark scheme
    (``prefers-color-scheme: dark``, as every colour of the site)."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style=_LIGHT_STYLE).get_style_defs(".highlight")
    dark = HtmlFormatter(style=_DARK_STYLE).get_style_defs(".highlight").splitlines()
    rules = "\n".join(f"  {rule}" for rule in dark if rule.startswith(".highlight"))
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{rules}\n}}\n"
