"""``gradkit export``: what the pages hold, from a small executed notebook (no kernel, no browser).

The notebook is written by hand, with the saved state of a real SlopeExplorer (the widget on the
new base), an old-style widget, a plain ipywidget, a box and a label, and one output of every
kind. The browser half (the widgets moving in chromium from ``file://``) is
``tests/browser/test_static_site.py``; bad input is ``tests/test_export_inputs.py``.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

import ipywidgets
import pytest

from gradkit import cli
from gradkit.cli.site.cells import public_text
from gradkit.cli.site.markdown import markdown_html
from gradkit.cli.site.math import math_html
from gradkit.cli.site.notebooks import WIDGET_STATE, read_notebook
from gradkit.cli.site.pages import OFFLINE_NOTE, describe
from gradkit.cli.site.widgets import CONTRACT, VIEW_MIME, is_gradkit_widget
from gradkit.widgets import SlopeExplorer

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
PAGE = "07_tiny.html"
WARNING = "/x/site-packages/t.py:1: UserWarning: careful\n"
ERROR = {
    "output_type": "error",
    "ename": "ZeroDivisionError",
    "evalue": "division by zero",
    "traceback": ["\x1b[31mZeroDivisionError\x1b[0m: division by zero"],
}
HTML = "<b class='mine'>bold</b>"


def md(source: str, *tags: str) -> dict:
    return {"cell_type": "markdown", "metadata": {"tags": list(tags)}, "source": source}


def code(source: str, *outputs: dict, tags: tuple[str, ...] = ()) -> dict:
    return {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {"tags": list(tags)},
        "source": source,
        "outputs": list(outputs),
    }


def view(model_id: str) -> dict:
    data = {VIEW_MIME: {"model_id": model_id, "version_major": 2, "version_minor": 0}}
    return {"output_type": "display_data", "data": {**data, "text/plain": "W()"}, "metadata": {}}


def display(mime: str, value: object) -> dict:
    return {"output_type": "display_data", "data": {mime: value}, "metadata": {}}


def stream(name: str, text: str) -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def _old_style_quiz() -> dict:
    """A widget as the old base saves it: an anywidget without the new contract's traits."""
    state = {
        "_esm": "export default {render() {}}",
        "_dom_classes": ["gradkit-widget", "gradkit-quiz"],
        "title": "Which difference comes closer?",
        "values": {},
        "png": None,
    }
    return {"model_name": "AnyModel", "model_module": "anywidget", "state": state}


@pytest.fixture(scope="module")
def saved() -> dict:
    """model id -> saved state: a SlopeExplorer, an IntSlider, an HBox of both and a Label."""
    explorer = SlopeExplorer(x=2.0, eps=1e-3)
    slider, label = ipywidgets.IntSlider(3), ipywidgets.Label("a label <b>as text</b>")
    box = ipywidgets.HBox([explorer, label])
    try:
        state = ipywidgets.Widget.get_manager_state(widgets=[explorer, slider, box, label])["state"]
        ids = {"explorer": explorer.model_id, "slider": slider.model_id, "box": box.model_id}
    finally:
        for w in (box, label, slider, explorer):
            w.close()
    state["old0quiz"] = _old_style_quiz()
    return {"state": state, "ids": {**ids, "quiz": "old0quiz"}}


def tiny_notebook(saved: dict) -> dict:
    ids = saved["ids"]
    cells = [
        md("# Lesson 7: a tiny lesson\n\n**After this lesson** you can read a *static* page.\n"),
        md("> Run the cells from the top.", "notebook-only"),
        md("## Numbers\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n$$\\frac{a}{b} = \\tfrac{1}{2}$$"),
        code("print('hi')", stream("stdout", "hi\n"), stream("stderr", WARNING)),
        code("import secret", tags=("notebook-only",)),
        code("1/0", ERROR),
        code("picture()", display("image/png", PNG), display("text/html", HTML)),
        code("explorer", view(ids["explorer"])),
        code("widgets.IntSlider(3)", view(ids["slider"])),
        code("HBox([explorer, label])", view(ids["box"])),
        code("Quiz(...)", view(ids["quiz"])),
        code("closed", view("0" * 32)),
    ]
    metadata = {"widgets": {WIDGET_STATE: {"state": saved["state"], "version_major": 2}}}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}


