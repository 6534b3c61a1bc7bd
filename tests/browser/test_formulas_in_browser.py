"""The static site's formulas, printed output and pictures as chromium lays them out.

No lesson is executed: a page is built from what the exporter writes for them
(:func:`~gradkit.cli.site.math.math_html`, :func:`~gradkit.cli.site.cells.output_html`) and the
site's stylesheet, and opened with ``set_content`` (nothing else is loaded). Checked: every
formula is typeset (a box with a size) in the text's colour, light and dark; the ``=`` signs of
an ``aligned`` block line up; a matrix's parentheses stretch; a long printed line wraps where
code scrolls; a picture is shown at its own size, not stretched to the page's width.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest

from gradkit.cli.site.cells import code_html, output_html
from gradkit.cli.site.math import math_html

pytestmark = pytest.mark.browser

CSS = (Path(__file__).resolve().parents[2] / "gradkit/cli/site/site.css").read_text("utf-8")
ALIGNED = (
    r"\begin{aligned} f(x+\varepsilon) &= f(x) + \tfrac{\varepsilon^2}{2} \\ g &= 1 \end{aligned}"
)
FORMULAS = [
    (ALIGNED, True),
    (r"A = \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", True),
    (r"\operatorname{sign}(x) = \begin{cases} 1 & x > 0 \\ -1 & \text{else} \end{cases}", True),
    (r"\varepsilon^* = \left(\frac{3u\,|f|}{|f'''|}\right)^{1/3}", True),
    (r"\|J - \hat J\|_\infty \approx 10^{-7} \cdot \mathrm{d}x", False),
]
LAID_OUT = """() => {
  const body = getComputedStyle(document.body).color;
  const maths = [...document.querySelectorAll('math')].map(m => {
    const box = m.getBoundingClientRect();
    return {width: box.width, height: box.height, colour: getComputedStyle(m).color};
  });
  const aligned = document.querySelector('math');
  const equals = [...aligned.querySelectorAll('mtd[columnalign=left] > mo:nth-child(2)')]
    .map(mo => mo.getBoundingClientRect().left);
  const paren = document.querySelectorAll('math')[1].querySelector('mo:has(+ mtable)');
  const cell = document.querySelectorAll('math')[1].querySelector('mtd');
  return {body, maths, equals, paren: paren.getBoundingClientRect().height,
          cell: cell.getBoundingClientRect().height};
}"""


def page_html(body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><style>{CSS}</style></head>'
        f'<body class="gk-site"><main class="gk-site-main">{body}</main></body></html>'
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_formulas_are_typeset_in_the_texts_colour(browser, scheme: str) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1000, "height": 900})
    page = context.new_page()
    body = "".join(f"<p>Before {math_html(tex, shown)} after.</p>" for tex, shown in FORMULAS)
    page.set_content(page_html(body))
    laid = page.evaluate(LAID_OUT)
    context.close()
    assert len(laid["maths"]) == len(FORMULAS)
    for drawn in laid["maths"]:
        assert drawn["width"] > 20 and drawn["height"] > 10, drawn
        assert drawn["colour"] == laid["body"], (scheme, drawn)
    assert len(laid["equals"]) == 2 and laid["equals"][0] == pytest.approx(laid["equals"][1])
    assert laid["paren"] > 1.5 * laid["cell"], "the matrix's parentheses did not stretch"


def test_printed_lines_wrap_code_scrolls_and_pictures_keep_their_size(browser) -> None:
    import matplotlib.pyplot as plt

    fig, _ax = plt.subplots(figsize=(3, 1), dpi=100)
    pictures = {}
    for kind in ("png", "svg"):
        out = io.BytesIO()
        fig.savefig(out, format=kind)
        pictures[kind] = out.getvalue()
    plt.close(fig)
    long = "RuntimeError: shape '[2, 3]' is invalid for input of size 4; " * 6
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": long},
        {
            "output_type": "display_data",
            "data": {"image/png": base64.b64encode(pictures["png"]).decode()},
        },
        {"output_type": "display_data", "data": {"image/svg+xml": pictures["svg"].decode()}},
    ]
    shown = "".join(output_html(output, widgets=None) for output in outputs)
    body = (
        f'{code_html("x = 1  # " + "a long line " * 30)}<div class="gk-site-outputs">{shown}</div>'
    )
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    page.set_content(page_html(body))
    printed = page.eval_on_selector(".gk-site-stdout", "e => [e.scrollWidth, e.clientWidth]")
    code = page.eval_on_selector(".highlight pre", "e => [e.scrollWidth, e.clientWidth]")
    images = page.eval_on_selector_all(
        ".gk-site-image", "els => els.map(e => [e.getBoundingClientRect().width, e.naturalWidth])"
    )
    context.close()
    assert printed[0] <= printed[1], "a long printed line is cut at the right edge"
    assert code[0] > code[1], "code should scroll sideways, not wrap"
    assert len(images) == 2
    for width, natural in images:
        assert natural > 0 and width == pytest.approx(natural), "a picture was stretched"
    assert images[0][1] == 300  # 3 inches at 100 dpi
