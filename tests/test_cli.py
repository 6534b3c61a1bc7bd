"""The gradkit command: `check` exit codes and output, safe `lessons` copies, `notebook`."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import ClassVar

import pytest
import torch
from folders import tree

from gradkit import cli
from gradkit.cli import UsageError, check_run

LESSONS = cli.lesson_files()
#: a check that runs its target in a real child starts a Python of its own (importing torch):
#: make test only. The others run the child's code in this process (check_child_in_process).
slow = pytest.mark.slow


def _run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_check_correct_function_passes(capsys, check_child_in_process):
    status, out, _ = _run(capsys, "check", "gradkit.zoo:SquareFn")
    assert status == 0
    assert out.startswith("gradcheck PASS")


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning")
def test_a_complex_zoo_entry_keeps_its_imaginary_part_in_every_dtype(
    capsys, check_child_in_process
):
    """--dtype float16 checks complex32 inputs (never their real part); bfloat16 has no
    complex counterpart: a usage error that says which dtypes do."""
    status, out, _ = _run(capsys, "check", "gradkit.zoo:ComplexSquareFn", "--dtype", "float16")
    assert status == 1 and "inputs: complex32" in out and "cause: precision" in out
    status, _, err = _run(capsys, "check", "gradkit.zoo:ComplexSquareFn", "--dtype", "bfloat16")
    assert status == 2 and "no complex counterpart" in err and "float64 (complex128)" in err


@slow
def test_check_wrong_function_fails_with_cause(capsys):
    """A failing report, from a real child process."""
    status, out, _ = _run(capsys, "check", "gradkit.zoo:WrongSquareFn")
    assert status == 1
    assert "cause: bug" in out and "1.5x numeric" in out


def test_check_float32_reports_precision(capsys, check_child_in_process):
    status, out, _ = _run(
        capsys, "check", "gradkit.zoo:SquareFn", "--dtype", "float32", "--shape", "2,3"
    )
    assert status == 1
    assert "cause: precision" in out and "float32" in out


def test_check_plain_callable_and_fast_mode(capsys, check_child_in_process):
    status, out, _ = _run(capsys, "check", "torch:sin", "--shape", "4", "--fast")
    assert status == 0
    assert "fast_mode" in out


def test_check_module_file_with_two_inputs(tmp_path, capsys, check_child_in_process):
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
            "takes 2 input tensor(s) but 3 --shape given",
        ),
        (["check", "gradkit.zoo:SquareFn", "--eps", "0"], "--eps must be a finite number > 0"),
        (["check", "gradkit.zoo:SquareFn", "--eps", "nan"], "--eps must be a finite number > 0"),
        (["check", ":f"], "MODULE is missing before the colon in ':f'"),
        (["check", ":"], "MODULE is missing before the colon"),
        (["check", "gradkit.zoo:"], "ATTR '' in 'gradkit.zoo:' is not a Python name"),
        (["check", "gradkit.zoo:1Fn"], "ATTR '1Fn' in 'gradkit.zoo:1Fn' is not a Python name"),
        (["check", "gradkit.zoo:Square Fn"], "is not a Python name"),
        (["check", ".zoo:SquareFn"], "MODULE '.zoo' in '.zoo:SquareFn' is neither a module name"),
        (["check", "gradkit..zoo:SquareFn"], "is neither a module name nor a .py file"),
        (["check", "gradkit.zoo:Square:Fn"], "is neither a module name nor a .py file"),
        (["check", "missing_file.py:f"], "no such file: missing_file.py"),
    ],
)
def test_check_usage_errors_exit_2(capsys, check_child_in_process, argv, message):
    status, _, err = _run(capsys, *argv)
    assert status == 2
    assert message in err


@slow
def test_argparse_usage_error_exits_2():
    """End to end: python -m gradkit.cli exits 2 on argparse's own error."""
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
    monkeypatch.setattr(os, "execv", lambda path, command: launched.append(command))
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