@pytest.fixture(scope="module")
def site(saved, tmp_path_factory) -> dict:
    """The tiny lesson exported once: the site's folder, the page's text, the CLI's output."""
    folder = tmp_path_factory.mktemp("lessons")
    (folder / "07_tiny.ipynb").write_text(json.dumps(tiny_notebook(saved)), encoding="utf-8")
    out = tmp_path_factory.mktemp("site") / "site"
    status = cli.main(["export", str(folder / "07_tiny.ipynb"), "--out", str(out)])
    assert status == 0
    return {"out": out, "page": (out / PAGE).read_text(encoding="utf-8"), "ids": saved["ids"]}


def models(page: str) -> dict:
    data = re.search(r'<script type="application/json" id="gk-site-widgets">(.*?)</script>', page)
    return json.loads(data.group(1))["models"]


def test_the_site_holds_the_pages_and_every_asset_they_name(site):
    out, page = site["out"], site["page"]
    assert sorted(p.name for p in out.iterdir()) == [PAGE, "assets", "index.html"]
    for name in ("index.html", PAGE):
        text = (out / name).read_text(encoding="utf-8")
        for ref in re.findall(r'(?:src|href)="([^"#]+)"', text):
            if ref.startswith(("data:", "https://mybinder.org/")):
                continue
            assert not re.match(r"^[a-z]+:|^/", ref), f"{name} names {ref}: not inside the site"
            assert (out / ref).is_file(), f"{name} names {ref}, which the site lacks"
    assert re.search(r'<script src="assets/loader.js" defer>', page)
    assert "http://" not in page and "https://" not in page.replace("https://mybinder.org/", "")


def test_markdown_is_rendered_and_notebook_only_cells_are_left_out(site):
    page = site["page"]
    assert '<h1 id="Lesson-7:-a-tiny-lesson">Lesson 7: a tiny lesson' in page
    assert "<strong>After this lesson</strong>" in page and "<td>2</td>" in page
    assert "Run the cells from the top" not in page and "import secret" not in page
    formula = re.search(r'<span class="gk-site-math-block">(<math .*?</math>)</span>', page)
    assert formula and 'display="block"><semantics><mrow><mfrac>' in formula.group(1)
    assert r'<annotation encoding="application/x-tex">\frac{a}{b} = \tfrac{1}{2}<' in page


def test_code_is_highlighted_and_each_output_kind_shown(site):
    page = site["page"]
    assert '<div class="highlight"><pre>' in page and '<span class="nb">print</span>' in page
    assert '<pre class="gk-site-stdout">hi\n</pre>' in page
    warning = re.search(r'<div class="gk-site-stderr" role="note">(.*?)</div>', page, re.S)
    assert warning and "…/site-packages/t.py:1: UserWarning: careful" in warning.group(1)
    error = re.search(r'<div class="gk-site-error" role="alert">(.*?)</div>', page, re.S)
    assert error and "ZeroDivisionError: division by zero" in error.group(1)
    assert "\x1b" not in page
    assert f'src="data:image/png;base64,{PNG}"' in page
    assert '<b class="mine">bold</b>' in page  # cleaned by the allow-list, kept


def test_a_gradkit_widget_becomes_a_slot_playing_its_saved_state(site):
    page, out, ident = site["page"], site["out"], site["ids"]["explorer"]
    assert page.count(f'data-gk-model="{ident}"') == 2  # its own cell, and inside the HBox
    model = models(page)[ident]
    assert set(models(page)) == {ident}
    assert model["state"]["spec"]["css"] == "gradkit-slope-explorer"
    assert "_esm" not in model["state"] and "_css" not in model["state"]
    buffers = {tuple(path): data for path, data in model["buffers"]}
    assert len(base64.b64decode(buffers.pop(("tables",)))) > 1000  # the scene
    assert buffers and all(p[0] == "answers" and p[2] == "tables" for p in buffers)  # its menu
    module = (out / "assets" / f"widget-{model['module']}.js").read_text(encoding="utf-8")
    payload = json.loads(module.split("] = ", 1)[1].rstrip().rstrip(";"))
    assert payload["esm"] == SlopeExplorer._esm and "gradkit-widget" in payload["css"]
    assert f'<script src="assets/widget-{model["module"]}.js" defer>' in page
    assert f'data-gk-offline-note="{html.escape(OFFLINE_NOTE)}"' in page


