"""``gradkit export`` publishes the lesson and nothing more: planted HTML and file names are inert,
images come only from the notebook's folder, and a broken notebook, two pages of one name or a
cell past ``--timeout`` stop the export with one line (exit 2) before anything runs or is
written. Tiny notebooks written into ``tmp_path``; only the timeout test starts a kernel."""

from __future__ import annotations

import ast
import base64
import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from folders import tree

from gradkit import cli
from gradkit.cli.site import export as export_module
from gradkit.cli.site.markdown import markdown_html
from gradkit.cli.site.shape import MAX_DEPTH

SITE = Path(export_module.__file__).parent
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
PRIVATE = b"\x89PNG\r\n\x1a\n" + b"private id card" * 4
PLANTED = """# Lesson 1: planted

Say hello <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">.

<script>window.__pwned = 3</script>

<svg onload="window.__pwned = 4"><circle r="3"/></svg>
<iframe src="javascript:window.__pwned = 5"></iframe>
<object data="x.swf"></object><embed src="x.swf"><form action="/x"><input autofocus></form>

[a link](javascript:window.__pwned=6) <a href="JaVa&#x09;Script:window.__pwned=7">b</a>
<a href=" javascript:window.__pwned=8" onclick="window.__pwned=9">c</a> <javascript:void(10)>
<a href="data:text/html,<script>window.__pwned=11</script>">d</a>
<img src="data:image/svg+xml,<svg/>">

<div id="gk-site-widgets" class="gk-site-widget note" data-gk-model="x" style="position:fixed">
kept <b>bold</b>, <i>italic <code>code</code></i>
</div>

<style>body { display: none }</style>
</section></main><b>unclosed <i>too
"""
PLANTED_OUTPUT = """<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">
<svg onload="window.__pwned = 4"></svg><iframe src="javascript:window.__pwned = 5"></iframe>
<a href="JaVa&#x09;Script:window.__pwned=7">b</a>
<details open ontoggle="window.__pwned=8">d</details>
<div class="gk-site-widget note" data-gk-model="x" style="position:fixed">kept <b>bold</b></div>
<style>body { display: none }</style></section></main><b>unclosed"""
NAMES = ('x" autofocus onfocus="window.__pwned=1" y="', "a#b?c%d", "in space & <tag>")


