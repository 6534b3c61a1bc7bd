"""The README's promises: its tour runs and prints what its comments say; its links resolve."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import re
import types
from pathlib import Path

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


def test_the_widgets_map_names_every_widget_file():
    """gradkit/widgets/README.md maps the folder: every module and browser file has a row."""
    folder = ROOT / "gradkit" / "widgets"
    table = (folder / "README.md").read_text(encoding="utf-8").split("## Where things live")[1]
    table = table.split("\n## ")[0]
    named = set(re.findall(r"`(?:static/)?([\w.]+\.(?:py|js|css))`", table))
    files = {p.name for p in folder.glob("*.py") if p.name != "__init__.py"}
    files |= {p.name for p in (folder / "static").iterdir() if p.suffix in (".js", ".css")}
    views = {p.name for p in (folder / "static").glob("*.js")} - {
        "base.js",
        "draw.js",
        "controls.js",
        "render.js",
    }  # one view per widget: the row `static/<view>.js` covers them
    assert files - views - named == set()


def test_commands_in_the_readme_exist():
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))
    for target in re.findall(r"`make ([a-z][\w-]*)", README):
        assert target in targets, f"make {target}"
    for module in re.findall(r"python -m ([\w.]+)", README):
        assert importlib.util.find_spec(module) is not None, f"python -m {module}"
