"""Lesson 12's pytest file: written into the learner's folder only, never over a file that is
there, and a suite that passes, catches a slip on negative entries, a missing atol and an
over-budget test.

The budget is set through ``GRADCHECK_BUDGET_S`` in every run here: unlimited where the verdict
should not depend on this machine's speed, 0 where the budget must fail every test. No test here
asserts a time.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gradkit.exercises.suite import SUITE_NAME, suite_text, write_suite


def test_writes_the_file_into_the_folder_given_and_says_where(tmp_path):
    done = write_suite(tmp_path)
    assert done.written and done.runnable and done.path == tmp_path / SUITE_NAME
    assert done.path.read_text(encoding="utf-8") == suite_text()
    assert done.message == f"wrote {SUITE_NAME} in this lesson's folder"  # no machine's path
    assert sorted(p.name for p in tmp_path.iterdir()) == [SUITE_NAME]


def test_a_second_run_leaves_the_lessons_file_and_says_so(tmp_path):
    write_suite(tmp_path)
    again = write_suite(tmp_path)
    assert not again.written and again.runnable
    assert "already in this lesson's folder, as the lesson wrote it" in again.message


def test_the_learners_edited_file_is_never_overwritten(tmp_path):
    mine = tmp_path / SUITE_NAME
    mine.write_text("def test_mine():\n    assert True\n", encoding="utf-8")
    done = write_suite(tmp_path)
    assert not done.written and done.runnable
    assert "it is yours, so it was not overwritten" in done.message
    assert mine.read_text(encoding="utf-8") == "def test_mine():\n    assert True\n"


def test_a_link_is_never_written_through(tmp_path):
    target = tmp_path / "elsewhere.py"
    target.write_text("# not the lesson's\n", encoding="utf-8")
    (tmp_path / SUITE_NAME).symlink_to(target)
    dangling = tmp_path / "other"
    dangling.mkdir()
    (dangling / SUITE_NAME).symlink_to(tmp_path / "missing.py")
    for folder in (tmp_path, dangling):
        done = write_suite(folder)
        assert (
            not done.written
            and not done.runnable
            and "never writes through a link" in (done.message)
        )
    assert target.read_text(encoding="utf-8") == "# not the lesson's\n"
    assert not (tmp_path / "missing.py").exists()


def test_a_folder_that_is_not_there_or_not_writable_is_named(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="folder must be an existing folder"):
        write_suite(tmp_path / "nowhere")

    def refused(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", refused)  # a read-only folder, as any user sees it
    done = write_suite(tmp_path)
    assert not done.written and not done.runnable
    assert done.message == (f"could not write {SUITE_NAME}: Permission denied; nothing was written")


def _pytest(folder: Path, budget: str) -> subprocess.CompletedProcess:
    """The file run as the lesson runs it: ``python -m pytest`` in its folder, a new process."""
    env = {**os.environ, "GRADCHECK_BUDGET_S": budget}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", SUITE_NAME]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def _pytest_here(folder: Path, budget: str) -> subprocess.CompletedProcess:
    """The same pytest run in this process (torch is imported already), from the file's folder:
    the same arguments, the file imported afresh (its budget read anew) and forgotten after,
    the global random state left as it was."""
    argv = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", SUITE_NAME]
    out, loaded = io.StringIO(), set(sys.modules)
    with pytest.MonkeyPatch.context() as patch, torch.random.fork_rng():
        patch.setenv("GRADCHECK_BUDGET_S", budget)
        patch.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = pytest.main(argv)
    for name in set(sys.modules) - loaded:  # the file, imported afresh by the next run
        if str(folder) in str(getattr(sys.modules[name], "__file__", "")):
            del sys.modules[name]
    return subprocess.CompletedProcess(argv, int(status), out.getvalue(), "")


#: The file as written runs in a pytest process of its own (importing torch afresh): make test,
#: not make unit. The planted faults and the zero budget run the same way in this process.
slow = pytest.mark.slow


@pytest.fixture(scope="module")
def planted_runs(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """The file as written, and with one fault planted each, run with pytest."""
    plants = {
        "as written": ("", ""),
        "2x for 2|x|": ("return grad_output * 2 * x.abs()", "return grad_output * 2 * x"),
        "no atol": ("rtol=1.3e-6, atol=1e-5)", "rtol=1.3e-6, atol=0.0)"),
    }
    runs, folders = {}, {}
    for name, (old, new) in plants.items():
        folder = tmp_path_factory.mktemp("suite")
        write_suite(folder)
        path = folder / SUITE_NAME
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new), encoding="utf-8")
        run = _pytest if name == "as written" else _pytest_here
        runs[name], folders[name] = run(folder, "inf"), folder
    runs["no time"] = _pytest_here(folders["as written"], "0")
    return runs


@slow
def test_the_file_as_written_passes(planted_runs):
    done = planted_runs["as written"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert "8 passed" in done.stdout


@slow
def test_the_inputs_chosen_on_purpose_catch_2x_for_2_abs_x(planted_runs):
    out = planted_runs["2x for 2|x|"].stdout
    for case in ("0-d", "negative entries", "transposed", "random 4 x 5"):
        assert f"FAILED {SUITE_NAME}::test_signed_square[{case}]" in out, out
    for case in ("empty", "a zero entry"):  # nothing negative there: the slip is invisible
        assert f"test_signed_square[{case}]" not in out, out


@slow
def test_rtol_alone_fails_float32_near_zero(planted_runs):
    out = planted_runs["no atol"].stdout
    assert f"FAILED {SUITE_NAME}::test_float32_against_float64" in out
    assert "1 failed, 7 passed" in out


@slow
def test_a_zero_budget_fails_every_test_at_its_end(planted_runs):
    out = planted_runs["no time"].stdout
    assert "8 passed, 8 errors" in out, out
    assert "over its budget of 0.0 s" in out
