"""Local Jupyter servers and a headless chromium, for the browser tests and the browser bench.

Everything here follows the project's rules for servers: bound to 127.0.0.1, token authentication on
(never an empty token), started as ``gradkit notebook`` starts it (so, as ``make notebook`` does),
and stopped by PID together with every process it started (kernels included).

Used by ``tests/browser/conftest.py``, the browser tests and ``benchmarks/browser.py`` (which puts
this folder on ``sys.path``); pytest puts it there for the tests.
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "FORGET_PROGRESS_JS",
    "IPYMPL_EXTENSION",
    "IPYMPL_PLUGIN",
    "OUTPUT_ERROR_TEXTS",
    "PAGE_JS",
    "Server",
    "begin_open",
    "canvas_images",
    "canvas_pixel",
    "choose",
    "chromium_missing_message",
    "clipped_labels",
    "drag_range",
    "drawn_history",
    "eps_text",
    "free_port",
    "full_screenshot",
    "gradkit_command",
    "have_chromium",
    "http_status",
    "kernel_execute",
    "kernel_frozen",
    "kernel_messages",
    "kernel_pid",
    "kernel_start",
    "kernel_started_code_running",
    "kernel_status",
    "last_input",
    "next_frame",
    "no_ipympl_env",
    "open_notebook",
    "open_voila",
    "output_problems",
    "picture_problems",
    "pictures",
    "problems",
    "record_kernel_messages",
    "run_all",
    "session_id",
    "set_range",
    "shutdown_kernel",
    "start_lab",
    "start_notebook",
    "start_voila",
    "stop_tree",
    "wait_for_paint",
    "wait_kernel_idle",
    "wait_quiet",
    "wait_settled",
    "widget_state",
    "write_notebook",
]

#: The checkout: its ``share/jupyter`` holds gradkit's Voila template.
REPO = Path(__file__).resolve().parents[2]

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
    # Every cell stays in the DOM (JupyterLab 4 otherwise attaches only the cells in view, and
    # a test looking for a widget far down a lesson would not find it). Notebook 7 reads the same.
    # No blank page's height after the last cell (it would fill the bottom of every screenshot).
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        "scrollPastEnd": False,
    },
}

#: ipympl's browser extension: its package name (Voila and JupyterLab filter federated
#: extensions by it) and its plugin id (JupyterLab and Notebook 7 disable plugins by it).
IPYMPL_EXTENSION = "jupyter-matplotlib"
IPYMPL_PLUGIN = "matplotlib-jupyter:main"

# Put first on a kernel's sys.path (PYTHONPATH): ``import ipympl`` (and any submodule) then fails
# exactly as it does where ipympl is not installed.
_NO_IPYMPL_SITECUSTOMIZE = """\
import sys


class _NoIpympl:
    \"\"\"Refuse ipympl, as an environment without it would.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name == "ipympl" or name.startswith("ipympl."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NoIpympl())
