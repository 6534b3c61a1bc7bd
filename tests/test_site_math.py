"""The static site's formulas: LaTeX as MathML Core the browser typesets (gradkit/cli/site/math.py).

Every construct the lessons use converts with no fallback, and so does every formula actually in
``notebooks/*.py`` (read from the sources, so a new formula is checked the day it is written);
the MathML names no colour (it takes the page's); what cannot be converted shows as its source.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gradkit.cli.site.markdown import markdown_html
from gradkit.cli.site.math import MATHML_CORE, UnsupportedFormulaError, math_html, mathml

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SITE_CSS = Path(__file__).resolve().parents[1] / "gradkit" / "cli" / "site" / "site.css"
ALIGNED = r"""\begin{aligned}
f(x+\varepsilon) &= f(x) + \varepsilon f'(x) + \tfrac{\varepsilon^2}{2} f''(x) + \dots \\
f(x-\varepsilon) &= f(x) - \varepsilon f'(x) + \tfrac{\varepsilon^2}{2} f''(x) - \dots
\end{aligned}"""
#: (LaTeX, display, what its MathML holds): each construct the lessons use or may use.
CONSTRUCTS = [
    (r"x^2 + y", False, '<math display="inline"><semantics><mrow><msup>'),
    (r"x^2 + y", True, 'display="block"'),
    (ALIGNED, True, '<mtd columnalign="left"><mi /><mo>=</mo>'),
    (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", True, "<mo>(</mo><mtable>"),
    (r"|x| = \begin{cases} x & x \ge 0 \\ -x & \text{else} \end{cases}", True, 'form="prefix">{'),
    (r"\frac{\partial y_i}{\partial x_j}", True, "<mfrac><mrow><mo>∂</mo><msub><mi>y</mi>"),
    (r"\delta_{ij}", False, "<msub><mi>δ</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub>"),
    (r"\alpha + \varepsilon \sigma", False, "<mi>α</mi><mo>+</mo><mi>ε</mi><mi>σ</mi>"),
    (r"a \cdot b", False, "<mo>·</mo>"),
    (r"u \approx 10^{-16}", False, "<mo>≈</mo>"),
    (r"\|J - \hat J\|_\infty", False, '<mo fence="false" stretchy="false" lspace="0em"'),
    (r"\mathrm{d}x", False, '<mi mathvariant="normal">d</mi>'),
    (r"1 \text{ if } i = j", False, "<mtext>\xa0if\xa0</mtext>"),
    (r"\left(\frac{3u\,|f|}{|f'''|}\right)^{1/3}", True, "<mi>f</mi><mi>‴</mi>"),
]


def markdown_cells() -> list[tuple[str, str]]:
    """(lesson, text) of every markdown cell of the lessons' jupytext sources."""
    cells = []
    for path in sorted(NOTEBOOKS.glob("[0-9]*.py")):
        for cell in re.split(r"^# %%", path.read_text(encoding="utf-8"), flags=re.M):
            if cell.startswith(" [markdown]"):
                lines = cell.splitlines()[1:]
                cells.append((path.stem, "\n".join(re.sub(r"^# ?", "", x) for x in lines)))
    return cells


def lesson_formulas() -> list[tuple[str, str, bool]]:
    """(lesson, LaTeX, display) for every ``$$...$$`` and ``$...$`` in a lesson's markdown."""
    found = []
    for lesson, text in markdown_cells():
        text = re.sub(r"`[^`]*`", "", text)  # a `$` in code is not a formula
        for tex in re.findall(r"\$\$([\s\S]+?)\$\$", text):
            found.append((lesson, tex, True))
        for tex in re.findall(r"\$([^$\n]+?)\$", re.sub(r"\$\$[\s\S]+?\$\$", "", text)):
            found.append((lesson, tex, False))
    return found


def parsed(element: str) -> ET.Element:
    """A ``<math>`` element as a tree, its tags without the MathML namespace."""
    tree = ET.fromstring(element)
    for node in tree.iter():
        node.tag = node.tag.rpartition("}")[2]
    return tree


def colours(element: str) -> list[str]:
    """Every attribute of the MathML that could fix a colour."""
    named = ("mathcolor", "mathbackground", "color", "background", "fill", "stroke", "style")
    tree = parsed(element)
    return [f"{node.tag} {key}" for node in tree.iter() for key in node.attrib if key in named]


@pytest.mark.parametrize(("tex", "display", "holds"), CONSTRUCTS)
def test_each_construct_the_lessons_use_is_mathml_core_with_its_source(tex, display, holds):
    element = mathml(tex, display)
    assert holds in element, element
    tree = parsed(element)  # well-formed, so the browser's parser reads it as written
    assert {node.tag for node in tree.iter()} <= MATHML_CORE
    assert tree.find("semantics/annotation").attrib == {"encoding": "application/x-tex"}
    assert tree.find("semantics/annotation").text == tex.strip()
    assert "gk-site-math-source" not in math_html(tex, display) and "<img" not in element
    assert colours(element) == []


