"""Local Jupyter servers and a headless chromium, for the browser tests and the browser bench.

Everything here follows the project's rules for servers: bound to 127.0.0.1, token authentication on
(never an empty token), started as ``gradkit notebook`` starts it (so, as ``make notebook`` does),
and stopped by PID together with every process it started (kernels included).

This module is private: ``tests/browser/conftest.py`` and :mod:`gradkit.bench.browser` import it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "PAGE_JS",
    "Server",
    "begin_open",
    "canvas_images",
    "choose",
    "chromium_missing_message",
    "free_port",
    "full_screenshot",
    "gradkit_command",
    "have_chromium",
    "http_status",
    "last_input",
    "open_notebook",
    "problems",
    "run_all",
    "session_id",
    "shutdown_kernel",
    "start_notebook",
    "start_voila",
    "stop_tree",
    "wait_for_paint",
    "wait_kernel_idle",
    "wait_quiet",
    "wait_settled",
]

#: Debian's chromium; ``make test`` installs it with apt-get (Playwright never downloads one).
CHROMIUM = "/usr/bin/chromium"

#: Launch arguments for a headless chromium on a build machine without GPU or network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Lab settings for the test server's private settings folder: no news or update checks (they would
# open a toast over the notebook and try to reach the internet).
_LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}

#: Page script (``context.add_init_script``) that records, for every canvas on the page, when
#: something was drawn on it and when the next animation frame after that draw ran (the frame that
#: paints it), and likewise for every ``<img>`` added to the page once it has decoded. The browser
#: tests use it to wait for a plot to update; the bench uses it to time slider changes. It also
#: records the time of the latest trusted click or Enter key press (the start of a change).
PAGE_JS = r"""
(() => {
  if (window.__gk) return;
  const gk = window.__gk = {input: 0, images: []};
  const mark = (entry) => {
    requestAnimationFrame(() => { if (entry.paint === 0) entry.paint = performance.now(); });
  };
  const recordDraw = (canvas) => {
    if (!canvas || !canvas.isConnected) return;
    const entry = {draw: performance.now(), paint: 0};
    (canvas.__gkDraws = canvas.__gkDraws || []).push(entry);
    if (canvas.__gkDraws.length > 200) canvas.__gkDraws.splice(0, 100);
    mark(entry);
  };
  for (const name of ['drawImage', 'putImageData']) {
    const original = CanvasRenderingContext2D.prototype[name];
    CanvasRenderingContext2D.prototype[name] = function (...args) {
      const result = original.apply(this, args);
      recordDraw(this.canvas);
      return result;
    };
  }
  const onImage = (img) => {
    const entry = {img, draw: 0, paint: 0};
    gk.images.push(entry);
    if (gk.images.length > 200) gk.images.splice(0, 100);
    img.decode().catch(() => null).then(() => { entry.draw = performance.now(); mark(entry); });
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.tagName === 'IMG') onImage(node);
        else for (const img of node.querySelectorAll('img')) onImage(img);
      }
    }
  }).observe(document, {childList: true, subtree: true});
  const onInput = (event) => {
    if (event.isTrusted && (event.type === 'click' || event.key === 'Enter')) {
      gk.input = performance.now();
    }
  };
  window.addEventListener('click', onInput, true);
  window.addEventListener('keydown', onInput, true);
  // The first frame painted after `since` that shows a new drawing inside `root` (a canvas draw or
  // a decoded new <img>); resolves to that frame's time, or null after `timeout` ms.
  gk.nextPaint = (root, since, timeout) => new Promise((resolve) => {
    const deadline = performance.now() + timeout;
    const poll = () => {
      let best = null;
      for (const canvas of root.querySelectorAll('canvas')) {
        for (const entry of canvas.__gkDraws || []) {
          if (entry.draw > since && entry.paint > 0 && (best === null || entry.paint < best)) {
            best = entry.paint;
          }
        }
      }
      for (const entry of gk.images) {
        if (entry.draw > since && entry.paint > 0 && root.contains(entry.img)
            && (best === null || entry.paint < best)) {
          best = entry.paint;
        }
      }
      if (best !== null) resolve(best);
      else if (performance.now() > deadline) resolve(null);
      else requestAnimationFrame(poll);
    };
    poll();
  });
  // Time of the latest drawing (canvas draw or new image) inside `root`, 0 if none.
  gk.lastDraw = (root) => {
    let last = 0;
    for (const canvas of root.querySelectorAll('canvas')) {
      for (const entry of canvas.__gkDraws || []) last = Math.max(last, entry.draw);
    }
    for (const entry of gk.images) if (root.contains(entry.img)) last = Math.max(last, entry.draw);
    return last;
  };
})();
"""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def gradkit_command() -> list[str]:
    """How to call this environment's ``gradkit`` command (the script ``make notebook`` runs)."""
    script = Path(sys.executable).with_name("gradkit")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "gradkit.cli"]


