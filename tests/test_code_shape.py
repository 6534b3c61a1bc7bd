"""One job per file, functions a reader can hold: the limits issue 11 set, kept by a test.

A file in gradkit/ holds about 300 lines at most (320 here); a function about 50 lines of code
(its docstring not counted), unless the line that defines it gives the reason in a comment that
starts ``# long:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE_LINES = 320
MAX_FUNCTION_LINES = 50
_SOURCES = ("*.py", "*.js", "*.css")


def long_files(package: Path) -> list[str]:
    """Source files over MAX_FILE_LINES, as "path: lines"."""
    out = []
    for pattern in _SOURCES:
        for path in sorted(package.rglob(pattern)):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > MAX_FILE_LINES:
                out.append(f"{path.relative_to(package.parent)}: {n}")
    return out


def long_functions(package: Path) -> list[str]:
    """Functions over MAX_FUNCTION_LINES lines of code with no ``# long:`` reason."""
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
            if size > MAX_FUNCTION_LINES and "# long:" not in lines[node.lineno - 1]:
                out.append(f"{path.relative_to(package.parent)}:{node.lineno} {node.name}: {size}")
    return out


def test_no_file_in_gradkit_is_over_about_300_lines():
    assert long_files(ROOT / "gradkit") == []


def test_no_function_in_gradkit_is_over_about_50_lines_without_a_reason():
    assert long_functions(ROOT / "gradkit") == []


def test_planted_long_file_and_function_are_caught(tmp_path):
    package = tmp_path / "gradkit"
    package.mkdir()
    body = "".join(f"    x{k} = {k}\n" for k in range(MAX_FUNCTION_LINES))
    (package / "long.py").write_text(
        f'def grown():\n    """Doc."""\n{body}\n\ndef explained():  # long: one table\n{body}'
        + "\n" * MAX_FILE_LINES
    )
    (package / "view.js").write_text("// fine\n")
    assert [entry.split(":")[0] for entry in long_files(package)] == ["gradkit/long.py"]
    assert long_functions(package) == [f"gradkit/long.py:1 grown: {MAX_FUNCTION_LINES + 1}"]
