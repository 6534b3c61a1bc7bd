"""Look at widgets without Jupyter: write them into one HTML page and screenshot it in chromium.

For developers: the page plays the anywidget model with the widgets' current state (no kernel:
every move the page makes from its tables works; clicks that need the kernel are logged).

    python tools/widget_page.py OUT.png "SlopeExplorer()" "EpsilonLab(panels=['curves'])" \
        --click ".gradkit-eps-down" --width 1000

Each expression is evaluated with ``from gradkit.widgets import *`` and ``torch`` in scope.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import tempfile
from pathlib import Path

_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<style>body{font-family:sans-serif;margin:16px;background:%(bg)s}</style></head><body>
<script type="module">
const items = %(items)s;
window.models = [];
for (const it of items) {
  const st = it.state;
  const bytes = Uint8Array.from(atob(st.tables), (c) => c.charCodeAt(0));
  st.tables = new DataView(bytes.buffer);
  const listeners = {};
  const model = {
    get: (k) => st[k],
    set: (k, v) => { st[k] = v; (listeners["change:" + k] || []).forEach((f) => f()); },
    on: (ev, f) => { (listeners[ev] = listeners[ev] || []).push(f); },
    off() {}, save_changes() {}, send(m) { console.log("send", JSON.stringify(m)); },
  };
  const style = document.createElement("style");
  style.textContent = it.css;
  document.head.append(style);
  const url = URL.createObjectURL(new Blob([it.esm], { type: "text/javascript" }));
  const mod = await import(url);
  const el = document.createElement("div");
  document.body.append(el);
  mod.default.render({ model, el });
  window.models.push(model);
}
window.ready = true;
</script></body></html>"""


def write_page(widgets: list, path: Path, background: str = "#ffffff") -> Path:
    """An HTML page rendering ``widgets`` from their current state (no kernel)."""
    items = []
    for w in widgets:
        names = ("spec", "state", "control_state", "scene", "exact", "error", "busy", "ack")
        state = {name: getattr(w, name) for name in names}
        state["tables"] = base64.b64encode(w.tables).decode()
        items.append({"esm": w._esm, "css": w._css, "state": state})
    path.write_text(_PAGE % {"items": json.dumps(items), "bg": background}, encoding="utf-8")
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
        page.wait_for_function("window.ready === true", timeout=20_000)
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
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
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
