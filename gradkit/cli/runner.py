"""Running a notebook in a fresh kernel of this Python: the one runner of gradkit.

``gradkit export`` (``cli/site/notebooks.py``), ``gradkit warm``, ``tools/time_lessons.py``, the
lesson tests and the class benchmark all run notebooks here: nbclient, with a kernel started
from this very interpreter (``sys.executable -m ipykernel_launcher``), never the first
``python3`` kernel spec on Jupyter's path (which may be another environment, without gradkit or
with another torch), and never the kernel a notebook's own metadata names: whatever a notebook
or a caller asks for, the kernel is this interpreter's (a caller's own kernel choice is refused
with :class:`KernelChoiceError`). The kernel works in the folder given, as Jupyter runs a
notebook in its own folder, with this process's environment plus the variables given (a cache
folder, a quiz order).

:func:`run_notebook` runs one notebook top to bottom and says what happened
(:class:`NotebookRun`: the executed notebook, the time, each cell's time, the errors);
:func:`notebook_client` is the same kernel for a caller that drives the cells itself (the class
benchmark starts many kernels, then runs them at one signal).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "KERNEL_NAME",
    "KERNEL_SPECS_CLASS",
    "CellError",
    "KernelChoiceError",
    "NotebookRun",
    "notebook_client",
    "run_notebook",
    "this_python_kernels",
]

#: The one kernel name gradkit asks for; every name resolves to this interpreter.
KERNEL_NAME = "python3"
#: NotebookClient settings that would pick another kernel: refused.
_KERNEL_CHOICES = ("km", "kernel_name", "kernel_manager_class", "kernel_spec_manager")


class KernelChoiceError(ValueError):
    """A caller asked for a kernel of its own; gradkit runs notebooks on this interpreter only."""


@dataclass(frozen=True)
class CellError:
    """What went wrong in one cell.

    Attributes
    ----------
    cell : int
        The cell's index in the notebook (0-based, every cell counted); for ``"no kernel"``, -1.
    kind : str
        ``"raised"`` (the cell raised; the run went on), ``"timeout"`` (it ran past the limit;
        the run stopped), ``"dead kernel"`` (the kernel died; the run stopped) or
        ``"no kernel"`` (the kernel did not start).
    message : str
        One line: ``"ZeroDivisionError: division by zero"``, or what stopped the run.
    """

    cell: int
    kind: str
    message: str

    @property
    def stops(self) -> bool:
        """Whether the run ended here (everything but a cell that raised)."""
        return self.kind != "raised"

    def __str__(self) -> str:
        return self.message if self.cell < 0 else f"cell {self.cell}: {self.message}"


@dataclass
class NotebookRun:
    """One notebook run top to bottom by :func:`run_notebook`.

    Attributes
    ----------
    notebook : nbformat.NotebookNode
        The executed notebook (the one given is run in place), outputs in its cells.
    seconds : float
        Wall time of the run, the kernel's start and stop included.
    cell_seconds : dict of int to float
        Wall time of each code cell that ran, by cell index.
    errors : list of CellError
        Every cell that raised, then what stopped the run early (if anything).
    """

    notebook: Any
    seconds: float = 0.0
    cell_seconds: dict[int, float] = field(default_factory=dict)
    errors: list[CellError] = field(default_factory=list)

    @property
    def stopped(self) -> CellError | None:
        """What ended the run before its last cell (a timeout, a dead kernel), else None."""
        return next((error for error in self.errors if error.stops), None)

    @property
    def ok(self) -> bool:
        """Every cell ran and none raised."""
        return not self.errors


def _spec_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a kernel spec, whose values Jupyter reads as templates: ``$`` written ``$$``."""
    return {str(name): str(value).replace("$", "$$") for name, value in env.items()}


