"""A real JupyterHub serves lesson 01 to two learners (opt-in: ``make test-hub``).

The hub runs the README's ``jupyterhub_config.py`` as printed (read from the README's classroom
section), with DummyAuthenticator and SimpleLocalProcessSpawner, on 127.0.0.1 only. jupyterhub
and configurable-http-proxy are installed into a throwaway environment (a venv under a temp
folder that sees gradkit's ``.venv`` through a ``.pth`` file; ``npm install`` into a temp
prefix), removed afterwards. Each learner logs in, runs lesson 01 (Run All) in chromium, and
eps ÷10 changes SlopeExplorer's picture (``data-drawn`` / ``data-paints`` on its figure).
Everything started is stopped by PID (the hub, its proxy, the servers and their kernels).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
import harness as jp  # the browser suite's helpers, from its folder
import unfold  # the lessons' gates: what follows a Predict stays hidden until it is answered

ROOT = Path(__file__).resolve().parents[2]
USERS = ("ada", "grace")
JUPYTERHUB = os.environ.get("GRADKIT_HUB_JUPYTERHUB", "jupyterhub>=5,<7")
PROXY = os.environ.get("GRADKIT_HUB_PROXY_NPM", "configurable-http-proxy@^5")

pytestmark = pytest.mark.skipif(
    os.environ.get("GRADKIT_TEST_HUB") != "1", reason="opt-in: make test-hub"
)


def readme_config() -> str:
    """The README's ``jupyterhub_config.py``, exactly as printed."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Teaching a class")[1]
    found = re.search(r"```python\n(# jupyterhub_config\.py.*?)```", section, re.S)
    assert found, "the README's classroom section has no ```python # jupyterhub_config.py block"
    return found.group(1)


def _run(command: list[str], **kwargs) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def hub_env():
    """A throwaway venv with jupyterhub and the npm proxy; it sees gradkit's ``.venv``.

    The venv reads ``.venv``'s packages through a ``.pth`` file and its Jupyter extensions
    (Notebook 7, the widget front ends) through links, as one environment would hold them all.

    ``GRADKIT_HUB_ENV_DIR`` names one made before (kept afterwards), to rerun the test quickly.
    """
    if not jp.have_chromium():
        pytest.fail(jp.chromium_missing_message(), pytrace=False)
    kept = os.environ.get("GRADKIT_HUB_ENV_DIR")
    root = Path(kept or tempfile.mkdtemp(prefix="gradkit-hub-"))
    try:
        if not (root / "venv" / "bin" / "jupyterhub").exists():
            _install(root)
        yield root
    finally:
        for made in ("hub", "homes", "cache"):
            shutil.rmtree(root / made, ignore_errors=True)
        if not kept:
            shutil.rmtree(root, ignore_errors=True)