@slow
def test_malformed_target_is_a_usage_message_without_a_traceback():
    """End to end: python -m gradkit.cli exits 2 with one line on a UsageError."""
    result = subprocess.run(
        [sys.executable, "-m", "gradkit.cli", "check", ":f"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "gradkit check: error: MODULE is missing" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_module_that_fails_to_import_is_a_usage_error(tmp_path, capsys, check_child_in_process):
    module = tmp_path / "broken_fn.py"
    module.write_text("raise RuntimeError('boom at import')\n")
    status, _, err = _run(capsys, "check", f"{module}:f")
    assert status == 2
    assert "importing module 'broken_fn' raised RuntimeError: boom at import" in err


# ----------------------------------------------------------------------------------- --shape


@pytest.fixture
def no_allocation(monkeypatch):
    """torch's random generators fail if called: a refusal must come before any allocation."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("gradkit check allocated inputs before refusing the shape")

    monkeypatch.setattr(torch, "rand", refuse)
    monkeypatch.setattr(torch, "randn", refuse)


@pytest.mark.parametrize(
    "shapes",
    [
        ["100000,100000"],  # 10**10 entries: 80 GB in float64
        ["1000000000x1000000000x1000000000"],
        ["1024,1024", "1"],  # over the limit only together
    ],
)
def test_a_huge_shape_is_refused_before_allocating(capsys, no_allocation, shapes):
    argv = ["check", "gradkit.zoo:MatmulFn" if len(shapes) == 2 else "torch:sin"]
    for shape in shapes:
        argv += ["--shape", shape]
    status, _, err = _run(capsys, *argv)
    assert status == 2
    assert "input entries, more than the 1,048,576 gradkit check draws" in err
    assert "3,4" in err


def test_a_shape_with_absurdly_many_digits_is_refused(capsys, no_allocation):
    status, _, err = _run(capsys, "check", "torch:sin", "--shape", "9" * 5000)
    assert status == 2
    assert "far too large" in err


def test_the_entry_limit_counts_every_input():
    limit = check_run.MAX_INPUT_ENTRIES
    assert limit == 1024 * 1024
    check_run.check_total_entries([(1024, 1024)])  # exactly the limit: accepted
    check_run.check_total_entries([(512, 1024), (512, 1024)])
    with pytest.raises(UsageError, match="1,048,577 input entries"):
        check_run.check_total_entries([(1024, 1024), (1,)])
    assert check_run.parse_shape(" 007 x 3 ") == (7, 3)


# ----------------------------------------------------------------------------------- lessons


@pytest.fixture
def outside(tmp_path) -> Path:
    """A file outside DIR that a planted link points at; its content must never change."""
    victim = tmp_path / "outside" / "precious.txt"
    victim.parent.mkdir()
    victim.write_text("the learner's thesis\n")
    return victim


def test_lessons_copies_every_lesson_with_ordinary_permissions(tmp_path, capsys):
    target = tmp_path / "a" / "b" / "lessons"
    status, out, _ = _run(capsys, "lessons", str(target))
    assert status == 0
    assert f"{len(LESSONS)} lesson(s) in {target}" in out
    umask = os.umask(0)
    os.umask(umask)
    for source in LESSONS:
        copied = target / source.name
        assert copied.read_bytes() == source.read_bytes()
        assert stat.S_IMODE(copied.stat().st_mode) == 0o666 & ~umask  # as a plain copy would be
    assert sorted(p.name for p in target.iterdir()) == [s.name for s in LESSONS]  # no temp files


def test_lessons_refuses_a_symlink_inside_dir_and_writes_nothing(tmp_path, outside, capsys):
    target = tmp_path / "lessons"
    target.mkdir()
    link = target / LESSONS[1].name
    link.symlink_to(outside)
    status, out, err = _run(capsys, "lessons", str(target))
    assert status == 2
    assert f"{link.name} -> {outside}" in err
    assert "never writes through a link" in err and "--force" in err
    assert outside.read_text() == "the learner's thesis\n"
    assert tree(target) == {link.name: f"link -> {outside}"}  # nothing else was copied
    assert "copied" not in out


def test_lessons_force_replaces_the_link_itself_after_saving_it_as_bak(tmp_path, outside, capsys):
    target = tmp_path / "lessons"
    target.mkdir()
    name = LESSONS[1].name
    (target / name).symlink_to(outside)
    dangling = tmp_path / "outside" / "not-yet.txt"
    (target / LESSONS[2].name).symlink_to(dangling)
    status, out, _ = _run(capsys, "lessons", str(target), "--force")
    assert status == 0
    assert outside.read_text() == "the learner's thesis\n"  # the link's target is untouched
    assert not os.path.lexists(dangling)  # a dangling link's target is not created either
    backup = target / f"{name}.bak"
    assert backup.is_symlink() and os.readlink(backup) == str(outside)  # the link, moved aside
    for source in LESSONS:
        copied = target / source.name
        assert not copied.is_symlink()
        assert copied.read_bytes() == source.read_bytes()
    assert f"{name} -> {name}.bak" in out


def test_lessons_force_never_writes_a_backup_through_a_planted_bak_link(tmp_path, capsys):
    target = tmp_path / "lessons"
    target.mkdir()
    name = LESSONS[0].name
    (target / name).write_text("my own notes")
    planted = tmp_path / "elsewhere.txt"
    (target / f"{name}.bak").symlink_to(planted)  # dangling: exists() says False
    status, out, _ = _run(capsys, "lessons", str(target), "--force")
    assert status == 0
    assert not os.path.lexists(planted)
    assert (target / f"{name}.bak1").read_text() == "my own notes"
    assert f"{name} -> {name}.bak1" in out


def test_lessons_refuses_a_folder_named_like_a_lesson(tmp_path, capsys):
    target = tmp_path / "lessons"
    (target / LESSONS[0].name).mkdir(parents=True)
    for argv in (["lessons", str(target)], ["lessons", str(target), "--force"]):
        status, _, err = _run(capsys, *argv)
        assert status == 2
        assert f"{LESSONS[0].name} in {target} is not a regular file" in err
    assert tree(target) == {LESSONS[0].name: "dir"}


class _FullDisk:
    """Replaces os.fdopen: the ``fail_at``-th file written gets half its bytes, then ENOSPC."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at, self.opened = fail_at, 0
        self.real = os.fdopen

    def __call__(self, fd, mode="r", *args, **kwargs):
        stream = self.real(fd, mode, *args, **kwargs)
        self.opened += 1
        if self.opened == self.fail_at:
            write = stream.write

            def half_then_full(data):
                write(data[: len(data) // 2])
                stream.flush()
                raise OSError(errno.ENOSPC, "No space left on device")

            stream.write = half_then_full
        return stream


def test_a_full_disk_leaves_no_half_written_lesson(tmp_path, monkeypatch, capsys):
    target = tmp_path / "lessons"
    monkeypatch.setattr(os, "fdopen", _FullDisk(fail_at=3))
    status, out, err = _run(capsys, "lessons", str(target))
    assert status == 2
    assert f"could not write {target / LESSONS[2].name}: No space left on device" in err
    assert "No half-written lesson was left behind" in err
    assert "Traceback" not in err
    for source in LESSONS[:2]:  # written before the failure: complete
        assert (target / source.name).read_bytes() == source.read_bytes()
        assert f"copied   {target / source.name}" in out
    assert sorted(p.name for p in target.iterdir()) == [s.name for s in LESSONS[:2]]  # no temp

    monkeypatch.undo()  # the disk has room again: the next run completes the set
    status, out, _ = _run(capsys, "lessons", str(target))
    assert status == 0
    for source in LESSONS:
        assert (target / source.name).read_bytes() == source.read_bytes()


@pytest.mark.parametrize(
    ("fail_at", "left"),
    [(1, ["{name}"]), (2, ["{name}", "{name}.bak"])],
    ids=["the-backup-fails", "the-new-lesson-fails"],
)
def test_a_failed_force_write_keeps_the_learners_file(tmp_path, monkeypatch, capsys, fail_at, left):
    target = tmp_path / "lessons"
    target.mkdir()
    mine = target / LESSONS[0].name
    mine.write_text("my own notes")
    # with --force: file 1 is the .bak copy, file 2 the new lesson; one fails halfway
    monkeypatch.setattr(os, "fdopen", _FullDisk(fail_at=fail_at))
    status, _, err = _run(capsys, "lessons", str(target), "--force")
    assert status == 2
    assert f"could not write {mine}: No space left on device" in err
    assert "Traceback" not in err
    assert mine.read_text() == "my own notes"
    assert sorted(p.name for p in target.iterdir()) == [n.format(name=mine.name) for n in left]
    if fail_at == 2:
        assert (target / f"{mine.name}.bak").read_text() == "my own notes"


def test_a_read_only_folder_is_a_clean_usage_error(tmp_path, monkeypatch, capsys):
    # root ignores permission bits, so the refusal the file system would give is simulated
    target = tmp_path / "lessons"
    target.mkdir()

    def read_only(*_args, **_kwargs):
        raise PermissionError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    status, _, err = _run(capsys, "lessons", str(target))
    assert status == 2
    assert f"could not write {target / LESSONS[0].name}: Read-only file system" in err
    assert f"({target} is read-only; choose a folder you can write to)" in err
    assert "Traceback" not in err and list(target.iterdir()) == []


def test_a_folder_without_write_permission_is_refused_up_front(tmp_path, monkeypatch, capsys):
    target = tmp_path / "lessons"
    target.mkdir()
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != target)
    status, _, err = _run(capsys, "lessons", str(target))
    assert status == 2
    assert f"DIR {target} is read-only; choose a folder you can write to" in err


def test_a_folder_that_cannot_be_created_is_a_clean_usage_error(tmp_path, monkeypatch, capsys):
    def denied(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", denied)
    status, _, err = _run(capsys, "lessons", str(tmp_path / "new"))
    assert status == 2
    assert f"cannot create DIR {tmp_path / 'new'}: Permission denied" in err


@pytest.mark.parametrize("under", ["file.txt/lessons", "file.txt/deeper/lessons"])
def test_a_path_under_a_file_is_a_clean_usage_error(tmp_path, capsys, under):
    (tmp_path / "file.txt").write_text("not a folder")
    status, _, err = _run(capsys, "lessons", str(tmp_path / under))
    assert status == 2
    assert "is a file, not a folder" in err
    assert "Traceback" not in err
    assert (tmp_path / "file.txt").read_text() == "not a folder"


def test_dir_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "x").write_text("a file")
    status, _, err = _run(capsys, "lessons", str(tmp_path / "x"))
    assert status == 2
    assert "is a file; give a folder" in err


def test_write_atomically_replaces_a_link_never_its_target(tmp_path, outside):
    link = tmp_path / "note.txt"
    link.symlink_to(outside)
    cli.write_atomically(link, b"new")
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert outside.read_text() == "the learner's thesis\n"


# ------------------------------------------------------------------ a target that stops the process
@pytest.mark.parametrize(
    ("code", "child"),
    [pytest.param("0", "real", marks=slow), ("None", "in this process"), ("3", "in this process")],
)
def test_a_target_that_calls_sys_exit_fails_in_one_line(tmp_path, request, capsys, code, child):
    """sys.exit(0) in a real child; the other codes take the same path in this process."""
    if child == "in this process":
        request.getfixturevalue("check_child_in_process")
    module = tmp_path / "exits_fn.py"
    module.write_text(f"import sys\n\ndef f(x):\n    sys.exit({code})\n")
    status, out, err = _run(capsys, "check", f"{module}:f")
    assert status == 1  # never 0: a CI must not read it as a pass
    assert out == "" and len(err.strip().splitlines()) == 1
    assert f"stopped the process (sys.exit({code}))" in err and "nothing was checked" in err


@slow
def test_ctrl_c_during_a_check_is_one_line_and_exit_130(tmp_path):
    """A real SIGINT while the target runs: exit 130 and one line, no traceback."""
    import signal
    import time

    ready = tmp_path / "ready"
    module = tmp_path / "slow_fn.py"
    module.write_text(
        "import time\nfrom pathlib import Path\n\ndef f(x):\n"
        f"    Path({str(ready)!r}).touch()\n    time.sleep(60)\n    return x\n"
    )
    # As a terminal starts a foreground command: Ctrl-C not ignored. A test run started in the
    # background (`make test &` from a script) ignores SIGINT, and a child inherits that.
    process = subprocess.Popen(
        [sys.executable, "-m", "gradkit.cli", "check", f"{module}:f"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.strip().splitlines() == ["gradkit check: interrupted (Ctrl-C); stopped"]


# ------------------------------------------------------------ notebook: what -- may not switch off
#: A token of two quote marks, as a shell line would pass an empty one (built, not written out:
#: the project's own scan refuses an empty token anywhere in its text).
QUOTED_EMPTY = "'" * 2


#: What could open the server, each in a form Jupyter reads (issue 39: the tornado settings
#: switched XSRF and the Host check off and sent CORS headers past the old deny-list).
OPENERS = [
    ["--IdentityProvider.token="],
    ["--ServerApp.token="],
    [f"--NotebookApp.token={QUOTED_EMPTY}"],
    ["--IdentityProvider.token=mine"],
    ["--ServerApp.ip=0.0.0.0"],
    ["--ServerApp.ip", "0.0.0.0"],
    ["--ip=192.168.1.5"],
    ["--ServerApp.ip=*"],
    ["--ServerApp.password="],
    ["--PasswordIdentityProvider.hashed_password="],
    ["--ServerApp.disable_check_xsrf=True"],
    ["--ServerApp.disable_check_xsrf"],
    ["--ServerApp.allow_remote_access=true"],
    ["--ServerApp.allow_origin=*"],
    ["--ServerApp.allow_origin_pat=.*"],
    ["--ServerApp.allow_unauthenticated_access=True"],
    ["--ServerApp.sock=/tmp/jupyter.sock"],
    ["--ServerApp.identity_provider_class=x.Open"],
    ["--ServerApp.authorizer_class=x.Open"],
    ["--config=open.py"],
    ["--ServerApp.log_level=WARN", "--ServerApp.token="],
    [
        "--ServerApp.tornado_settings={'xsrf_cookies': False, "
        "'headers': {'Access-Control-Allow-Origin': '*'}}"
    ],
    ["--ServerApp.tornado_settings", "{'xsrf_cookies': False}"],
    ["--NotebookApp.tornado_settings={'xsrf_cookies': False}"],
    ["--ServerApp.local_hostnames=['evil.example']"],
    ["--ServerApp.trust_xheaders=True"],
    ["--ServerApp.jpserver_extensions={'evil': True}"],
    ["--ServerApp.password_required=False"],
    ["--ServerApp.certfile=/tmp/x.pem"],
    ["--ServerApp.custom_display_url=http://evil.example"],
]


@pytest.mark.parametrize("options", OPENERS)
def test_notebook_refuses_options_that_could_open_the_server(
    tmp_path, monkeypatch, capsys, options
):
    launched = []
    monkeypatch.setattr(os, "execv", lambda path, command: launched.append(command))
    status, out, err = _run(capsys, "notebook", str(tmp_path), "--", *options)
    assert status == 2 and launched == [] and out == ""
    (line,) = err.strip().splitlines()  # one line, naming the option
    assert line.startswith("gradkit notebook: error: ") and "after -- " in line
    assert repr(next(o for o in options if "log_level" not in o)) in line
    assert line.endswith("No server was started")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--ServerApp.ip=127.0.0.1"], "already sets: 127.0.0.1"),
        (["--ServerApp.ip=localhost"], "already sets: 127.0.0.1"),
        (["--ServerApp.port=9999"], "use gradkit notebook --port PORT"),
        (["--port", "9999"], "use gradkit notebook --port PORT"),
        (["--ServerApp.root_dir=/"], "give it as gradkit notebook DIR"),
        (["--notebook-dir=/"], "give it as gradkit notebook DIR"),
        (["--ServerApp.kernel_spec_manager_class=x.Y"], "this interpreter's"),
        (["--ServerApp.disable_check_xsrf=True"], "takes False (only the safe value"),
        (["--ServerApp.log_level=LOUD"], "takes a log level"),
        (["--MappingKernelManager.cull_idle_timeout=" + "9" * 40], "takes a whole number"),
        (["--ServerApp.log_level"], "needs a value"),
        (["--debug=yes"], "takes no value"),
        (["notes.ipynb"], "is not an option"),
        (["--ServerApp.tornado_settings={}"], "passes on only --Application.log_level"),
    ],
)
def test_notebook_says_why_an_option_is_refused(tmp_path, monkeypatch, capsys, options, said):
    monkeypatch.setattr(os, "execv", lambda *_: pytest.fail("a server was started"))
    status, _, err = _run(capsys, "notebook", str(tmp_path), "--", *options)
    (line,) = err.strip().splitlines()
    assert status == 2 and said in line and line.endswith("No server was started")


PASSABLE = [
    ["--ServerApp.log_level=WARN"],
    ["--ServerApp.log_level", "WARN"],
    ["--log-level=DEBUG"],
    ["--debug"],
    ["--ServerApp.disable_check_xsrf=False"],
    ["--ServerApp.allow_remote_access=false"],
    ["--ServerApp.iopub_data_rate_limit=1e10", "--ServerApp.rate_limit_window=3"],
    ["--ZMQChannelsWebsocketConnection.iopub_msg_rate_limit=3000"],
    ["--MappingKernelManager.cull_idle_timeout=3600", "--MappingKernelManager.cull_busy=False"],
    ["--ServerApp.shutdown_no_activity_timeout", "7200"],
    ["--ServerApp.terminals_enabled=False"],
    ["--FileContentsManager.delete_to_trash=False"],
    ["--JupyterNotebookApp.expose_app_in_browser=True"],  # what the browser tests start
]


@pytest.mark.parametrize("options", PASSABLE)
def test_notebook_passes_options_that_keep_it_closed(tmp_path, monkeypatch, capsys, options):
    launched = []
    monkeypatch.setattr(os, "execv", lambda path, command: launched.append(command))
    status, _, _ = _run(capsys, "notebook", str(tmp_path), "--", *options)
    assert status == 0 and launched[0][-len(options) :] == options


def _effective(command: list[str]):
    """The Jupyter server's settings for ``command``, as its own parser reads them."""
    from jupyter_server.serverapp import ServerApp

    app = ServerApp()
    app.parse_command_line(command[3:])  # after "python -m notebook"
    return app


@pytest.mark.parametrize("options", OPENERS + PASSABLE, ids=lambda o: " ".join(o)[:60])
def test_what_gradkit_runs_keeps_the_server_closed(tmp_path, options):
    """The settings the server reads from the exact command gradkit runs: whatever follows
    ``--``, either gradkit refuses it or the server still listens on 127.0.0.1 only, behind
    gradkit's token, with tornado's, XSRF's, CORS's and authentication's settings untouched."""
    try:
        command = cli.notebook_command(tmp_path, 8123, "t0k3n", options)
    except UsageError:
        return
    app = _effective(command)
    assert app.ip == "127.0.0.1" and app.port == 8123 and app.port_retries == 0
    assert app.config.IdentityProvider.token == "t0k3n"
    assert app.tornado_settings == {} and app.disable_check_xsrf is False
    assert app.allow_origin == "" and app.allow_origin_pat == ""
    assert app.allow_remote_access is False and app.sock == ""
    assert app.local_hostnames == ["localhost"] and app.trust_xheaders is False
    assert app.custom_display_url == "" and app.certfile == ""
    assert app.jpserver_extensions == {} and app.config_file == ""
    for cls in ("IdentityProvider", "PasswordIdentityProvider", "NotebookApp"):
        assert set(app.config.get(cls, {})) <= {"token"}
    settings = {k for k, v in app.config.ServerApp.items() if v is not None}
    allowed = {"ip", "port", "port_retries", "root_dir", "kernel_spec_manager_class"}
    allowed |= {"open_browser", "allow_root", "log_level", "disable_check_xsrf"}
    allowed |= {"allow_remote_access", "terminals_enabled", "shutdown_no_activity_timeout"}
    allowed |= {"iopub_data_rate_limit", "iopub_msg_rate_limit", "rate_limit_window"}
    assert settings <= allowed


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "gradkit.zoo:SquareFn", "--"],
        ["lessons", "somewhere", "--"],
        ["warm", "01", "--", "--x"],
        ["export", "--out", "site", "--"],
    ],
)
def test_double_dash_is_refused_by_every_other_subcommand(capsys, argv):
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [
        f"gradkit {argv[0]}: error: -- (and options after it) are only for 'gradkit notebook'"
    ]