@functools.cache
def _kernel_specs_class() -> type:
    """:class:`ThisPythonKernelSpecs`, built on first use (jupyter_client loads only then)."""
    import traitlets
    from ipykernel.kernelspec import RESOURCES
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    class ThisPythonKernelSpecs(KernelSpecManager):
        """Every kernel is this interpreter, whatever name is asked for: the runner's kernels and
        ``gradkit notebook``'s server's (``--ServerApp.kernel_spec_manager_class``), so that no
        ``python3`` spec earlier on Jupyter's path (another environment, another torch) is ever
        started. The one name it lists is ``python3``, with ipykernel's logos."""

        env = traitlets.Dict(help="Variables set in the kernel on top of the environment.")

        def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
            return KernelSpec(
                argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                display_name=f"Python 3 ({sys.executable})",
                language="python",
                env=dict(self.env),
                resource_dir=RESOURCES,
            )

        def find_kernel_specs(self) -> dict[str, str]:
            return {KERNEL_NAME: RESOURCES}

    ThisPythonKernelSpecs.__module__ = __name__
    ThisPythonKernelSpecs.__qualname__ = "ThisPythonKernelSpecs"
    return ThisPythonKernelSpecs


#: The kernel spec manager ``gradkit notebook``'s server loads by name (see :func:`__getattr__`).
KERNEL_SPECS_CLASS = f"{__name__}.ThisPythonKernelSpecs"


def __getattr__(name: str) -> Any:
    """``ThisPythonKernelSpecs``, for Jupyter's server, which loads it as ``KERNEL_SPECS_CLASS``."""
    if name == "ThisPythonKernelSpecs":
        return _kernel_specs_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def this_python_kernels(env: Mapping[str, str] | None = None) -> Any:
    """A kernel spec manager whose every kernel is this interpreter (where gradkit is installed).

    Parameters
    ----------
    env : mapping of str to str, optional
        Variables set in the kernel on top of this process's environment.

    Returns
    -------
    jupyter_client.kernelspec.KernelSpecManager
        Whatever kernel name it is asked for (``python3``, a notebook's own ``julia-1.10``), it
        answers with ``sys.executable -m ipykernel_launcher``.
    """
    return _kernel_specs_class()(env=_spec_env(env or {}))


def notebook_client(
    notebook: Any,
    cwd: str | os.PathLike[str],
    *,
    timeout: int,
    env: Mapping[str, str] | None = None,
    allow_errors: bool = True,
    store_widget_state: bool = False,
    **options: Any,
) -> Any:
    """An nbclient ``NotebookClient`` for ``notebook`` on a kernel of this Python.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        Run in place: outputs go into its cells. Its metadata's kernel name is not read.
    cwd : path
        The kernel's working folder.
    timeout : int
        Seconds one cell may run before nbclient raises ``CellTimeoutError``.
    env : mapping of str to str, optional
        Variables set in the kernel on top of this process's environment.
    allow_errors : bool
        Keep going after a cell raises (its error output stays in the cell).
    store_widget_state : bool
        Save the widgets' state in ``notebook.metadata.widgets`` (what a page shows them from).
    **options
        Further ``NotebookClient`` settings (``extra_arguments`` for the kernel, the
        ``on_cell_*`` hooks); none may choose the kernel.

    Raises
    ------
    KernelChoiceError
        ``options`` name a kernel or a kernel manager (``km``, ``kernel_name``, ...).
    """
    chosen = sorted(set(options) & set(_KERNEL_CHOICES))
    if chosen:
        raise KernelChoiceError(
            f"{', '.join(chosen)}: gradkit runs every notebook on a kernel of this interpreter "
            f"({sys.executable}); leave the kernel to gradkit.cli.runner"
        )
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    kernels = this_python_kernels(env)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        allow_errors=allow_errors,
        store_widget_state=store_widget_state,
        km=AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=kernels),
        resources={"metadata": {"path": str(Path(cwd))}},
        **options,
    )
    # the manager is this client's alone: its kernel stops when the run ends (nbclient stops
    # only a kernel it made itself, and left each of ours running until this process exits)
    client.owns_km = True
    return client


def _one_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[-1] if lines else type(error).__name__


