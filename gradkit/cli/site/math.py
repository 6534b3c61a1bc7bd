"""LaTeX in the lessons' text as MathML, which the browser typesets (MathML Core).

A static page cannot load MathJax from the internet (it must work from ``file://`` with no
network) and gradkit ships no JavaScript typesetter; browsers typeset MathML themselves, so a
formula is converted once, at export time, by the pure-Python ``latex2mathml``. The result is
text: selectable, on the line's baseline, in the page's colour (nothing in it names a colour),
scaled with the page's font. Each formula keeps its LaTeX source as an annotation
(``<semantics>`` … ``<annotation encoding="application/x-tex">``).

What ``latex2mathml`` writes is adjusted to MathML Core, the part of MathML that Chromium,
Firefox and Safari all draw:

- ``aligned`` becomes an ``mtable`` whose columns alternate right and left, so the ``=``
  signs line up (``site.css`` turns ``columnalign`` into ``text-align``); ``gathered``, one
  centred column;
- ``\\mathrm{d}`` (one letter) stays upright; ``f'`` is drawn with the font's prime, not a
  superscript one; ``|``, ``/`` and ``.`` get no space around them, as in TeX;
- entities become characters and the markup is written escaped (``\\text{<b>}`` is text);
- only the attributes of :data:`MATHML_ATTRIBUTES` stay, a colour only as a name or ``#`` code:
  ``\\style{...}`` (a ``style``), ``\\href{...}`` (an ``href``) and ``\\class{...}`` keep their
  formula and lose the attribute, so nothing in a formula can load, link or restyle the page.

A formula it cannot convert into MathML Core (an unknown command, an ``&`` outside a table, a
line break outside one, an element a browser does not draw) is shown as its source, in code
type.
"""

from __future__ import annotations

import functools
import html
import re
from xml.etree.ElementTree import Element, SubElement, tostring

__all__ = ["MATHML_ATTRIBUTES", "MATHML_CORE", "UnsupportedFormulaError", "math_html", "mathml"]

_CORE_NAMES = (
    "math semantics annotation annotation-xml maction merror mfrac mi mmultiscripts mn mo "
    "mover mpadded mphantom mprescripts mroot mrow ms mspace msqrt mstyle msub msubsup msup "
    "mtable mtd mtext mtr munder munderover none"
)
#: The elements of MathML Core (what a browser draws); a formula needing another is not shown.
MATHML_CORE = frozenset(_CORE_NAMES.split())
_ATTRIBUTE_NAMES = (
    "display displaystyle scriptlevel mathvariant mathsize mathcolor mathbackground lspace "
    "rspace stretchy symmetric maxsize minsize largeop movablelimits form fence separator "
    "accent accentunder linethickness width height depth voffset columnalign rowalign "
    "columnspan rowspan columnlines rowlines frame framespacing rowspacing columnspacing "
    "encoding notation linebreak"
)
#: The attributes a formula keeps: how MathML Core lays it out, nothing that loads or links.
MATHML_ATTRIBUTES = frozenset(_ATTRIBUTE_NAMES.split())
_COLOUR = re.compile(r"#[0-9A-Fa-f]{3,8}|[A-Za-z]{1,30}")
_ARITY = {"mfrac": 2, "mroot": 2, "msub": 2, "msup": 2, "mover": 2, "munder": 2}
_ARITY.update(msubsup=3, munderover=3)
_ENVIRONMENT = re.compile(r"\\(begin|end)\{(aligned|gathered)\}")
_RENAMED = {  # environments latex2mathml lacks, as ones it has that draw the same
    ("begin", "aligned"): r"\begin{split}",
    ("end", "aligned"): r"\end{split}",
    ("begin", "gathered"): r"\begin{array}{c}",
    ("end", "gathered"): r"\end{array}",
}
_ONE_LETTER_ROMAN = re.compile(r"\\mathrm\{(\w)\}")
_ENTITY = re.compile(r"&#x[0-9A-Fa-f]+;")
_LOOSE = re.compile(r"[\\&{}]")  # in converted text: a command, an `&` or a brace it did not take
_PRIMES = frozenset("\u2032\u2033\u2034\u2057")  # ′ ″ ‴ ⁗
_ORDINARY = frozenset("|\u2016/.")  # | ‖ / and . are ordinary symbols in TeX: no space around
_SCRIPTED = frozenset(("msub", "msup", "msubsup", "munder", "mover", "munderover"))


class UnsupportedFormulaError(ValueError):
    """A formula that cannot be written in MathML Core (its source is shown instead)."""


def _prepared(tex: str) -> str:
    """The LaTeX as latex2mathml reads it (environments it lacks renamed, see module doc)."""
    tex = _ENVIRONMENT.sub(lambda m: _RENAMED[m.group(1), m.group(2)], tex)
    return _ONE_LETTER_ROMAN.sub(r"\\mathrm{{\1}}", tex)


