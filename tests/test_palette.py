"""The palette knows both themes and stays readable in each (WCAG contrast computed per pair), and
what Python writes as HTML holds no fixed colour: only var(--gk-<name>) and the palette's own
stylesheet (light by default, dark on a dark page)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from gradkit import check
from gradkit._palette import (
    CARDS_CSS,
    CONTRAST_PAIRS,
    PALETTE,
    PALETTE_DARK,
    THEMES,
    contrast_ratio,
    relative_luminance,
    theme_css,
)
from gradkit.cli.site.highlight import highlight_css
from gradkit.exercises.grader import Feedback

THEME_CSS = Path(__file__).resolve().parents[1] / "gradkit" / "widgets" / "base" / "theme.css"
# a fixed colour: a hex value, rgb()/hsl(), or a named colour as a CSS value
FIXED_COLOUR = re.compile(
    r"#[0-9A-Fa-f]{3,8}\b|\b(?:rgba?|hsla?)\(|:\s*(?:white|black|red|green|blue|grey|gray)\b"
)
STYLE_BLOCK = re.compile(r"<style>.*?</style>", re.S)


def test_contrast_ratio_is_wcags():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#FFF", "#FFFFFF") == pytest.approx(1.0)
    # WCAG's worked value: #777777 on white is just under 4.5:1
    assert contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert relative_luminance("#FFFFFF") == pytest.approx(1.0)
    with pytest.raises(ValueError, match="color must be a hex colour"):
        relative_luminance("white")


def test_both_themes_name_the_same_colours():
    assert list(PALETTE) == list(PALETTE_DARK)
    assert THEMES == {"light": PALETTE, "dark": PALETTE_DARK}


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize(("fg", "bg", "least"), CONTRAST_PAIRS, ids=lambda v: str(v))
def test_every_pair_is_readable_in_every_theme(theme, fg, bg, least):
    palette = THEMES[theme]
    ratio = contrast_ratio(palette[fg], palette[bg])
    assert ratio >= least, f"{theme}: {fg} {palette[fg]} on {bg} {palette[bg]} is {ratio:.2f}:1"


def test_the_pairs_cover_every_colour_that_is_drawn_or_written():
    named = {name for fg, bg, _ in CONTRAST_PAIRS for name in (fg, bg)}
    decoration = {"grid", "line"}  # grid lines and frames: the ticks and labels carry the values
    assert set(PALETTE) - decoration <= named


def test_the_widgets_stylesheet_holds_the_palettes_css():
    css = THEME_CSS.read_text(encoding="utf-8")
    assert theme_css(".gradkit-widget") in css
    rules = theme_css(".x")
    for name, value in PALETTE_DARK.items():
        assert f"--gk-{name}: {value};" in rules
    assert 'body[data-jp-theme-light="false"] :is(.x)' in rules
    assert "@media (prefers-color-scheme: dark)" in rules
    with pytest.raises(ValueError, match="selector must be"):
        theme_css("a { color: red }")


def _no_fixed_colour(html: str) -> None:
    assert "<style>" in html, "the card carries the palette's stylesheet"
    outside = STYLE_BLOCK.sub("", html)
    assert not FIXED_COLOUR.search(outside), FIXED_COLOUR.search(outside)
    assert "style=" not in outside, "a card's colours come by class from its stylesheet"
    assert CARDS_CSS in html and "var(--gk-" in CARDS_CSS


class _Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x


def test_report_cards_hold_no_fixed_colour():
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    good = check(torch.square, (x,))
    bad = check(_Wrong.apply, (x,))
    x32 = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
    warned = check(torch.square, (x32,))
    assert warned.warnings
    for report in (good, bad, warned):
        _no_fixed_colour(report._repr_html_())

    def card(report) -> str:
        return STYLE_BLOCK.sub("", report._repr_html_())

    assert "gradkit-failed" in card(bad) and "gradkit-failed" not in card(good)


def test_grader_feedback_holds_no_fixed_colour():
    for passed in (True, False):
        html = Feedback(
            "square", passed, "Not yet: the backward is wrong", ["detail"]
        )._repr_html_()
        _no_fixed_colour(html)
        assert ("gradkit-failed" in STYLE_BLOCK.sub("", html)) is not passed


SITE_CSS = Path(__file__).resolve().parents[1] / "gradkit" / "cli" / "site" / "site.css"
# (text, background) pairs the static site's pages show
SITE_PAIRS = (
    *(
        ("fg", bg)
        for bg in ("bg", "bar", "code-bg", "live-bg", "stderr-bg", "error-bg", "quote-bg")
    ),
    *(("link", bg) for bg in ("bg", "bar", "live-bg")),
    *((fg, "bg") for fg in ("fg-soft", "fg-muted", "faint", "warn", "red", "green", "yellow")),
    *((fg, "bg") for fg in ("blue", "cyan", "magenta")),
    ("fg-soft", "quote-bg"),
    ("fg-muted", "bar"),
    ("note-fg", "note-bg"),
    ("red", "error-bg"),
    ("red", "stderr-bg"),
    ("code-fg", "code-block-bg"),
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_static_site_reads_in_both_colour_schemes(scheme):
    css = SITE_CSS.read_text(encoding="utf-8")
    light_part, dark_part = css.split("@media (prefers-color-scheme: dark)", 1)
    palette = dict(
        re.findall(
            r"--site-([\w-]+): (#[0-9A-F]{6});", light_part if scheme == "light" else dark_part
        )
    )
    for fg, bg in SITE_PAIRS:
        ratio = contrast_ratio(palette[fg], palette[bg])
        assert ratio >= 4.5, f"{scheme}: {fg} on {bg} is {ratio:.2f}:1"
    # outside the two palettes, colours are variables (code cells too: highlight.py's tokens)
    rules = re.sub(r":root \{[^}]*\}", "", css)
    assert set(re.findall(r"#[0-9A-Fa-f]{6}", rules)) == set()
    # every token pygments colours (but whitespace, which draws nothing) reads on the code face
    light_tokens, dark_tokens = highlight_css().split("@media (prefers-color-scheme: dark)", 1)
    tokens = light_tokens if scheme == "light" else dark_tokens
    colours = re.findall(r"^\s*\.highlight \.(\w+) \{ color: (#[0-9A-Fa-f]{3,6})", tokens, re.M)
    assert len(colours) > 30
    for token, colour in colours:
        ratio = contrast_ratio(colour, palette["code-block-bg"])
        assert token == "w" or ratio >= 4.5, f"{scheme}: .{token} {colour} is {ratio:.2f}:1"
