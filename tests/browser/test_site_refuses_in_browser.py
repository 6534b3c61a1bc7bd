"""The exported site runs nothing foreign and asks nothing of the network, in chromium from
``file://``: every request but a local file's is aborted and recorded, and ``alert`` (and any
dialog) is hooked. Hostile notebooks are written by the test (saved widget state made in this
process; one lesson executed by ``gradkit export`` itself); the page must show what it may, with
no alert, no request and no console error. A last test turns the cleaning off: the page's
Content-Security-Policy alone must stop what gets through."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import ipywidgets
import pytest

from gradkit.cli.site import export_site
from gradkit.cli.site import widgets as site_widgets
from gradkit.cli.site.notebooks import WIDGET_STATE
from gradkit.cli.site.safe_html import RawHTML
from gradkit.cli.site.widgets import VIEW_MIME
from gradkit.widgets import SlopeExplorer

import harness as jp

pytestmark = pytest.mark.browser

#: Before any page script: every dialog function records its message instead.
HOOKS = """
window.__alerts = [];
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = (message) => { window.__alerts.push(`${name}: ${message}`); };
}
"""
ATTACK = '<img src=x onerror="alert(1)"><b>shown</b>'
FOREIGN_ESM = "alert('module'); export default { render() { alert('render'); } };"
TAMPERED = "<img src=x onerror=\"alert('error trait')\"><b>tampered</b> message"
MARKDOWN = (
    "# Hostile\n\n$$\\style{background:url(http://example.org/s.png)}{x}$$\n\n"
    "and $\\href{javascript:alert('formula')}{y}$ and ![cat](https://example.org/cat.png)\n"
)


@dataclass
class Seen:
    """What a page did: its dialogs, the requests it tried, its console errors."""

    page: object
    dialogs: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def alerts(self) -> list[str]:
        return self.dialogs + self.page.evaluate("window.__alerts || []")


@pytest.fixture
def open_site(browser) -> Iterator[Callable[[Path], Seen]]:
    """``open_site(page_file)``: the page from disk, offline, hooked; its widgets started."""
    context = browser.new_context()
    context.set_default_timeout(20_000)
    context.add_init_script(HOOKS)

    def open_one(path: Path) -> Seen:
        seen = Seen(context.new_page())
        page = seen.page
        jp.files_only(page, seen.blocked, seen.errors)
        page.on("dialog", lambda dialog: (seen.dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-gk-site=ready]")
        page.wait_for_function("[...document.images].every((i) => i.complete)")
        page.wait_for_timeout(300)  # a handler or import that would run has run
        return seen

    try:
        yield open_one
    finally:
        context.close()


def _view(model_id: str) -> dict:
    data = {VIEW_MIME: {"model_id": model_id, "version_major": 2, "version_minor": 0}}
    return {"output_type": "display_data", "data": data, "metadata": {}}


def _code(source: str, *outputs: dict, ran: bool = True) -> dict:
    count = 1 if ran else None
    return {
        "cell_type": "code",
        "execution_count": count,
        "metadata": {},
        "source": source,
        "outputs": list(outputs),
    }


def _write(folder: Path, name: str, cells: list[dict], state: dict | None = None) -> Path:
    metadata = {"widgets": {WIDGET_STATE: {"state": state or {}, "version_major": 2}}}
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def _saved(*widgets: ipywidgets.Widget) -> dict:
    """model id -> saved state of ``widgets`` (closed afterwards)."""
    try:
        return ipywidgets.Widget.get_manager_state(widgets=list(widgets))["state"]
    finally:
        for widget in reversed(widgets):
            widget.close()


def _hostile(folder: Path) -> Path:
    """A lesson: HTML widgets in a box, a module not gradkit's, formulas, remote pictures."""
    inner, math = ipywidgets.HTML(ATTACK), ipywidgets.HTMLMath(ATTACK)
    box = ipywidgets.VBox([inner, math])
    ident = box.model_id
    state = _saved(inner, math, box)
    contract = {"control_state": {}, "scene": {}, "error": "", "busy": False, "tables": ""}
    foreign = {"_esm": FOREIGN_ESM, "_css": "", "spec": {"title": "Tiny", "state": []}}
    state["foreign0"] = {"model_name": "AnyModel", "state": {**foreign, **contract}}
    shown = {"text/html": '<p>out <img src="http://example.org/o.png"></p>'}
    output = {"output_type": "display_data", "data": shown, "metadata": {}}
    markdown = {"cell_type": "markdown", "metadata": {}, "source": MARKDOWN}
    cells = [markdown, _code("show()", output), _code("box", _view(ident))]
    return _write(folder, "01_hostile", [*cells, _code("tiny", _view("foreign0"))], state)


def _tampered(folder: Path) -> Path:
    """A lesson with a real SlopeExplorer whose saved error trait carries a handler."""
    explorer = SlopeExplorer(x=2.0, eps=1e-3)
    explorer.error = TAMPERED
    ident = explorer.model_id
    return _write(folder, "02_tampered", [_code("explorer", _view(ident))], _saved(explorer))


