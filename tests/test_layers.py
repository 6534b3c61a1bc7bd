"""Imports flow one way, as a layered contract: the argument rules and the palette, the zoo, the
torch-only core, the widgets (a family imports only the base), the command line (each subcommand
its own module; it never imports the widgets). The contracts are written in pyproject.toml
(``[tool.importlinter]``) and checked by import-linter over every module of gradkit, tools/ and
benchmarks/, imports inside functions included. Here also: tools/ and benchmarks/ use only public
names of gradkit, no module imports in a circle, and the names a package loads on first use.
Read from the source (no import runs), except the last test."""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint_imports(root: Path, *options: str) -> subprocess.CompletedProcess:
    """import-linter on ``root`` (its pyproject.toml's contracts, its own gradkit first on the
    path): exit status 0 when every contract is kept."""
    return subprocess.run(
        [sys.executable, "-c", _LINT, "--no-cache", *options],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_import_contracts_hold():
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    """A copy of gradkit, tools/ and benchmarks/ with one wrong import per contract."""
    root = tmp_path_factory.mktemp("planted")
    for part in ("gradkit", "tools", "benchmarks"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root)
    plants = {
        "gradkit/numerics/slopes.py": "def _up():\n    from ..widgets import SlopeExplorer\n",
        "gradkit/__init__.py": "from .cli import main as _main\n",
        "gradkit/zoo/__init__.py": "from .._palette import PALETTE as _PALETTE\n",
        "gradkit/cli/check_run.py": "def _warm():\n    from . import warm\n",
        "gradkit/cli/site/math.py": "from .cells import cell_html as _cell_html\n",
        "gradkit/widgets/ruler/ruler.py": "def _other():\n    from ..slope import explorer\n",
        # (in benchmarks/: tools/ is a namespace package, read from every folder on the path)
        "benchmarks/engine.py": "from gradkit._palette import PALETTE as _PALETTE\n",
        "gradkit/report.py": "import benchmarks as _benchmarks\n",
    }
    for path, line in plants.items():
        with open(root / path, "a", encoding="utf-8") as source:
            source.write(line)
    (root / "gradkit" / "newpart.py").write_text("X = 1\n")  # a part with no layer
    (root / "gradkit" / "cli" / "widgets.py").write_text("from ..widgets import Quiz\n")
    return root


#: Each contract in pyproject.toml, and the planted import it must report.
PLANTED = {
    "layers": "gradkit.numerics.slopes -> gradkit.widgets",
    "package-init": "gradkit -> gradkit.cli",
    "zoo": "gradkit.zoo -> gradkit._palette",
    "cli-without-widgets": "gradkit.cli.widgets -> gradkit.widgets",
    "widget-families": "gradkit.widgets.ruler.ruler -> gradkit.widgets.slope",
    "cli-commands": "gradkit.cli.check_run -> gradkit.cli.warm",
    "cli-site": "gradkit.cli.site.math -> gradkit.cli.site.cells",
    "private-modules": "benchmarks.engine -> gradkit._palette",
    "tools-and-benchmarks": "gradkit.report -> benchmarks",
}


@pytest.mark.parametrize("contract", sorted(PLANTED))
def test_a_planted_wrong_import_breaks_its_contract(planted, contract):
    run = lint_imports(planted, "--contract", contract)
    assert run.returncode == 1 and "1 broken" in run.stdout, run.stdout + run.stderr
    assert PLANTED[contract] in run.stdout, run.stdout


def test_a_new_part_without_a_layer_breaks_the_layers(planted):
    run = lint_imports(planted, "--contract", "layers")
    assert "gradkit.newpart" in run.stdout, run.stdout


def test_every_contract_is_planted():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert sorted(c["id"] for c in config["tool"]["importlinter"]["contracts"]) == sorted(PLANTED)


# ------------------------------------------------- tools/ and benchmarks/: public names only
def _module_file(root: Path, module: str) -> Path | None:
    path = root.joinpath(*module.split("."))
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _public_names(source: Path, module: str) -> set[str] | None:
    """A module's ``__all__`` (read from source; one it computes, as ``gradkit.widgets`` does
    from its families, by importing it), or None where it has none."""
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                return set(importlib.import_module(module).__all__)
    return None


def private_uses(root: Path, files: list[Path]) -> list[str]:
    """Each name of gradkit a file takes that is not public: not in its module's ``__all__``
    (nor a submodule), or starting with ``_``; as "file:line module.name"."""
    out = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and not node.level and node.module):
                continue
            if node.module.split(".")[0] != "gradkit":
                continue
            source = _module_file(root, node.module)
            public = _public_names(source, node.module) if source is not None else None
            for alias in node.names:
                if _module_file(root, f"{node.module}.{alias.name}") is not None:
                    continue  # a submodule (its privacy is the private-modules contract's)
                shown = alias.name not in public if public is not None else alias.name[0] == "_"
                if shown:
                    where = path.relative_to(root).as_posix()
                    out.append(f"{where}:{node.lineno} {node.module}.{alias.name}")
    return out


def test_tools_and_benchmarks_use_only_public_names():
    files = sorted([*(ROOT / "tools").glob("*.py"), *(ROOT / "benchmarks").glob("*.py")])
    assert private_uses(ROOT, files) == []


