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


def highlight_css() -> str:
    """The pygments stylesheet for class ``highlight`` (code cells and fenced code)."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style="default").get_style_defs(".highlight")
