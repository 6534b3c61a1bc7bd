"""The widget layer says each piece of logic once: no run of six or more lines of the same shape
stands twice in gradkit/widgets (Python and JavaScript).

"Same shape" is read the way a reviewer reads it: names, strings and numbers are made alike;
comments, docstrings, imports and blank lines do not count; a line of only brackets or keywords
(``}``, ``else:``) does not count; a run of identical lines in a row (a parameter list, the rows of
a table) counts once. A class's own declarations (``css = ...``, ``view = ...``) are data, not
logic, and do not count either.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDGETS = ROOT / "gradkit" / "widgets"
RUN = 6

_JS_KEYWORDS = {
    "async", "await", "break", "case", "catch", "class", "const", "continue", "default", "delete",
    "do", "else", "export", "extends", "false", "finally", "for", "function", "if", "import", "in",
    "instanceof", "let", "new", "null", "of", "return", "static", "super", "switch", "this",
    "throw", "true", "try", "typeof", "undefined", "var", "void", "while", "yield",
}  # fmt: skip
_JS_TOKEN = re.compile(
    r"(?P<string>`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\")"
    r"|(?P<number>\b\d[\d_]*(?:\.\d*)?(?:e[+-]?\d+)?n?\b)"
    r"|(?P<name>[A-Za-z_$][\w$]*)"
    r"|(?P<punct>\S)"
)
_THIN = re.compile(r"^[\s(){}\[\],;:.]*$")


def _thin(shape: str) -> bool:
    """A line of brackets and keywords only (``}``, ``else:``, ``) -> None:``)."""
    words = [w for w in re.split(r"[^\w]+", shape) if w]
    return all(keyword.iskeyword(w) or w in _JS_KEYWORDS for w in words) and (
        _THIN.match(re.sub(r"\w+|->", "", shape)) is not None
    )


def _literal(node: ast.expr) -> bool:
    """A value written out as data: a constant, or a list, tuple, set or dict of them."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_literal(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(_literal(item) for item in [*node.keys, *node.values] if item is not None)
    return isinstance(node, ast.Constant)


def _docstring(node: ast.AST) -> ast.AST | None:
    body = getattr(node, "body", None)
    first = body[0] if isinstance(body, list) and body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first
    return None


def _declarations(node: ast.AST) -> list[ast.AST]:
    """Module- or class-level names bound to written-out data: css = "...", PANELS = (...)."""
    if not isinstance(node, (ast.Module, ast.ClassDef)):
        return []
    return [
        item
        for item in node.body
        if isinstance(item, (ast.Assign, ast.AnnAssign))
        and item.value is not None
        and _literal(item.value)
    ]


def _not_logic(tree: ast.Module) -> set[int]:
    """Lines of docstrings, imports, signatures and data declarations."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        spans = [_docstring(node), *_declarations(node)]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            spans.append(node)
        for span in filter(None, spans):
            skip.update(range(span.lineno, span.end_lineno + 1))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            skip.update(range(node.lineno, node.body[0].lineno))  # the signature
    return skip


def python_shapes(text: str) -> list[tuple[int, str]]:
    """(line number, shape) for each line of logic in a Python source."""
    skip = _not_logic(ast.parse(text))
    shapes: dict[int, list[str]] = defaultdict(list)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.start[0] in skip or tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
            continue
        if tok.type == tokenize.NAME:
            word = tok.string if keyword.iskeyword(tok.string) else "N"
        elif tok.type == tokenize.STRING:
            word = "S"
        elif tok.type == tokenize.NUMBER:
            word = "0"
        elif tok.type == tokenize.OP:
            word = tok.string
        else:
            continue
        shapes[tok.start[0]].append(word)
    return [(n, " ".join(words)) for n, words in sorted(shapes.items())]


def js_shapes(text: str) -> list[tuple[int, str]]:
    """(line number, shape) for each line of logic in an ES module."""
    text = re.sub(r"/\*[\s\S]*?\*/", lambda m: "\n" * m.group().count("\n"), text)
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = re.sub(r"(^|[^:\\])//.*$", r"\1", line)  # a comment, not a URL
        if re.match(r"\s*(import|export \{[^}]*\} from)\b", line):
            continue
        words = []
        for match in _JS_TOKEN.finditer(line):
            kind, token = match.lastgroup, match.group()
            if kind == "name":
                words.append(token if token in _JS_KEYWORDS else "N")
            else:
                words.append({"string": "S", "number": "0"}.get(kind, token))
        if words:
            out.append((number, " ".join(words)))
    return out


def _logic(shapes: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Thin lines dropped; a run of identical lines in a row kept once."""
    out: list[tuple[int, str]] = []
    for number, shape in shapes:
        if _thin(shape) or (out and out[-1][1] == shape):
            continue
        out.append((number, shape))
    return out