def _install(root: Path) -> None:
    _run([sys.executable, "-m", "venv", str(root / "venv")])
    python = root / "venv" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", JUPYTERHUB], timeout=900)
    purelib = subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip()
    ours = sysconfig.get_paths()["purelib"]  # gradkit (editable: its own .pth), torch, notebook
    Path(purelib, "gradkit-venv.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    for shared in ("etc/jupyter", "share/jupyter"):  # server extensions, widget front ends
        (root / "venv" / shared).parent.mkdir(parents=True, exist_ok=True)
        (root / "venv" / shared).symlink_to(Path(sys.prefix, shared))
    _run(
        ["npm", "install", "--prefix", str(root / "npm"), "--no-audit", "--no-fund", PROXY],
        timeout=900,
    )


@pytest.fixture(scope="module")
def hub(hub_env):
    """The hub, started with the README's config; stopped by PID with all it started."""
    work = hub_env / "hub"
    work.mkdir()
    (work / "jupyterhub_config.py").write_text(readme_config())
    port = jp.free_port()
    env = {
        **os.environ,
        "PATH": f"{hub_env / 'venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "HUB_URL": f"http://127.0.0.1:{port}",
        "HUB_API_PORT": str(jp.free_port()),
        "HUB_PROXY_API_PORT": str(jp.free_port()),
        "HUB_PASSWORD": secrets.token_urlsafe(12),
        "HUB_USERS": " ".join(USERS),
        "HUB_HOMES": str(hub_env / "homes"),
        "HUB_PROXY": str(hub_env / "npm" / "node_modules" / ".bin" / "configurable-http-proxy"),
        "GRADKIT_CACHE": str(hub_env / "cache"),
        # only for the test's browser helpers (window.jupyterapp); learners do not need it
        "HUB_EXTRA_ARGS": "--JupyterNotebookApp.expose_app_in_browser=True",
    }
    log = (work / "hub.log").open("w")
    process = subprocess.Popen(
        [str(hub_env / "venv" / "bin" / "jupyterhub"), "-f", "jupyterhub_config.py"],
        cwd=work,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while jp.http_status(f"{env['HUB_URL']}/hub/api") != 200:
            assert process.poll() is None, (work / "hub.log").read_text()[-4000:]
            assert time.monotonic() < deadline, (work / "hub.log").read_text()[-4000:]
            time.sleep(0.5)
        yield {
            "url": env["HUB_URL"],
            "password": env["HUB_PASSWORD"],
            "env": env,
            "work": work,
            "python": hub_env / "venv" / "bin" / "python",
        }
    finally:
        jp.stop_tree(process.pid, timeout=20)
        log.close()
        artifacts = ROOT / "artifacts" / "hub"
        artifacts.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / "hub.log", artifacts / "hub.log")  # to read after a failure


def log_in(context, hub: dict, user: str):
    """A new page of ``context`` logged in to the hub as ``user``, on their own server."""
    page = context.new_page()
    page.goto(f"{hub['url']}/hub/login")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", hub["password"])
    page.click("[type=submit]")
    page.wait_for_url(re.compile(rf"/user/{user}/"), timeout=240_000)
    return page


def _log_in_and_open_lesson(context, hub: dict, user: str):
    page = log_in(context, hub, user)
    page.goto(f"{hub['url']}/user/{user}/notebooks/01_nudging.ipynb")
    jp.wait_kernel_idle(page, 180_000)
    return page


def _figure(root) -> dict:
    figure = root.locator(".gradkit-figure").first
    return {
        "drawn": json.loads(figure.get_attribute("data-drawn") or "null"),
        "paints": int(figure.get_attribute("data-paints") or 0),
    }


def test_two_learners_run_lesson_01_and_eps_moves_the_picture(hub):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=jp.CHROMIUM, args=jp.CHROMIUM_ARGS)
        try:
            pages = []
            for user in USERS:  # both servers up at once, each with its own kernel
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.add_init_script(jp.PAGE_JS)
                pages.append(_log_in_and_open_lesson(context, hub, user))
            for user, page in zip(USERS, pages, strict=True):
                page.bring_to_front()
                counts = jp.run_all(page, 300_000)
                assert counts["failed"] == 0 and counts["rendered"] >= counts["expected"] > 0
                assert jp.problems(page) == [], (user, jp.problems(page))
                assert unfold.open_all(page) == []  # the SlopeExplorer follows lesson 01's Predict
                root = page.locator(".gradkit-slope-explorer").first
                root.scroll_into_view_if_needed()
                page.wait_for_function(
                    "el => el.querySelector('.gradkit-figure[data-drawn]')",
                    arg=root.element_handle(),
                )
                before = _figure(root)
                since = jp.last_input(page)
                root.locator(".gradkit-eps-down").first.click()
                jp.wait_for_paint(root, since, 30_000)
                after = _figure(root)
                assert after["paints"] > before["paints"], (user, before, after)
                assert float(after["drawn"]["eps"]) == pytest.approx(
                    float(before["drawn"]["eps"]) / 10
                ), (user, before["drawn"]["eps"], after["drawn"]["eps"])
                told = jp.kernel_execute(page, "import os; print(os.environ['GRADKIT_CACHE'])")
                assert told["stdout"].strip() == hub["env"]["GRADKIT_CACHE"]
                told = jp.kernel_execute(page, "import sys; print(sys.executable)")
                assert told["stdout"].strip() == str(hub["python"]), "not this environment's kernel"
        finally:
            browser.close()
    homes = Path(hub["env"]["HUB_HOMES"])
    assert all((homes / user / "01_nudging.ipynb").is_file() for user in USERS)
