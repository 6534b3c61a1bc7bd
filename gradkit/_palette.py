"""The colours of every gradkit picture, card and readout, written once, for light and dark pages.

Okabe-Ito hues for the data (distinguishable with the common colour-vision deficiencies), each
darkened for a white page (:data:`PALETTE`) or lightened for a dark one (:data:`PALETTE_DARK`) so
that it reads as text there, plus the verdict colours. Nothing gradkit writes holds a fixed
colour: the page gets the palette as CSS custom properties ``--gk-<name>``
(:func:`theme_css`), light by default and dark where the page is dark (JupyterLab's
``body[data-jp-theme-light="false"]``, VS Code's ``body.vscode-dark``, or, on a page without a
Jupyter theme, the reader's ``prefers-color-scheme: dark``). The HTML cards of
:mod:`gradkit.report` and the exercises carry :data:`CARDS_CSS` (that palette and their layout, by
class: no inline style, so a published page keeps them after cleaning); the
widgets' ``gradkit/widgets/base/theme.css`` holds the same text (a test keeps both equal) and the
pictures read the computed properties (``base/theme.js``). :data:`CONTRAST_PAIRS` lists what
must stay readable (a test computes each pair's WCAG contrast in both themes). Depends on nothing.
"""

from __future__ import annotations

__all__ = [
    "CARDS_CSS",
    "CONTRAST_PAIRS",
    "DTYPE_STYLES",
    "FIGURE_INK",
    "FIGURE_STYLE",
    "PALETTE",
    "PALETTE_DARK",
    "THEMES",
    "contrast_ratio",
    "relative_luminance",
    "theme_css",
]

#: Colour by name, light theme (white paper). Also the fallback wherever no theme is known.
PALETTE: dict[str, str] = {
    "blue": "#0072B2",
    "vermillion": "#C24E00",
    "green": "#007A5A",
    "pink": "#A8487F",
    "orange": "#9A6700",
    "sky": "#1F78B4",
    "purple": "#7B3FA0",  # a marker told apart from the blue/vermillion pair (the zoom window)
    "grey": "#6B6B6B",
    "ink": "#222222",
    "muted": "#555555",
    "error": "#B3261E",  # a failing verdict, a wrong answer, an error
    "pass": "#1B7F3B",  # a passing verdict, a right answer
    "warn": "#8A5A00",  # a warning: half a nudge survives, torch warned
    "select": "#0B5CAD",  # a selected toggle button's face
    "on-select": "#FFFFFF",  # the text on it
    "face": "#F2F2F2",  # a button's face where the page has no theme
    "face-hover": "#E4E4E4",
    "paper": "#FFFFFF",  # a picture's background
    "grid": "#E3E3E3",  # grid lines (decoration: the ticks carry the values)
    "line": "#D0D0D0",  # frames and borders around panels
}

#: The same names for a dark page (JupyterLab Dark's #111111 background).
PALETTE_DARK: dict[str, str] = {
    "blue": "#56B4E9",
    "vermillion": "#FF8C42",
    "green": "#3DD6A6",
    "pink": "#E69FC8",
    "orange": "#F0C040",
    "sky": "#8FD3FF",
    "purple": "#C9A0FF",
    "grey": "#A0A0A0",
    "ink": "#E6E6E6",
    "muted": "#B0B0B0",
    "error": "#FF6B6B",
    "pass": "#5BD38A",
    "warn": "#F2B84B",
    "select": "#8AB4F8",
    "on-select": "#111111",
    "face": "#2A2A2A",
    "face-hover": "#3A3A3A",
    "paper": "#111111",
    "grid": "#2E2E2E",
    "line": "#444444",
}

#: Each theme's palette by name.
THEMES: dict[str, dict[str, str]] = {"light": PALETTE, "dark": PALETTE_DARK}

# WCAG 2.1: 4.5:1 for text (1.4.3), 3:1 for lines and markers a reader needs (1.4.11).
_TEXT, _GRAPHIC = 4.5, 3.0

