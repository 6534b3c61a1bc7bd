"""Keep each lesson pair in step: ``notebooks/NN_name.py`` (the source) and its ``.ipynb``.

Run from the repository root (``make lessons`` does): ``.venv/bin/python tools/sync_lessons.py``.

1. ``jupytext --sync`` on every pair: the file edited last gives the cells, so a teacher may
   edit either the ``.py`` in an editor or the ``.ipynb`` in Jupyter. A new ``NN_name.py``
   gets its ``.ipynb``.
2. ``ruff format`` the ``.py`` sources, then sync again from them.
3. Strip outputs, execution counts, run metadata and widget state from every ``.ipynb``.

``--check`` changes nothing: it names every pair that is out of step or a notebook that holds
outputs, and exits with status 1.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BIN = Path(sys.executable).parent
# Notebook metadata a lesson keeps: its kernel, jupytext's pairing, and the Voila template that
# asks no other server for anything (share/jupyter/voila/templates/gradkit).
_KEPT_METADATA = ("kernelspec", "jupytext", "voila")
# Cell metadata that running or viewing a notebook adds; jupytext's own keys (lines_to_next_cell)
# and a teacher's tags stay.
_RUN_METADATA = (
    "execution",
    "ExecuteTime",
    "scrolled",
    "collapsed",
    "jupyter",
    "widgets",
    "trusted",
)


def cells(path: Path) -> list[tuple[str, str]]:
    """The (type, source) of every cell, as jupytext reads the file (metadata ignored)."""
    return [(c.cell_type, c.source.strip()) for c in jupytext.read(path).cells]


def problems() -> list[str]:
    """What is out of step, one line per problem (empty when every pair is clean)."""
    found = []
    sources = sorted(NOTEBOOKS.glob("[0-9]*.py"))
    for source in sources:
        notebook = source.with_suffix(".ipynb")
        if not notebook.exists():
            found.append(f"{notebook.name} is missing")
        elif cells(source) != cells(notebook):
            found.append(f"{source.name} and {notebook.name} differ")
    for notebook in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
        if not notebook.with_suffix(".py").exists():
            found.append(f"{notebook.with_suffix('.py').name} is missing")
        if _strip(nbformat.read(notebook, as_version=4)):
            found.append(f"{notebook.name} holds outputs, execution counts or widget state")
    return found


def _strip(nb) -> bool:
    """Remove outputs, counts, run metadata and widget state; True if anything was there."""
    changed = False
    for key in [k for k in nb.metadata if k not in _KEPT_METADATA]:
        del nb.metadata[key]
        changed = True
    for cell in nb.cells:
        for key in [k for k in cell.metadata if k in _RUN_METADATA]:
            del cell.metadata[key]
            changed = True
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
            cell.outputs, cell.execution_count = [], None
            changed = True
    return changed


def _run(*command: str) -> None:
    subprocess.run(command, check=True, cwd=ROOT)


def sync() -> None:
    """Sync every pair, format the sources, strip the notebooks."""
    pairs = sorted(
        {p.stem for p in NOTEBOOKS.glob("[0-9]*.py")}
        | {p.stem for p in NOTEBOOKS.glob("[0-9]*.ipynb")}
    )
    files = [
        str(next(p for p in (NOTEBOOKS / f"{s}.py", NOTEBOOKS / f"{s}.ipynb") if p.exists()))
        for s in pairs
    ]
    _run(str(BIN / "jupytext"), "--quiet", "--sync", *files)
    sources = [str(p) for p in sorted(NOTEBOOKS.glob("[0-9]*.py"))]
    _run(str(BIN / "ruff"), "format", "--quiet", *sources)
    _run(str(BIN / "jupytext"), "--quiet", "--sync", *sources)
    for notebook in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
        nb = nbformat.read(notebook, as_version=4)
        if _strip(nb):
            nbformat.write(nb, notebook)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report only; change nothing")
    args = parser.parse_args(argv)
    if not args.check:
        sync()
    found = problems()
    for line in found:
        print(line)
    if not found:
        print(f"{len(list(NOTEBOOKS.glob('[0-9]*.py')))} lesson pairs in step, stored clean")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