def repeats(folder: Path, run: int = RUN) -> list[str]:
    """Every place where ``run`` lines of logic stand again elsewhere in ``folder``, as
    "a.py:10-17 ~ b.py:40-47" (overlapping windows of one repeat reported once)."""
    seen: dict[tuple[str, ...], tuple[str, int, int]] = {}
    found: dict[tuple[str, str], str] = {}
    for path in sorted([*folder.rglob("*.py"), *folder.rglob("*.js")]):
        text = path.read_text(encoding="utf-8")
        shapes = _logic(python_shapes(text) if path.suffix == ".py" else js_shapes(text))
        name = str(path.relative_to(folder))
        for k in range(len(shapes) - run + 1):
            window = tuple(shape for _, shape in shapes[k : k + run])
            where = (name, shapes[k][0], shapes[k + run - 1][0])
            first = seen.setdefault(window, where)
            if first is not where and (first[0], name) not in found:
                if first[0] == name and first[2] >= where[1]:
                    continue  # the window overlaps itself
                found[(first[0], name)] = (
                    f"{first[0]}:{first[1]}-{first[2]} ~ {name}:{where[1]}-{where[2]}"
                )
    return sorted(found.values())


def test_no_logic_stands_twice_in_the_widget_layer():
    assert repeats(WIDGETS) == []


def test_planted_repeats_are_caught(tmp_path):
    body = (
        "    total = 0\n    for item in items:\n        if item.ok:\n"
        "            total += item.size\n        else:\n            total -= 1\n"
        "    scale = total / len(items)\n    return round(scale, 3)\n"
    )
    (tmp_path / "a.py").write_text(f'def first(items):\n    """Doc."""\n{body}')
    (tmp_path / "b.py").write_text(  # other names, same shape
        "def second(rows):\n" + body.replace("total", "acc").replace("items", "rows")
    )
    (tmp_path / "c.js").write_text(
        "function f(ctx) {\n  const s = ctx.state;\n  if (!s.ok) return null;\n"
        "  const row = find(s.table, s.x);\n  if (!row) return null;\n"
        "  draw(ctx, row, 'left');\n  return row.value * 2;\n}\n"
        "function g(view) {\n  const t = view.state;\n  if (!t.ready) return null;\n"
        "  const hit = lookup(t.rows, t.eps);\n  if (!hit) return null;\n"
        '  paint(view, hit, "right");\n  return hit.size * 3;\n}\n'
    )
    (tmp_path / "d.py").write_text(  # a parameter list and declarations are not logic
        "class A:\n    css = 'a'\n    view = 'v'\n    scripts = ('x.js',)\n\n"
        "    def __init__(\n        self,\n        a: int = 1,\n        b: int = 2,\n"
        "        c: int = 3,\n        d: int = 4,\n    ) -> None:\n        pass\n"
        "\n\nclass B:\n    css = 'b'\n    view = 'w'\n    scripts = ('y.js',)\n\n"
        "    def __init__(\n        self,\n        e: int = 5,\n        f: int = 6,\n"
        "        g: int = 7,\n        h: int = 8,\n    ) -> None:\n        pass\n"
    )
    assert repeats(tmp_path) == ["a.py:3-9 ~ b.py:2-8", "c.js:1-6 ~ c.js:9-14"]
