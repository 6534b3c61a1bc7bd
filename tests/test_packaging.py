"""What ships and how it builds: the wheel holds what learners use; one version; make help."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib

import gradkit

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_version_is_written_once():
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "gradkit/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", gradkit.__version__)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
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
    with zipfile.ZipFile(path) as archive:
        yield archive


@pytest.mark.slow
def test_the_wheel_holds_what_learners_use_and_nothing_else(wheel):
    names = wheel.namelist()
    tops = {n.split("/", 1)[0] for n in names}
    data = f"gradkit-{gradkit.__version__}.data"
    assert tops == {"gradkit", f"gradkit-{gradkit.__version__}.dist-info", data}
    # Voila's template for the lessons, where Voila looks (sys.prefix/share/jupyter/voila/...)
    template = f"{data}/data/share/jupyter/voila/templates/gradkit"
    assert sorted(n for n in names if n.startswith(data)) == [
        f"{template}/conf.json",
        f"{template}/index.html.j2",
    ]
    assert not [n for n in names if "/bench" in n or "harness" in n or "__pycache__" in n]
    lessons = sorted(n for n in names if n.startswith("gradkit/lessons/"))
    shipped = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert lessons == [f"gradkit/lessons/{name}" for name in shipped]  # no .py sources, no caches
    for kind in ("solutions", "starters"):
        for key in ("cube", "sigmoid", "product"):
            assert f"gradkit/exercises/{kind}/{key}.py" in names
    metadata = wheel.read(f"gradkit-{gradkit.__version__}.dist-info/METADATA").decode()
    assert f"\nVersion: {gradkit.__version__}\n" in metadata


def _targets() -> list[str]:
    return re.findall(r"^([a-z][\w-]*):", MAKEFILE, re.M)


def test_every_make_target_is_phony_and_listed_by_make_help():
    phony = set(re.search(r"^\.PHONY:(.*)$", MAKEFILE, re.M).group(1).split())
    assert set(_targets()) == phony
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    done = subprocess.run(
        ["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    listed = re.findall(r"^make ([a-z][\w-]*) +- ", done.stdout, re.M)
    assert sorted(listed) == sorted(phony)


def test_make_unit_leaves_out_the_slow_suites_and_bench_runs_benchmarks():
    unit = re.search(r"^unit:.*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1)
    assert '-m "not notebooks and not browser and not slow"' in unit
    bench = re.search(r"^bench:.*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1)
    assert "-m benchmarks $(ARGS)" in bench
    lessons = re.search(r"^lessons:.*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1)
    assert "tools/sync_lessons.py" in lessons


def test_make_notebook_opens_the_private_copy_never_the_sources():
    recipe = re.search(r"^notebook:.*\n((?:\t.*\n)+)", MAKEFILE, re.M).group(1)
    folder = re.search(r"^MY_LESSONS \?= (\S+)$", MAKEFILE, re.M).group(1)
    assert "gradkit lessons $(MY_LESSONS)" in recipe  # copies missing lessons, never overwrites
    assert "--force" not in recipe
    assert "gradkit notebook $(MY_LESSONS)" in recipe
    assert f"{folder}/" in (ROOT / ".gitignore").read_text().splitlines()
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        return  # an unpacked sdist: .gitignore is all there is to check
    done = subprocess.run(
        ["git", "check-ignore", "-q", f"{folder}/00_start_here.ipynb"], cwd=ROOT, check=False
    )
    assert done.returncode == 0, f"{folder}/ is not git-ignored"
