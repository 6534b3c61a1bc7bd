"""The README's promises: its tour runs and prints what its comments say; its links resolve."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_shows_the_two_commands_first():
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    assert first_block.splitlines()[0].startswith("make notebook")
    assert first_block.splitlines()[1].startswith("make test")


def test_api_tour_runs_and_matches_its_comments():
    tour = README.split("## A tour of the API", 1)[1]
    code = re.search(r"```python\n(.*?)```", tour, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        exec(code, namespace)
    assert out.getvalue().startswith("analytic is 1.5x numeric on every entry")
    assert namespace["report"].cause == "bug"
    gradkit, torch = namespace["gradkit"], namespace["torch"]
    assert f"{gradkit.numeric_slope(lambda v: v * v, 2.0, 1e-3):.13f}".startswith("3.9999999999996")
    float32_slope = gradkit.numeric_slope(lambda v: v * v, 0.5, 1e-6, dtype=torch.float32)
    assert f"{float32_slope:.4f}" == "1.0133"
    assert f"{gradkit.sweep(lambda v: v**3, 0.5)['float32'].optimal_eps:.3g}" == "0.00155"


def test_local_links_and_images_exist():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_ci_calls_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def _module_table() -> list[str]:
    table = README.split("| module | what it holds |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `([\w.]+)/?` \|", table, re.M)


def test_module_table_names_real_modules():
    names = _module_table()
    assert names
    for name in names:
        module = importlib.import_module(name)  # gradkit.check is a function, not a module
        assert isinstance(module, types.ModuleType), name


def test_module_table_lists_every_public_module():
    """A newcomer finds where any behaviour lives in one step: every public module has a row."""
    package = ROOT / "gradkit"
    public = {
        f"gradkit.{p.stem}"
        for p in package.iterdir()
        if not p.name.startswith("_")
        and ((p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists()))
    }
    assert public - set(_module_table()) == set()


def widget_files_named(table: str) -> set[str]:
    """The files a widgets-map table names: ``base/host.py`` in full, or a bare ``lab.js`` in the
    row of its folder (a row whose first cell is ``lab/``)."""
    named = set()
    for row in table.splitlines():
        cells = row.split("|")
        if len(cells) < 3:
            continue
        names = re.findall(r"`([\w./]+\.(?:py|js|css|json))`", row)
        folder = re.match(r"\s*`([\w]+)/`", cells[1])
        named |= {n for n in names if "/" in n}
        if folder:
            named |= {f"{folder.group(1)}/{n}" for n in names if "/" not in n}
        named |= {n for n in names if "/" not in n and not folder}
    return named


def test_the_widgets_map_names_every_widget_file():
    """gradkit/widgets/README.md maps the folder: every module and browser file has a row."""
    folder = ROOT / "gradkit" / "widgets"
    table = (folder / "README.md").read_text(encoding="utf-8").split("## Where things live")[1]
    table = table.split("\n## ")[0]
    files = {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.suffix in (".py", ".js", ".css", ".json") and p.name != "__init__.py"
    }
    assert files - widget_files_named(table) == set()
    # a planted file without a row is caught
    assert "slope/extra.js" not in widget_files_named(table)
    assert widget_files_named("| `lab/` | the lab (`lab.py`, `lab.js`) |") == {
        "lab/lab.py",
        "lab/lab.js",
    }


def test_commands_in_the_readme_exist():
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))
    for target in re.findall(r"`make ([a-z][\w-]*)", README):
        assert target in targets, f"make {target}"
    for module in re.findall(r"python -m ([\w.]+)", README):
        assert importlib.util.find_spec(module) is not None, f"python -m {module}"


@pytest.mark.slow  # starts a Python of its own: make test runs it, make unit not
def test_the_gpu_script_runs_lesson_11s_tf32_cells_as_the_lesson_has_them():
    """tools/gpu_figures.sh (the README's GPU figures) runs lesson 11's two TF32 cells: here,
    with no GPU, they print the CPU imitation and say the GPU part is skipped; an edit of the
    lesson that loses a cell makes the script stop with a message instead of printing less."""
    script = (ROOT / "tools" / "gpu_figures.sh").read_text(encoding="utf-8")
    cells_runner = re.search(r"<<'PY'.*?\n(.*?)\nPY\n", script, re.S).group(1)
    lesson = ROOT / "notebooks" / "11_appendix_beyond.py"

    def run(path: Path) -> subprocess.CompletedProcess:
        args = [sys.executable, "-", str(path)]
        return subprocess.run(args, input=cells_runner, capture_output=True, text=True, cwd=ROOT)

    done = run(lesson)
    assert done.returncode == 0, done.stderr
    assert "TF32-like relative error" in done.stdout
    assert "GPU float32 matmul" in done.stdout or "GPU TF32 comparison is skipped" in done.stdout
    with tempfile.TemporaryDirectory() as tmp:
        edited = Path(tmp) / lesson.name
        edited.write_text(lesson.read_text(encoding="utf-8").replace("def to_tf32", "def tf32"))
        broken = run(edited)
    assert broken.returncode != 0 and "has the lesson changed?" in broken.stderr
