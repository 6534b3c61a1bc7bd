"""nbgrader's whole loop on a live JupyterHub, two learners in chromium (``make test-class-hub``).

The hub runs the README's ``jupyterhub_config.py`` and the nbgrader lines the README adds to it,
as printed, on 127.0.0.1 with token auth, as the Unix user ``jovyan`` (created for the test when
missing, removed afterwards): every learner's server runs as that user, and nbgrader names a
submission after the hub user there (its rule for Jupyter's Docker images). The README's
``nbgrader_config.py`` for the learners' servers gives the course id and the exchange.

The teacher (this process's user, root: the course directory is out of the learners' reach)
writes and releases the assignment with ``gradkit course nbgrader`` and nbgrader's commands.
Each learner logs in; their server fetches the assignment through nbgrader's own server API
(what the Assignments tab's Fetch button sends); in Notebook 7, ada writes the solutions, both
Run All, then lock in their first guesses (ada right, bob the starter's bug and wrong guesses);
the page saves the notebook (``docmanager:save``) and the server submits it. The teacher
collects, autogrades and generates feedback; then ``classroom.check_the_class``, and the
submitted notebooks carry the record exactly as the page saved it. Everything started is stopped
by PID (the hub, its proxy, the servers and their kernels).
"""

from __future__ import annotations

import json
import os
import pwd
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from classroom import (
    ANSWERS,
    ASSIGNMENT,
    LESSONS,
    ROOT,
    check_the_class,
    run,
    teacher_grades,
    teacher_releases,
)
from test_hub import JUPYTERHUB, PROXY, log_in, readme_config

from gradkit.course.saved import RECORD_CELL, RECORD_MIME, read_saved_guesses

import harness as jp  # the browser suite's helpers, from its folder

pytestmark = pytest.mark.skipif(
    os.environ.get("GRADKIT_TEST_CLASS_HUB") != "1", reason="opt-in: make test-class-hub"
)

HUB_USER = "jovyan"


def readme_block(first_line: str) -> str:
    """A ```python block of the README's nbgrader section that starts with ``first_line``."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Teaching with nbgrader")[1]
    found = re.search(rf"```python\n({re.escape(first_line)}.*?)```", section, re.S)
    assert found, f"the README's nbgrader section has no ```python block starting {first_line!r}"
    return found.group(1)


@pytest.fixture(scope="module")
def hub_user():
    """The Unix user ``jovyan`` (made for the test, and removed after, when missing)."""
    if os.geteuid() != 0:
        pytest.fail("make test-class-hub runs the hub as the user jovyan: run it as root")
    try:
        pwd.getpwnam(HUB_USER)
        made = False
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", HUB_USER],
            check=True,
        )
        made = True
    try:
        yield pwd.getpwnam(HUB_USER)
    finally:
        if made:
            subprocess.run(["userdel", HUB_USER], check=False)


def _others_can_run(path: Path) -> bool:
    """Whether a user other than its owner can reach and run ``path`` (every folder above
    it searchable by others)."""
    path = path.resolve()
    return all(p.stat().st_mode & 0o001 for p in (path, *path.parents))


def _python_for_others() -> Path:
    """This Python's version, as an interpreter the hub's user can run: this one's own, or the
    system's (a Python installed under /root, as pyenv does, is out of other users' reach)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for folder in (Path(sys.base_prefix) / "bin", Path("/usr/local/bin"), Path("/usr/bin")):
        if (folder / version).exists() and _others_can_run(folder / version):
            return folder / version
    pytest.fail(f"no {version} that the user {HUB_USER} can run (this one is in a private folder)")


def _install(root: Path) -> None:
    """A venv of that interpreter with jupyterhub, seeing gradkit's ``.venv`` (as test_hub's)."""
    venv = root / "class-venv"
    run([str(_python_for_others()), "-m", "venv", "--without-pip", str(venv)], root)
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.check_output([str(venv / "bin" / "python"), "-c", where], text=True)
    purelib = purelib.strip()
    ours = sysconfig.get_paths()["purelib"]  # gradkit (editable: its own .pth), torch, notebook
    # a system Python's own distutils comes before setuptools' (Debian): setuptools is told so
    Path(purelib, "gradkit-venv.pth").write_text(
        "import os, site; os.environ.setdefault('SETUPTOOLS_USE_DISTUTILS', 'stdlib'); "
        f"site.addsitedir({ours!r})\n"
    )
    for shared in ("etc/jupyter", "share/jupyter"):  # server extensions, widget front ends
        (venv / shared).parent.mkdir(parents=True, exist_ok=True)
        (venv / shared).symlink_to(Path(sys.prefix, shared))
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", JUPYTERHUB], root)
    if not (root / "npm" / "node_modules" / ".bin" / "configurable-http-proxy").exists():
        npm = ["npm", "install", "--prefix", str(root / "npm"), "--no-audit", "--no-fund", PROXY]
        run(npm, root)