def test_every_other_widget_is_a_note_a_label_or_a_box(site):
    page = site["page"]
    notes = re.findall(r'<div class="gk-site-note" role="note"><b>(.*?)</b> needs a running', page)
    assert notes == ["IntSlider", "Quiz", "This widget"]
    box = re.search(r'<div class="gk-site-box gk-site-row">(.*?)</div></div>', page, re.S)
    assert box and "data-gk-model" in box.group(1)
    assert "a label &lt;b&gt;as text&lt;/b&gt;" in page


def test_the_page_says_how_to_open_the_lesson_live_and_the_index_lists_it(site):
    page, index = site["page"], (site["out"] / "index.html").read_text(encoding="utf-8")
    live = page.index('<aside class="gk-site-live"')
    assert page.index("Lesson 7: a tiny lesson") < live < page.index("<h2")
    for words in ("gradkit lessons my-lessons", "gradkit notebook my-lessons", "make notebook"):
        assert words in page and words in index
    assert "mybinder.org" not in page  # not a lesson gradkit ships: no Binder link
    assert '<a href="07_tiny.html">Lesson 7: a tiny lesson</a>' in index
    assert "<p>After this lesson you can read a static page.</p>" in index


def test_saved_state_is_recognised_by_the_contract_not_by_name(saved):
    state = saved["state"]
    assert is_gradkit_widget(state[saved["ids"]["explorer"]])
    assert not is_gradkit_widget(state["old0quiz"])
    assert not is_gradkit_widget(state[saved["ids"]["slider"]])


def test_the_sites_contract_names_traits_the_widget_base_syncs():
    """The command line may not import the widgets (pyproject's cli-without-widgets contract), so
    the site keeps its own list of the traits it recognises a widget by: held to the base's."""
    from gradkit.widgets.base.host import GradkitWidget

    synced = set(GradkitWidget.class_trait_names(sync=True))
    assert set(CONTRACT) <= synced, set(CONTRACT) - synced


def test_formulas_are_mathml_or_shown_as_source():
    aligned = math_html(r"\begin{aligned} a &= b \\ c &= \tfrac{d}{2} \end{aligned}", True)
    assert aligned.count("<mtr>") == 2 and '<mtd columnalign="left"><mi /><mo>=</mo>' in aligned
    assert "<code>" in math_html(r"\unknownmacro{x}", False)


def test_every_lesson_has_a_title_a_description_and_formulas_that_draw():
    for path in cli.lesson_files():
        cells = read_notebook(path)["cells"]
        first = next(c for c in cells if c["cell_type"] == "markdown")
        title, description = describe(markdown_html("".join(first["source"])), path.stem)
        assert title.startswith(("Lesson", "Start here", "Appendix")), (path.name, title)
        assert len(description) > 20, path.name
        for cell in cells:
            if cell["cell_type"] == "markdown" and "$" in "".join(cell["source"]):
                assert "gk-site-math-source" not in markdown_html("".join(cell["source"])), path


def test_printed_paths_of_the_exporting_machine_are_not_published():
    home = str(Path.home())
    text = public_text(f"{home}/venv/lib/python3.11/site-packages/torch/a.py:3: W\n{home}/x.txt")
    assert text == "…/site-packages/torch/a.py:3: W\n~/x.txt"


def test_without_a_path_the_shipped_lessons_are_exported_with_binder_links(
    saved, tmp_path, monkeypatch, capsys
):
    from gradkit.cli.site import export as export_module

    shipped = tmp_path / "lessons"
    shipped.mkdir()
    (shipped / "07_tiny.ipynb").write_text(json.dumps(tiny_notebook(saved)), encoding="utf-8")
    monkeypatch.setattr(export_module, "lessons_dir", lambda: shipped)
    monkeypatch.setattr(export_module, "lesson_files", lambda: [shipped / "07_tiny.ipynb"])
    assert cli.main(["export", "--out", str(tmp_path / "site")]) == 0
    assert "taken    " in capsys.readouterr().out  # already executed: no kernel started
    page = (tmp_path / "site" / PAGE).read_text(encoding="utf-8")
    binder = "https://mybinder.org/v2/gh/gradkit/gradkit/HEAD?urlpath=%2Fnotebooks%2Fnotebooks%2F"
    assert f'<a href="{binder}07_tiny.ipynb">open it on Binder</a>' in page
