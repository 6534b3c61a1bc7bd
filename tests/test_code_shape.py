"""One job per file, functions a reader can hold: the size guide, kept by a test.

The guide (``gradkit/widgets/README.md``, "Size guide"): a module holds one idea. Past about 300
lines of code (blank lines, comments and docstrings not counted, so formatting and explaining
never push a file over), look for the second idea and give it its own module. A function holds
about 50 lines, unless the line that defines it gives the reason in a comment that starts
``# long:``. ``# fmt: skip`` only keeps a table's columns (a literal dict, list, tuple or set
assigned to a name); everything else is as ``ruff format`` writes it.

A guide, not a wall: a module or function past it is listed as a :class:`SizeGuideWarning` in
the test run's warnings summary, and nothing fails. A hard cap just above the guide bent the code
to fit it (a mixin reading the host's private attributes, ``# fmt: skip`` to squeeze lines), so
the tests fail only far beyond it (:data:`WALL_CODE_LINES`, :data:`WALL_FUNCTION_LINES`), where
no layout explains the size.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The guide: past these a module or function is listed (a warning), never failed.
GUIDE_CODE_LINES = 300
GUIDE_FUNCTION_LINES = 50
#: Far beyond the guide: here the tests fail (a ``# long:`` reason does not move this).
WALL_CODE_LINES = 450
WALL_FUNCTION_LINES = 80
_SOURCES = ("*.py", "*.js", "*.css")
_TABLES = (ast.Dict, ast.List, ast.Tuple, ast.Set)


class SizeGuideWarning(UserWarning):
    """Modules and functions past the size guide (listed, not failed)."""


def code_lines(path: Path) -> int:
    """Lines holding code: not blank, not only a comment, not part of a docstring."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    skip: set[int] = set()
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
                continue
            first = node.body[0]
            is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if is_doc and isinstance(first.value.value, str):
                skip.update(range(first.lineno, first.end_lineno + 1))
        comment = ("#",)
    else:
        comment = ("//", "/*", "*", "*/")
    return sum(
        1
        for number, line in enumerate(lines, start=1)
        if number not in skip and line.strip() and not line.strip().startswith(comment)
    )


def long_files(package: Path, limit: int = GUIDE_CODE_LINES) -> list[str]:
    """Source files over ``limit`` lines of code, as "path: lines"."""
    out = []
    for pattern in _SOURCES:
        for path in sorted(package.rglob(pattern)):
            n = code_lines(path)
            if n > limit:
                out.append(f"{path.relative_to(package.parent)}: {n}")
    return out


def long_functions(
    package: Path, limit: int = GUIDE_FUNCTION_LINES, *, reasons: bool = True
) -> list[str]:
    """Functions over ``limit`` lines (docstring not counted), as "path:line name: lines".

    With ``reasons`` a function whose ``def`` line says ``# long:`` why is not listed.
    """
    out = []
    for path in sorted(package.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            size = node.end_lineno - node.lineno + 1
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                size -= first.end_lineno - first.lineno + 1  # the docstring
            explained = reasons and "# long:" in lines[node.lineno - 1]
            if size > limit and not explained:
                out.append(f"{path.relative_to(package.parent)}:{node.lineno} {node.name}: {size}")
    return out


def skips_outside_tables(package: Path) -> list[str]:
    """Each ``# fmt: skip`` that does not end a table (a literal display assigned to a name)."""
    out = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "# fmt: skip" not in text:  # no such comment in the file: nothing to read closer
            continue
        tables = {
            node.end_lineno
            for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, _TABLES)
        }
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            skips = token.type == tokenize.COMMENT and token.string.startswith("# fmt: skip")
            if skips and token.start[0] not in tables:
                out.append(f"{path.relative_to(package.parent)}:{token.start[0]}")
    return out


