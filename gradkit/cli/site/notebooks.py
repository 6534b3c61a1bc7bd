"""The lessons to export: found, read, and executed with their widget state.

A PATH is a notebook or a folder of them. A notebook whose code cells all ran (each has an
execution count) is taken as it is, with the widget state it saved; any other is executed in a
fresh kernel of this Python (the one gradkit is installed in), from its own folder, with one
extra cell appended in memory (:data:`STATE_CELL`) that asks ipywidgets for every open widget's
whole state at the end of the run. That is the state the pages play: the kernel's last word,
including tables a widget sent after its first picture (which nbclient, having moved on to
the next cell, may not have recorded).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..runner import run_notebook
from .folder import ExportError
from .shape import NotebookShapeError, check_notebook

__all__ = [
    "STATE_CELL",
    "WIDGET_STATE",
    "CellTimeLimitError",
    "execute",
    "find_notebooks",
    "is_executed",
    "read_notebook",
    "widget_state",
]

#: Where a notebook keeps its widgets' state (nbformat metadata, the ipywidgets schema).
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_FLUSHED = "application/vnd.gradkit.widget-state+json"

#: Appended in memory to a lesson being executed: work a widget deferred runs now, then every
#: open widget's whole state is shown as one output (taken back out of the notebook).
STATE_CELL = f"""\
def _gradkit_export_state():
    import IPython.display
    import ipywidgets
    try:
        from gradkit.widgets.base.schedule import run_pending
    except ImportError:
        pass
    else:
        run_pending()
    state = ipywidgets.Widget.get_manager_state()
    IPython.display.display({{"{_FLUSHED}": state}}, raw=True)


_gradkit_export_state()
"""


def find_notebooks(paths: Sequence[Path]) -> list[Path]:
    """The notebooks named by PATH arguments (a folder: its ``*.ipynb``), sorted by name.

    Raises
    ------
    ExportError
        A PATH that does not exist, is not a notebook or folder of them, or two notebooks with
        the same name (each page is named after its notebook).
    """
    found: dict[str, Path] = {}
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.glob("*.ipynb") if not p.name.startswith("."))
            if not inside:
                raise ExportError(
                    f"PATH {path} is a folder with no notebooks (.ipynb) in it; give lesson "
                    "notebooks or a folder of them"
                )
        elif not path.exists():
            raise ExportError(f"PATH {path} does not exist; give a lesson notebook or a folder")
        elif path.suffix != ".ipynb":
            raise ExportError(
                f"PATH {path} is not a notebook (.ipynb) or a folder of notebooks; give lesson "
                "notebooks, e.g. gradkit export notebooks --out site"
            )
        else:
            inside = [path]
        for notebook in inside:
            seen = found.setdefault(notebook.name, notebook)
            if seen.resolve() != notebook.resolve():
                raise ExportError(
                    f"PATH: two notebooks are named {notebook.name} ({seen} and {notebook}); "
                    "each page is named after its notebook, so export them separately"
                )
    return [found[name] for name in sorted(found)]


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON (a number must be finite)")


def read_notebook(path: Path) -> dict:
    """The notebook at ``path`` as plain JSON (nbformat 4), or an ExportError saying why not.

    Read with :mod:`json` (not nbformat, whose schema machinery takes seconds to import): an
    executed notebook is rendered without it; :func:`execute` converts for nbclient. Every part
    a page reads is checked first (:func:`~.shape.check_notebook`): a broken notebook is one
    line naming the file and the problem, never a traceback.
    """
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant)
    except RecursionError as error:
        raise ExportError(
            f"PATH {path} is not a notebook: its JSON is nested too deeply to read; give lesson "
            "notebooks"
        ) from error
    except (OSError, UnicodeDecodeError, ValueError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ExportError(
            f"PATH {path} is not a readable notebook ({reason[:200]}); give lesson notebooks"
        ) from error
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        version = notebook.get("nbformat") if isinstance(notebook, dict) else None
        hint = "; open it in Jupyter and save it to upgrade it" if version == 3 else ""
        raise ExportError(f"PATH {path} is not a notebook in nbformat 4 (no list of cells){hint}")
    try:
        check_notebook(notebook)
    except NotebookShapeError as problem:
        raise ExportError(
            f"PATH {path} is not a valid notebook: {problem}; repair it or leave it out. "
            "Nothing was written"
        ) from None
    return notebook


def is_executed(notebook: dict) -> bool:
    """Whether every code cell with code in it ran (has an execution count)."""
    return all(
        cell.get("execution_count") is not None
        for cell in notebook["cells"]
        if cell.get("cell_type") == "code" and _text(cell.get("source", "")).strip()
    )


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def widget_state(notebook: dict) -> dict[str, dict]:
    """model id -> saved widget state (``model_name``, ``state``, ``buffers``)."""
    saved = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {})
    return dict(saved.get("state", {}))


class CellTimeLimitError(Exception):
    """A cell ran longer than its limit: ``cell`` (1-based, counting every cell) and ``seconds``.

    ``cell`` is one past the last cell when it was the run's own last step (saving the state).
    """

    def __init__(self, cell: int, seconds: int, source: str) -> None:
        super().__init__(f"cell {cell} ran longer than {seconds} s")
        self.cell, self.seconds, self.source = cell, seconds, source


def execute(notebook: dict, folder: Path, timeout: int = 120) -> dict:
    """Run ``notebook`` top to bottom in a fresh kernel of this Python; a copy, with outputs.

    Parameters
    ----------
    notebook : dict
        The lesson (left unchanged).
    folder : Path
        The kernel's working folder (the notebook's own, as Jupyter runs it).
    timeout : int
        Seconds one cell may run (``--timeout``).

    Returns
    -------
    dict
        The executed copy (an nbformat ``NotebookNode``); a cell that raised keeps its error
        output (the page shows it), and ``metadata.widgets`` holds the state of every widget
        open at the end.

    Raises
    ------
    CellTimeLimitError
        A cell ran longer than ``timeout`` (the kernel is stopped).
    RuntimeError
        The kernel died or did not start (its one-line reason).
    """
    import nbformat

    with warnings.catch_warnings():  # "cell is missing an id": nothing the page needs, no noise
        warnings.simplefilter("ignore")
        run = nbformat.reads(json.dumps(notebook), as_version=4)  # a copy, its lines joined
    run.cells.append(nbformat.v4.new_code_cell(STATE_CELL))
    done = run_notebook(
        run,
        folder,
        timeout=timeout,
        store_widget_state=True,
        kernel_arguments=["--InlineBackend.figure_formats=svg"],  # plots sharp on any screen
        quiet=True,  # the kernel's own chatter is not ours to print
    )
    stopped = done.stopped
    if stopped is not None and stopped.kind == "timeout":
        source = _text(run.cells[stopped.cell].source)
        raise CellTimeLimitError(stopped.cell + 1, timeout, source)
    if stopped is not None:
        raise RuntimeError(stopped.message)
    last = run.cells.pop()
    for output in last.get("outputs", []):
        if _FLUSHED in output.get("data", {}):
            run.metadata["widgets"] = {WIDGET_STATE: dict(output["data"][_FLUSHED])}
    return run
