"""Running a notebook in a fresh kernel of this Python: the one runner of gradkit.

``gradkit export``, ``gradkit warm``, ``tools/time_lessons.py``, the lesson tests and the class
benchmark all run notebooks the same way: nbclient, with a kernel started from this very
interpreter (``sys.executable -m ipykernel_launcher``), never the first ``python3`` kernelspec on
Jupyter's path (which may be another environment, without gradkit or with another torch). The
kernel works in the folder given, as Jupyter runs a notebook in its own folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["notebook_client", "run_notebook", "this_python_kernels"]


def this_python_kernels() -> Any:
    """A kernel spec manager whose ``python3`` is this interpreter (where gradkit is installed)."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            return KernelSpec(
                argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                display_name=f"Python 3 ({sys.executable})",
                language="python",
            )

    return ThisPython()


def notebook_client(
    notebook: Any,
    folder: str | os.PathLike[str],
    *,
    timeout: int,
    allow_errors: bool = True,
    store_widget_state: bool = False,
    **options: Any,
) -> Any:
    """An nbclient ``NotebookClient`` for ``notebook`` on a kernel of this Python.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        Run in place: outputs go into its cells.
    folder : path
        The kernel's working folder.
    timeout : int
        Seconds one cell may run before nbclient raises ``CellTimeoutError``.
    allow_errors : bool
        Keep going after a cell raises (its error output stays in the cell).
    store_widget_state : bool
        Save the widgets' state in ``notebook.metadata.widgets`` (what a page shows them from).
    **options
        Further ``NotebookClient`` settings (``extra_arguments`` for the kernel,
        ``on_cell_execute`` hooks).
    """
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    return NotebookClient(
        notebook,
        timeout=timeout,
        allow_errors=allow_errors,
        store_widget_state=store_widget_state,
        km=AsyncKernelManager(kernel_name="python3", kernel_spec_manager=this_python_kernels()),
        resources={"metadata": {"path": str(Path(folder))}},
        **options,
    )


def run_notebook(
    notebook: Any,
    folder: str | os.PathLike[str],
    *,
    timeout: int,
    allow_errors: bool = True,
    store_widget_state: bool = False,
    quiet: bool = False,
) -> Any:
    """Run ``notebook`` top to bottom (see :func:`notebook_client`); returns it, with outputs.

    ``quiet`` sends the kernel's own start-up chatter (its stdout and stderr) nowhere.
    """
    import subprocess

    client = notebook_client(
        notebook,
        folder,
        timeout=timeout,
        allow_errors=allow_errors,
        store_widget_state=store_widget_state,
    )
    if quiet:
        client.execute(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        client.execute()
    return notebook
