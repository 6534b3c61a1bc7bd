"""gradkit.cli.runner: the one way gradkit runs a notebook, on a kernel of this very interpreter.

A kernel choice planted anywhere (a caller's ``kernel_name``, a notebook's metadata, a ``python3``
kernel spec first on Jupyter's path) is refused or overruled; and every place that executes a
notebook (export, warm, tools, the lesson tests, the class benchmark) goes through the runner,
read from source.
"""

from __future__ import annotations

import ast
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from gradkit.cli import notebook_command
from gradkit.cli.runner import (
    KERNEL_NAME,
    KERNEL_SPECS_CLASS,
    CellError,
    KernelChoiceError,
    notebook_client,
    run_notebook,
    this_python_kernels,
)

ROOT = Path(__file__).resolve().parents[1]
RUNNER = "gradkit/cli/runner.py"
#: The five that execute a notebook; each must call the runner.
CALLERS = (
    "gradkit/cli/site/notebooks.py",
    "gradkit/cli/warm.py",
    "tools/time_lessons.py",
    "tests/test_notebooks.py",
    "benchmarks/classroom.py",
)
#: Names that start or pick a kernel: only the runner may use them.
KERNEL_MACHINERY = frozenset(
    {
        "NotebookClient",
        "ExecutePreprocessor",
        "KernelManager",
        "AsyncKernelManager",
        "KernelSpecManager",
        "MultiKernelManager",
        "start_new_kernel",
        "start_new_async_kernel",
        "execute_notebook",
    }
)
#: Keywords that choose a kernel in a call.
KERNEL_CHOICES = frozenset({"kernel_name", "km", "kernel_manager_class", "kernel_spec_manager"})


def _notebook(*cells: str, kernel: str | None = None) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    if kernel is not None:
        nb.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    return nb


# ------------------------------------------------------------------------ a planted kernel choice
@pytest.mark.parametrize("option", sorted(KERNEL_CHOICES))
def test_a_callers_own_kernel_choice_is_refused(tmp_path, option):
    with pytest.raises(KernelChoiceError, match=f"{option}: gradkit runs every notebook"):
        notebook_client(_notebook("1"), tmp_path, timeout=5, **{option: "python2"})


def test_every_kernel_name_and_the_notebooks_own_resolve_to_this_interpreter(tmp_path):
    for name in (KERNEL_NAME, "python2", "julia-1.10", "other-venv"):
        spec = this_python_kernels().get_kernel_spec(name)
        assert spec.argv[:3] == [sys.executable, "-m", "ipykernel_launcher"], name
    client = notebook_client(_notebook("1", kernel="other-venv"), tmp_path, timeout=5)
    assert client.km.kernel_name == KERNEL_NAME
    assert client.km.kernel_spec.argv[0] == sys.executable


def test_the_kernels_variables_are_taken_literally():
    """A kernel spec's env is a template ($NAME is substituted): a value's own $ is kept."""
    spec = this_python_kernels({"GRADKIT_CACHE": "/srv/$HOME/cache"}).get_kernel_spec("x")
    assert spec.env == {"GRADKIT_CACHE": "/srv/$$HOME/cache"}


def test_a_planted_python3_kernel_on_jupyters_path_is_never_started(tmp_path, monkeypatch):
    """One real kernel: this interpreter, the folder, the variables, the errors, the timing."""
    marker = tmp_path / "planted-kernel-ran"
    for name in ("python3", "planted"):  # first on Jupyter's path, and the notebook's own
        spec = tmp_path / "jupyter" / "kernels" / name
        spec.mkdir(parents=True)
        argv = ["/bin/sh", "-c", f"touch {marker}; exit 1", "{connection_file}"]
        kernel = {"argv": argv, "display_name": name, "language": "python"}
        (spec / "kernel.json").write_text(json.dumps(kernel))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.delenv("GRADKIT_RUNNER_PROBE", raising=False)
    lesson = tmp_path / "lesson" / "probe.ipynb"
    lesson.parent.mkdir()
    probe = "import os, sys\nprint(sys.executable)\nprint(os.getcwd())\n"
    probe += "print(os.environ['GRADKIT_RUNNER_PROBE'])"
    nbformat.write(_notebook(probe, "1 / 0", "print('after')", kernel="planted"), lesson)
    run = run_notebook(lesson, timeout=60, env={"GRADKIT_RUNNER_PROBE": "$HOME/x"}, quiet=True)
    assert not marker.exists()
    assert run.errors == [CellError(1, "raised", "ZeroDivisionError: division by zero")]
    assert run.stopped is None and not run.ok
    said = run.notebook.cells[0].outputs[0]["text"].splitlines()
    assert said == [sys.executable, str(lesson.parent), "$HOME/x"]
    assert run.notebook.cells[2].outputs[0]["text"] == "after\n"
    assert sorted(run.cell_seconds) == [0, 1, 2] and run.seconds > 0
    assert "GRADKIT_RUNNER_PROBE" not in os.environ
    assert nbformat.read(lesson, as_version=4).cells[0].outputs == []  # the file is never written


def test_a_runs_kernel_stops_when_the_run_ends(tmp_path):
    """Each run's kernel is stopped as the run returns, not when this process exits: an export
    of thirteen lessons, or a class benchmark's runs, never holds a kernel per run."""
    pids = []
    for _ in range(2):
        run = run_notebook(_notebook("import os\nprint(os.getpid())"), tmp_path, timeout=60)
        pids.append(int(run.notebook.cells[0].outputs[0]["text"]))
        with pytest.raises(ProcessLookupError):
            os.kill(pids[-1], 0)
    assert pids[0] != pids[1]


