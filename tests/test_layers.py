"""Imports flow one way: the argument rules and the palette, the zoo, the torch-only core, the
widgets; the command line uses the core only. Inside the widgets, a family imports only the base.
No module of gradkit imports in a circle. Read from the source (no import runs)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_BASE = {"_args", "_folders", "_lazy", "_palette"}
_CORE = {
    "analytic", "batching", "causes", "cost", "detectors", "diagnosis", "engine", "exercises",
    "jacobian", "numerics", "other_checks", "patterns", "plan", "quiz_bank", "realview", "report",
    "rounding",
}  # fmt: skip
#: What each top-level part of gradkit may import from gradkit (besides itself).
ALLOWED: dict[str, set[str]] = {
    "_args": set(),
    "_palette": set(),
    "_lazy": set(),
    "_folders": set(),
    "zoo": {"_args"},
    **{name: _BASE | {"zoo"} | _CORE for name in _CORE},
    "widgets": _BASE | {"zoo"} | _CORE,
    "cli": _BASE | {"zoo"} | _CORE,
    "gradkit": _BASE | {"zoo"} | _CORE,  # the package's __init__
}


def _part(module: str) -> str:
    """``gradkit.numerics.slopes`` -> ``numerics``; ``gradkit`` -> ``gradkit``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def cross_imports(package: Path) -> dict[str, set[str]]:
    """For each top-level part of ``package``, the other parts its modules import."""
    found: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        rel = path.relative_to(package.parent).with_suffix("").parts
        module = ".".join(rel[:-1] if rel[-1] == "__init__" else rel)
        home = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level:
                base = home.split(".")[: len(home.split(".")) - (node.level - 1)]
                if node.module:
                    targets = [".".join([*base, node.module])]
                else:
                    targets = [".".join([*base, a.name]) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = [node.module or ""]
            for target in targets:
                if target.split(".")[0] == package.name and _part(target) != _part(module):
                    found.setdefault(_part(module), set()).add(_part(target))
    return found


def violations(package: Path) -> list[str]:
    """Every import against :data:`ALLOWED`, as "part -> imported part"."""
    out = []
    for part, imported in sorted(cross_imports(package).items()):
        allowed = ALLOWED.get(part)
        if allowed is None:
            out.append(f"{part} has no row in ALLOWED")
            continue
        out.extend(f"{part} -> {other}" for other in sorted(imported - allowed))
    return out


def test_imports_flow_one_way():
    assert violations(ROOT / "gradkit") == []


def test_every_part_of_gradkit_has_a_row():
    parts = {p.stem for p in (ROOT / "gradkit").iterdir() if p.suffix == ".py" or p.is_dir()}
    parts -= {"__init__", "__pycache__", "data"}
    assert parts <= set(ALLOWED), parts - set(ALLOWED)


def test_a_planted_upward_import_is_caught(tmp_path):
    package = tmp_path / "gradkit"
    (package / "numerics").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "numerics" / "__init__.py").write_text("")
    (package / "numerics" / "slopes.py").write_text(
        "def f():\n    from ..widgets import SlopeExplorer  # a lazy upward import\n"
    )
    (package / "zoo.py").write_text("from .numerics import sweep\n")
    assert violations(package) == ["numerics -> widgets", "zoo -> numerics"]


# ------------------------------------------------------------------- inside gradkit.widgets
def widget_imports(widgets: Path) -> dict[str, set[str]]:
    """For each part of ``gradkit/widgets`` (``base``, a family, or a top-level module such as
    ``__init__``), the other parts its modules import (relative or absolute imports)."""
    found: dict[str, set[str]] = {}
    for path in widgets.rglob("*.py"):
        rel = path.relative_to(widgets).parts
        part = rel[0] if len(rel) > 1 else path.stem
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == len(rel):  # from widgets' top
                targets = [node.module] if node.module else [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "gradkit.widgets."
            ):
                targets = [node.module.removeprefix("gradkit.widgets.")]
            for target in targets:
                if target.split(".")[0] != part:
                    found.setdefault(part, set()).add(target.split(".")[0])
    return found


def widget_violations(widgets: Path) -> list[str]:
    """base imports no family; a family imports only base; only ``__init__`` imports families."""
    out = []
    for part, imported in sorted(widget_imports(widgets).items()):
        if part == "__init__":
            continue
        allowed = set() if part == "base" else {"base"}
        out.extend(f"widgets.{part} -> widgets.{other}" for other in sorted(imported - allowed))
    return out


def test_widget_families_import_only_the_base():
    assert widget_violations(ROOT / "gradkit" / "widgets") == []


def test_a_planted_family_import_is_caught(tmp_path):
    widgets = tmp_path / "widgets"
    for part in ("base", "slope", "ruler"):
        (widgets / part).mkdir(parents=True)
        (widgets / part / "__init__.py").write_text("")
    (widgets / "__init__.py").write_text("from .slope import SlopeExplorer\n")
    (widgets / "slope" / "explorer.py").write_text("from ..base import host\nfrom . import scene\n")
    (widgets / "ruler" / "ruler.py").write_text("from ..slope.scene import slope_rows\n")
    (widgets / "base" / "host.py").write_text("from ..ruler import ruler\n")
    assert widget_violations(widgets) == [
        "widgets.base -> widgets.ruler",
        "widgets.ruler -> widgets.slope",
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
gradkit.check
steps["check"] = loaded()
try:
    widgets.SlopeExplorr
except AttributeError as error:
    steps["typo"] = str(error)
print(json.dumps(steps))
"""


def test_a_name_loads_its_module_on_first_use_and_nothing_else():
    """``import gradkit.widgets`` loads no widget family, no check and no matplotlib; asking for
    a class loads its family only; a misspelt name is an AttributeError that names it."""
    import json
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _LOADS], capture_output=True, text=True, check=True)
    steps = json.loads(run.stdout)
    families = {"epsilon", "jacobian", "lab", "practice", "ruler", "slope"}

    def loaded_families(step: str) -> set[str]:
        return {m.split(".")[2] for m in steps[step] if m.count(".") >= 2} & families

    assert loaded_families("import") == set()
    assert "gradkit.diagnosis" not in steps["import"]
    assert not [m for m in steps["SlopeExplorer"] if m.startswith("matplotlib")]
    assert loaded_families("SlopeExplorer") == {"slope"}
    assert "gradkit.diagnosis" in steps["check"]
    assert steps["typo"] == "module 'gradkit.widgets' has no attribute 'SlopeExplorr'"
