"""Look at widgets in a real Notebook 7: run cells, act in the page, screenshot (developers).

    python tools/notebook_check.py OUT.png "from gradkit.widgets import SlopeExplorer" \
        "w = SlopeExplorer(); w" --steps steps.py

Writes a notebook of the given cells into a temporary folder, starts Notebook 7 there on
127.0.0.1 with a random token (``gradkit notebook``), runs all cells in Debian's chromium, runs
the optional ``--steps`` file (Python with ``page`` and ``json`` in scope, e.g. clicks), saves a
full-page screenshot and stops the server by its PID. Page errors are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("cells", nargs="+")
    parser.add_argument("--steps", type=Path, help="Python run after Run All (page, json)")
    parser.add_argument("--lab", action="store_true", help="JupyterLab 4 instead of Notebook 7")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    from playwright.sync_api import sync_playwright

    import harness as jp

    with tempfile.TemporaryDirectory() as tmp:
        root, work = Path(tmp) / "nb", Path(tmp) / "work"
        root.mkdir()
        jp.write_notebook(root / "check.ipynb", args.cells)
        if args.lab:
            server = jp.start_lab(root, work)
        else:
            expose = ["--JupyterNotebookApp.expose_app_in_browser=True"]
            server = jp.start_notebook(root, work, extra=expose)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=jp.CHROMIUM, args=jp.CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1200, "height": 1000})
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                jp.open_notebook(page, server, "check.ipynb")
                print("widgets:", jp.run_all(page))
                page.wait_for_timeout(1000)
                if args.steps:
                    exec(args.steps.read_text(), {"page": page, "json": json, "jp": jp})
                jp.full_screenshot(page, args.out)
                print("page errors:", errors or "none", "| problems:", jp.problems(page) or "none")
                jp.shutdown_kernel(page)
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
