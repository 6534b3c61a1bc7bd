"""The gradkit command: `check` exit codes and output, and the notebook launcher's safety."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gradkit import cli


def _run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_check_correct_function_passes(capsys):
    status, out, _ = _run(capsys, "check", "gradkit.zoo:SquareFn")
    assert status == 0
    assert out.startswith("gradcheck PASS")


def test_check_wrong_function_fails_with_cause(capsys):
    status, out, _ = _run(capsys, "check", "gradkit.zoo:WrongSquareFn")
    assert status == 1
    assert "cause: bug" in out and "1.5x numeric" in out


def test_check_float32_reports_precision(capsys):
    status, out, _ = _run(
        capsys, "check", "gradkit.zoo:SquareFn", "--dtype", "float32", "--shape", "2,3"
    )
    assert status == 1
    assert "cause: precision" in out and "float32" in out


def test_check_plain_callable_and_fast_mode(capsys):
    status, out, _ = _run(capsys, "check", "torch:sin", "--shape", "4", "--fast")
    assert status == 0
    assert "fast_mode" in out


def test_check_module_file_with_two_inputs(tmp_path, capsys):
    module = tmp_path / "mine.py"
    module.write_text(
        textwrap.dedent("""
        import torch

        class ProductFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                return grad * b, grad * b  # planted bug: the second should be grad * a
    """)
    )
    status, out, _ = _run(capsys, "check", f"{module}:ProductFn", "--shape", "3")
    assert status == 1
    assert "input 1" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "gradkit.zoo"], "expected MODULE:ATTR"),
        (["check", "no_such_module_xyz:f"], "cannot import module"),
        (["check", "gradkit.zoo:Nope"], "has no attribute 'Nope'"),
        (["check", "gradkit.zoo:CATALOGUE"], "not a Function or a callable"),
        (["check", "gradkit.zoo:SquareFn", "--shape", "3,x"], "--shape takes sizes like 3,4"),
        (["check", "gradkit.zoo:SquareFn", "--shape", "0"], "positive sizes"),
        (["check", "gradkit.zoo:SquareFn", "--dtype", "int8"], "--dtype must be one of"),
        (
            ["check", "gradkit.zoo:MatmulFn", "--shape", "2,2", "--shape", "2,2", "--shape", "2"],
            "takes 2 input(s) but 3 --shape given",
        ),
        (["check", "gradkit.zoo:SquareFn", "--eps", "0"], "eps must be a finite number > 0"),
    ],
)
def test_check_usage_errors_exit_2(capsys, argv, message):
    status, _, err = _run(capsys, *argv)
    assert status == 2
    assert message in err


def test_argparse_usage_error_exits_2():
    result = subprocess.run(
        [sys.executable, "-m", "gradkit.cli", "check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "MODULE:ATTR" in result.stderr


def test_notebook_command_binds_localhost_with_a_token(tmp_path):
    command = cli.notebook_command(tmp_path, 8123, "abc123")
    assert "--ServerApp.ip=127.0.0.1" in command
    assert "--IdentityProvider.token=abc123" in command
    assert "--ServerApp.port=8123" in command
    tokens = [arg.split("=", 1)[1] for arg in command if arg.startswith("--IdentityProvider.token")]
    assert tokens == ["abc123"]


def test_notebook_refuses_an_empty_token(tmp_path, capsys):
    status, _, err = _run(capsys, "notebook", str(tmp_path), "--token", "")
    assert status == 2
    assert "must not be empty" in err


def test_notebook_refuses_a_missing_folder(tmp_path, capsys):
    status, _, err = _run(capsys, "notebook", str(tmp_path / "nope"))
    assert status == 2
    assert "is not a folder" in err


def test_notebook_passes_options_after_double_dash(tmp_path, monkeypatch, capsys):
    launched = []
    monkeypatch.setattr(cli.os, "execv", lambda path, command: launched.append(command))
    status = cli.main(
        [
            "notebook",
            str(tmp_path),
            "--port",
            "8124",
            "--token",
            "t0k",
            "--",
            "--ServerApp.log_level=WARN",
        ]
    )
    assert status == 0
    (command,) = launched
    assert command[-1] == "--ServerApp.log_level=WARN"
    assert "--IdentityProvider.token=t0k" in command
    assert "http://127.0.0.1:8124/tree?token=t0k" in capsys.readouterr().out


def test_double_dash_is_only_for_notebook(capsys):
    status, _, err = _run(capsys, "check", "gradkit.zoo:SquareFn", "--", "--x")
    assert status == 2
    assert "only for 'gradkit notebook'" in err