#: (foreground, background, least contrast) that must hold in every theme. Every data colour
#: also labels things in the pictures (a tolerance, a rounding note), so each is held to text's 4.5.
CONTRAST_PAIRS: tuple[tuple[str, str, float], ...] = (
    *(
        (name, "paper", _TEXT)
        for name in (
            *("blue", "vermillion", "green", "pink", "orange", "sky", "purple", "grey"),
            *("ink", "muted", "error", "pass", "warn"),
        )
    ),
    ("on-select", "select", _TEXT),
    ("ink", "face", _TEXT),  # a button's label
    ("ink", "face-hover", _TEXT),
    ("select", "paper", _GRAPHIC),  # the selected button's face against the page
    ("grey", "paper", _GRAPHIC),
)

#: Colour, marker and line style of each dtype's curve, wherever dtypes are drawn side by side
#: (light values: the page maps each to its theme's colour of the same name).
DTYPE_STYLES: dict[str, tuple[str, str, str]] = {
    "float64": (PALETTE["blue"], "o", "-"),
    "float32": (PALETTE["vermillion"], "s", "-"),
    "float16": (PALETTE["green"], "^", "--"),
    "bfloat16": (PALETTE["pink"], "D", "-."),
}

#: The one grey that reads on white paper and on a dark page alike (about 4.3:1 on #FFFFFF and
#: on JupyterLab Dark's #111111): the text, ticks and frames of the lessons' matplotlib figures.
FIGURE_INK = "#7A7A7A"

#: matplotlib settings for the lessons' figures: ``plt.style.use(gradkit.FIGURE_STYLE)``. A PNG
#: cannot ask which theme the page has, so the figure is see-through (the page shows behind it),
#: its text and frames are :data:`FIGURE_INK`, and its lines take the Okabe-Ito hues, which keep
#: 3:1 (WCAG's least for lines and markers) on both papers.
FIGURE_STYLE: dict[str, object] = {
    "figure.facecolor": "none",
    "figure.edgecolor": "none",
    "axes.facecolor": "none",
    "savefig.transparent": True,
    "text.color": FIGURE_INK,
    "axes.labelcolor": FIGURE_INK,
    "axes.edgecolor": FIGURE_INK,
    "xtick.color": FIGURE_INK,
    "ytick.color": FIGURE_INK,
    "legend.labelcolor": FIGURE_INK,
    "legend.facecolor": "none",
    "legend.edgecolor": FIGURE_INK,
    "axes.prop_cycle": "cycler(color=['#0072B2', '#D55E00', '#009E73', '#CC79A7'])",
}