def test_a_planted_private_name_is_caught(tmp_path):
    package = tmp_path / "gradkit" / "widgets" / "base"
    package.mkdir(parents=True)
    (tmp_path / "gradkit" / "__init__.py").write_text("__all__ = ['sweep']\n")
    (tmp_path / "gradkit" / "widgets" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "tables.py").write_text("__all__ = ['pack']\n")
    tool = tmp_path / "tools" / "fixtures.py"
    tool.parent.mkdir()
    tool.write_text(
        "from gradkit import sweep, _lazy\n"
        "from gradkit.widgets.base import tables\n"
        "from gradkit.widgets.base.tables import pack, _unpack, json_safe\n"
    )
    assert private_uses(tmp_path, [tool]) == [
        "tools/fixtures.py:1 gradkit._lazy",
        "tools/fixtures.py:3 gradkit.widgets.base.tables._unpack",
        "tools/fixtures.py:3 gradkit.widgets.base.tables.json_safe",
    ]


# ------------------------------------------------------------------------ no import circle
def module_imports(package: Path) -> dict[str, set[str]]:
    """For each module of ``package`` (dotted, from its folder), the modules of ``package`` it
    imports, at the top or inside a function."""
    graph: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        home = parts[:-1]  # the package a relative import starts from
        targets = graph.setdefault(module, set())
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for_types = {  # imports under "if TYPE_CHECKING:" never run
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in for_types:
                continue
            if isinstance(node, ast.ImportFrom) and node.level:
                base = list(home[: len(home) - node.level + 1])
                start = ".".join([*base, *(node.module.split(".") if node.module else [])])
                targets.add(start)
                targets.update(f"{start}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets.add(node.module)
                targets.update(f"{node.module}.{alias.name}" for alias in node.names)
    known = set(graph)
    for module, targets in graph.items():
        # "from .base import host" names a module; "from .base.host import X" names one too
        graph[module] = {t for t in targets if t in known and t != module}
    return graph


def circles(package: Path) -> list[list[str]]:
    """Each import circle among ``package``'s modules (a package importing its own submodules
    through ``__init__`` is the usual layout and not a circle)."""
    graph = module_imports(package)
    found, state = [], {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if module.startswith(target + "."):
                continue  # a module importing its own package's __init__ names, e.g. a sibling
            if state.get(target) == "open":
                ring = path[path.index(target) :]
                first = ring.index(min(ring))  # each circle read from its first module by name
                found.append([*ring[first:], *ring[:first], min(ring)])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return found


def test_no_module_of_gradkit_imports_in_a_circle():
    """Over the whole package (the command line's site builder once had one: cells and
    markdown importing each other)."""
    assert circles(ROOT / "gradkit") == []


def test_a_planted_circle_is_caught(tmp_path):
    base = tmp_path / "widgets" / "base"
    base.mkdir(parents=True)
    (tmp_path / "widgets" / "__init__.py").write_text("from .base import host\n")
    (base / "__init__.py").write_text("")
    (base / "host.py").write_text("from . import controls\n")
    (base / "controls.py").write_text("def f():\n    from .stage import draw\n")
    (base / "stage.py").write_text("from .host import Host\n")
    assert circles(tmp_path / "widgets") == [
        [
            "widgets.base.controls",
            "widgets.base.stage",
            "widgets.base.host",
            "widgets.base.controls",
        ]
    ]


# ------------------------------------------------------------------- names loaded on first use
_LOADS = """
import json, sys
import gradkit, gradkit.widgets as widgets
loaded = lambda: sorted(m for m in sys.modules if m.startswith(("gradkit", "matplotlib")))
steps = {"import": loaded()}
widgets.SlopeExplorer
steps["SlopeExplorer"] = loaded()
widgets.Predict, widgets.Quiz
steps["Predict"] = loaded()
gradkit.check
steps["check"] = loaded()
try:
    widgets.SlopeExplorr
except AttributeError as error:
    steps["typo"] = str(error)
print(json.dumps(steps))
"""


@pytest.mark.slow  # starts a Python of its own: make test runs it, make unit not
def test_a_name_loads_its_module_on_first_use_and_nothing_else():
    """``import gradkit.widgets`` loads no widget family, no check and no matplotlib; asking for
    a class loads its family only (Predict and Quiz: not the exercise grader, the zoo hunt or
    the check); a misspelt name is an AttributeError that names it."""
    import json
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _LOADS], capture_output=True, text=True, check=True)
    steps = json.loads(run.stdout)
    widgets = ROOT / "gradkit" / "widgets"
    families = {p.parent.name for p in widgets.glob("*/__init__.py")} - {"base"}
    assert {"slope", "practice"} <= families

    def loaded_families(step: str) -> set[str]:
        return {m.split(".")[2] for m in steps[step] if m.count(".") >= 2} & families

    assert loaded_families("import") == set()
    assert "gradkit.diagnosis" not in steps["import"]
    assert not [m for m in steps["SlopeExplorer"] if m.startswith("matplotlib")]
    assert loaded_families("SlopeExplorer") == {"slope"}
    assert loaded_families("Predict") == {"slope", "practice"}
    unasked = ("gradkit.exercises", "gradkit.diagnosis", "gradkit.widgets.practice.zoo_hunt")
    assert not [m for m in steps["Predict"] if m.startswith(unasked)]
    assert "gradkit.diagnosis" in steps["check"]
    assert steps["typo"] == "module 'gradkit.widgets' has no attribute 'SlopeExplorr'"
