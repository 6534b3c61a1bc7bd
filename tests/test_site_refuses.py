"""The static site plays only gradkit's own code and loads nothing: what a notebook carries (an
HTML widget's value, a widget's saved code, a picture on the internet) is cleaned, refused or
made a link, and every page holds a Content-Security-Policy. Small notebooks that already ran,
exported in this process (no kernel, no browser; the browser half is
``tests/browser/test_site_refuses.py``)."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path

import ipywidgets
import pytest

from gradkit import cli
from gradkit.cli.site.cells import MAX_CELL_OUTPUT
from gradkit.cli.site.notebooks import WIDGET_STATE
from gradkit.cli.site.pages import CONTENT_SECURITY_POLICY
from gradkit.cli.site.widgets import VIEW_MIME, installed_modules
from gradkit.widgets import SlopeExplorer

HOSTILE = '<b>kept</b> <img src=x onerror="alert(1)"><script>alert(2)</script>'
#: An ES module on the widget contract that is not gradkit's.
FOREIGN_ESM = "alert(3); export default { render() {} };"
CONTRACT = {"control_state": {}, "scene": {}, "error": "", "busy": False, "tables": b""}


def view(model_id: str) -> dict:
    data = {VIEW_MIME: {"model_id": model_id, "version_major": 2, "version_minor": 0}}
    return {"output_type": "display_data", "data": data, "metadata": {}}


def code(source: str, *outputs: dict) -> dict:
    return {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {},
        "source": source,
        "outputs": list(outputs),
    }


def md(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def notebook(cells: list[dict], state: dict | None = None) -> dict:
    metadata = {"widgets": {WIDGET_STATE: {"state": state or {}, "version_major": 2}}}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}


def saved_state(*widgets: ipywidgets.Widget) -> dict:
    """model id -> saved state of ``widgets`` (closed afterwards)."""
    try:
        return ipywidgets.Widget.get_manager_state(widgets=list(widgets))["state"]
    finally:
        for widget in reversed(widgets):
            widget.close()


def export(tmp_path: Path, capsys, nb: dict, name: str = "01_page") -> tuple[str, str, Path]:
    """(the page, what the export printed, the site) for ``nb`` exported."""
    (tmp_path / f"{name}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    site = tmp_path / "site"
    assert cli.main(["export", str(tmp_path / f"{name}.ipynb"), "--out", str(site)]) == 0
    out = capsys.readouterr().out
    return (site / f"{name}.html").read_text(encoding="utf-8"), out, site


def test_html_widget_values_are_cleaned_also_inside_a_box(tmp_path, capsys):
    """planted: view_html writing an HTML value as it is fails it."""
    html_widget, math_widget = ipywidgets.HTML(HOSTILE), ipywidgets.HTMLMath(HOSTILE)
    box = ipywidgets.VBox([ipywidgets.HBox([html_widget]), math_widget])
    ids = [html_widget.model_id, box.model_id]
    state = saved_state(html_widget, math_widget, box.children[0], box)
    cells = [code("HTML(...)", view(ids[0])), code("VBox(...)", view(ids[1]))]
    page, _out, _site = export(tmp_path, capsys, notebook(cells, state))
    assert "onerror" not in page and "alert(" not in page
    assert page.count("<b>kept</b>") == 3  # the widget's own cell, and twice in the box


def _foreign_record() -> dict:
    state = {"_esm": FOREIGN_ESM, "_css": "", "spec": {"title": "Tiny", "state": []}, **CONTRACT}
    state["tables"] = ""
    return {"model_name": "AnyModel", "model_module": "anywidget", "state": state}


def test_a_widget_whose_code_is_not_gradkits_is_a_note_and_its_code_never_written(tmp_path, capsys):
    """planted: _slot not comparing the saved module with the installed ones fails it."""
    explorer, changed = SlopeExplorer(x=2.0, eps=1e-3), SlopeExplorer(x=1.0, eps=1e-3)
    ok, edited = explorer.model_id, changed.model_id
    state = saved_state(explorer, changed)
    state[edited]["state"]["_esm"] += "\nalert(4);\n"  # a real widget, its code changed
    state["foreign0"] = _foreign_record()
    cells = [code("ok", view(ok)), code("changed", view(edited))]
    cells.append(code("foreign", view("foreign0")))
    page, out, site = export(tmp_path, capsys, notebook(cells, state))
    notes = re.findall(r'<div class="gk-site-note" role="note"><b>(.*?)</b> needs a running', page)
    assert notes == ["SlopeExplorer", "Tiny"]
    assert page.count("data-gk-model=") == 1  # only the widget with gradkit's own code plays
    assets = [p.read_text(encoding="utf-8") for p in (site / "assets").glob("widget-*.js")]
    assert len(assets) == 1 and "alert(" not in assets[0]
    said = [line for line in out.splitlines() if line.startswith("warning")]
    assert len(said) == 1 and "2 widget(s) (SlopeExplorer, Tiny) carry code that is not" in said[0]


def test_a_widget_whose_saved_text_could_run_or_load_is_a_note(tmp_path, capsys):
    """gradkit's code paints some saved text as HTML (readouts, the error area): a saved text
    with a handler or a picture from elsewhere is refused at export, the page's policy aside.
    planted: _slot not checking the saved state fails it."""
    explorer, other = SlopeExplorer(x=2.0, eps=1e-3), SlopeExplorer(x=1.0, eps=1e-3)
    ok, tampered = explorer.model_id, other.model_id
    explorer.error = "<div class='gk-alert'><b>Could not update:</b> x &lt; 0<br></div>"
    other.error = '<b>oops</b><img src=x onerror="alert(1)">'
    state = saved_state(explorer, other)
    cells = [code("ok", view(ok)), code("tampered", view(tampered))]
    page, out, _site = export(tmp_path, capsys, notebook(cells, state))
    assert page.count("data-gk-model=") == 1 and f'data-gk-model="{ok}"' in page
    said = [line for line in out.splitlines() if line.startswith("warning")]
    assert len(said) == 1 and "1 widget(s) saved text that could run or load" in said[0]
    assert "(SlopeExplorer: <img src=x>)" in said[0]


def test_the_code_a_live_widget_gets_is_the_installed_gradkits():
    """Read by a fresh Python: every widget class, and the one a notebook would show."""
    found = installed_modules()
    assert (SlopeExplorer._esm, SlopeExplorer._css) in found
    assert len({esm for esm, _css in found}) == len(found) >= 9


def test_every_page_carries_the_policy_first_in_its_head(tmp_path, capsys):
    """planted: a page head without the meta fails it."""
    _page, _out, site = export(tmp_path, capsys, notebook([md("# Hello"), code("1")]))
    meta = (
        f'<meta http-equiv="Content-Security-Policy" content="{escape(CONTENT_SECURITY_POLICY)}">'
    )
    for page in ("01_page.html", "index.html"):
        head = (site / page).read_text(encoding="utf-8").split("</head>")[0]
        assert head.index(meta) < head.index("<link") and head.index(meta) < head.index("<title")
    for directive in ("default-src 'none'", "img-src data:", "base-uri 'none'"):
        assert directive in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY.split("script-src")[1].split(";")[0]


def test_pictures_on_the_internet_become_links_with_one_warning(tmp_path, capsys):
    """planted: image_src keeping an http(s) URL fails it."""
    html_widget = ipywidgets.HTML('<img src="https://example.org/w.png" alt="widget">')
    ident = html_widget.model_id
    state = saved_state(html_widget)
    shown = {"text/html": '<p><img src="http://example.org/o.png"></p>'}
    output = {"output_type": "display_data", "data": shown, "metadata": {}}
    cells = [
        md("# Pictures\n\n![a cat](https://example.org/cat.png) <img src='http://example.org/d'>"),
        code("show()", output),
        code("w", view(ident)),
    ]
    page, out, _site = export(tmp_path, capsys, notebook(cells, state))
    assert "<img" not in page.split("</head>")[1]
    links = re.findall(r'<a class="gk-site-remote-image" href="([^"]+)">([^<]*)</a>', page)
    assert [href for href, _text in links] == [
        "https://example.org/cat.png",
        "http://example.org/d",
        "http://example.org/o.png",
        "https://example.org/w.png",
    ]
    assert links[0][1] == "a cat (a picture on the internet, not loaded here)"
    said = [line for line in out.splitlines() if line.startswith("warning")]
    assert said == [
        "warning  4 picture(s) on the internet are links on the pages, not pictures (nothing in "
        "the site loads from the network): 01_page.ipynb (4); save them beside the notebook to "
        "show them"
    ]


@pytest.mark.parametrize(
    "tex",
    [r"\style{background:url(http://example.org/x)}{x}", r"\href{javascript:alert(1)}{x}"],
)
def test_a_formula_in_a_page_keeps_no_style_or_link(tmp_path, capsys, tex):
    page, _out, _site = export(tmp_path, capsys, notebook([md(f"$${tex}$$ and ${tex}$")]))
    body = page.split("</head>")[1]
    assert "example.org" not in body.replace(f">{tex}</annotation>", "")
    assert "style=" not in body and 'href="javascript' not in body and body.count("<math") == 2


def test_a_cell_that_prints_too_much_is_cut_with_a_line_saying_so(tmp_path, capsys):
    """planted: Budget.take keeping the whole text fails it."""
    flood = {"output_type": "stream", "name": "stdout", "text": "x" * (MAX_CELL_OUTPUT + 5000)}
    picture = {"output_type": "display_data", "data": {"image/png": "iVBO"}, "metadata": {}}
    page, out, _site = export(tmp_path, capsys, notebook([code("flood()", flood, picture)]))
    assert MAX_CELL_OUTPUT < len(page) < MAX_CELL_OUTPUT + 20_000
    assert "data:image/png" not in page  # past the budget: left out, counted
    cut = 5000 + len("data:image/png;base64,iVBO")
    line = f"{cut:,} characters of this cell's output were cut here: a page shows the first "
    assert f"{line}{MAX_CELL_OUTPUT:,} of a cell's output.</p>" in page
    said = [line for line in out.splitlines() if line.startswith("warning")]
    assert len(said) == 1 and f"the cell 'flood()' output {MAX_CELL_OUTPUT + cut:,} " in said[0]


@pytest.mark.slow  # starts a Python of its own: make test runs it, make unit not
def test_a_notebook_run_by_the_export_prints_no_warning_the_teacher_cannot_act_on(
    tmp_path, capfd, recwarn
):
    """nbformat 4.5 cells saved without ids: nbformat's warning is noise (the page needs none).
    Starts one kernel. planted: execute reading the notebook without catching warnings fails it."""
    unrun = {**code("print(1)"), "execution_count": None}
    (tmp_path / "01_ids.ipynb").write_text(json.dumps(notebook([unrun])), encoding="utf-8")
    status = cli.main(["export", str(tmp_path / "01_ids.ipynb"), "--out", str(tmp_path / "site")])
    out, err = capfd.readouterr()
    assert status == 0 and err == "", err
    assert [str(w.message)[:80] for w in recwarn] == []  # on a terminal, Python prints them
    assert [line.split()[0] for line in out.splitlines()] == ["executed", "wrote", "open"]
