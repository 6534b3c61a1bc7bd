"""gradkit says each piece of logic once: no run of six or more lines of the same shape stands
twice in the package (Python compared with Python, JavaScript with JavaScript), and no formula is
written out in both languages.

"Same shape" is read the way a reviewer reads it: names, strings and numbers are made alike;
comments, docstrings, imports and blank lines do not count; a line of only brackets or keywords
(``}``, ``else:``) does not count; a run of identical lines in a row (a parameter list, the rows of
a table) counts once. A class's own declarations (``css = ...``, ``view = ...``, a dataclass's
``name: str``) are data, not logic, and do not count either.

Across the two languages a line's shape cannot be compared (``const k = ...;`` and ``k = ...``,
``{``/``}`` and indentation, ``Math.round`` and ``round``), and names made alike would make every
``a + b * c`` one rule. What can be compared honestly is a formula with its names: an arithmetic
expression of two operators or more, each access path read as its last name (``self.origin``,
``scene.x_grid.origin`` and ``s["origin"]`` are ``origin``; ``x_grid`` and ``xGrid`` are one
name), ``Math.`` dropped. The same formula in a ``.py`` and a ``.js`` file is one rule in two
homes. A rule written with other names in each language is not seen: this is a net, not proof.

Where a repeat is by design, or is another helper's to fix, :data:`KNOWN` says so, one entry a
pair of files with its reason; an entry that no longer matches anything must go.
"""

from __future__ import annotations

