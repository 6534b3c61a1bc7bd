"""03_float32_noise as a Voila app: widgets without code, token required, the dtype switch works.

Voila 0.5 serves with no authentication at all unless given a token (``--token=T``, or the bare
``--token`` flag for a random one); :func:`gradkit.bench._jupyter.start_voila` always passes one.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

import psutil
import pytest
from playwright.sync_api import expect

from gradkit.bench import _jupyter as jp

pytestmark = pytest.mark.browser

FLOAT32_NOISE = "03_float32_noise.ipynb"

_PROBLEMS_JS = """() => {
  const problems = [];
  // Outputs only: the lesson's prose may quote these phrases.
  for (const el of document.querySelectorAll('.jp-OutputArea-output')) {
    const text = el.textContent;
    for (const phrase of ['There was an error when executing cell', 'Error displaying widget',
                          'Traceback']) {
      if (text.includes(phrase)) problems.push(text.slice(0, 300));
    }
  }
  for (const el of document.querySelectorAll('.gradkit-error')) {
    if (el.textContent.trim()) problems.push('gradkit error area: ' + el.textContent.slice(0, 300));
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def voila_server(lesson_copy, tmp_path_factory) -> Iterator[jp.Server]:
    """Voila serving the copy of 03_float32_noise on 127.0.0.1 with a random token."""
    server = jp.start_voila(
        lesson_copy / FLOAT32_NOISE, tmp_path_factory.mktemp("voila"), token=secrets.token_hex(24)
    )
    try:
        yield server
    finally:
        server.stop()


_ALL_PLOTS_DRAWN_JS = """() => {
  const figures = [...document.querySelectorAll('.jupyter-matplotlib-figure')];
  return figures.length > 0 && figures.every(
    (f) => [...f.querySelectorAll('canvas')].some((c) => (c.__gkDraws || []).length > 0));
}"""


@dataclass
class VoilaApp:
    """The app's page and the JavaScript errors it raised."""

    page: object
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def voila_app(browser_context, voila_server: jp.Server, screenshot_dir) -> Iterator[VoilaApp]:
    """The app's page, rendered, every plot drawn; a screenshot saved."""
    app = VoilaApp(browser_context.new_page())
    app.page.on("pageerror", lambda error: app.errors.append(str(error)))
    app.page.goto(voila_server.url(""), timeout=120_000)
    expect(app.page.locator(".gradkit-gradcheck-lab .gradkit-verdict").first).not_to_be_empty(
        timeout=60_000
    )
    app.page.wait_for_function(_ALL_PLOTS_DRAWN_JS, timeout=60_000)
    jp.wait_settled(app.page.locator("body"), 500)
    jp.full_screenshot(app.page, screenshot_dir / "voila_03_float32_noise.png")
    try:
        yield app
    finally:
        app.page.close()


def _import_lines(notebook_path) -> list[str]:
    """The import statements of the notebook's code cells (text that must not show in the app)."""
    notebook = json.loads(notebook_path.read_text())
    lines = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            lines += [
                ln.strip() for ln in source.splitlines() if ln.startswith(("import ", "from "))
            ]
    return lines


def test_voila_demands_the_token(voila_server: jp.Server, voila_app: VoilaApp) -> None:
    # voila_app: the app is running (a kernel is live) while the server is probed
    for path in ("", f"voila/render/{FLOAT32_NOISE}", "api/kernels"):
        status = jp.http_status(voila_server.url(path, token=False))
        assert status in (302, 401, 403), f"/{path} without the token answered {status}"
    wrong = f"{voila_server.url('', token=False)}?token={secrets.token_hex(24)}"
    assert jp.http_status(wrong) in (302, 401, 403)
    listening = {
        c.laddr.ip
        for c in psutil.Process(voila_server.process.pid).net_connections("inet")
        if c.status == psutil.CONN_LISTEN
    }
    assert listening == {"127.0.0.1"}


def test_voila_renders_widgets_and_no_code(voila_app: VoilaApp, lesson_copy) -> None:
    page = voila_app.page
    assert page.locator(".gradkit-widget").count() >= 2
    assert page.locator(".gradkit-epsilon-lab canvas").count() >= 1
    assert page.evaluate(_PROBLEMS_JS) == []
    assert voila_app.errors == []
    code_inputs = page.locator(
        ".jp-CodeCell:not(.jp-mod-noInput) .jp-InputArea, .cm-editor, .CodeMirror"
    )
    assert code_inputs.count() == 0, "Voila shows code cells"
    lines = _import_lines(lesson_copy / FLOAT32_NOISE)
    assert lines, "03 has no import lines to look for"
    text = page.locator("body").inner_text()
    shown = [line for line in lines if line in text]
    assert not shown, f"code visible in the app: {shown}"


def test_voila_dtype_switch(voila_app: VoilaApp, check_dtype_switch) -> None:
    check_dtype_switch(voila_app.page.locator(".gradkit-gradcheck-lab").first)
    assert voila_app.page.evaluate(_PROBLEMS_JS) == []
    assert voila_app.errors == []