# ---------------------------------------------------------------------------------- warm
def _mini_lesson(tmp_path: Path) -> Path:
    import nbformat

    lesson = tmp_path / "mini.ipynb"
    cells = ["x = 1", "y = 2"]
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]), lesson
    )
    return lesson


class _FakeClient:
    """nbclient's NotebookClient without a kernel: each cell does what ``behave`` says."""

    behave = staticmethod(lambda cell, index: None)
    made: ClassVar[list] = []

    def __init__(self, nb, timeout, km, resources, **options):
        self.nb, self.km, self.options = nb, km, options
        _FakeClient.made.append(self)

    def execute(self, **_kernel_options):
        for index, cell in enumerate(self.nb.cells):
            if cell.cell_type != "code":
                continue
            self.options["on_cell_execute"](cell=cell, cell_index=index)
            self.behave(cell, index)
            self.options["on_cell_executed"](cell=cell, cell_index=index, execute_reply={})
        return self.nb


def _report(stored, read, folder, written):
    """What the warm report cell prints, as an output of the last cell."""
    from gradkit.cli import warm

    line = warm._MARK + json.dumps(
        {"stored": stored, "read": read, "folder": folder, "written": written, "bytes": 0}
    )
    return lambda cell, _index: (
        cell.setdefault("outputs", []).append({"output_type": "stream", "text": line + "\n"})
        if warm._MARK in cell.source
        else None
    )