def _raised(cell: Any, reply: Mapping[str, Any] | None) -> str | None:
    """``"Name: value"`` of a cell that raised (the kernel's reply, else its error output)."""
    content = (reply or {}).get("content", {})
    if content.get("status") == "error":
        return f"{content.get('ename', 'Error')}: {content.get('evalue', '')}".strip()
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".strip()
    return None


class _CellWatch:
    """nbclient's cell hooks for one run: the cell running, each cell's time, those that raised."""

    def __init__(self, run: NotebookRun, on_cell: Callable[[int, Any], None] | None) -> None:
        self.run, self.on_cell = run, on_cell
        self.cell, self.started = -1, 0.0

    def begin(self, cell: Any, cell_index: int) -> None:
        self.cell, self.started = cell_index, time.perf_counter()

    def end(self, cell: Any, cell_index: int, execute_reply: Any) -> None:
        self.run.cell_seconds[cell_index] = time.perf_counter() - self.started
        raised = _raised(cell, execute_reply)
        if raised is not None:
            self.run.errors.append(CellError(cell_index, "raised", raised))
        if self.on_cell is not None:
            self.on_cell(cell_index, cell)

    def stopped(self, error: Exception, timeout: int) -> CellError:
        """What ``error``, raised out of nbclient's run, says ended it."""
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        if isinstance(error, CellTimeoutError):
            return CellError(self.cell, "timeout", f"still running after {timeout} s")
        if isinstance(error, DeadKernelError):
            return CellError(self.cell, "dead kernel", "the kernel died (out of memory?)")
        if self.cell < 0:
            return CellError(-1, "no kernel", f"the kernel did not start: {_one_line(error)}")
        return CellError(
            self.cell, "dead kernel", f"the kernel stopped answering: {_one_line(error)}"
        )


def run_notebook(
    source: str | os.PathLike[str] | Any,
    cwd: str | os.PathLike[str] | None = None,
    *,
    timeout: int,
    env: Mapping[str, str] | None = None,
    store_widget_state: bool = False,
    kernel_arguments: Sequence[str] = (),
    on_cell: Callable[[int, Any], None] | None = None,
    quiet: bool = False,
) -> NotebookRun:
    """Run a notebook top to bottom in a fresh kernel of this Python; what happened.

    Parameters
    ----------
    source : path or nbformat.NotebookNode
        A notebook file (read, never written) or a notebook (run in place).
    cwd : path, optional
        The kernel's working folder; default the file's folder (a node: this process's).
    timeout : int
        Seconds one cell may run; past it the kernel is stopped and the run ends.
    env : mapping of str to str, optional
        Variables set in the kernel on top of this process's environment (``GRADKIT_CACHE``).
    store_widget_state : bool
        Save the widgets' state in the notebook's metadata.
    kernel_arguments : sequence of str
        Options for the kernel's command line (``--InlineBackend.figure_formats=svg``).
    on_cell : callable, optional
        Called as ``on_cell(index, cell)`` after each code cell ran (a progress bar).
    quiet : bool
        Send the kernel process's own stdout and stderr nowhere.

    Returns
    -------
    NotebookRun
        The executed notebook, its timing and its errors; a cell that raises, a timeout, a
        dead kernel or a kernel that does not start is an entry in ``errors``, never raised.
    """
    import nbformat
    from nbclient.exceptions import CellTimeoutError

    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        notebook = nbformat.read(path, as_version=4)
        cwd = path.parent if cwd is None else cwd
    else:
        notebook = source
    run = NotebookRun(notebook)
    watch = _CellWatch(run, on_cell)
    client = notebook_client(
        notebook,
        Path.cwd() if cwd is None else cwd,
        timeout=timeout,
        env=env,
        store_widget_state=store_widget_state,
        extra_arguments=list(kernel_arguments),
        on_cell_execute=watch.begin,
        on_cell_executed=watch.end,
    )
    quieted = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL} if quiet else {}
    start = time.perf_counter()
    try:
        client.execute(**quieted)
    except (CellTimeoutError, RuntimeError) as error:  # a dead kernel, one that did not start
        run.errors.append(watch.stopped(error, timeout))
    run.seconds = time.perf_counter() - start
    return run
