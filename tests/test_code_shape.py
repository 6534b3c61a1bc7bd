"""One job per file, functions a reader can hold: the size guide, kept by a test.

The guide (``gradkit/widgets/README.md``, "Size guide"): a module holds one idea. Past about 300
lines of code (blank lines, comments and docstrings not counted, so formatting and explaining
never push a file over), look for the second idea and give it its own module. A function holds
about 50 lines of code, unless the line that defines it gives the reason in a comment that starts
``# long:``. ``# fmt: skip`` only keeps a table's columns (a literal dict, list, tuple or set
assigned to a name); everything else is as ``ruff format`` writes it.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_CODE_LINES = 300
MAX_FUNCTION_LINES = 50
_SOURCES = ("*.py", "*.js", "*.css")
_TABLES = (ast.Dict, ast.List, ast.Tuple, ast.Set)


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


def long_files(package: Path) -> list[str]:
    """Source files over MAX_CODE_LINES lines of code, as "path: lines"."""
    out = []
    for pattern in _SOURCES:
        for path in sorted(package.rglob(pattern)):
            n = code_lines(path)
            if n > MAX_CODE_LINES:
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


def skips_outside_tables(package: Path) -> list[str]:
    """Each ``# fmt: skip`` that does not end a table (a literal display assigned to a name)."""
    out = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
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


def test_no_file_in_gradkit_is_over_about_300_lines_of_code():
    assert long_files(ROOT / "gradkit") == []


def test_no_function_in_gradkit_is_over_about_50_lines_without_a_reason():
    assert long_functions(ROOT / "gradkit") == []


def test_fmt_skip_keeps_only_tables():
    assert skips_outside_tables(ROOT / "gradkit") == []


def test_planted_long_file_and_function_are_caught(tmp_path):
    package = tmp_path / "gradkit"
    package.mkdir()
    body = "".join(f"    x{k} = {k}\n" for k in range(MAX_FUNCTION_LINES))
    code = "".join(f"y{k} = {k}\n" for k in range(MAX_CODE_LINES))
    (package / "long.py").write_text(
        f'def grown():\n    """Doc."""\n{body}\n\ndef explained():  # long: one table\n{body}{code}'
    )
    talk = '"""' + "words\n" * 400 + '"""\n' + "# a comment\n\n" * 400 + "x = 1\n"
    (package / "explained.py").write_text(talk)  # long, but only one line of code
    (package / "view.js").write_text("// fine\n" * 400 + "export const a = 1;\n")
    assert [entry.split(":")[0] for entry in long_files(package)] == ["gradkit/long.py"]
    assert long_functions(package) == [f"gradkit/long.py:1 grown: {MAX_FUNCTION_LINES + 1}"]


def test_a_planted_fmt_skip_outside_a_table_is_caught(tmp_path):
    package = tmp_path / "gradkit"
    package.mkdir()
    (package / "a.py").write_text(
        "WIDTHS = {'a': 1,  'bb': 22}  # fmt: skip\n"
        "def f(a,\n      b):  # fmt: skip\n    return call(a,\n                b)  # fmt: skip\n"
    )
    assert skips_outside_tables(package) == ["gradkit/a.py:3", "gradkit/a.py:5"]