def http_status(url: str, timeout: float = 5.0) -> int:
    """HTTP status of a GET on ``url``, no redirects followed, no proxy (0: nothing answered)."""

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect)
    try:
        with opener.open(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return 0


@dataclass
class Server:
    """A running Jupyter server (Notebook 7 or Voila) on 127.0.0.1.

    Attributes
    ----------
    process : subprocess.Popen
        The server process (``gradkit notebook`` replaces itself with Jupyter, so its PID is the
        server's PID).
    port, token : int, str
        Where it listens and the token it demands.
    root : Path
        The folder it serves.
    workdir : Path
        A private folder for its logs and settings.
    """

    process: subprocess.Popen
    port: int
    token: str
    root: Path
    workdir: Path
    _stopped: bool = field(default=False, repr=False)

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "", *, token: bool = True) -> str:
        """Address of ``path`` on this server, with ``?token=...`` unless ``token=False``."""
        address = f"{self.base}/{path.lstrip('/')}"
        if not token:
            return address
        joiner = "&" if "?" in address else "?"
        return f"{address}{joiner}token={self.token}"

    @property
    def stdout(self) -> str:
        """What the server printed on stdout so far."""
        return (self.workdir / "stdout.log").read_text(errors="replace")

    @property
    def log(self) -> str:
        """What the server wrote on stderr (Jupyter's log) so far."""
        return (self.workdir / "stderr.log").read_text(errors="replace")

    def api(self, path: str, method: str = "GET") -> object:
        """JSON answer of a token-authenticated REST call, e.g. ``api("api/sessions")``."""
        request = urllib.request.Request(
            self.url(path, token=False),
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # local: no proxy
        with opener.open(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None

    def stop(self) -> None:
        """Stop the server and everything it started (kernels too), by PID."""
        if not self._stopped:
            self._stopped = True
            stop_tree(self.process.pid)
            self.process.wait(timeout=10)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stop_tree(pid: int, timeout: float = 10.0) -> None:
    """Terminate process ``pid`` and all its descendants (kernels), then kill what is left.

    The descendants are collected before the parent is asked to stop: Jupyter starts kernels in
    sessions of their own, so stopping the parent's process group would not reach them.
    """
    import psutil

    try:
        parent = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    family = [*parent.children(recursive=True), parent]
    with contextlib.suppress(psutil.NoSuchProcess):
        parent.send_signal(signal.SIGTERM)
    _, alive = psutil.wait_procs([parent], timeout=timeout)
    for proc in [*alive, *family]:
        try:
            if proc.is_running():
                proc.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(family, timeout=timeout / 2)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    psutil.wait_procs(alive, timeout=timeout / 2)


def _isolated_env(workdir: Path) -> dict[str, str]:
    """Environment with private Jupyter settings and workspace folders inside ``workdir``."""
    settings = workdir / "lab-user-settings"
    for name, values in _LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = dict(os.environ)
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(workdir / "lab-workspaces")
    env.pop("MPLBACKEND", None)  # kernels choose their own backend (ipympl or inline)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _launch(command: Sequence[str], workdir: Path, env: dict[str, str], cwd: Path):
    workdir.mkdir(parents=True, exist_ok=True)
    with (workdir / "stdout.log").open("wb") as out, (workdir / "stderr.log").open("wb") as err:
        return subprocess.Popen(
            list(command),
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )


def _wait_until(server: Server, probe: str, ok: set[int], timeout: float) -> None:
    """Poll the address ``probe`` until it answers with a status in ``ok``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(
                f"server exited with status {server.process.returncode}:\n{server.log[-3000:]}"
            )
        if http_status(probe, timeout=2) in ok:
            return
        time.sleep(0.2)
    server.stop()
    raise TimeoutError(
        f"server on port {server.port} did not answer in {timeout:.0f} s:\n{server.log[-3000:]}"
    )


def start_notebook(
    root: Path,
    workdir: Path,
    *,
    token: str | None = None,
    port: int | None = None,
    extra: Sequence[str] = (),
    isolated: bool = True,
    timeout: float = 60.0,
) -> Server:
    """Start ``gradkit notebook ROOT --port P [--token T] [-- EXTRA...]`` and wait until it answers.

    Parameters
    ----------
    root : Path
        Folder to serve. Use a copy of the lessons: running cells saves outputs next to them.
    workdir : Path
        Private folder for the server's stdout/stderr logs (and settings when ``isolated``).
    token : str, optional
        Access token; ``None`` lets ``gradkit notebook`` choose a random one, which is then read
        back from its stdout, exactly as a learner would read it.
    port : int, optional
        TCP port on 127.0.0.1; a free one by default.
    extra : sequence of str
        Further Jupyter options, passed after ``--``.
    isolated : bool
        Give the server private lab settings (no news toast) and workspaces. ``False`` runs it with
        the caller's environment untouched, as ``make notebook`` does.
    timeout : float
        Seconds to wait for ``/api/status`` to answer with the token.
    """
    if token == "":
        raise ValueError("token must not be empty: an empty token switches authentication off")
    root = Path(root).resolve()
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    options = ["--port", str(port)] + (["--token", token] if token is not None else [])
    # Word for word what `make notebook` runs (gradkit notebook notebooks --port $(PORT)), plus
    # any Jupyter options after --
    command = [*gradkit_command(), "notebook", str(root), *options]
    if extra:
        command += ["--", *extra]
    env = _isolated_env(workdir) if isolated else dict(os.environ)
    process = _launch(command, workdir, env, cwd=root)
    server = Server(process, port, token or "", root, workdir)
    if token is None:
        server.token = _read_token(server, timeout)
    _wait_until(server, server.url("api/status"), {200}, timeout)
    return server


def _read_token(server: Server, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in server.stdout.splitlines():
            if "token=" in line:
                return line.rsplit("token=", 1)[1].strip()
        if server.process.poll() is not None:
            break
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"gradkit notebook printed no token:\n{server.stdout}\n{server.log[-2000:]}")


def start_voila(
    notebook: Path,
    workdir: Path,
    *,
    token: str | None = None,
    port: int | None = None,
    extra: Sequence[str] = (),
    timeout: float = 60.0,
) -> Server:
    """Serve one notebook as a Voila app on 127.0.0.1 with token authentication.

    Voila 0.5 serves without any authentication unless given ``--token=T`` (or the bare
    ``--token`` flag, which makes a random one). This always passes a token: ``token`` or a random
    one.
    """
    notebook = Path(notebook).resolve()
    if not notebook.is_file():
        raise FileNotFoundError(f"notebook {notebook} does not exist; pass the .ipynb to serve")
    if token == "":
        raise ValueError("token must not be empty: an empty token switches authentication off")
    token = token or secrets.token_hex(24)
    port = port or free_port()
    workdir = Path(workdir).resolve()
    voila = Path(sys.executable).with_name("voila")
    launcher = [str(voila)] if voila.is_file() else [sys.executable, "-m", "voila"]
    command = [
        *launcher,
        str(notebook),
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--port={port}",
        f"--token={token}",
        *extra,
    ]
    process = _launch(command, workdir, _isolated_env(workdir), cwd=notebook.parent)
    server = Server(process, port, token, notebook.parent, workdir)
    # Static files answer without running the notebook: proof the server is up.
    _wait_until(server, server.url("voila/static/", token=False), {200, 403, 404}, timeout)
    return server


def chromium_missing_message() -> str:
    """Why the browser suite cannot run, when Debian's chromium is not installed."""
    return (
        f"{CHROMIUM} not found: install Debian's chromium with `apt-get install -y chromium` "
        "(make test does this); Playwright must not download a browser of its own."
    )


def have_chromium() -> bool:
    """Whether Debian's chromium is installed."""
    return Path(CHROMIUM).is_file()


# ------------------------------------------------------------------------- pages (playwright)
# The helpers below take a playwright ``Page`` showing Notebook 7 started with
# ``--JupyterNotebookApp.expose_app_in_browser=True`` (so ``window.jupyterapp`` exists).

_KERNEL_JS = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const session = panel && panel.sessionContext && panel.sessionContext.session;
  return session && session.kernel ? session.kernel : null;
}"""

_QUIET_JS = """async ([quietMs, timeoutMs]) => {
  const kernel = (KERNEL)();
  if (!kernel) throw new Error('no kernel on the page');
  let last = performance.now();
  const seen = () => { if (kernel.status !== 'idle') last = performance.now(); };
  kernel.statusChanged.connect(seen);
  const deadline = performance.now() + timeoutMs;
  try {
    while (kernel.status !== 'idle' || performance.now() - last < quietMs) {
      if (performance.now() > deadline) return kernel.status;
      seen();
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally { kernel.statusChanged.disconnect(seen); }
  return 'idle';
}""".replace("KERNEL", _KERNEL_JS)

_WIDGETS_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  let expected = 0;
  for (const cell of panel.content.widgets) {
    if (cell.model.type !== 'code') continue;
    for (const o of cell.model.outputs.toJSON()) {
      if (o.data && o.data['application/vnd.jupyter.widget-view+json']) expected += 1;
    }
  }
  let rendered = 0, failed = 0;
  for (const el of panel.node.querySelectorAll('.jp-OutputArea-output')) {
    if (el.querySelector(':scope > .jupyter-widgets')) rendered += 1;
    if ((el.textContent || '').includes('Error displaying widget')) failed += 1;
  }
  return {expected, rendered, failed};
}"""

_PROBLEMS_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const problems = [];
  const short = (s) => String(s).replace(/\\x1b\\[[0-9;]*m/g, '').slice(0, 300);
  panel.content.widgets.forEach((cell, i) => {
    if (cell.model.type !== 'code') return;
    const where = `cell ${i + 1} (${short(cell.model.sharedModel.getSource().split('\\n')[0])})`;
    if (cell.model.executionCount === null) problems.push(`${where}: never ran`);
    for (const o of cell.model.outputs.toJSON()) {
      if (o.output_type === 'error') problems.push(`${where}: ${o.ename}: ${short(o.evalue)}`);
      const text = Array.isArray(o.text) ? o.text.join('') : (o.text || '');
      if (o.output_type === 'stream' && o.name === 'stderr' && text.includes('Traceback')) {
        problems.push(`${where}: traceback on stderr: ${short(text)}`);
      }
    }
  });
  for (const el of panel.node.querySelectorAll(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')) {
    const text = el.textContent || '';
    if (text.includes('Traceback')) problems.push(`stderr: ${short(text)}`);
  }
  for (const el of panel.node.querySelectorAll('.jp-OutputArea-output')) {
    const text = el.textContent || '';
    if (text.includes('Error displaying widget')) problems.push(`widget: ${short(text)}`);
  }
  for (const el of panel.node.querySelectorAll('.gradkit-error')) {
    const text = (el.textContent || '').trim();
    if (text) problems.push(`gradkit error area: ${short(text)}`);
  }
  return problems;
}"""


def open_notebook(page, server: Server, name: str, timeout_ms: float = 90_000) -> None:
    """Open notebook ``name`` (relative to the server root) and wait until its kernel is idle."""
    begin_open(page, server, name)
    wait_kernel_idle(page, timeout_ms)


def begin_open(page, server: Server, name: str) -> None:
    """Start loading notebook ``name`` without waiting: the page and its kernel start meanwhile."""
    page.goto(server.url(f"notebooks/{name}"), wait_until="commit")


def wait_kernel_idle(page, timeout_ms: float = 90_000) -> None:
    """Wait until the notebook on ``page`` is loaded and its kernel is idle."""
    page.wait_for_function(
        f"() => {{ const k = ({_KERNEL_JS})(); return k !== null && k.status === 'idle'; }}",
        timeout=timeout_ms,
    )


def wait_quiet(page, quiet_ms: float = 300, timeout_ms: float = 60_000) -> None:
    """Wait until the kernel has been idle for ``quiet_ms`` in a row."""
    status = page.evaluate(_QUIET_JS, [quiet_ms, timeout_ms])
    if status != "idle":
        raise TimeoutError(f"kernel still {status!r} after {timeout_ms / 1000:.0f} s")


def run_all(page, timeout_ms: float = 120_000) -> dict:
    """Run All (``notebook:run-all-cells``), then wait for an idle kernel and rendered widgets.

    Returns the widget count ``{"expected", "rendered", "failed"}``: widget outputs in the notebook
    model, widget views on the page, and outputs showing "Error displaying widget".
    """
    page.evaluate("async () => await window.jupyterapp.commands.execute('notebook:run-all-cells')")
    wait_quiet(page, 500, timeout_ms)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    # On a timeout the count returned says what is missing; the caller asserts on it.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            f"() => {{ const c = ({_WIDGETS_JS})(); "
            "return c.failed > 0 || c.rendered >= c.expected; }",
            timeout=30_000,
        )
    return page.evaluate(_WIDGETS_JS)


def problems(page) -> list[str]:
    """Everything on the notebook page that shows something went wrong, as short lines."""
    return page.evaluate(_PROBLEMS_JS)


def shutdown_kernel(page) -> None:
    """Shut the page's kernel down (closing a tab leaves it running on the server)."""
    page.evaluate(
        "async () => { const p = window.jupyterapp.shell.currentWidget;"
        " if (p && p.sessionContext) await p.sessionContext.shutdown(); }"
    )


def session_id(page) -> str | None:
    """The Jupyter session id of the notebook on ``page`` (for ``DELETE api/sessions/ID``)."""
    return page.evaluate(
        "() => { const p = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " const s = p && p.sessionContext && p.sessionContext.session; return s ? s.id : null; }"
    )


def full_screenshot(page, path: Path, max_height: int = 16_000) -> Path:
    """Screenshot of the whole page, scrolled content included (Notebook 7 and Voila scroll an
    inner panel, not the page): the viewport is made as tall as that content, then restored."""
    size = page.viewport_size or {"width": 1280, "height": 900}
    hidden = page.evaluate(
        """() => {
          let most = 0;
          for (const el of [document.scrollingElement, ...document.querySelectorAll('*')]) {
            if (!el) continue;
            const style = getComputedStyle(el);
            const scrolls = el === document.scrollingElement
              || ['auto', 'scroll', 'overlay'].includes(style.overflowY);
            if (scrolls) most = Math.max(most, el.scrollHeight - el.clientHeight);
          }
          return most;
        }"""
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(
        {"width": size["width"], "height": min(max_height, size["height"] + int(hidden))}
    )
    try:
        page.evaluate(
            "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        page.screenshot(path=str(path))
    finally:
        page.set_viewport_size(size)
    return path


def choose(control, label: str) -> None:
    """Pick ``label`` in a ToggleButtons, RadioButtons or Dropdown (``control``: a Locator)."""
    select = control.locator("select")
    if select.count():
        select.first.select_option(label=label)
        return
    radio = control.get_by_role("radio", name=label, exact=True)
    if radio.count():
        radio.first.check()
        return
    control.get_by_role("button", name=label, exact=True).first.click()


def last_input(page) -> float:
    """Page time (``performance.now()``) of the latest trusted click or Enter key press."""
    return page.evaluate("() => window.__gk.input")


def wait_for_paint(root, since: float, timeout_ms: float = 15_000) -> float:
    """Wait for the first painted update of a plot inside ``root`` after an input made later than
    ``since`` (take ``since`` from :func:`last_input` before acting).

    Returns the milliseconds from that input (the click or Enter press) to the animation frame that
    paints the first canvas draw, or new image, inside ``root`` (a Locator or ElementHandle).
    Raises ``TimeoutError`` when no input arrives or nothing is drawn in time.
    """
    result = root.evaluate(
        """async (el, [since, timeout]) => {
          const gk = window.__gk;
          const start = performance.now();
          while (gk.input <= since) {
            if (performance.now() - start > timeout) return {error: 'no click or Enter arrived'};
            await new Promise((r) => requestAnimationFrame(r));
          }
          const t0 = gk.input;
          const painted = await gk.nextPaint(el, t0, timeout);
          if (painted === null) return {error: 'nothing was drawn'};
          return {ms: painted - t0};
        }""",
        [since, timeout_ms],
    )
    if "error" in result:
        raise TimeoutError(f"{result['error']} within {timeout_ms / 1000:.0f} s")
    return result["ms"]


def wait_settled(root, quiet_ms: float = 300, timeout_ms: float = 30_000) -> None:
    """Wait until nothing has been drawn inside ``root`` for ``quiet_ms`` in a row."""
    settled = root.evaluate(
        """async (el, [quiet, timeout]) => {
          const start = performance.now();
          while (performance.now() - Math.max(start, window.__gk.lastDraw(el)) < quiet) {
            if (performance.now() - start > timeout) return false;
            await new Promise((r) => setTimeout(r, 25));
          }
          return true;
        }""",
        [quiet_ms, timeout_ms],
    )
    if not settled:
        raise TimeoutError(f"plots kept redrawing for {timeout_ms / 1000:.0f} s")


def canvas_images(root) -> list[str]:
    """The pixels of every canvas inside ``root``, as PNG data URLs (to compare before/after)."""
    return root.evaluate("(el) => [...el.querySelectorAll('canvas')].map((c) => c.toDataURL())")