def test_aligned_is_a_table_of_right_and_left_columns_with_the_equals_signs_in_line():
    table = parsed(mathml(ALIGNED, True)).find("semantics/mrow/mtable")
    assert table is not None and table.get("displaystyle") == "true"
    rows = table.findall("mtr")
    assert len(rows) == 2
    for row in rows:
        assert [cell.get("columnalign") for cell in row] == ["right", "left"]
        assert [child.tag for child in row[1]][:2] == ["mi", "mo"] and row[1][1].text == "="
    css = SITE_CSS.read_text(encoding="utf-8")
    assert '.gk-site mtd[columnalign="right"] { text-align: right; }' in css


def test_a_prime_is_the_fonts_own_and_bars_are_not_spaced_as_operators():
    element = mathml(r"f'(x) + |f''| / 2", False)
    assert "<msup>" not in element and "<mi>f</mi><mi>′</mi>" in element
    assert element.count('lspace="0em" rspace="0em"') == 3  # |, | and /


def test_every_formula_in_the_lessons_converts_with_no_fallback():
    formulas = lesson_formulas()
    assert len(formulas) >= 5, "the lessons' formulas were not found in notebooks/*.py"
    assert any(display for _, _, display in formulas)
    for lesson, tex, display in formulas:
        try:
            element = mathml(tex, display)
        except UnsupportedFormulaError as error:
            pytest.fail(f"{lesson}: ${tex}$ does not convert: {error}")
        assert colours(element) == [], (lesson, tex)
    shown = 0
    for lesson, text in markdown_cells():
        page = markdown_html(text)
        assert "gk-site-math-source" not in page, lesson
        shown += page.count("<math ")
    assert shown == len(formulas), "markdown and this test see different formulas"


@pytest.mark.parametrize(
    "tex",
    [
        r"\unknownmacro{x}",  # a command latex2mathml does not know
        r"\frac{a}",  # a fraction with no denominator
        r"a & b",  # an alignment outside a table
        r"a \\ b",  # a line break outside a table: MathML Core does not break lines
        r"\boxed{x}",  # <menclose>: not in MathML Core
        r"x^",  # latex2mathml raises
    ],
)
def test_a_formula_it_cannot_convert_shows_as_its_source(tex):
    with pytest.raises(UnsupportedFormulaError):
        mathml(tex, False)
    shown = math_html(tex, False)
    assert shown.startswith('<span class="gk-site-math gk-site-math-source"><code>')
    assert "<math" not in shown and (tex.replace("&", "&amp;") in shown)


def test_text_in_a_formula_is_text_not_markup():
    element = mathml(r"\text{<b>&</b>} < y", False)
    assert "<b>" not in element and "<mtext>&lt;b&gt;&amp;&lt;/b&gt;</mtext>" in element


def test_the_stylesheet_inverts_nothing_and_wraps_printed_output():
    css = SITE_CSS.read_text(encoding="utf-8")
    assert "invert" not in css and "gk-site-math img" not in css
    printed = re.search(r"\.gk-site-stdout, [^{]*\{([^}]*)\}", css)
    assert printed and "white-space: pre-wrap" in printed.group(1)
    assert "overflow-wrap: anywhere" in printed.group(1)
    image = re.search(r"\.gk-site-image \{([^}]*)\}", css)
    assert image and "align-self: flex-start" in image.group(1)


@pytest.mark.parametrize(
    ("tex", "kept"),
    [
        (r"\style{background:url(http://example.org/x)}{x}", "<mi>x</mi>"),
        (r"\href{javascript:alert(1)}{x}", "<mi>x</mi>"),
        (r"\class{gk-site-widget}{x}", "<mi>x</mi>"),
        (r"\colorbox{url(http://example.org/y)}{y}", "<mpadded><mtext>y</mtext></mpadded>"),
        (r"\color{red}{x}", '<mstyle mathcolor="red">'),
    ],
)
def test_a_formula_keeps_only_layout_attributes(tex, kept):
    """\\style, \\href and \\class keep their formula and lose the attribute; a colour stays only
    as a name or # code. planted: keeping every attribute latex2mathml writes fails it."""
    element = ET.fromstring(mathml(tex, display=True))
    names = {name for node in element.iter() for name in node.attrib}
    assert not names & {"style", "href", "class"}, names
    assert "url(" not in "".join(v for node in element.iter() for v in node.attrib.values())
    assert kept in mathml(tex, display=True)
