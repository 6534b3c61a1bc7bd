"""gradkit's plotting widgets in marimo: ``mo.ui.anywidget(...)`` under ``marimo run``.

One marimo app with the four plotting widgets runs for the module, on 127.0.0.1 with a token
(read from a private file, never on the command line), and is stopped by its process group's
PID. Each widget is found by its root CSS hook, which marimo does not apply from
``_dom_classes``: the widget base sets it from ``spec.css``. A widget not yet on the new base has
no such hook there and is skipped until it is converted (issue 18).
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import gradkit.widgets as gw
from gradkit.widgets.base import GradkitWidget

import harness as jp

pytestmark = pytest.mark.browser

PLOTTING = ("SlopeExplorer", "EpsilonLab", "FloatRuler", "GradcheckLab")
APP = """\
import marimo

app = marimo.App(width="full")


@app.cell
def _():
    import marimo as mo
    from gradkit.widgets import EpsilonLab, FloatRuler, GradcheckLab, SlopeExplorer

    return EpsilonLab, FloatRuler, GradcheckLab, SlopeExplorer, mo
"""
CELL = """

@app.cell
def _({name}, mo):
    widget_{k} = mo.ui.anywidget({name}())
    widget_{k}
    return
"""
DRAWN = """(root) => {
  const f = root.querySelector('.gradkit-figure');
  return {paints: +((f && f.dataset.paints) || 0), drawn: (f && f.dataset.drawn) || '',
          picture: root.querySelector('.gradkit-figure canvas').toDataURL()};
}"""


@pytest.fixture(scope="module")
def marimo_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """``marimo run`` on an app with the four plotting widgets: its URL, token and log."""
    folder = tmp_path_factory.mktemp("marimo")
    cells = "".join(CELL.format(name=name, k=k) for k, name in enumerate(PLOTTING))
    (folder / "app.py").write_text(APP + cells + '\n\nif __name__ == "__main__":\n    app.run()\n')
    token = secrets.token_hex(24)
    secret = folder / "token"
    secret.write_text(token)
    secret.chmod(0o600)
    port = jp.free_port()
    log = (folder / "marimo.log").open("w")
    command = [sys.executable, "-m", "marimo", "run", "app.py", "--host", "127.0.0.1",
               "--port", str(port), "--headless", "--token", "--token-password-file",
               str(secret), "--no-sandbox"]  # fmt: skip
    server = subprocess.Popen(
        command, cwd=folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        _wait_listening(port, server, folder / "marimo.log")
        yield {"url": f"http://127.0.0.1:{port}/", "token": token}
    finally:
        _stop(server)
        log.close()


def _wait_listening(port: int, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"marimo run exited: {log.read_text()[-2000:]}", pytrace=False)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"marimo run did not answer on port {port}", pytrace=False)


def _stop(server: subprocess.Popen) -> None:
    """Stop the server and everything it started (its own process group), by its PID."""
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
        if server.poll() is not None:
            return
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            return
        try:
            server.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def app_page(browser, marimo_app: dict) -> Iterator[dict]:
    """The app open in chromium (its console errors recorded)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    page.goto(f"{marimo_app['url']}?access_token={marimo_app['token']}")
    try:
        yield {"page": page, "errors": errors}
    finally:
        context.close()


def test_the_app_asks_for_the_token(marimo_app: dict) -> None:
    with urllib.request.urlopen(marimo_app["url"], timeout=10) as answer:
        assert "login" in answer.url, answer.url


@pytest.mark.parametrize("name", PLOTTING)
def test_each_plotting_widget_draws_and_eps_down_changes_its_picture(app_page, name: str) -> None:
    cls = getattr(gw, name)
    if not issubclass(cls, GradkitWidget):
        pytest.skip(f"{name} is not on the new widget base yet (issue 18): no root hook in marimo")
    page = app_page["page"]
    root = page.locator(f".gradkit-widget.{cls.css}").first
    root.locator(".gradkit-figure canvas").wait_for()
    page.wait_for_function(
        "(el) => +(el.querySelector('.gradkit-figure').dataset.paints || 0) >= 1",
        arg=root.element_handle(),
    )
    before = root.evaluate(DRAWN)
    root.locator(".gradkit-eps-down").first.click()
    page.wait_for_function(
        "([el, n]) => +(el.querySelector('.gradkit-figure').dataset.paints || 0) > n",
        arg=[root.element_handle(), before["paints"]],
    )
    after = root.evaluate(DRAWN)
    assert after["drawn"] != before["drawn"]
    assert after["picture"] != before["picture"]
    assert not [e for e in app_page["errors"] if e.startswith("uncaught")]


@pytest.mark.parametrize("name", ["SlopeExplorer", "GradcheckLab"])
def test_a_typed_eps_off_the_grid_is_asked_and_answered_in_marimo(app_page, name: str) -> None:
    """marimo's ``experimental.invoke`` refuses ("not supported"): the page sends anywidget's
    command message itself and the kernel's answer arrives, so a typed eps off the grid (which
    only the kernel can measure) reaches the picture and the busy mark goes."""
    page = app_page["page"]
    warnings: list[str] = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    root = page.locator(f".gradkit-widget.{getattr(gw, name).css}").first
    root.locator(".gradkit-figure canvas").wait_for()
    box = root.locator("input.gradkit-eps-text").first
    box.fill("3e-7")
    box.press("Enter")
    page.wait_for_function(
        """(el) => {
          const f = el.querySelector('.gradkit-figure');
          const drawn = JSON.parse((f && f.dataset.drawn) || '{}');
          return Number(drawn.eps) === 3e-7 && !el.classList.contains('gk-is-busy');
        }""",
        arg=root.element_handle(),
        timeout=20_000,
    )
    assert not [e for e in app_page["errors"] if e.startswith("uncaught")]
    refused = [w for w in warnings if "invoke not supported" in w]
    assert len(refused) <= 1, f"invoke was tried again after marimo refused it: {refused}"


def test_the_readme_shows_a_three_line_marimo_example() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## In marimo\n", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    lines = [line for line in code.strip().splitlines() if line.strip()]
    assert len(lines) == 3 and lines[0] == "import marimo as mo", lines
    assert "mo.ui.anywidget(" in lines[2]
    namespace: dict = {}
    exec(code, namespace)  # the example runs as written
    namespace[lines[2].split(" =")[0]].widget.close()