@pytest.fixture
def fake_kernel(monkeypatch):
    import nbclient

    _FakeClient.made = []
    monkeypatch.setattr(nbclient, "NotebookClient", _FakeClient)
    return _FakeClient


def test_warm_runs_its_own_interpreter(tmp_path, capsys, fake_kernel):
    cache = tmp_path / "cache"
    fake_kernel.behave = staticmethod(_report(3, 0, str(cache / "scenes"), str(cache / "scenes")))
    status, out, _ = _run(capsys, "warm", str(_mini_lesson(tmp_path)), "--cache", str(cache))
    assert status == 0 and "3 scenes stored" in out
    (client,) = fake_kernel.made
    spec = client.km.kernel_spec_manager.get_kernel_spec("python3")
    assert spec.argv[:3] == [sys.executable, "-m", "ipykernel_launcher"]
    # --cache reaches the kernel through its spec; this process's environment is left alone
    assert spec.env == {"GRADKIT_CACHE": str(cache.resolve())}
    assert os.environ.get("GRADKIT_CACHE") != str(cache.resolve())


@pytest.mark.parametrize(
    ("report", "said"),
    [
        ((0, 0, "{c}", "{c}"), "no scene was stored in {c}"),
        ((5, 0, "{c}", "/home/learner/.cache/gradkit/scenes"), "could not write {c}"),
    ],
)
def test_warm_that_stores_nothing_in_the_cache_fails_loudly(
    tmp_path, capsys, fake_kernel, report, said
):
    cache = tmp_path / "cache"
    c = str(cache / "scenes")
    fake_kernel.behave = staticmethod(
        _report(*[v.format(c=c) if isinstance(v, str) else v for v in report])
    )
    status, out, err = _run(capsys, "warm", str(_mini_lesson(tmp_path)), "--cache", str(cache))
    assert status == 1 and said.format(c=c) in out and "Traceback" not in err