"""

#: Page script (``context.add_init_script``) that records, for every canvas on the page, when
#: something was drawn on it and when the next animation frame after that draw ran (the frame that
#: paints it), and likewise for every ``<img>`` added to the page once it has decoded. The browser
#: tests use it to wait for a plot to update; the bench uses it to time slider changes. It also
#: records the time of the latest trusted click or Enter key press (the start of a change).
#: Forget every Predict's kept guess (practice/progress.js) before the page's scripts run.
FORGET_PROGRESS_JS = """try {
  for (const key of Object.keys(localStorage)) {
    if (key.startsWith('gradkit-predict:')) localStorage.removeItem(key);
  }
} catch (e) {}"""

PAGE_JS = r"""
(() => {
  if (window.__gk) return;
  const gk = window.__gk = {input: 0, images: [], svgs: new Set()};
  const mark = (entry) => {
    requestAnimationFrame(() => { if (entry.paint === 0) entry.paint = performance.now(); });
  };
  // One entry per element and frame: many drawing calls in one frame are one drawing.
  const recordDraw = (el) => {
    if (!el || !el.isConnected) return;
    const draws = (el.__gkDraws = el.__gkDraws || []);
    const last = draws[draws.length - 1];
    if (last && last.paint === 0) return;
    const entry = {draw: performance.now(), paint: 0};
    draws.push(entry);
    if (draws.length > 200) draws.splice(0, 100);
    mark(entry);
  };
  for (const name of ['drawImage', 'putImageData', 'clearRect', 'fillRect', 'strokeRect',
                      'stroke', 'fill', 'fillText', 'strokeText']) {
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
    if (gk.images.length > 400) gk.images.splice(0, 200);
    img.decode().catch(() => null).then(() => { entry.draw = performance.now(); mark(entry); });
  };
  // Every new value of a gradkit figure's data-drawn (what its view drew), with the time of the
  // frame that painted it: the history a drag or a click left on the picture.
  const onDrawn = (el) => {
    const value = el.getAttribute('data-drawn');
    const history = (el.__gkHistory = el.__gkHistory || []);
    if (history.length && history[history.length - 1].drawn === value) return;
    const entry = {draw: performance.now(), paint: 0, drawn: value};
    history.push(entry);
    if (history.length > 400) history.splice(0, 200);
    mark(entry);
  };
  const onSvgChange = (node) => {
    const svg = node.ownerSVGElement || (node.tagName === 'svg' ? node : node.closest('svg'));
    if (svg) { gk.svgs.add(svg); recordDraw(svg); }
  };
  new MutationObserver((records) => {
    for (const record of records) {
      const target = record.target;
      if (record.type === 'attributes') {
        if (record.attributeName === 'data-drawn') { onDrawn(target); continue; }
        if (target.tagName === 'IMG' && record.attributeName === 'src') onImage(target);
        else if (target instanceof SVGElement) onSvgChange(target);
        continue;
      }
      if (target instanceof SVGElement) onSvgChange(target);
      else if (record.type === 'characterData' && target.parentNode instanceof SVGElement) {
        onSvgChange(target.parentNode);
      }
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.tagName === 'IMG') onImage(node);
        else for (const img of node.querySelectorAll('img')) onImage(img);
      }
    }
  }).observe(document, {childList: true, subtree: true, attributes: true,
                        attributeFilter: ['src', 'data-drawn', 'd', 'x', 'y', 'x1', 'x2', 'y1',
                                          'y2', 'cx', 'cy', 'r', 'points', 'transform', 'width',
                                          'height', 'fill', 'stroke', 'visibility', 'display',
                                          'opacity'],
                        characterData: true});
  const onInput = (event) => {
    if (event.isTrusted && (event.type === 'click' || event.key === 'Enter'
                            || event.type === 'pointerup')) {
      gk.input = performance.now();
    }
  };
  window.addEventListener('click', onInput, true);
  window.addEventListener('keydown', onInput, true);
  window.addEventListener('pointerup', onInput, true);
  const drawnIn = (root) => [...root.querySelectorAll('canvas, svg')];
  // The first frame painted after `since` that shows a new drawing inside `root` (a canvas draw,
  // an SVG change or a decoded new <img>); resolves to that frame's time, or null after `timeout`.
  gk.nextPaint = (root, since, timeout) => new Promise((resolve) => {
    const deadline = performance.now() + timeout;
    const poll = () => {
      let best = null;
      // >= since: a click's own handler draws in the same task as the input it answers, and
      // performance.now() is coarse (100 us), so its draw can carry the input's very timestamp
      for (const el of drawnIn(root)) {
        for (const entry of el.__gkDraws || []) {
          if (entry.draw >= since && entry.paint > 0 && (best === null || entry.paint < best)) {
            best = entry.paint;
          }
        }
      }
      for (const entry of gk.images) {
        if (entry.draw >= since && entry.paint > 0 && root.contains(entry.img)
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
  // Time of the latest drawing (canvas draw, SVG change or new image) inside `root`, 0 if none.
  gk.lastDraw = (root) => {
    let last = 0;
    for (const el of drawnIn(root)) {
      for (const entry of el.__gkDraws || []) last = Math.max(last, entry.draw);
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
    """A running Jupyter server (Notebook 7, JupyterLab 4 or Voila) on 127.0.0.1.

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
    kind : str
        ``"notebook"``, ``"lab"`` or ``"voila"``: which front end it serves.
    """

    process: subprocess.Popen
    port: int
    token: str
    root: Path
    workdir: Path
    kind: str = "notebook"
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

    def notebook_path(self, name: str) -> str:
        """Path (no token) that opens notebook ``name`` (relative to the root) in this front end.

        JupyterLab opens it in a workspace of its own, so that no earlier page's layout is restored
        beside it.
        """
        if self.kind == "lab":
            return f"lab/workspaces/{secrets.token_hex(6)}/tree/{name}"
        if self.kind == "voila":
            return f"voila/render/{name}"
        return f"notebooks/{name}"

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


def no_ipympl_env(workdir: Path) -> dict[str, str]:
    """Environment variables under which ipympl is absent, for one server and its kernels only.

    The kernels cannot import ipympl (a ``sitecustomize`` first on ``PYTHONPATH`` refuses it, as
    an environment without it would), and the browser gets no ipympl extension (a private
    ``JUPYTER_CONFIG_DIR`` whose ``labconfig/page_config.json`` disables it, with
    ``JUPYTER_PREFER_ENV_PATH=0`` so that the virtual environment's own config cannot switch it
    back on). The project's virtual environment is not changed. Pass the result as ``env=`` to
    :func:`start_notebook`, :func:`start_lab` or :func:`start_voila`.
    """
    workdir = Path(workdir).resolve()
    site = workdir / "no-ipympl-site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "sitecustomize.py").write_text(_NO_IPYMPL_SITECUSTOMIZE)
    config = workdir / "no-ipympl-config"
    (config / "labconfig").mkdir(parents=True, exist_ok=True)
    disabled = {IPYMPL_EXTENSION: True, IPYMPL_PLUGIN: True}
    (config / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": disabled})
    )
    pythonpath = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {
        "PYTHONPATH": os.pathsep.join(pythonpath),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_PREFER_ENV_PATH": "0",
    }


def _isolated_env(workdir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment with private Jupyter settings and workspace folders inside ``workdir``, and
    the variables in ``extra`` on top."""
    settings = workdir / "lab-user-settings"
    for name, values in _LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = dict(os.environ)
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(workdir / "lab-workspaces")
    env.pop("MPLBACKEND", None)  # kernels choose their own backend (ipympl or inline)
    # the checkout's Voila template (the wheel installs it; an editable install from before it
    # existed has not): the lessons name it in their metadata
    env["JUPYTER_PATH"] = os.pathsep.join(
        [str(REPO / "share" / "jupyter"), *filter(None, [os.environ.get("JUPYTER_PATH")])]
    )
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.update(extra or {})
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
    env: dict[str, str] | None = None,
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
    env : dict, optional
        Further environment variables for the server and its kernels (e.g. :func:`no_ipympl_env`).
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
    environ = _isolated_env(workdir, env) if isolated else {**os.environ, **(env or {})}
    process = _launch(command, workdir, environ, cwd=root)
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
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> Server:
    """Serve one notebook, or a folder of them, as a Voila app on 127.0.0.1 with token auth.

    Voila 0.5 serves without any authentication unless given ``--token=T`` (or the bare
    ``--token`` flag, which makes a random one). This always passes a token: ``token`` or a random
    one. A folder is served as Voila's tree: each notebook at ``voila/render/NAME``
    (:meth:`Server.notebook_path`), one kernel per page.
    """
    notebook = Path(notebook).resolve()
    if not notebook.exists():
        raise FileNotFoundError(f"{notebook} does not exist; pass the .ipynb or folder to serve")
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
    root = notebook if notebook.is_dir() else notebook.parent
    process = _launch(command, workdir, _isolated_env(workdir, env), cwd=root)
    server = Server(process, port, token, root, workdir, kind="voila")
    # Static files answer without running the notebook: proof the server is up.
    _wait_until(server, server.url("voila/static/", token=False), {200, 403, 404}, timeout)
    return server


def start_lab(
    root: Path,
    workdir: Path,
    *,
    token: str | None = None,
    port: int | None = None,
    extra: Sequence[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 90.0,
) -> Server:
    """JupyterLab 4 on ``root``, 127.0.0.1, a random token, ``window.jupyterapp`` exposed.

    Its settings live in ``workdir`` (:data:`_LAB_SETTINGS`: no news, ``windowingMode`` ``none``
    so that every cell stays in the DOM), and so do its workspaces.
    """
    if token == "":
        raise ValueError("token must not be empty: an empty token switches authentication off")
    root = Path(root).resolve()
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    token = token or secrets.token_hex(24)
    port = port or free_port()
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",  # test fixtures only: CI runs as root
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=",
        *extra,
    ]
    process = _launch(command, workdir, _isolated_env(workdir, env), cwd=root)
    server = Server(process, port, token, root, workdir, kind="lab")
    _wait_until(server, server.url("api/status"), {200}, timeout)
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
    if (el.querySelector(':scope > .jupyter-widgets, :scope > .gradkit-widget')) rendered += 1;
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
    page.goto(server.url(server.notebook_path(name)), wait_until="commit")


def open_tab(page, name: str) -> None:
    """JupyterLab: open notebook ``name`` (relative to the server root) as a tab of the app on
    ``page``, in front, without waiting for its kernel (:func:`wait_kernel_idle` does)."""
    page.evaluate(
        "async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        name,
    )


#: Close the notebook ``path`` in JupyterLab, unsaved outputs and all (no "save?" dialog); returns
#: its Jupyter session id (its kernel keeps running until that session is deleted).
_CLOSE_TAB_JS = """(path) => {
  for (const w of [...window.jupyterapp.shell.widgets('main')]) {
    if (!w.context || w.context.path !== path) continue;
    const s = w.sessionContext && w.sessionContext.session;
    w.dispose();
    return s ? s.id : null;
  }
  return null;
}"""


def close_tab(page, name: str) -> str | None:
    """JupyterLab: close the tab of notebook ``name`` on ``page``; returns its session id, for
    ``DELETE api/sessions/ID`` (the kernel is not shut down here)."""
    return page.evaluate(_CLOSE_TAB_JS, name)


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
    """Screenshot of the whole page from its top, scrolled content included (Notebook 7, JupyterLab
    and Voila scroll an inner panel, not the page): every scroller goes back to its top (Run All
    leaves the notebook at its last cell), the viewport is made as tall as that content, then
    restored."""
    size = page.viewport_size or {"width": 1280, "height": 900}
    hidden = page.evaluate(
        """() => {
          let most = 0;
          for (const el of [document.scrollingElement, ...document.querySelectorAll('*')]) {
            if (!el) continue;
            const style = getComputedStyle(el);
            const scrolls = el === document.scrollingElement
              || ['auto', 'scroll', 'overlay'].includes(style.overflowY);
            if (scrolls) {
              most = Math.max(most, el.scrollHeight - el.clientHeight);
              el.scrollTop = 0;
            }
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


# ------------------------------------------------------------- any front end (Voila included)

#: Texts that show a widget or a cell failed, looked for in output areas only (a lesson's prose
#: may quote them). "Click to show javascript error" is the box ipywidgets puts where a widget's
#: browser code failed to load (e.g. ipympl's model class); page-error counts do not see it.
OUTPUT_ERROR_TEXTS = (
    "Error displaying widget",
    "Click to show javascript error",
    "There was an error when executing cell",
    "Traceback (most recent call last)",
)

_OUTPUT_PROBLEMS_JS = """([scope, phrases]) => {
  const root = scope === 'notebook'
    ? window.jupyterapp.shell.currentWidget.node : document;
  const problems = [];
  const short = (s) => String(s).replace(/\\s+/g, ' ').slice(0, 300);
  for (const el of root.querySelectorAll('.jp-OutputArea-output')) {
    const text = el.textContent || '';
    for (const phrase of phrases) {
      if (text.includes(phrase)) problems.push(`${phrase}: ${short(text)}`);
    }
  }
  for (const el of root.querySelectorAll('.gradkit-error')) {
    const text = (el.textContent || '').trim();
    if (text) problems.push(`gradkit error area: ${short(text)}`);
  }
  return problems;
}"""


def output_problems(page, scope: str = "notebook") -> list[str]:
    """Error texts (:data:`OUTPUT_ERROR_TEXTS`) in the output areas, and non-empty gradkit error
    areas. ``scope``: ``"notebook"`` (the current notebook panel of Notebook 7 or JupyterLab) or
    ``"page"`` (the whole page, for Voila)."""
    return page.evaluate(_OUTPUT_PROBLEMS_JS, [scope, list(OUTPUT_ERROR_TEXTS)])


#: Per gradkit widget on the page: its kind (root CSS class), and every picture in it (``<img>``
#: and ``<canvas>``): rendered size, pixel size, and whether it shows drawn content (an image: more
#: than one colour once decoded; a canvas: at least one painted pixel). Pictures hidden with
#: ``display: none`` are left out.
_PICTURES_JS = """(scope) => {
  const root = scope === 'notebook' ? window.jupyterapp.shell.currentWidget.node : document;
  const probe = document.createElement('canvas');
  const g = probe.getContext('2d', {willReadFrequently: true});
  const imageDrawn = (img) => {
    if (!img.complete || !img.naturalWidth) return false;
    const w = Math.min(160, img.naturalWidth);
    const h = Math.max(1, Math.round(img.naturalHeight * w / img.naturalWidth));
    probe.width = w; probe.height = h;
    g.clearRect(0, 0, w, h);
    g.drawImage(img, 0, 0, w, h);
    const data = g.getImageData(0, 0, w, h).data;
    for (let i = 4; i < data.length; i += 4) {
      if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]
          || data[i + 3] !== data[3]) return true;
    }
    return false;
  };
  const canvasDrawn = (canvas) => {
    if (!canvas.width || !canvas.height) return false;
    const c = canvas.getContext('2d', {willReadFrequently: true});
    if (!c) return true;  // a WebGL canvas: counted as drawn when it has a size
    const data = c.getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
    return false;
  };
  const widgets = [...root.querySelectorAll('.gradkit-widget')]
    .filter((w) => !w.parentElement.closest('.gradkit-widget'));
  return widgets.map((w) => {
    const kind = [...w.classList].find((c) => c.startsWith('gradkit-') && c !== 'gradkit-widget')
      || 'gradkit-widget';
    const pictures = [...w.querySelectorAll('img, canvas')]
      .filter((el) => el.getClientRects().length > 0)
      .map((el) => {
        const box = el.getBoundingClientRect();
        const isImg = el.tagName === 'IMG';
        return {
          tag: el.tagName.toLowerCase(),
          width: Math.round(box.width), height: Math.round(box.height),
          pixels: isImg ? [el.naturalWidth, el.naturalHeight] : [el.width, el.height],
          drawn: isImg ? imageDrawn(el) : canvasDrawn(el),
        };
      });
    return {kind, pictures};
  });
}"""


def pictures(page, scope: str = "notebook") -> list[dict]:
    """Every gradkit widget's pictures, as :data:`_PICTURES_JS` describes them."""
    return page.evaluate(_PICTURES_JS, scope)


def picture_problems(page, scope: str = "notebook") -> list[str]:
    """What is wrong with the gradkit widgets' pictures: a picture with no size or no drawn
    content, or a widget whose pictures are all blank. Widgets without pictures (a quiz) pass."""
    found = []
    for i, widget in enumerate(pictures(page, scope)):
        where = f"widget {i + 1} ({widget['kind']})"
        shown = widget["pictures"]
        for picture in shown:
            if min(picture["width"], picture["height"], *picture["pixels"]) <= 0:
                found.append(f"{where}: {picture['tag']} without size {picture}")
            elif picture["tag"] == "img" and not picture["drawn"]:
                found.append(f"{where}: blank image {picture}")
        if shown and not any(picture["drawn"] for picture in shown):
            found.append(f"{where}: nothing drawn on any of its {len(shown)} pictures")
    return found


#: Buttons and labels of gradkit widgets whose text does not fit (the learner sees it cut off).
_CLIPPED_JS = """(scope) => {
  const root = scope === 'notebook' ? window.jupyterapp.shell.currentWidget.node : document;
  const out = [];
  for (const el of root.querySelectorAll('.gradkit-widget button, .gradkit-widget .gk-label')) {
    if (!el.offsetParent || !el.textContent.trim()) continue;  // hidden, or an icon
    if (el.scrollWidth > el.clientWidth + 1) {
      out.push(`"${el.textContent.trim()}" needs ${el.scrollWidth}px, has ${el.clientWidth}px`);
    }
  }
  return out;
}"""


def clipped_labels(page, scope: str = "notebook") -> list[str]:
    """Every button or label text in a gradkit widget that is cut off, with the widths."""
    return [f"clipped text: {item}" for item in page.evaluate(_CLIPPED_JS, scope)]


#: Widget views Voila rendered: widget outputs (Voila renders each in a Lumino panel, without the
#: mime-type attribute other outputs carry), those showing a view, and failed ones.
_VOILA_WIDGETS_JS = """() => {
  const outputs = [...document.querySelectorAll('.jp-OutputArea-output.lm-Panel')];
  return {
    expected: outputs.length,
    rendered: outputs.filter((o) => o.querySelector('.jupyter-widgets, .gradkit-widget')).length,
    failed: outputs.filter((o) => (o.textContent || '').includes('Error displaying widget')).length,
    why: outputs.map((o) => (o.textContent || '').trim())
      .filter((t) => t.includes('Error displaying widget')).slice(0, 3).map((t) => t.slice(0, 300)),
  };
}"""

#: Voila's page has put every cell output on it: its "render-outputs" plugin replaces each output
#: (a ``<script type="application/vnd.voila.cell-output+json">`` the server wrote as the cell
#: ran) with an output area, all in one pass, and then makes ``#rendered_cells`` a Lumino widget.
#: Widget views fill in later (``_VOILA_WIDGETS_JS`` counts them).
_VOILA_OUTPUTS_PLACED_JS = """() => !document.querySelector('#loading')
  && document.querySelector('#rendered_cells.lm-Widget') !== null"""


def open_voila(page, server: Server, name: str, timeout_ms: float = 180_000) -> dict:
    """Open notebook ``name`` as a Voila app and wait until every cell ran and every widget output
    shows a view (or failed). Returns ``{"expected", "rendered", "failed", "why"}`` as
    :func:`run_all`, ``why`` the first failed outputs' texts.

    When *every* widget of the app failed to display, or every one that failed says "model not
    found", the app is opened once more (a fresh kernel) and the first try's texts are kept under
    ``"first_try"``. Voila's page sometimes fails to load the widget modules as a whole on a busy
    machine (voila-dashboards/voila#1483, seen once in CI). Its widget manager asks the kernel
    for every model's state with a 4-second limit, then model by model, and a model it never got
    is "model not found" (seen once in ``make test``, 3 of 4 widgets, never alone). Neither is a
    fault of any widget. A widget that fails any other way, or an app that fails twice, still
    fails the caller's check.
    """
    first = _open_voila_once(page, server, name, timeout_ms)
    everyone = first["expected"] > 0 and first["failed"] == first["expected"]
    unloaded = first["failed"] > 0 and all("model not found" in w for w in first["why"])
    if not (everyone or unloaded):
        return first
    again = _open_voila_once(page, server, name, timeout_ms)
    return {**again, "first_try": first["why"]}


def _open_voila_once(page, server: Server, name: str, timeout_ms: float) -> dict:
    page.goto(server.url(server.notebook_path(name)), timeout=timeout_ms, wait_until="load")
    page.wait_for_function(_VOILA_OUTPUTS_PLACED_JS, timeout=timeout_ms)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):  # the count returned says what is missing
        page.wait_for_function(
            f"() => {{ const c = ({_VOILA_WIDGETS_JS})(); "
            "return c.failed > 0 || c.rendered >= c.expected; }",
            timeout=30_000,
        )
    return page.evaluate(_VOILA_WIDGETS_JS)


_EXECUTE_JS = """async ([code, timeoutMs]) => {
  const kernel = (KERNEL)();
  if (!kernel) throw new Error('no kernel on the page');
  const future = kernel.requestExecute({code, store_history: false, silent: false});
  const out = {stdout: '', error: null, data: null};
  future.onIOPub = (msg) => {
    const c = msg.content;
    if (msg.header.msg_type === 'stream') out.stdout += c.text;
    else if (msg.header.msg_type === 'error') out.error = `${c.ename}: ${c.evalue}`;
    else if (msg.header.msg_type === 'execute_result') out.data = c.data['text/plain'];
  };
  if (timeoutMs > 0) {
    const timer = new Promise((_, reject) => setTimeout(
      () => reject(new Error(`kernel did not answer in ${timeoutMs} ms`)), timeoutMs));
    await Promise.race([future.done, timer]);
  } else {  // started, not awaited: window.__gkRunning says whether it still runs
    window.__gkRunning = true;
    future.done.then(() => { window.__gkRunning = false; }, () => { window.__gkRunning = false; });
    return out;
  }
  return out;
}""".replace("KERNEL", _KERNEL_JS)


def kernel_execute(page, code: str, timeout_ms: float = 60_000) -> dict:
    """Run ``code`` in the page's kernel (Notebook 7 or JupyterLab), as a cell would, and wait.

    Returns ``{"stdout", "error", "data"}``: printed text, ``"Name: message"`` of an exception
    (or ``None``), and the ``text/plain`` of the last expression (or ``None``).
    """
    result = page.evaluate(_EXECUTE_JS, [code, timeout_ms])
    if result["error"]:
        raise RuntimeError(f"kernel raised {result['error']} running:\n{code}")
    return result


def kernel_start(page, code: str) -> None:
    """Start ``code`` in the page's kernel and return at once (it keeps the kernel busy)."""
    page.evaluate(_EXECUTE_JS, [code, 0])


def kernel_started_code_running(page) -> bool:
    """Whether the code last started with :func:`kernel_start` is still running (its execute
    request has not been answered). Unlike the kernel's status, which ipykernel may report as
    idle between other messages, this cannot read idle while the code runs."""
    return page.evaluate("() => window.__gkRunning === true")


def kernel_pid(page, server: Server) -> int:
    """PID of the page's kernel: the process under ``server`` started with its connection file."""
    import psutil

    kernel_id = page.evaluate(f"() => {{ const k = ({_KERNEL_JS})(); return k ? k.id : null; }}")
    if not kernel_id:
        raise RuntimeError("no kernel on the page")
    for proc in psutil.Process(server.process.pid).children(recursive=True):
        try:
            if any(kernel_id in part for part in proc.cmdline()):
                return proc.pid
        except psutil.NoSuchProcess:
            continue
    raise RuntimeError(f"no process of kernel {kernel_id} under server PID {server.process.pid}")


@contextlib.contextmanager
def kernel_frozen(page, server: Server):
    """Stop the page's kernel process (SIGSTOP) for the ``with`` block, then let it go on
    (SIGCONT): nothing the kernel would send can arrive meanwhile."""
    pid = kernel_pid(page, server)
    os.kill(pid, signal.SIGSTOP)
    try:
        yield pid
    finally:
        os.kill(pid, signal.SIGCONT)


def record_kernel_messages(page) -> None:
    """Start recording the types of the messages the page receives from its kernel (read them
    with :func:`kernel_messages`)."""
    page.evaluate(
        f"""() => {{
          const kernel = ({_KERNEL_JS})();
          if (window.__gkStopRecv) window.__gkStopRecv();
          window.__gkRecv = [];
          const seen = (_, args) => {{
            if (args.direction === 'recv') window.__gkRecv.push(args.msg.header.msg_type);
          }};
          kernel.anyMessage.connect(seen);
          window.__gkStopRecv = () => kernel.anyMessage.disconnect(seen);
        }}"""
    )


def kernel_messages(page) -> list[str]:
    """Types of the kernel messages received since :func:`record_kernel_messages`."""
    return page.evaluate("() => window.__gkRecv || []")


def kernel_status(page) -> str:
    """The page kernel's status as the page sees it (``idle``, ``busy``, ...)."""
    return page.evaluate(f"() => {{ const k = ({_KERNEL_JS})(); return k ? k.status : 'none'; }}")


def write_notebook(path: Path, cells: Sequence[str]) -> Path:
    """Write a notebook of code cells (the python3 kernel) to ``path``; returns ``path``."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nbformat.write(notebook, str(path))
    return Path(path)


# ------------------------------------------------------------------- gradkit widgets (anywidget)
# The hooks gradkit/widgets/base/host.js publishes: the root has the widget's CSS class and
# ``gradkit-widget`` (``gk-is-busy`` while the page waits for the kernel); ``.gradkit-figure`` holds
# the ``<canvas>`` the page draws, with ``data-drawn`` (what the view drew, JSON), ``data-state``
# (the control state it was drawn for), ``data-scene`` and ``data-paints``; readouts are
# ``.gradkit-readout.<css>``; toggle buttons carry ``data-value`` and ``aria-pressed``; the eps
# grid row is ``.gk-grid`` with its ``input[type=range]`` and the label ``.gk-value``.

_WIDGET_STATE_JS = """(root) => {
  const fig = root.querySelector('.gradkit-figure');
  const parse = (s) => { try { return s ? JSON.parse(s) : null; } catch (e) { return null; } };
  const text = (el) => (el ? el.textContent : '').replace(/\\u00a0/g, ' ').trim();
  const readouts = {};
  for (const r of root.querySelectorAll('.gradkit-readout')) {
    const key = [...r.classList].find((c) => c !== 'gradkit-readout') || 'readout';
    readouts[key] = text(r);
  }
  const pressed = {};
  for (const group of root.querySelectorAll('.gk-toggle')) {
    const key = [...group.classList].find((c) => c.startsWith('gradkit-')) || 'toggle';
    const b = group.querySelector('button[aria-pressed="true"]');
    pressed[key] = b ? b.dataset.value : null;
  }
  const sliders = {};
  for (const row of root.querySelectorAll('.gk-control')) {
    const input = row.querySelector('input[type=range]');
    if (!input) continue;
    const key = [...input.classList].find((c) => c.startsWith('gradkit-')) || 'slider';
    sliders[key] = {value: input.value, min: input.min, max: input.max,
                    label: text(row.querySelector('.gk-value'))};
  }
  const canvas = fig ? fig.querySelector('canvas') : null;
  return {
    found: !!fig,
    drawn: fig ? parse(fig.dataset.drawn) : null,
    values: fig ? parse(fig.dataset.state) : null,
    scene: fig ? fig.dataset.scene : null,
    paints: fig ? +(fig.dataset.paints || 0) : null,
    readouts, pressed, sliders,
    busy: root.classList.contains('gk-is-busy') || !!root.querySelector('.gk-is-busy'),
    error: text(root.querySelector('.gradkit-error')),
    pixels: canvas ? canvas.toDataURL() : null,
    dpr: window.devicePixelRatio || 1,
  };
}"""


def widget_state(root) -> dict:
    """What a gradkit widget (``root``: a Locator of its root) shows right now: ``drawn`` (its
    figure's ``data-drawn``), ``values`` (its ``data-state``), ``scene``, ``paints``,
    ``readouts`` (text by CSS class), ``pressed`` (toggle values by CSS class), ``sliders`` (value
    and label by CSS class), ``busy``, ``error`` (error area text), ``pixels`` (the canvas as a
    PNG data URL), ``dpr``."""
    return root.evaluate(_WIDGET_STATE_JS)


def eps_text(value: object) -> str:
    """An eps from ``data-drawn`` as the eps controls label it (``"1e-07"``, ``"0.001"``): a
    view may publish the label itself or the number."""
    return value if isinstance(value, str) else format(float(value), ".3g")


def canvas_pixel(root, x: float, y: float) -> list[int]:
    """RGBA of the figure canvas at CSS pixel (``x``, ``y``) of the figure (the coordinates in
    ``data-drawn``'s ``*_px`` entries)."""
    return root.evaluate(
        """(el, [x, y]) => {
          const c = el.querySelector('.gradkit-figure canvas');
          const dpr = window.devicePixelRatio || 1;
          const g = c.getContext('2d');
          return [...g.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data];
        }""",
        [x, y],
    )


def files_only(page, blocked: list[str], errors: list[str]) -> None:
    """Let ``page`` load ``file:`` addresses only (every other request aborted and recorded in
    ``blocked``: a static page asks nothing of any server), and record its console errors and
    uncaught errors in ``errors``."""

    def route(request_route) -> None:
        if request_route.request.url.startswith("file:"):
            request_route.continue_()
        else:
            blocked.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))


def next_frame(page) -> None:
    """Wait for two animation frames (what was drawn is now painted)."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def set_range(root, css: str, value: int) -> None:
    """Move the range input ``input.CSS`` inside ``root`` to ``value`` the way a slider move
    arrives (an ``input`` event, then ``change``)."""
    root.locator(f"input.{css}").first.evaluate(
        """(input, value) => {
          input.value = String(value);
          input.dispatchEvent(new Event('input', {bubbles: true}));
          input.dispatchEvent(new Event('change', {bubbles: true}));
        }""",
        value,
    )


def drawn_history(root) -> list[dict]:
    """Every value the figure's ``data-drawn`` took (``drawn``: parsed), with ``draw`` and
    ``paint`` times (``performance.now()``), oldest first (see :data:`PAGE_JS`)."""
    return root.evaluate(
        """(el) => {
          const fig = el.querySelector('.gradkit-figure');
          return (fig && fig.__gkHistory || []).map((e) => ({draw: e.draw, paint: e.paint,
            drawn: e.drawn ? JSON.parse(e.drawn) : null}));
        }"""
    )


def drag_range(page, root, css: str, seconds: float = 1.0, steps: int = 40) -> float:
    """Drag the range input ``input.CSS`` from its left end to its right end with the mouse in
    ``seconds``; returns the page time of the release (``performance.now()``)."""
    slider = root.locator(f"input.{css}").first
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    left, right = box["x"] + 2, box["x"] + box["width"] - 2
    page.mouse.move(left, y)
    page.mouse.down()
    pause = seconds / steps
    for i in range(1, steps + 1):
        page.mouse.move(left + (right - left) * i / steps, y)
        page.wait_for_timeout(pause * 1000)
    page.mouse.up()
    return page.evaluate("() => window.__gk.input")


@contextlib.contextmanager
def notebook_run(context, server: Server, name: str) -> Iterator:
    """Notebook ``name`` opened in a new tab of ``context`` and run (Run All); yields the tab,
    with ``.errors`` (the page's errors from Run All on: Notebook 7 throws one of its own while
    it loads a notebook) and ``.widgets`` (:func:`run_all`'s count). Shuts the kernel down and
    closes the tab after."""
    page = context.new_page()
    errors: list[str] = []
    open_notebook(page, server, name)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors, page.widgets = errors, run_all(page)
    try:
        yield page
    finally:
        shutdown_kernel(page)
        page.close()
