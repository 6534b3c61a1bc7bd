"""The lessons travel inside the wheel, and `gradkit lessons DIR` copies them out safely."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from gradkit import cli

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
EXPECTED = [
    "00_start_here.ipynb",
    "01_nudging.ipynb",
    "02_correct_backward.ipynb",
    "03_why_float32_fails.ipynb",
    "04_choosing_eps.ipynb",
    "05_wrong_backward.ipynb",
    "06_bug_zoo.ipynb",
    "07_cost_and_fast_mode.ipynb",
    "08_write_your_own.ipynb",
    "09_capstone_softmax.ipynb",
    "10_beyond_the_jacobian.ipynb",
    "11_appendix_beyond.ipynb",
    "12_gradcheck_in_your_tests.ipynb",
]


def test_the_checkout_holds_every_lesson():
    assert [p.name for p in NOTEBOOKS] == EXPECTED


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (path,) = out.glob("gradkit-*.whl")
    return path


def test_wheel_contains_every_lesson_unchanged(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for notebook in NOTEBOOKS:
            member = f"gradkit/lessons/{notebook.name}"
            assert member in names, f"{member} missing from {wheel.name}"
            assert archive.read(member) == notebook.read_bytes()
        assert "gradkit/data/quizzes.toml" in names
        assert "gradkit/cost/__init__.py" in names
        assert not any(n.startswith(("tools/", "tests/", "notebooks/")) for n in names)


@pytest.mark.slow  # a Python of its own that imports torch: make test, not make unit
def test_installed_wheel_copies_its_own_lessons(wheel, tmp_path):
    """Unpacked, the wheel's `gradkit lessons` finds gradkit/lessons, not a checkout."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    target = tmp_path / "copied"
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from gradkit import cli; "
        "print(cli.lessons_dir()); raise SystemExit(cli.main(['lessons', sys.argv[2]]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(site), str(target)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == str(site / "gradkit" / "lessons")
    assert sorted(p.name for p in target.glob("*.ipynb")) == EXPECTED


def test_lessons_copies_then_skips_then_forces_with_backup(tmp_path, capsys):
    target = tmp_path / "my-lessons"
    assert cli.main(["lessons", str(target)]) == 0
    for notebook in NOTEBOOKS:
        assert (target / notebook.name).read_bytes() == notebook.read_bytes()
    assert f"{len(EXPECTED)} lesson(s)" in capsys.readouterr().out

    edited = target / "03_why_float32_fails.ipynb"
    nb = json.loads(edited.read_text(encoding="utf-8"))
    nb["cells"][0]["source"] = "# my own notes"
    my_version = json.dumps(nb)
    edited.write_text(my_version, encoding="utf-8")

    assert cli.main(["lessons", str(target)]) == 0
    out = capsys.readouterr().out
    assert f"skipped  {len(EXPECTED)} existing file(s)" in out
    assert edited.read_text(encoding="utf-8") == my_version
    assert not list(target.glob("*.bak*"))

    assert cli.main(["lessons", str(target), "--force"]) == 0
    out = capsys.readouterr().out
    backup = target / "03_why_float32_fails.ipynb.bak"
    assert backup.read_text(encoding="utf-8") == my_version
    assert edited.read_bytes() == (ROOT / "notebooks" / edited.name).read_bytes()
    assert "03_why_float32_fails.ipynb -> 03_why_float32_fails.ipynb.bak" in out