def relative_luminance(color: str) -> float:
    """WCAG relative luminance of ``"#RRGGBB"`` (or ``"#RGB"``), 0 (black) to 1 (white).

    Parameters
    ----------
    color : str
        A hex colour.

    Returns
    -------
    float
        ``0.2126 R + 0.7152 G + 0.0722 B`` of the linearised sRGB channels.
    """
    digits = color.lstrip("#") if isinstance(color, str) else ""
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    try:
        channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)] if len(digits) == 6 else []
    except ValueError:
        channels = []
    if not channels:
        raise ValueError(f"color must be a hex colour like '#1B7F3B', got {color!r}")
    # sRGB -> linear: c / 12.92 below 0.04045, else ((c + 0.055) / 1.055) ** 2.4
    red, green, blue = (
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels
    )
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two hex colours, 1 (same) to 21 (black on white).

    ``(L_lighter + 0.05) / (L_darker + 0.05)`` with :func:`relative_luminance`.
    """
    darker, lighter = sorted((relative_luminance(first), relative_luminance(second)))
    return (lighter + 0.05) / (darker + 0.05)


#: What the page's chrome takes from JupyterLab where it has a theme, else from the palette.
_CHROME = (
    ("fg", "var(--jp-ui-font-color0, var(--gk-ink))"),
    ("fg-muted", "var(--jp-ui-font-color2, var(--gk-muted))"),
    ("bg", "var(--jp-layout-color0, var(--gk-paper))"),
    ("border", "var(--jp-border-color1, var(--gk-line))"),
)

# Where the page is dark: JupyterLab / Notebook 7 / Voila with a dark theme, VS Code's dark
# notebooks, or a page without a Jupyter theme in a reader's dark colour scheme.
_DARK_PAGES = ('body[data-jp-theme-light="false"]', "body.vscode-dark")
_NO_JUPYTER_THEME = "body:not([data-jp-theme-light])"


def _declarations(palette: dict[str, str]) -> str:
    return " ".join(f"--gk-{name}: {value};" for name, value in palette.items())


def theme_css(selector: str) -> str:
    """The palette as CSS custom properties on ``selector``, light or dark as the page is.

    Parameters
    ----------
    selector : str
        A CSS selector list (``".gradkit-report, .gradkit-feedback"``).

    Returns
    -------
    str
        Rules setting ``--gk-<name>`` for every palette name (light), the chrome's
        ``--gk-fg``, ``--gk-fg-muted``, ``--gk-bg`` and ``--gk-border`` (JupyterLab's ``--jp-*``
        variables where there are some), and the dark values on a dark page.
    """
    if not isinstance(selector, str) or not selector.strip() or "{" in selector:
        raise ValueError(
            f"selector must be a CSS selector list like '.gradkit-report', got {selector!r}"
        )
    chrome = " ".join(f"--gk-{name}: {value};" for name, value in _CHROME)
    dark = _declarations(PALETTE_DARK)
    dark_pages = ", ".join(f"{page} :is({selector})" for page in _DARK_PAGES)
    return (
        f"{selector} {{ {_declarations(PALETTE)} {chrome} }}\n"
        "@media (prefers-color-scheme: dark) { "
        f"{_NO_JUPYTER_THEME} :is({selector}) {{ {dark} }} }}\n"
        f"{dark_pages} {{ {dark} }}\n"
    )


# The cards' layout, by class. The table's rules name its class: JupyterLab's own
# (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``, right-aligned) must not win.
_CARD_RULES = """
div.gradkit-report { border: 2px solid var(--gk-pass); border-radius: 6px; padding: 0.5em 0.8em;
  margin: 0.3em 0; color: var(--gk-fg); background: var(--gk-bg); }
div.gradkit-report.gradkit-failed { border-color: var(--gk-error); }
div.gradkit-report .gradkit-report-head { font-weight: bold; color: var(--gk-pass);
  font-size: 1.1em; }
div.gradkit-report.gradkit-failed .gradkit-report-head { color: var(--gk-error); }
div.gradkit-report table.gradkit-rows { margin: 0.3em 0; }
div.gradkit-report table.gradkit-rows th { text-align: left; padding-right: 1em;
  vertical-align: top; }
div.gradkit-report table.gradkit-rows td { text-align: left; }
div.gradkit-report pre { white-space: pre-wrap; }
div.gradkit-warnings { border-left: 4px solid var(--gk-warn); color: var(--gk-fg);
  padding: 0.3em 0.6em; margin: 0.3em 0; }
div.gradkit-warnings b { color: var(--gk-warn); }
div.gradkit-warnings ul { margin: 0.2em 0; padding-left: 1.2em; }
div.gradkit-feedback { color: var(--gk-fg); background: var(--gk-bg); }
div.gradkit-feedback .gradkit-feedback-head { font-weight: bold; color: var(--gk-pass); }
div.gradkit-feedback.gradkit-failed .gradkit-feedback-head { color: var(--gk-error); }
div.gradkit-feedback ul { margin: 0.2em 0; }
"""

#: The stylesheet of gradkit's HTML cards (the check report, torch's warnings, exercise
#: feedback): the palette on them and their layout. Each card carries it in a ``<style>``; a
#: published page has it in its own stylesheet (``gradkit export`` cleans every output's HTML).
CARDS_CSS = theme_css(".gradkit-report, .gradkit-feedback") + _CARD_RULES.lstrip()