@pytest.mark.parametrize(
    ("raised", "said"),
    [
        ("timeout", "cell 1: still running after --timeout 600 s"),
        ("dead", "cell 1: the kernel died"),
    ],
)
def test_a_cell_timeout_or_a_dead_kernel_is_one_line(tmp_path, capsys, fake_kernel, raised, said):
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    def behave(cell, index):
        if index == 1:
            raise CellTimeoutError("timed out") if raised == "timeout" else DeadKernelError("x")

    fake_kernel.behave = staticmethod(behave)
    status, out, err = _run(capsys, "warm", str(_mini_lesson(tmp_path)))
    assert status == 1 and "cells raised in mini" in out
    assert said in err and "Traceback" not in err + out


def test_ctrl_c_during_warm_is_one_line_and_exit_130(tmp_path, capsys, fake_kernel):
    def behave(cell, index):
        raise KeyboardInterrupt

    fake_kernel.behave = staticmethod(behave)
    status, _, err = _run(capsys, "warm", str(_mini_lesson(tmp_path)))
    assert status == 130
    assert err.strip().splitlines()[-1] == "gradkit warm: interrupted (Ctrl-C); stopped"


@pytest.mark.parametrize("text", ["not json at all", "[1, 2]", '{"cells": 3}', ""])
def test_warm_refuses_a_lesson_that_is_not_a_notebook(tmp_path, capsys, fake_kernel, text):
    lesson = tmp_path / "broken.ipynb"
    lesson.write_text(text)
    status, _, err = _run(capsys, "warm", str(_mini_lesson(tmp_path)), str(lesson))
    assert status == 2 and fake_kernel.made == []  # refused before any kernel ran
    (line,) = err.strip().splitlines()
    assert line.startswith(f"gradkit warm: error: LESSON {lesson} is not a Jupyter notebook")