@pytest.fixture(scope="module")
def hub_env():
    """The throwaway environment (``GRADKIT_HUB_ENV_DIR``: one made before, kept after)."""
    if not jp.have_chromium():
        pytest.fail(jp.chromium_missing_message(), pytrace=False)
    kept = os.environ.get("GRADKIT_HUB_ENV_DIR")
    root = Path(kept or tempfile.mkdtemp(prefix="gradkit-class-hub-"))
    root.chmod(0o755)  # the hub's user reaches the venv and the proxy
    try:
        if not (root / "class-venv" / "bin" / "jupyterhub").exists():
            _install(root)
        yield root
    finally:
        if not kept:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def class_hub(hub_env, hub_user):
    """The course released, the hub started as jovyan; all stopped by PID and removed after."""
    top = hub_env / "class"
    shutil.rmtree(top, ignore_errors=True)
    folders = {name: top / name for name in ("hub", "homes", "cache", "config", "course")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    top.chmod(0o755)
    for name in ("hub", "homes", "cache"):
        os.chown(folders[name], hub_user.pw_uid, hub_user.pw_gid)
    folders["course"].chmod(0o700)  # the teacher's: no learner reads the solutions
    exchange = top / "exchange"
    exchange.mkdir(mode=0o777)
    exchange.chmod(0o777)  # nbgrader's exchange: every learner's server writes its inbound
    learners_config = readme_block("# nbgrader_config.py").replace(
        "/srv/nbgrader/exchange", str(exchange)
    )
    (folders["config"] / "nbgrader_config.py").write_text(learners_config)
    teacher_releases(folders["course"], exchange)

    config = readme_config() + "\n" + readme_block("# jupyterhub_config.py, for nbgrader")
    (folders["hub"] / "jupyterhub_config.py").write_text(config)
    port = jp.free_port()
    env = {
        "PATH": f"{hub_env / 'class-venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(folders["hub"]),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HUB_URL": f"http://127.0.0.1:{port}",
        "HUB_API_PORT": str(jp.free_port()),
        "HUB_PROXY_API_PORT": str(jp.free_port()),
        "HUB_PASSWORD": secrets.token_urlsafe(12),
        "HUB_USERS": " ".join(ANSWERS),
        "HUB_HOMES": str(folders["homes"]),
        "HUB_PROXY": str(hub_env / "npm" / "node_modules" / ".bin" / "configurable-http-proxy"),
        "GRADKIT_CACHE": str(folders["cache"]),
        "NBGRADER_CONFIG_DIR": str(folders["config"]),
        # only for the test's browser helpers (window.jupyterapp); learners do not need it
        "HUB_EXTRA_ARGS": "--JupyterNotebookApp.expose_app_in_browser=True",
    }
    log_path = top / "hub.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [str(hub_env / "class-venv" / "bin" / "jupyterhub"), "-f", "jupyterhub_config.py"],
        cwd=folders["hub"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        user=hub_user.pw_uid,
        group=hub_user.pw_gid,
        extra_groups=[],
    )
    try:
        deadline = time.monotonic() + 180
        while jp.http_status(f"{env['HUB_URL']}/hub/api") != 200:
            assert process.poll() is None, log_path.read_text()[-4000:]
            assert time.monotonic() < deadline, log_path.read_text()[-4000:]
            time.sleep(0.5)
        yield {"url": env["HUB_URL"], "password": env["HUB_PASSWORD"], **folders, "top": top}
    finally:
        jp.stop_tree(process.pid, timeout=20)
        log.close()
        artifacts = ROOT / "artifacts" / "hub"
        artifacts.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log_path, artifacts / "class-hub.log")  # to read after a failure
        shutil.rmtree(top, ignore_errors=True)


#: The Assignments tab's own request (nbgrader's server API), with the page's XSRF token.
_ASSIGNMENT_ACTION_JS = """async ([url, course, assignment]) => {
  const xsrf = (document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1] || '';
  const body = new URLSearchParams({course_id: course, assignment_id: assignment});
  const reply = await fetch(url, {method: 'POST', body, headers: {'X-XSRFToken': xsrf},
                                  credentials: 'same-origin'});
  return {status: reply.status, text: await reply.text()};
}"""

#: ada's answer: the solution in each exercise cell, written through the page's notebook model.
_WRITE_SOLUTIONS_JS = """(solutions) => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells;
  let written = 0;
  for (const cell of cells) {
    const key = ((cell.getMetadata() || {}).gradkit || {}).exercise;
    if (key && solutions[key]) { cell.setSource(solutions[key]); written += 1; }
  }
  return written;
}"""

