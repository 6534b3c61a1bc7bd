"""gradkit check's target in a child process: any stop is exit 1 in one line, every bad argument
exit 2 in one line, and a target's plain-number parameters come in with --arg (split from
test_cli.py so that the two files run side by side).

What only a real process shows starts one (marked slow: each imports torch): a target that ends
its process, closes stdout, and ``python -m gradkit.cli`` end to end for a pass and for a usage
error found once the target is loaded. A bad argument found before the target runs, and what
the report says, are checked in this process (``check_child_in_process``, tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gradkit import cli
from gradkit.cli import UsageError, check_run

#: a check that starts a Python of its own (importing torch): make test, not make unit
slow = pytest.mark.slow


def _run(capsys, *argv):
    """``cli.main`` in this process; argparse's own exit (a bad value) gives its status."""
    try:
        status = cli.main(list(argv))
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


# ------------------------------------------- check: the target runs where its end cannot end it
def _cli(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gradkit.cli", *argv],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


STOPS = {
    "os._exit(0)": ("import os\n", "os._exit(0)", "exit status 0"),
    "os._exit(3)": ("import os\n", "os._exit(3)", "exit status 3"),
    "SIGTERM": ("import os, signal\n", "os.kill(os.getpid(), signal.SIGTERM)", "SIGTERM"),
    "SIGKILL": ("import os, signal\n", "os.kill(os.getpid(), signal.SIGKILL)", "SIGKILL"),
    "segfault": ("import ctypes\n", "ctypes.string_at(0)", "SIGSEGV (a segmentation fault"),
}


@slow
@pytest.mark.parametrize("how", list(STOPS))
def test_a_target_that_ends_the_process_fails_in_one_line(tmp_path, capsys, how):
    """os._exit(0) used to exit 0 with no output; a signal, 143 or 139 with no message."""
    imports, stop, said = STOPS[how]
    module = tmp_path / "stops_fn.py"
    module.write_text(f"{imports}\ndef f(x):\n    {stop}\n    return x\n")
    status, out, err = _run(capsys, "check", f"{module}:f")
    assert status == 1 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"gradkit check: {module}:f ended the process") and said in line
    assert "nothing was checked" in line


@slow
def test_a_target_that_closes_stdout_and_stderr_is_still_checked(tmp_path):
    module = tmp_path / "closes_fn.py"
    body = "    sys.stdout.close()\n    sys.stderr.close()\n    return x * 2\n"
    module.write_text(f"import sys\n\ndef f(x):\n{body}")
    result = _cli("check", f"{module}:f")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("gradcheck PASS")


@pytest.fixture
def no_child(monkeypatch):
    """gradkit check fails the test if it starts its child: the mistake must be found first."""

    def refuse(job):
        raise AssertionError(f"gradkit check started its child for {job}")

    monkeypatch.setattr(check_run, "_run_child", refuse)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--seed", "99999999999999999999999"], "--seed must be a whole number from 0 to"),
        (["--seed", "-1"], "--seed must be a whole number from 0 to"),
        (["--seed", "9" * 5000], "argument --seed: invalid int value"),
        (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["--eps", "1e400"], "--eps must be a finite number > 0"),
        (["--atol", "-1"], "--atol must be a finite number >= 0 (gradcheck's default is 1e-05)"),
        (["--rtol", "nan"], "--rtol must be a finite number >= 0"),
        (["--atol", "1e999"], "--atol must be a finite number >= 0"),
        (["--engine", "fast"], "argument --engine: invalid choice: 'fast'"),
        (["--engine", "batched", "--fast"], "--engine batched computes full Jacobians"),
        (["--arg", "lambd"], "--arg takes NAME=VALUE"),
        (["--arg", "1x=2"], "--arg takes NAME=VALUE"),
        (["--arg", "lambd=__import__('os')"], "is not a Python literal"),
        (["--arg", "lambd=" + "9" * 5000], "is over 1000 characters"),
        (["--arg", "a=1", "--arg", "a=2"], "each --arg NAME may be given once"),
    ],
)
def test_every_bad_argument_is_exit_2_in_one_line(capsys, no_child, argv, said):
    """Found before the target runs: in this process, exactly as ``python -m gradkit.cli``
    runs ``main`` (tests/test_cli.py runs that end to end for a parser error and a bad target)."""
    status, out, err = _run(capsys, "check", "gradkit.zoo:SquareFn", *argv)
    assert status == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("gradkit check: error: ") and said in line, line


@slow
def test_a_bad_argument_found_once_the_target_is_loaded_is_exit_2_in_one_line():
    """End to end: ``python -m gradkit.cli``, its child loads the target and answers usage."""
    result = _cli("check", "gradkit.zoo:SquareFn", "--arg", "nope=1")
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("gradkit check: error: ")
    assert "has no positional parameter 'nope'; its parameters are x" in line, line