def test_a_hostile_saved_notebook_runs_nothing_and_asks_no_network(open_site, tmp_path) -> None:
    """HTML widget values (in a box too), a module that is not gradkit's, formulas with style
    and href, pictures on the internet: none runs, none loads, the page has no error.
    planted: view_html writing HTML values as they are fails it."""
    export_site([_hostile(tmp_path)], tmp_path / "site", log=print)
    seen = open_site(tmp_path / "site" / "01_hostile.html")
    page = seen.page
    assert seen.alerts() == [] and seen.blocked == [] and seen.errors == []
    assert page.locator("main img").count() == 0  # nothing the cleaning kept could load
    assert page.locator(".gk-site-box b", has_text="shown").count() == 2
    assert page.locator(".gk-site-widget").count() == 0  # the foreign module is a note
    assert page.locator(".gk-site-note b", has_text="Tiny").count() == 1
    assert page.locator("math [href], math [style]").count() == 0
    links = page.locator("a.gk-site-remote-image")
    assert links.count() == 2 and "a picture on the internet" in links.first.inner_text()


def test_a_tampered_error_trait_is_painted_as_text(open_site, tmp_path, monkeypatch) -> None:
    """The export shows such a widget as a note (tests/test_site_refuses.py); past that check (as
    in Jupyter, where the kernel sets the trait) the widget plays and its error area shows the
    message's words and plain markup, never its picture or handler. (Parsing the text meets the
    handler: Chromium reports the policy blocking it, the only console line.) planted: host.js
    painting it with innerHTML fails it (an img in the error area)."""
    monkeypatch.setattr(site_widgets, "saved_markup", lambda _state: None)
    export_site([_tampered(tmp_path)], tmp_path / "site", log=print)
    seen = open_site(tmp_path / "site" / "02_tampered.html")
    assert seen.alerts() == [] and seen.blocked == []
    assert all("inline event handler" in error for error in seen.errors), seen.errors
    live = seen.page.locator(".gk-site-widget > .gradkit-widget")
    assert live.count() == 1
    error = live.locator(".gradkit-error")
    assert "tampered message" in error.inner_text() and error.locator("img").count() == 0
    assert error.locator("b", has_text="tampered").count() == 1


def test_a_lesson_the_export_runs_itself_plays_only_gradkits_code(open_site, tmp_path) -> None:
    """The cells run in the export's kernel: an HTML widget's script and a widget whose module
    the notebook changed are refused there too (one kernel)."""
    cells = [
        _code(f"import ipywidgets\nipywidgets.VBox([ipywidgets.HTML({ATTACK!r})])", ran=False),
        _code(
            "from gradkit.widgets import FloatRuler\nruler = FloatRuler()\n"
            "ruler._esm = \"alert('changed'); \" + ruler._esm\nruler",
            ran=False,
        ),
        _code("FloatRuler()", ran=False),
    ]
    lines: list[str] = []
    export_site([_write(tmp_path, "01_run", cells)], tmp_path / "site", log=lines.append)
    assert any(
        "1 widget(s) (FloatRuler) carry code that is not this gradkit's" in line for line in lines
    ), lines
    seen = open_site(tmp_path / "site" / "01_run.html")
    assert seen.alerts() == [] and seen.blocked == [] and seen.errors == []
    assert seen.page.locator(".gk-site-box b", has_text="shown").count() == 1
    assert seen.page.locator(".gk-site-widget > .gradkit-widget").count() == 1
    assets = (tmp_path / "site" / "assets").glob("widget-*.js")
    assert not any("alert(" in path.read_text(encoding="utf-8") for path in assets)


def test_the_pages_policy_stops_what_the_cleaning_misses(open_site, tmp_path, monkeypatch):
    """With the cleaning turned off, the planted script, handler and remote loads reach the page
    as written: the Content-Security-Policy alone stops them, before any request is made.
    planted: a page without the policy fails it (alerts, and requests to example.org)."""
    monkeypatch.setattr(RawHTML, "clean", lambda _self, fragment: fragment)
    planted = (
        "# Uncleaned\n\n<script>alert('inline')</script>\n\n"
        '<img src=x onerror="alert(\'handler\')"> <img src="http://example.org/i.png">\n\n'
        '<link rel="stylesheet" href="http://example.org/s.css">'
        '<iframe src="http://example.org/f"></iframe>'
        '<p style="background:url(http://example.org/b.png)">styled</p>\n'
    )
    shown = {"text/html": "<script>alert('output')</script><img src=y onerror=\"alert('out')\">"}
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": planted},
        _code("show()", {"output_type": "display_data", "data": shown, "metadata": {}}),
    ]
    export_site([_write(tmp_path, "01_raw", cells)], tmp_path / "site", log=print)
    seen = open_site(tmp_path / "site" / "01_raw.html")
    assert seen.alerts() == [] and seen.blocked == []
    assert any("Content Security Policy" in error for error in seen.errors), seen.errors