#: The first code cell not run yet (Run All stops at a cell that raises, as bob's check does).
_FIRST_NOT_RUN_JS = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells;
  return cells.findIndex(c => c.cell_type === 'code' && c.execution_count === null);
}"""

_RUN_FROM_JS = """async (index) => {
  const notebook = window.jupyterapp.shell.currentWidget.content;
  notebook.activeCellIndex = index;
  await window.jupyterapp.commands.execute('notebook:run-all-below');
}"""

#: The recording cell's outputs as the page's notebook model holds them (what a save writes).
_RECORD_OUTPUTS_JS = """(gradeId) => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells;
  const cell = cells.find(c => (((c.getMetadata() || {}).nbgrader || {}).grade_id === gradeId));
  return cell ? cell.toJSON().outputs : null;
}"""


def _assignment_action(page, hub: dict, user: str, action: str) -> list:
    url = f"{hub['url']}/user/{user}/assignments/{action}"
    reply = page.evaluate(_ASSIGNMENT_ACTION_JS, [url, "gradkit", ASSIGNMENT])
    assert reply["status"] == 200, (user, action, reply)
    listed = json.loads(reply["text"])
    assert isinstance(listed, dict) and listed.get("success"), (user, action, listed)
    return listed["value"]


def _work_and_save(page, hub: dict, user: str, lesson: str) -> list:
    """Open the fetched notebook, answer as ``user``, save as the page does; the recording
    cell's outputs as the page held them."""
    from gradkit.exercises import EXERCISES

    page.goto(f"{hub['url']}/user/{user}/notebooks/{ASSIGNMENT}/{lesson}.ipynb")
    jp.wait_kernel_idle(page, 180_000)
    if user == "ada":
        solutions = {key: ex.solution for key, ex in EXERCISES.items()}
        assert page.evaluate(_WRITE_SOLUTIONS_JS, solutions) == (lesson != "01_nudging") * 2
    counts = jp.run_all(page, 300_000)
    for _ in range(10):  # as a learner goes on after a failing check: the cells after it
        index = page.evaluate(_FIRST_NOT_RUN_JS)
        if index < 0:
            break
        page.evaluate(_RUN_FROM_JS, index)
        jp.wait_quiet(page, 500, 300_000)
    assert page.evaluate(_FIRST_NOT_RUN_JS) == -1, (user, lesson, "cells left unrun")
    assert counts["rendered"] >= counts["expected"] > 0, (user, lesson, counts)
    jp.kernel_execute(page, ANSWERS[user][lesson], 120_000)
    page.wait_for_function(  # the kernel's record reaches the recording cell's output
        f"() => JSON.stringify(({_RECORD_OUTPUTS_JS})('{RECORD_CELL}')).includes('\"right\"')",
        timeout=60_000,
    )
    outputs = page.evaluate(_RECORD_OUTPUTS_JS, RECORD_CELL)
    page.evaluate("async () => await window.jupyterapp.commands.execute('docmanager:save')")
    jp.shutdown_kernel(page)
    return outputs


def test_two_hub_learners_fetch_answer_submit_and_the_teacher_grades(class_hub):
    from playwright.sync_api import sync_playwright

    hub = class_hub
    shown: dict = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=jp.CHROMIUM, args=jp.CHROMIUM_ARGS)
        try:
            for user in ANSWERS:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.add_init_script(jp.PAGE_JS)
                context.add_init_script(jp.FORGET_PROGRESS_JS)
                page = log_in(context, hub, user)
                page.goto(f"{hub['url']}/user/{user}/tree")
                listed = _assignment_action(page, hub, user, "fetch")
                assert [a["status"] for a in listed if a["assignment_id"] == ASSIGNMENT] == [
                    "fetched"
                ]
                for lesson in LESSONS:
                    shown[user, lesson] = _work_and_save(page, hub, user, lesson)
                _assignment_action(page, hub, user, "submit")
                context.close()
        finally:
            browser.close()
    inbound = sorted(p.name.split("+")[0] for p in (hub["top"] / "exchange").glob("*/inbound/*"))
    assert inbound == sorted(ANSWERS), inbound  # one submission per hub user, named after them
    teacher_grades(hub["course"])
    for (user, lesson), outputs in shown.items():
        submitted = hub["course"] / "submitted" / user / ASSIGNMENT
        nb = json.loads((submitted / f"{lesson}.ipynb").read_text())
        ids = [c["metadata"].get("nbgrader", {}).get("grade_id") for c in nb["cells"]]
        cell = nb["cells"][ids.index(RECORD_CELL)]
        saved = [o for o in cell["outputs"] if RECORD_MIME in o.get("data", {})]
        assert len(saved) == 1 and saved[0]["output_type"] == "display_data", cell["outputs"]
        assert "transient" not in saved[0]  # the page saves the output, not its display id
        assert saved[0]["data"][RECORD_MIME] == outputs[-1]["data"][RECORD_MIME]
        record = read_saved_guesses(submitted, lesson)
        assert record.problems == [] and any(record.guesses.values()), (user, lesson, record)
    print(check_the_class(hub["course"], hub["top"] / "pictures"))