def notebook(*cells: dict) -> dict:
    return {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": list(cells)}


def md(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def code(source: str, ran: bool = True) -> dict:
    outputs = [{"output_type": "stream", "name": "stdout", "text": "hi\n"}] if ran else []
    count = 1 if ran else None
    return {
        "cell_type": "code",
        "metadata": {},
        "source": source,
        "outputs": outputs,
        "execution_count": count,
    }


def write(path: Path, nb: dict | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nb if isinstance(nb, str) else json.dumps(nb), encoding="utf-8")
    return path


class Tags(HTMLParser):
    """Every start tag of a page, with its attributes, as a browser would read them."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def assert_inert(page: str) -> None:
    """No script but the site's own, no handler, no script URL, nothing of the planted code."""
    assert "__pwned" not in page
    for tag, attrs in Tags(page).tags:
        assert tag not in ("iframe", "object", "embed", "svg", "form", "input", "style"), tag
        if tag == "script":
            assert attrs.get("src", "").startswith("assets/") or attrs == {
                "type": "application/json",
                "id": "gk-site-widgets",
            }, attrs
        for name, value in attrs.items():
            assert not name.startswith("on") and name not in ("style", "autofocus"), (tag, name)
            url = "".join((value or "").split()).lower()
            if name in ("href", "src"):
                assert not url.startswith(("javascript:", "vbscript:")), (tag, value)
                assert not url.startswith("data:") or url.startswith("data:image/png"), value


@pytest.fixture
def refuse(tmp_path, capsys, monkeypatch):
    """``refuse(*argv, message=...)``: exit 2, one line with ``message``, nothing run or written."""

    def never(*_args, **_kwargs):
        raise AssertionError("a notebook was executed")

    monkeypatch.setattr(export_module, "execute", never)

    def run(*argv: str, message: str) -> str:
        before = tree(tmp_path)
        status = cli.main(["export", *argv, "--out", str(tmp_path / "site")])
        err = capsys.readouterr().err
        assert status == 2, err
        assert err.startswith("gradkit export: error: ") and err.count("\n") == 1, err
        assert message in err and "Traceback" not in err, err
        assert tree(tmp_path) == before
        return err

    return run


def test_planted_html_in_markdown_is_inert_and_its_text_kept(tmp_path, capsys):
    lesson = write(tmp_path / "lessons" / "01_planted.ipynb", notebook(md(PLANTED), code("1")))
    assert cli.main(["export", str(lesson), "--out", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    page = (tmp_path / "site" / "01_planted.html").read_text(encoding="utf-8")
    assert_inert(page)
    assert "kept <b>bold</b>, <i>italic <code>code</code></i>" in page
    assert '<div class="note">' in page  # its id, data-gk-*, gk- class and style dropped
    assert "<img" not in page.split("</head>")[1]  # src=x: no picture file beside the lesson
    assert "a link" in page and "<a>b</a>" in page
    assert "<a>c</a> javascript:void(10)" in page  # a refused link: its text, no link
    assert page.count("</main>") == 1 and "body { display" not in page
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<p>Say hello and .</p>" in index


def test_a_code_cells_html_output_is_cleaned_and_gradkits_cards_keep_their_look(tmp_path):
    """An output's HTML is written by whatever the notebook ran: it is published by the same
    allow-list as markdown. gradkit's own cards need nothing it drops (their look is by class,
    in the site's stylesheet)."""
    import torch

    import gradkit

    card = gradkit.check(
        lambda x: x * x, torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    )._repr_html_()
    shown = [PLANTED_OUTPUT, card]
    outputs = [
        {"output_type": "display_data", "metadata": {}, "data": {"text/html": text}}
        for text in shown
    ]
    ran = {**code("show()"), "outputs": outputs}
    lesson = write(tmp_path / "01_outputs.ipynb", notebook(md("# Lesson 1: outputs"), ran))
    assert cli.main(["export", str(lesson), "--out", str(tmp_path / "site")]) == 0
    page = (tmp_path / "site" / "01_outputs.html").read_text(encoding="utf-8")
    assert_inert(page)
    assert "kept <b>bold</b>" in page and page.count("</main>") == 1
    assert '<div class="gradkit-report">' in page and "gradcheck: ✔ pass" in page
    css = (tmp_path / "site" / "assets" / "site.css").read_text(encoding="utf-8")
    assert "div.gradkit-report {" in css and ".gradkit-report, .gradkit-feedback {" in css


def test_gradkits_cards_carry_no_inline_style():
    """What a published page's cleaning would drop (inline style) the cards never need."""
    import torch

    import gradkit
    from gradkit.exercises import grade

    x = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    cards = [
        gradkit.check(lambda t: t * t, x)._repr_html_(),
        grade("sin_square", "nope")._repr_html_(),
    ]
    for card in cards:
        assert "style=" not in card and card.startswith("<style>"), card[:200]


@pytest.mark.parametrize(
    "source",
    [
        "<a href='&#106;avascript:x()'>a</a>",
        '<a href="java\nscript:x()">a</a>',
        "[a](<javascript:x()>)",
        "[a](vbscript:x)",
        "![a](javascript:x)",
        "<img src=x onerror=x() />",
        "<IMG SRC=x ONERROR=x()>",
        "<scr<script>ipt>x()</script>",
        "<script/>x()",
        "<style>*{}</style><!-- <script>x()</script> -->",
        '<a title="x" onmouseover=x()>a</a>',
        "<div><noscript><p title='</noscript><img src=x onerror=x()>'></noscript></div>",
        "<math><mi xlink:href='javascript:x()'>a</mi></math>",
        "<details open ontoggle=x()>a</details>",
    ],
)
def test_each_trick_is_cleaned(source):
    out = markdown_html(source, Path("."))
    assert "x()" not in out.replace("<p>x()</p>", ""), out
    assert_inert(out)


def test_file_names_in_links_are_quoted_and_their_text_escaped(tmp_path, capsys):
    for name in NAMES:
        write(tmp_path / "lessons" / f"{name}.ipynb", notebook(md("Hello."), code("1")))
    assert cli.main(["export", str(tmp_path / "lessons"), "--out", str(tmp_path / "site")]) == 0
    capsys.readouterr()
    for page in ["index.html", *(f"{name}.html" for name in NAMES)]:
        text = (tmp_path / "site" / page).read_text(encoding="utf-8")
        assert "autofocus" not in [n for _t, attrs in Tags(text).tags for n in attrs], page
        assert_inert(text.replace("__pwned", "pwned"))
        for _tag, attrs in Tags(text).tags:
            href = attrs.get("href") or ""
            if href.endswith(".html") and "://" not in href:
                assert (tmp_path / "site" / unquote(href)).is_file(), href  # leads to its page
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    hrefs = [a["href"] for t, a in Tags(index).tags if t == "a"]
    assert hrefs == [quote(f"{name}.html") for name in sorted(NAMES)]
    assert "in space &amp; &lt;tag&gt;" in index


@pytest.mark.parametrize(
    ("names", "said"),
    [
        (["index.ipynb"], "PATH {0} would be written as index.html, which is the site's own"),
        (["Index.ipynb", "index.ipynb"], "PATH: {0} and {1} would be one page: Index.html and"),
        (["A.ipynb", "a.ipynb"], "PATH: {0} and {1} would be one page: A.html and a.html are"),
        (["\u00e9t\u00e9.ipynb", "e\u0301te\u0301.ipynb"], "PATH: {1} and {0} would be one"),
    ],
)
def test_pages_of_one_name_are_refused_before_anything_runs(tmp_path, refuse, names, said):
    paths = [write(tmp_path / "lessons" / name, notebook(code("1", ran=False))) for name in names]
    refuse(str(tmp_path / "lessons"), message=said.format(*paths))


def test_a_name_taken_in_another_folder_is_refused_too(tmp_path, refuse):
    first = write(tmp_path / "one" / "A.ipynb", notebook(code("1", ran=False)))
    second = write(tmp_path / "two" / "a.ipynb", notebook(code("1", ran=False)))
    refuse(str(first), str(second), message=f"PATH: {first} and {second} would be one page")


def test_images_come_only_from_the_notebook_folder(tmp_path, capsys):
    lessons = tmp_path / "course" / "lessons"
    (lessons / "pics").mkdir(parents=True)
    (lessons / "pics" / "ok.png").write_bytes(PNG)
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "id.png").write_bytes(PRIVATE)
    (lessons / "pics" / "link.png").symlink_to(tmp_path / "private" / "id.png")
    text = (
        "# Lesson 1: pictures\n\n![ok](pics/ok.png) ![id](../../private/id.png) "
        f"![linked](pics/link.png) <img src='{tmp_path}/private/id.png'> ![x](file:///etc/x.png)"
    )
    lesson = write(lessons / "01_pics.ipynb", notebook(md(text)))
    assert cli.main(["export", str(lesson), "--out", str(tmp_path / "site")]) == 0
    out = capsys.readouterr().out
    page = (tmp_path / "site" / "01_pics.html").read_text(encoding="utf-8")
    assert f'src="data:image/png;base64,{base64.b64encode(PNG).decode()}"' in page
    assert base64.b64encode(PRIVATE).decode()[:40] not in page and "private" not in page
    for image in ("../../private/id.png", "pics/link.png", f"{tmp_path}/private/id.png"):
        line = f"warning  {lesson}: image {image} is outside the notebook's folder ({lessons})"
        assert line in out, out
    assert f"warning  {lesson}: image file:///etc/x.png is not an http(s) picture" in out


def test_a_cell_past_timeout_stops_the_export_naming_the_cell(tmp_path, capsys):
    loop = notebook(md("# Loop"), code("x = 1", ran=False), code("while True: pass", ran=False))
    lesson = write(tmp_path / "loop.ipynb", loop)
    status = cli.main(["export", str(lesson), "--out", str(tmp_path / "site"), "--timeout", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"PATH {lesson}: cell 3 (while True: pass) ran longer than --timeout 1 s" in err
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("value", ["0", "-3", "1.5", "soon", ""])
def test_a_timeout_that_is_not_a_whole_positive_number_is_refused(tmp_path, refuse, value):
    lesson = write(tmp_path / "01.ipynb", notebook(code("1")))
    refuse(str(lesson), "--timeout", value, message=f"--timeout {value!r} is not a whole number")


def _deep(levels: int) -> str:
    nested = "[" * levels + "]" * levels
    return json.dumps(notebook(code("1"))).replace(
        '"metadata": {}', f'"metadata": {{"x": {nested}}}'
    )


BROKEN = {
    "a cell that is a string": (
        json.dumps(notebook("print(1)")),
        "is not a valid notebook: cell 1 is a string, not a cell (an object)",
    ),
    "metadata a list": (
        json.dumps({**notebook(code("1")), "metadata": []}),
        "is not a valid notebook: its metadata is a list, not an object",
    ),
    "a cell's metadata a list": (
        json.dumps(notebook({**code("1"), "metadata": ["x"]})),
        "is not a valid notebook: cell 1: its metadata is a list, not an object",
    ),
    "a lone surrogate": (
        json.dumps(notebook(md("# Hello \ud800 there"))),
        "is not a valid notebook: it holds text that is not Unicode (a lone surrogate, "
        "\\ud800, near '# Hello ')",
    ),
    "deep JSON": (
        _deep(MAX_DEPTH + 5),
        f"is not a valid notebook: its JSON is nested more than {MAX_DEPTH} levels deep",
    ),
    "JSON too deep to read": (
        _deep(100_000),
        "is not a notebook: its JSON is nested too deeply to read",
    ),
    "NaN": (
        json.dumps(notebook(code("1"))).replace('"execution_count": 1', '"execution_count": NaN'),
        "is not a readable notebook (NaN is not JSON (a number must be finite))",
    ),
    "output text a number": (
        json.dumps(notebook({**code("1"), "outputs": [{"output_type": "stream", "text": 3}]})),
        "is not a valid notebook: cell 1, output 1: its text is a number, not text",
    ),
    "an unknown cell type": (
        json.dumps(notebook({**md("x"), "cell_type": "cool"})),
        "is not a valid notebook: cell 1 has cell_type 'cool'; a cell is markdown, code or raw",
    ),
    "tags a string": (
        json.dumps(notebook({**md("x"), "metadata": {"tags": "notebook-only"}})),
        "is not a valid notebook: cell 1: its tags is a string, not a list",
    ),
    "a widget state a list": (
        json.dumps(
            {
                **notebook(code("1")),
                "metadata": {
                    "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {"m": []}}}
                },
            }
        ),
        "is not a valid notebook: widget m is a list, not an object",
    ),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_notebook_is_one_line_naming_it(tmp_path, refuse, case):
    text, problem = BROKEN[case]
    write(tmp_path / "lessons" / "00_fine.ipynb", notebook(code("1", ran=False)))  # runs first
    broken = write(tmp_path / "lessons" / "01_broken.ipynb", text)
    refuse(str(tmp_path / "lessons"), message=f"PATH {broken} {problem}")


def test_the_site_modules_import_in_one_direction():
    """No import circle inside gradkit/cli/site (cells and markdown once imported each other)."""
    graph: dict[str, set[str]] = {}
    for path in SITE.glob("*.py"):
        found = graph.setdefault(path.stem, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
    graph.pop("__init__")

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for step in graph.get(start, set()) - seen:
            if step == goal or reaches(step, goal, seen | {step}):
                return True
        return False

    circles = sorted(name for name in graph if reaches(name, name, set()))
    assert circles == [], f"modules on an import circle: {circles}"
