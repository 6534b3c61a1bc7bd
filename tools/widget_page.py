"""Look at widgets without Jupyter: write them into one HTML page and screenshot it in chromium.

For developers: the page is a static site's page (``gradkit export``) holding only these widgets,
saved as a notebook saves them (ipywidgets' manager state) and played by the site's own loader
(``gradkit/cli/site/loader.js``) with each widget's stand-in model (``base/standin.js``): every
move the saved answers hold works; what needs the kernel is greyed out saying why, as on the
exported site.

    python tools/widget_page.py OUT.png "SlopeExplorer()" "EpsilonLab(panels=['curves'])" \
        --click ".gradkit-eps-down" --width 1000

Each expression is evaluated with ``from gradkit.widgets import *`` and ``torch`` in scope.
"""

from __future__ import annotations

import argparse
import html
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gradkit.cli.site.widgets import Modules, PageWidgets  # noqa: E402

LOADER = ROOT / "gradkit" / "cli" / "site" / "loader.js"
#: What a greyed-out control's line says on this page (the site's says where to open the lesson).
NOTE = "Needs a running notebook."

_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<style>body{font-family:sans-serif;margin:16px;background:%(bg)s}</style></head>
<body data-gk-offline-note="%(note)s">
%(slots)s
<script type="application/json" id="gk-site-widgets">%(models)s</script>
%(scripts)s</body></html>"""


def write_page(widgets: list, path: Path, background: str = "#ffffff", note: str = NOTE) -> Path:
    """An HTML page rendering ``widgets`` from their current state with no kernel, beside its
    ``assets/`` (the widgets' modules and the site's loader). The page is ready when its body
    has ``data-gk-site="ready"``."""
    from ipywidgets import Widget

    saved = Widget.get_manager_state(widgets=widgets)["state"]
    modules = Modules()
    page = PageWidgets(saved, modules, outputs=lambda _output: "")
    slots = "\n".join(page.view_html(w.model_id) for w in widgets)
    files = {**modules.files, "assets/loader.js": LOADER.read_bytes()}
    for name, data in files.items():
        (path.parent / name).parent.mkdir(parents=True, exist_ok=True)
        (path.parent / name).write_bytes(data)
    scripts = "".join(
        f'<script src="{name}" defer></script>\n' for name in [*page.scripts(), "assets/loader.js"]
    )
    values = {"bg": background, "note": html.escape(note), "slots": slots, "scripts": scripts}
    path.write_text(_PAGE % {**values, "models": page.page_json()}, encoding="utf-8")
    return path


def screenshot(page_path: Path, out: Path, clicks: list[str], width: int = 1000) -> list[str]:
    """Open the page in Debian's chromium, click each selector, save a full-page screenshot.

    Returns the page's errors (uncaught exceptions and console errors).
    """
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": width, "height": 800})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(page_path.resolve().as_uri())
        page.wait_for_selector("body[data-gk-site=ready]", timeout=20_000)
        for selector in clicks:
            page.locator(selector).first.click()
            page.wait_for_timeout(150)
        page.wait_for_timeout(200)
        page.screenshot(path=str(out), full_page=True)
        browser.close()
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the screenshot (PNG)")
    parser.add_argument("widgets", nargs="+", help="Python expressions building widgets")
    parser.add_argument("--click", action="append", default=[], help="a CSS selector to click")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--dark", action="store_true", help="a dark page background")
    args = parser.parse_args()
    import torch

    import gradkit.widgets as gw

    scope = {name: getattr(gw, name) for name in gw.__all__} | {"torch": torch}
    built = [eval(expression, scope) for expression in args.widgets]
    with tempfile.TemporaryDirectory() as tmp:
        page = write_page(built, Path(tmp) / "page.html", "#111111" if args.dark else "#ffffff")
        errors = screenshot(page, args.out, args.click, args.width)
    print(f"wrote {args.out}; page errors: {errors or 'none'}")


if __name__ == "__main__":
    main()
