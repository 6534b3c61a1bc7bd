"""Time each lesson notebook top to bottom in a fresh kernel, one after another.

Run from the repository root: ``.venv/bin/python tools/time_lessons.py [NAME ...]``. Prints the
wall time per notebook (kernel start included) and its slowest cells, and the load average,
since other work on the machine inflates the numbers. Exit status 1 if any cell raised.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from gradkit.cli.runner import run_notebook

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only notebooks whose name contains one of these")
    args = parser.parse_args(argv)
    failed = False
    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        if args.names and not any(n in path.name for n in args.names):
            continue
        run = run_notebook(path, timeout=120, quiet=True)
        slowest = sorted(((s, k) for k, s in run.cell_seconds.items()), reverse=True)[:3]
        failed |= bool(run.errors)
        cells = ", ".join(f"cell {k}: {s:.2f}s" for s, k in slowest)
        print(
            f"{path.name:28} {run.seconds:5.1f} s   slowest {cells}   "
            f"load {os.getloadavg()[0]:.1f}{'   ERRORS' if run.errors else ''}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