REVERSAL = """
import torch

class ReversalFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd: float):
        ctx.lambd = lambd
        return x * lambd

    @staticmethod
    def backward(ctx, grad):
        return grad * 2.0, None  # right only for lambd = 2
"""


def test_a_parameter_that_is_no_tensor_is_given_with_arg(tmp_path, capsys, check_child_in_process):
    """A reversal's lambda used to be drawn as a random tensor; now it is named, or given."""
    module = tmp_path / "reversal.py"
    module.write_text(REVERSAL)
    status, _, err = _run(capsys, "check", f"{module}:ReversalFn")
    assert status == 2
    assert "parameter 'lambd' is a float, not a tensor" in err and "--arg lambd=VALUE" in err
    status, out, _ = _run(capsys, "check", f"{module}:ReversalFn", "--arg", "lambd=2.0")
    assert status == 0 and out.startswith("gradcheck PASS") and "inputs: float64" in out
    status, out, _ = _run(capsys, "check", f"{module}:ReversalFn", "--arg", "lambd=3.0")
    assert status == 1 and "cause: bug" in out


def test_engine_and_tolerances_reach_the_check(capsys, check_child_in_process):
    status, out, _ = _run(capsys, "check", "gradkit.zoo:SquareFn", "--dtype", "float32")
    assert status == 1 and "atol=1e-05 rtol=0.001" in out
    argv = ["check", "gradkit.zoo:SquareFn", "--dtype", "float32", "--atol", "0.5", "--rtol", "0.5"]
    status, out, _ = _run(capsys, *argv)
    assert status == 0 and "atol=0.5 rtol=0.5" in out
    status, out, _ = _run(capsys, "check", "gradkit.zoo:WrongSquareFn", "--engine", "batched")
    assert status == 1 and "engine: batched (--engine)" in out and "cause: bug" in out
    status, out, _ = _run(capsys, "check", "gradkit.zoo:WrongSquareFn")
    assert status == 1 and "engine:" not in out


def test_traceback_shows_where_the_target_raised(tmp_path, capsys, check_child_in_process):
    module = tmp_path / "raises_fn.py"
    module.write_text("def f(x):\n    raise RuntimeError('boom in f')\n")
    status, out, _ = _run(capsys, "check", f"{module}:f")
    assert status == 1 and "RuntimeError" in out and "Traceback" not in out
    assert "gradkit check --traceback shows where it raised" in out
    status, out, _ = _run(capsys, "check", f"{module}:f", "--traceback")
    assert status == 1 and "Traceback (most recent call last)" in out
    assert f'File "{module}", line 2, in f' in out


@slow
def test_the_traceback_comes_back_from_a_real_child(tmp_path, capsys):
    """The traceback of a target that raised, written by a child process of its own."""
    module = tmp_path / "raises_fn.py"
    module.write_text("def f(x):\n    raise RuntimeError('boom in f')\n")
    status, out, _ = _run(capsys, "check", f"{module}:f", "--traceback")
    assert status == 1 and "RuntimeError: boom in f" in out
    assert f'File "{module}", line 2, in f' in out


@pytest.mark.parametrize("future", [False, True], ids=["objects", "strings"])
@pytest.mark.parametrize(
    "annotation", ["float", "int", "bool", "str", "Optional[int]", "float | None"]
)
def test_a_parameter_annotated_as_no_tensor_is_named_never_drawn(annotation, future):
    """The annotation as an object (a type, Optional[int], float | None), or as its text in a
    module with ``from __future__ import annotations``."""
    from gradkit.cli import check_target

    space: dict = {}
    source = f"from typing import Optional\ndef f(x, n: {annotation}):\n    return x"
    if future:
        source = f"from __future__ import annotations\n{source}"
    exec(compile(source, "f.py", "exec", dont_inherit=True), space)
    params = check_target._parameters(space["f"], None)
    with pytest.raises(UsageError, match=r"parameter 'n' is a .+ --arg n=VALUE"):
        check_target._slots({"target": "m:f", "args": {}}, params)


def test_arg_fills_its_place_and_the_defaults_before_it():
    from gradkit.cli import check_target

    def f(x, y, k: int = 1, scale: float = 1.0, last=None):
        return x

    params = check_target._parameters(f, None)
    slots = check_target._slots({"target": "m:f", "args": {"scale": "0.5"}}, params)
    assert slots == [("tensor", "x"), ("tensor", "y"), ("value", 1), ("value", 0.5)]
    assert check_target._slots({"target": "m:f", "args": {}}, params)[2:] == []