def _checked(node: Element) -> None:
    """Check ``node`` and all inside it are MathML Core, and turn entities into characters.

    Raises
    ------
    UnsupportedFormulaError
        An element outside MathML Core, one with the wrong number of children, a line break
        outside a table, or text holding a command, ``&`` or brace the converter left as it was.
    """
    for element in node.iter():
        if element.tag not in MATHML_CORE:
            raise UnsupportedFormulaError(f"<{element.tag}> is not in MathML Core")
        if element.tag in _ARITY and len(element) != _ARITY[element.tag]:
            raise UnsupportedFormulaError(f"<{element.tag}> with {len(element)} parts")
        if element.tag == "mspace" and "linebreak" in element.attrib:
            raise UnsupportedFormulaError(r"a line break (\\) outside a table")
        for name, value in list(element.attrib.items()):
            colour = name in ("mathcolor", "mathbackground")
            if name not in MATHML_ATTRIBUTES or (colour and not _COLOUR.fullmatch(value)):
                del element.attrib[name]  # from \style, \href, \class: the formula stays
        for name in ("text", "tail"):
            text = getattr(element, name)
            if not text:
                continue
            if element.tag != "mtext" and _LOOSE.search(_ENTITY.sub("", text)):
                raise UnsupportedFormulaError(f"{text!r} was not converted")
            setattr(element, name, html.unescape(text))


def _spaced_as_tex(node: Element) -> None:
    """Primes and spacing as TeX sets them, in what MathML Core draws (changed in place).

    ``f'`` is ``f`` then the font's prime (a prime glyph is drawn raised already: as a
    superscript it would float above the letter, tiny); ``|``, ``‖``, ``/`` and ``.`` (not
    ``\\left``/``\\right`` fences) and an operator alone in a script get no space around them;
    an ``\\operatorname`` is a name (``<mi>``), like ``\\sin``, not an operator with space around.
    """
    for index, child in enumerate(node):
        _spaced_as_tex(child)
        script = child[1] if child.tag == "msup" and len(child) == 2 else None
        if script is not None and script.text and set(script.text) <= _PRIMES and not len(script):
            row = Element("mrow")
            row.extend(child)
            node[index] = row
        elif child.tag == "mo" and child.text and len(child.text) > 1 and child.text.isalpha():
            child.tag = "mi"  # \operatorname{sign}: a name, spaced as \sin is
        elif child.tag == "mo" and (
            (node.tag in _SCRIPTED and index > 0)
            or (child.text in _ORDINARY and child.get("fence") != "true")
        ):
            child.set("lspace", "0em")
            child.set("rspace", "0em")


@functools.lru_cache(maxsize=512)
def mathml(tex: str, display: bool) -> str:
    """A formula as a MathML Core ``<math>`` element, its source kept as an annotation.

    Parameters
    ----------
    tex : str
        The LaTeX between the ``$`` or ``$$`` signs.
    display : bool
        A display formula (``display="block"``) or an inline one.

    Raises
    ------
    UnsupportedFormulaError
        ``tex`` is not LaTeX the converter reads, or needs more than MathML Core.
    """
    from latex2mathml.converter import convert_to_element

    try:
        math = convert_to_element(_prepared(tex), display="block" if display else "inline")
    except Exception as error:  # whatever it cannot read: shown as its source
        raise UnsupportedFormulaError(f"latex2mathml: {type(error).__name__} {error}") from error
    del math.attrib["xmlns"]  # HTML puts <math> in the MathML namespace (and names no URL)
    _checked(math)
    _spaced_as_tex(math)
    row = math[0]  # latex2mathml puts the formula in one <mrow>
    math.remove(row)
    semantics = SubElement(math, "semantics")
    semantics.append(row)
    SubElement(semantics, "annotation", encoding="application/x-tex").text = tex.strip()
    return tostring(math, encoding="unicode")


def math_html(tex: str, display: bool) -> str:
    """A formula as HTML: MathML the browser typesets, or its source when it cannot be.

    Parameters
    ----------
    tex : str
        The LaTeX between the ``$`` or ``$$`` signs.
    display : bool
        A display formula (its own centred block) or an inline one (on the text's baseline).
    """
    try:
        element = mathml(tex, display)
    except UnsupportedFormulaError:
        kind = "gk-site-math-block" if display else "gk-site-math"
        return f'<span class="{kind} gk-site-math-source"><code>{html.escape(tex)}</code></span>'
    # a display formula sits in a span too: it may be inside a paragraph (``$$`` mid-text)
    return f'<span class="gk-site-math-block">{element}</span>' if display else element
