"""LaTeX in the lessons' text, drawn at export time as SVG by matplotlib's mathtext.

A static page cannot load MathJax from the internet (it must work from ``file://`` with no
network), and gradkit ships no JavaScript typesetter; matplotlib (already a dependency) draws
the subset of TeX the lessons use. Each formula becomes an ``<img>`` (an SVG data URI, so the
glyph ids of several formulas never clash) whose ``alt`` is its LaTeX source, in a ``<span>``.
An ``aligned`` block is drawn line by line, fractions full size in a display formula (as LaTeX
draws them). A formula mathtext cannot draw is shown as its source, in code type.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import re

__all__ = ["math_html"]

_ALIGNED = re.compile(r"\\begin\{(aligned|align\*?|gathered|split)\}(.*?)\\end\{\1\}", re.S)
_SPACE = re.compile(r"\s+")
_FRAC = re.compile(r"(?<![A-Za-z])\\frac(?![A-Za-z])")
_FONT_SIZE = {True: 16.0, False: 14.0}


def _lines(tex: str, display: bool) -> list[str]:
    """The lines of a formula: an aligned block split at ``\\\\``, its ``&`` dropped.

    A fraction in a display formula is drawn full size (``\\dfrac``), as LaTeX draws it;
    ``\\tfrac`` is always the small one.
    """
    if display:
        tex = _FRAC.sub(r"\\dfrac", tex)
    tex = tex.replace(r"\tfrac", r"\frac")
    if not display:
        tex = tex.replace(r"\dfrac", r"\frac")
    block = _ALIGNED.search(tex)
    if block is None:
        return [_SPACE.sub(" ", tex).strip()]
    rows = re.split(r"\\\\", block.group(2))
    return [_SPACE.sub(" ", row.replace("&", "")).strip() for row in rows if row.strip()]


@functools.lru_cache(maxsize=256)
def _svg(line: str, display: bool) -> str:
    """One line of math as an SVG data URI (raises ValueError when mathtext cannot draw it)."""
    from matplotlib import mathtext, rc_context
    from matplotlib.font_manager import FontProperties

    out = io.BytesIO()
    prop = FontProperties(size=_FONT_SIZE[display])
    with rc_context({"mathtext.fontset": "cm", "svg.fonttype": "path"}):
        mathtext.math_to_image(f"${line}$", out, prop=prop, format="svg", color="#1a1a1a")
    return "data:image/svg+xml;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def math_html(tex: str, display: bool) -> str:
    """A formula as HTML: drawn images (one per line), or its source when it cannot be drawn.

    Parameters
    ----------
    tex : str
        The LaTeX between the ``$`` or ``$$`` signs.
    display : bool
        A display formula (its own centred block) or an inline one.
    """
    tag = "span"  # a display formula too: it may sit inside a paragraph
    kind = "gk-site-math-block" if display else "gk-site-math"
    try:
        images = [
            f'<img src="{_svg(line, display)}" alt="{html.escape(line)}">'
            for line in _lines(tex, display)
        ]
    except (ValueError, RuntimeError):
        return f'<{tag} class="{kind} gk-site-math-source"><code>{html.escape(tex)}</code></{tag}>'
    label = html.escape(tex)
    return f'<{tag} class="{kind}" role="math" aria-label="{label}">{"".join(images)}</{tag}>'
