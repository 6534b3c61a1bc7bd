"""Time each lesson notebook top to bottom in a fresh kernel, one after another.

Run from the repository root: ``.venv/bin/python tools/time_lessons.py [NAME ...]``. Prints the
wall time per notebook (kernel start included) and its slowest cells, and the load average,
since other work on the machine inflates the numbers. Exit status 1 if any cell raised.
"""

from __future__ import annotations

import argparse
import os
import time
from datetime import datetime
from pathlib import Path

import nbformat

from gradkit.cli.runner import run_notebook

ROOT = Path(__file__).resolve().parent.parent


def _cell_seconds(cell) -> float:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not start or not end:
        return 0.0
    parse = datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only notebooks whose name contains one of these")
    args = parser.parse_args(argv)
    failed = False
    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        if args.names and not any(n in path.name for n in args.names):
            continue
        nb = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        run_notebook(nb, path.parent, timeout=120)
        seconds = time.perf_counter() - start
        code = [c for c in nb.cells if c.cell_type == "code"]
        slowest = sorted(((_cell_seconds(c), k) for k, c in enumerate(code)), reverse=True)[:3]
        errors = [o for c in code for o in c.outputs if o.output_type == "error"]
        failed |= bool(errors)
        cells = ", ".join(f"cell {k}: {s:.2f}s" for s, k in slowest)
        print(
            f"{path.name:28} {seconds:5.1f} s   slowest {cells}   "
            f"load {os.getloadavg()[0]:.1f}{'   ERRORS' if errors else ''}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