@pytest.mark.parametrize(
    "how",
    [
        "a file",
        "under a file",
        "read only",
        "group-writable",
        "a symlink",
        "scenes a symlink",
        "owned by another user",
    ],
)
def test_warm_refuses_a_cache_it_cannot_fill(tmp_path, monkeypatch, capsys, fake_kernel, how):
    """A folder the kernels would not read (a link, another user's) is refused before any
    kernel runs: ``warm`` would otherwise store scenes that every learner's kernel ignores."""
    cache = tmp_path / "cache"
    said = "cannot be written"
    if how in ("a symlink", "scenes a symlink"):
        real = tmp_path / "real"
        (real / "scenes").mkdir(parents=True)
        real.chmod(0o755)
        if how == "a symlink":
            cache.symlink_to(real)
        else:
            cache.mkdir()
            (cache / "scenes").symlink_to(real / "scenes")
        said = "is a symlink: the kernels would not read it"
    elif how == "owned by another user":
        if os.geteuid() != 0:
            pytest.skip("chown to another user needs root")
        cache.mkdir()
        os.chown(cache, 12345, -1)
        said = "is owned by uid 12345"
    elif how == "a file":
        cache.write_text("x")
        said = "is a file, not a folder"
    elif how == "under a file":
        (tmp_path / "blocker").write_text("x")
        cache = tmp_path / "blocker" / "cache"
    elif how == "read only":

        def read_only(*_args, **_kwargs):
            raise OSError(errno.EROFS, "Read-only file system")

        monkeypatch.setattr(tempfile, "NamedTemporaryFile", read_only)
    else:
        cache.mkdir()
        cache.chmod(0o775)
        said = "can be written by its group"
    status, out, err = _run(capsys, "warm", str(_mini_lesson(tmp_path)), "--cache", str(cache))
    assert status == 2 and out == "" and fake_kernel.made == []
    (line,) = err.strip().splitlines()
    assert f"--cache {cache}" in line and said in line