def _planted_kernels(folder: Path, marker: Path) -> Path:
    """Kernel specs ``python3`` and ``planted`` that would touch ``marker`` if ever started."""
    for name in ("python3", "planted"):
        spec = folder / "kernels" / name
        spec.mkdir(parents=True)
        argv = ["/bin/sh", "-c", f"touch {marker}; exit 1", "{connection_file}"]
        (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": name}))
    return folder


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ask(url: str, method: str = "GET", body: dict | None = None) -> object:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    with urllib.request.urlopen(request, timeout=10) as answer:
        text = answer.read()
    return json.loads(text) if text else None


@pytest.mark.slow  # a Jupyter server and a kernel of their own: make test, not make unit
def test_the_notebook_servers_kernels_are_this_interpreter_whatever_jupyters_path_holds(tmp_path):
    """``gradkit notebook``'s server loads the runner's kernel spec manager: a python3 spec of
    another environment first on Jupyter's path is neither listed nor started, and a notebook
    asking for a kernel of its own gets this interpreter."""
    marker = tmp_path / "planted-kernel-ran"
    env = {**os.environ, "JUPYTER_PATH": str(_planted_kernels(tmp_path / "jupyter", marker))}
    env |= {"JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(tmp_path)}
    port, token = _free_port(), secrets.token_hex(16)
    (tmp_path / "root").mkdir()
    command = notebook_command(tmp_path / "root", port, token)
    assert f"--ServerApp.kernel_spec_manager_class={KERNEL_SPECS_CLASS}" in command
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/api"
    try:
        for _ in range(300):
            try:
                specs = _ask(f"{base}/kernelspecs?token={token}")
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "server.log").read_text()
                time.sleep(0.1)
        else:
            raise AssertionError("the server did not answer in 30 s")
        assert list(specs["kernelspecs"]) == [KERNEL_NAME]
        assert specs["kernelspecs"][KERNEL_NAME]["spec"]["argv"][0] == sys.executable
        kernel = _ask(f"{base}/kernels?token={token}", "POST", {"name": "planted"})
        _ask(f"{base}/kernels/{kernel['id']}?token={token}", "DELETE")
        assert not marker.exists(), "a planted kernel spec was started"
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


# ---------------------------------------------------------------- one runner, read from source
def _sources() -> list[Path]:
    here = Path(__file__).resolve()
    found = []
    for top in ("gradkit", "tools", "tests", "benchmarks"):
        found += [p for p in sorted((ROOT / top).rglob("*.py")) if p.resolve() != here]
    return found


def _imports_the_runner(tree: ast.Module, path: str) -> set[str]:
    """Names a module imports from gradkit.cli.runner (absolutely or relatively)."""
    package = path.removesuffix(".py").split("/")[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = package[: len(package) - node.level + 1] if node.level else []
        module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
        if module == "gradkit.cli.runner":
            names.update(alias.name for alias in node.names)
    return names


def _runs_nbconvert(node: ast.AST) -> bool:
    text = node.value if isinstance(node, ast.Constant) else None
    return isinstance(text, str) and "nbconvert" in text and "--execute" in text


def _kernel_machinery(tree: ast.Module) -> list[str]:
    """Where a module names the kernel machinery or chooses a kernel: ``"line: what"``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in KERNEL_MACHINERY:
            found.append(f"{node.lineno}: {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in KERNEL_MACHINERY:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name.split(".")[-1] in KERNEL_MACHINERY or alias.name == "papermill":
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.keyword) and node.arg in KERNEL_CHOICES:
            found.append(f"{node.value.lineno}: {node.arg}=")
        elif _runs_nbconvert(node):
            found.append(f"{node.lineno}: nbconvert --execute")
    return found


def test_every_notebook_run_goes_through_the_one_runner():
    for path in CALLERS:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        used = _imports_the_runner(tree, path) & {"run_notebook", "notebook_client"}
        assert used, f"{path} runs notebooks without gradkit.cli.runner"
    elsewhere = {}
    for source in _sources():
        path = source.relative_to(ROOT).as_posix()
        if path != RUNNER:
            found = _kernel_machinery(ast.parse(source.read_text(encoding="utf-8")))
            if found:
                elsewhere[path] = found
    assert elsewhere == {}, f"a kernel started or chosen outside {RUNNER}: {elsewhere}"


def test_the_source_check_sees_a_kernel_chosen_by_hand():
    planted = (
        "from nbclient import NotebookClient\n"
        "from jupyter_client.manager import AsyncKernelManager as Km\n"
        "NotebookClient(nb, kernel_name='python3')\n"
        "os.system('jupyter nbconvert --to notebook --execute x.ipynb')\n"
    )
    assert sorted(_kernel_machinery(ast.parse(planted))) == [
        "1: import NotebookClient",
        "2: import AsyncKernelManager",
        "3: NotebookClient",
        "3: kernel_name=",
        "4: nbconvert --execute",
    ]


@pytest.mark.parametrize(
    ("line", "path", "names"),
    [
        ("from ..runner import run_notebook", "gradkit/cli/site/notebooks.py", {"run_notebook"}),
        ("from .runner import CellError", "gradkit/cli/warm.py", {"CellError"}),
        (
            "from gradkit.cli.runner import notebook_client",
            "benchmarks/classroom.py",
            {"notebook_client"},
        ),
        ("from .runner import run_notebook", "gradkit/cli/site/notebooks.py", set()),
        ("from runner import run_notebook", "tools/time_lessons.py", set()),
    ],
)
def test_the_source_check_resolves_relative_imports(line, path, names):
    assert _imports_the_runner(ast.parse(line), path) == names
