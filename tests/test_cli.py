"""The gradkit command: `check` exit codes and output, safe `lessons` copies, `notebook`."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import torch
from folders import tree

from gradkit import cli
from gradkit.cli import UsageError, check_run

LESSONS = cli.lesson_files()


def _run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_check_correct_function_passes(capsys):
    status, out, _ = _run(capsys, "check", "gradkit.zoo:SquareFn")
    assert status == 0
    assert out.startswith("gradcheck PASS")


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental:UserWarning")
def test_a_complex_zoo_entry_keeps_its_imaginary_part_in_every_dtype(capsys):
    """--dtype float16 checks complex32 inputs (never their real part); bfloat16 has no
    complex counterpart: a usage error that says which dtypes do."""
    status, out, _ = _run(capsys, "check", "gradkit.zoo:ComplexSquareFn", "--dtype", "float16")
    assert status == 1 and "inputs: complex32" in out and "cause: precision" in out
    status, _, err = _run(capsys, "check", "gradkit.zoo:ComplexSquareFn", "--dtype", "bfloat16")
    assert status == 2 and "no complex counterpart" in err and "float64 (complex128)" in err


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


def test_malformed_target_is_a_usage_message_without_a_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "gradkit.cli", "check", ":f"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "gradkit check: error: MODULE is missing" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_module_that_fails_to_import_is_a_usage_error(tmp_path, capsys):
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
    result = subprocess.run(
        [sys.executable, "-m", "gradkit.cli", "lessons", str(tmp_path / under)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "is a file, not a folder" in result.stderr
    assert "Traceback" not in result.stderr
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