import ast
import functools
import io
import keyword
import re
import tokenize
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gradkit"
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
    """Module- or class-level names bound to written-out data (css = "...", PANELS = (...)) or
    only declared (a dataclass's ``name: str``)."""
    if not isinstance(node, (ast.Module, ast.ClassDef)):
        return []
    return [
        item
        for item in node.body
        if isinstance(item, (ast.Assign, ast.AnnAssign))
        and (item.value is None or _literal(item.value))  # name: str, a dataclass field
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


_SHAPES = {".py": python_shapes, ".js": js_shapes}


def repeats(folder: Path, run: int = RUN) -> list[str]:
    """Every place where ``run`` lines of logic stand again elsewhere in ``folder`` in the same
    language, as "a.py:10-17 ~ b.py:40-47" (overlapping windows of one repeat reported once)."""
    found: dict[tuple[str, str], str] = {}
    for suffix, shapes_of in _SHAPES.items():
        seen: dict[tuple[str, ...], tuple[str, int, int]] = {}
        for path in sorted(folder.rglob(f"*{suffix}")):
            shapes = _logic(shapes_of(path.read_text(encoding="utf-8")))
            name = path.relative_to(folder).as_posix()
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


# ------------------------------------------------------------- one formula in both languages
_ARITHMETIC = {"+", "-", "*", "/", "%", "**"}
_FORMULA = _ARITHMETIC | {"(", ")", ","}
#: Words that read the same in both languages once spelt alike.
_SAME_WORD = {"null": "None", "undefined": "None", "true": "True", "false": "False"}


def _name(word: str) -> str:
    """``x_grid`` and ``xGrid`` alike."""
    return word.replace("_", "").lower()


def _python_tokens(text: str) -> dict[int, list[tuple[str, str]]]:
    """(kind, text) per line of logic: kind is name, number, op or word (a keyword)."""
    skip = _not_logic(ast.parse(text))
    lines: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.start[0] in skip:
            continue
        if tok.type == tokenize.NAME:
            kind = "word" if keyword.iskeyword(tok.string) else "name"
        elif tok.type == tokenize.NUMBER:
            kind = "number"
        elif tok.type == tokenize.STRING:
            kind = "string"
        elif tok.type == tokenize.OP:
            kind = "op"
        else:
            continue
        lines[tok.start[0]].append((kind, tok.string))
    return lines


def _js_tokens(text: str) -> dict[int, list[tuple[str, str]]]:
    text = re.sub(r"/\*[\s\S]*?\*/", lambda m: "\n" * m.group().count("\n"), text)
    lines: dict[int, list[tuple[str, str]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = re.sub(r"(^|[^:\\])//.*$", r"\1", line)
        tokens: list[tuple[str, str]] = []
        for match in _JS_TOKEN.finditer(line):
            kind, token = match.lastgroup, match.group()
            if kind == "punct":
                kind = "op"
                if token == "*" and tokens and tokens[-1] == ("op", "*"):
                    tokens[-1] = ("op", "**")
                    continue
            elif kind == "name" and token in _JS_KEYWORDS:
                kind, token = "word", _SAME_WORD.get(token, token)
            tokens.append((kind, token))
        if tokens:
            lines[number] = tokens
    return lines


def _paths_read(tokens: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each access path as its last name: ``self.a.b``, ``a["b"]``, ``Math.b`` are ``b``."""
    out: list[tuple[str, str]] = []
    k = 0
    while k < len(tokens):
        kind, text = tokens[k]
        after = tokens[k + 1] if k + 1 < len(tokens) else ("", "")
        if text == "." and out and out[-1][0] == "name" and after[0] == "name":
            out[-1] = ("name", _name(after[1]))
            k += 2
            continue
        key = tokens[k + 1] if k + 2 < len(tokens) else None
        if text == "[" and out and out[-1][0] == "name" and key and key[0] == "string":
            inner = key[1].strip("'\"`")
            if inner.isidentifier() and tokens[k + 2] == ("op", "]"):
                out[-1] = ("name", _name(inner))
                k += 3
                continue
        out.append(("name", _name(text)) if kind == "name" else (kind, text))
        k += 1
    return out


def _balanced(run: list[str]) -> list[str]:
    """``run`` less the brackets at its ends that close or open nothing inside it."""
    while run and run[0] in {")", ","}:
        run = run[1:]
    while run and run[-1] in {"(", ","}:
        run = run[:-1]
    depth, low = 0, 0
    for text in run:
        depth += (text == "(") - (text == ")")
        low = min(low, depth)
    return ["("] * -low + run + [")"] * (depth - low) if run else run


def _parts(run: list[str]) -> list[list[str]]:
    """``run`` and each bracketed part of it (a call with its name, a group, an argument)."""
    parts, opened = [run], []
    for k, text in enumerate(run):
        if text == "(":
            opened.append(k)
        elif text == ")" and opened:
            start = opened.pop()
            named = start > 0 and run[start - 1] not in _FORMULA
            parts.append(run[start - named : k + 1])
            inner, depth, begun = run[start + 1 : k], 0, 0
            for m, word in enumerate([*inner, ","]):
                depth += (word == "(") - (word == ")")
                if word == "," and depth == 0:
                    parts.append(inner[begun:m])
                    begun = m + 1
    return parts


def _formula(run: list[str]) -> str | None:
    """``run`` written out, when it has two operators or more on three operands or more."""
    operators = sum(1 for t in run if t in _ARITHMETIC)
    if operators < 2 or len({t for t in run if t not in _FORMULA}) < 3:
        return None
    written = " ".join(run).replace("( ", "(").replace(" )", ")").replace(" ,", ",")
    return re.sub(r"(\w) \(", r"\1(", written)


def formulas(tokens: list[tuple[str, str]]) -> set[str]:
    """The arithmetic expressions of a line, and those inside them, with two operators or
    more; names as read."""
    found, run = set(), []
    for kind, text in [*_paths_read(tokens), ("word", "")]:
        if kind in {"name", "number"} or (kind == "op" and text in _FORMULA):
            run.append(text)
            continue
        found.update(filter(None, (_formula(part) for part in _parts(_balanced(run)))))
        run = []
    return found


def formulas_in_both(folder: Path) -> list[str]:
    """Each formula that stands in a Python file and a JavaScript file of ``folder``, as
    "a.py:12 ~ b.js:30 (x - origin) / step" (the first place in each language; a formula inside
    a longer one found at the same two places is the longer one's)."""
    first: dict[str, dict[str, str]] = {".py": {}, ".js": {}}
    for suffix, tokens_of in ((".py", _python_tokens), (".js", _js_tokens)):
        for path in sorted(folder.rglob(f"*{suffix}")):
            name = path.relative_to(folder).as_posix()
            for number, tokens in tokens_of(path.read_text(encoding="utf-8")).items():
                for formula in sorted(formulas(tokens)):
                    first[suffix].setdefault(formula, f"{name}:{number}")
    both = set(first[".py"]) & set(first[".js"])
    places = {f: (first[".py"][f], first[".js"][f]) for f in both}
    shown = [f for f in both if not any(f in g and f != g and places[g] == places[f] for g in both)]
    shown.sort(key=lambda f: (places[f], f))
    return [f"{places[f][0]} ~ {places[f][1]} {f}" for f in shown]


#: Repeats by design, or another helper's to fix: "a ~ b" (two files, or a file and itself) for
#: lines of one language, "a.py ~ b.js formula" for a formula in both; each with its reason.
_TEACHING = (
    "teaching material: each Function is written out whole, as a learner reads it (a lesson "
    "shows its source), and a buggy twin reads like its correct Function but for the bug"
)
_STARTER = "a starter is its solution with the rule left out for the learner, on purpose"
KNOWN: dict[str, str] = {
    "exercises/data.py ~ exercises/data.py": "the table of exercises: one call per exercise",
    "exercises/data.py ~ patterns.py": "prose only: an exercise's hints and a report's advice, "
    "strings in parentheses of the same shape",
    "exercises/solutions/cube.py ~ exercises/starters/cube.py": _STARTER,
    "exercises/solutions/product.py ~ exercises/starters/product.py": _STARTER,
    "exercises/solutions/sin_square.py ~ exercises/starters/sin_square.py": _STARTER,
    "exercises/solutions/tanh_all_checks.py ~ exercises/starters/tanh_all_checks.py": _STARTER,
    "exercises/solutions/cube.py ~ zoo/correct.py": _TEACHING,
    "exercises/solutions/prod.py ~ zoo/correct.py": _TEACHING,
    "exercises/solutions/sigmoid.py ~ zoo/correct.py": _TEACHING,
    "exercises/starters/sigmoid.py ~ zoo/correct.py": _TEACHING,
    "zoo/checks.py ~ zoo/checks.py": _TEACHING,
    "zoo/checks.py ~ zoo/twins.py": _TEACHING,
    "zoo/correct.py ~ zoo/correct.py": _TEACHING,
    "zoo/correct.py ~ zoo/twins.py": _TEACHING,
    "zoo/twins.py ~ zoo/twins.py": _TEACHING,
}
#: Formulas written in both languages, and why they may stay for now.
KNOWN_FORMULAS: dict[str, str] = {}


def _known(found: str) -> str:
    """A finding as :data:`KNOWN` or :data:`KNOWN_FORMULAS` names it: the two files of lines
    that repeat, the formula of one in both languages."""
    if re.match(r"\S+\.py:\d+ ~ \S+\.js:\d+ ", found):
        return found.split(" ", 3)[3]
    return re.sub(r":[\d-]+", "", found)


@functools.cache
def _in_the_package() -> tuple[list[str], list[str]]:
    """What the package holds: repeats in one language, formulas in both (read once)."""
    return repeats(PACKAGE), formulas_in_both(PACKAGE)


def test_no_logic_stands_twice_in_one_language():
    """Over the whole package: gradkit/widgets, the command line and its site, the core."""
    assert [r for r in _in_the_package()[0] if _known(r) not in KNOWN] == []


def test_no_formula_stands_in_both_languages():
    assert [r for r in _in_the_package()[1] if _known(r) not in KNOWN_FORMULAS] == []


def test_every_known_repeat_is_still_there():
    """A repeat fixed leaves the list (it would hide the next one between the same files)."""
    found = {_known(r) for r in [*_in_the_package()[0], *_in_the_package()[1]]}
    assert sorted({*KNOWN, *KNOWN_FORMULAS} - found) == []


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
    assert formulas_in_both(tmp_path) == []  # no formula: nothing across the two languages


def test_a_python_and_a_javascript_file_are_never_compared_line_by_line(tmp_path):
    lines = "".join(f"a{k} = b{k} + c{k}(d{k})\n" for k in range(8))
    (tmp_path / "a.py").write_text(lines)
    (tmp_path / "b.js").write_text(lines)  # the same shape in either tokenizer
    assert repeats(tmp_path) == []


def test_a_planted_formula_in_both_languages_is_caught(tmp_path):
    (tmp_path / "window.py").write_text(
        "def position(self, x):\n"
        '    """Doc: round((x - origin) / step) in a docstring does not count."""\n'
        "    return round((x - self.origin) / self.step) + 1\n"
        "\n\ndef pad(spec):\n    return (spec['hi'] - spec['lo']) * 0.05 + spec['lo']\n"
    )
    (tmp_path / "page.js").write_text(
        "// round((x - origin) / step) in a comment does not count\n"
        "const k = Math.round((state.x - scene.x_grid.origin) / scene.x_grid.step);\n"
        "const pad = (s.hi - s.lo) * 0.05 + s.lo;\n"
        "const other = (a.hi - a.lo) * 0.1 + a.lo;\n"
    )
    assert formulas_in_both(tmp_path) == [
        "window.py:3 ~ page.js:2 round((x - origin) / step)",
        "window.py:7 ~ page.js:3 (hi - lo) * 0.05 + lo",
    ]