def warn_past_the_guide(package: Path) -> list[str]:
    """List (as one :class:`SizeGuideWarning`) what is past the guide; returns the list."""
    past = [
        *(
            f"{entry} lines of code (guide: about {GUIDE_CODE_LINES})"
            for entry in long_files(package)
        ),
        *(
            f"{entry} lines (guide: about {GUIDE_FUNCTION_LINES}, or a '# long:' reason)"
            for entry in long_functions(package)
        ),
    ]
    if past:
        warnings.warn(
            SizeGuideWarning("past the size guide:\n  " + "\n  ".join(past)), stacklevel=2
        )
    return past


def test_what_is_past_the_size_guide_is_listed_not_failed():
    warn_past_the_guide(ROOT / "gradkit")


def test_no_file_in_gradkit_is_far_past_the_guide():
    assert long_files(ROOT / "gradkit", WALL_CODE_LINES) == []


def test_no_function_in_gradkit_is_far_past_the_guide():
    assert long_functions(ROOT / "gradkit", WALL_FUNCTION_LINES, reasons=False) == []


def test_fmt_skip_keeps_only_tables():
    """In the package and in the tests, tools and benchmarks alike: the formatter lays out all
    but a table's columns."""
    for folder in ("gradkit", "tests", "tools", "benchmarks"):
        assert skips_outside_tables(ROOT / folder) == [], folder


def test_planted_long_file_and_function_are_caught(tmp_path):
    package = tmp_path / "gradkit"
    package.mkdir()
    body = "".join(f"    x{k} = {k}\n" for k in range(GUIDE_FUNCTION_LINES))
    code = "".join(f"y{k} = {k}\n" for k in range(GUIDE_CODE_LINES))
    (package / "long.py").write_text(
        f'def grown():\n    """Doc."""\n{body}\n\ndef explained():  # long: one table\n{body}{code}'
    )
    talk = '"""' + "words\n" * 400 + '"""\n' + "# a comment\n\n" * 400 + "x = 1\n"
    (package / "explained.py").write_text(talk)  # long, but only one line of code
    (package / "view.js").write_text("// fine\n" * 400 + "export const a = 1;\n")
    assert [entry.split(":")[0] for entry in long_files(package)] == ["gradkit/long.py"]
    assert long_functions(package) == [f"gradkit/long.py:1 grown: {GUIDE_FUNCTION_LINES + 1}"]
    with pytest.warns(SizeGuideWarning) as listed:
        past = warn_past_the_guide(package)
    assert len(past) == 2 and "gradkit/long.py" in str(listed[0].message)
    # past the guide, not past the wall: nothing fails
    assert long_files(package, WALL_CODE_LINES) == []
    assert long_functions(package, WALL_FUNCTION_LINES, reasons=False) == []
    # far past it, a reason or none, it fails
    body = "".join(f"    x{k} = {k}\n" for k in range(WALL_FUNCTION_LINES))
    rest = "".join(f"z{k} = {k}\n" for k in range(WALL_CODE_LINES - WALL_FUNCTION_LINES))
    (package / "wall.py").write_text(f"def huge():  # long: no reason is enough\n{body}{rest}")
    assert long_files(package, WALL_CODE_LINES) == [f"gradkit/wall.py: {WALL_CODE_LINES + 1}"]
    assert long_functions(package, WALL_FUNCTION_LINES, reasons=False) == [
        f"gradkit/wall.py:1 huge: {WALL_FUNCTION_LINES + 1}"
    ]


def test_a_planted_fmt_skip_outside_a_table_is_caught(tmp_path):
    package = tmp_path / "gradkit"
    package.mkdir()
    (package / "a.py").write_text(
        "WIDTHS = {'a': 1,  'bb': 22}  # fmt: skip\n"
        "def f(a,\n      b):  # fmt: skip\n    return call(a,\n                b)  # fmt: skip\n"
    )
    assert skips_outside_tables(package) == ["gradkit/a.py:3", "gradkit/a.py:5"]