def test_warm_checks_the_environments_cache_too(tmp_path, monkeypatch, capsys, fake_kernel):
    """Without --cache, GRADKIT_CACHE (an image's ENV) is checked the same way; off is refused."""
    lesson = str(_mini_lesson(tmp_path))
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared").chmod(0o757)
    monkeypatch.setenv("GRADKIT_CACHE", str(tmp_path / "shared"))
    status, _, err = _run(capsys, "warm", lesson)
    assert status == 2 and "GRADKIT_CACHE" in err and "can be written by other users" in err
    monkeypatch.setenv("GRADKIT_CACHE", "off")
    status, _, err = _run(capsys, "warm", lesson)
    assert status == 2 and "GRADKIT_CACHE=off turns the cache off" in err
    assert fake_kernel.made == []


def test_warm_makes_its_folder_only_its_owner_can_write(tmp_path, capsys, fake_kernel):
    cache = tmp_path / "new" / "cache"
    old = os.umask(0o002)  # a group-writable umask (as on many teaching machines)
    try:
        fake_kernel.behave = staticmethod(
            _report(2, 0, str(cache / "scenes"), str(cache / "scenes"))
        )
        status, _, err = _run(capsys, "warm", str(_mini_lesson(tmp_path)), "--cache", str(cache))
    finally:
        os.umask(old)
    assert status == 0, err
    assert stat.S_IMODE(cache.stat().st_mode) == stat.S_IMODE((cache / "scenes").stat().st_mode)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o755


@pytest.mark.parametrize("timeout", ["0", "-5", "99999999999999999999999"])
def test_warm_refuses_a_timeout_out_of_range_in_one_line(tmp_path, capsys, fake_kernel, timeout):
    status, _, err = _run(capsys, "warm", str(_mini_lesson(tmp_path)), "--timeout", timeout)
    assert status == 2 and fake_kernel.made == []
    assert err.strip().splitlines() == [
        f"gradkit warm: error: --timeout must be a whole number of seconds from 1 to 86400, "
        f"got {timeout}"
    ]
