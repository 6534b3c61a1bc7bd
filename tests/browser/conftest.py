"""Fixtures for the browser suite: one server per front end, one chromium, lessons run once each.

Front ends (:data:`FRONT_ENDS`), each one server for the whole session, started when a test first
needs it and stopped by PID (with its kernels) at the end:

- ``notebook``: Notebook 7 started the way ``make notebook`` starts it (``gradkit notebook``);
- ``lab``: JupyterLab 4, ``windowingMode`` ``none`` (every cell stays in the DOM);
- ``voila``: Voila serving the lesson folder, one app per lesson;
- ``no-ipympl``: Notebook 7 where ipympl is absent for its kernels and its browser extension is
  switched off (:func:`harness.no_ipympl_env`); the project's virtual environment is not changed;
- ``lab-no-ipympl``: JupyterLab 4 the same way without ipympl.

By default the lessons run in :data:`FRONT_ENDS` (Notebook 7, JupyterLab 4 without ipympl, Voila).

Every server serves a copy of the lessons in a temporary folder (running cells saves outputs,
which must never land in ``notebooks/``), listens on 127.0.0.1 with a random token. Chromium is
Debian's (``/usr/bin/chromium``), never one that Playwright downloads.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import expect

from gradkit.cli import lesson_files

import harness as jp
import unfold

REPO = Path(__file__).resolve().parents[2]
#: Screenshots of every lesson after Run All, one folder per front end (git-ignored).
SCREENSHOTS = REPO / "artifacts" / "screenshots"
#: Every front end the suite can run the lessons in (see the module docstring).
ALL_FRONT_ENDS = ("notebook", "lab", "voila", "no-ipympl", "lab-no-ipympl")
#: The front ends every lesson runs in by default: Notebook 7, JupyterLab 4 without ipympl
#: (both claims, "runs in JupyterLab 4" and "shows every picture without ipympl", in one run, to
#: keep the suite short on two cores) and Voila. ``GRADKIT_BROWSER_FRONT_ENDS=notebook,lab,...``
#: picks others from :data:`ALL_FRONT_ENDS`.
FRONT_ENDS = tuple(
    name.strip()
    for name in os.environ.get("GRADKIT_BROWSER_FRONT_ENDS", "notebook,lab-no-ipympl,voila").split(
        ","
    )
    if name.strip()
)
if unknown := sorted(set(FRONT_ENDS) - set(ALL_FRONT_ENDS)):
    raise ValueError(
        f"GRADKIT_BROWSER_FRONT_ENDS names {unknown}; choose from {', '.join(ALL_FRONT_ENDS)}"
    )

#: Notebooks the suite adds next to the lessons (not lessons themselves): a probe for the
#: environment, and one cell per main widget for the tests that drive widgets.
EXTRA_NOTEBOOKS = {
    "_probe.ipynb": ["1 + 1"],
    "_widgets.ipynb": [
        "from gradkit.widgets import EpsilonLab, FloatRuler, GradcheckLab, SlopeExplorer",
        "explorer = SlopeExplorer()\nexplorer",
        'eps_lab = EpsilonLab(f="x³", x=0.5)\neps_lab',
        "ruler = FloatRuler()\nruler",
        "gradcheck_lab = GradcheckLab()\ngradcheck_lab",
    ],
    "_practice.ipynb": [
        "from gradkit.widgets import ExercisePanel, ZooHunt",
        'panel = ExercisePanel("cube", namespace={})\npanel',
        'hunt = ZooHunt(["WrongSquareFn", "CubeFn"])\nhunt',
    ],
    # a planted spoiler: the Predict's own cell prints the answer (no gate can hide it)
    "_spoiler.ipynb": [
        "import torch\nfrom gradkit import cost\nfrom gradkit.widgets import Predict\n"
        "ten = torch.rand(10, dtype=torch.float64, requires_grad=True)",
        "calls = cost.count_calls(torch.sin, (ten,)).forward\n"
        'display(Predict("07-calls-n10", compute=lambda: calls))\nprint("forward calls:", calls)',
        'print("what the lesson says next")',
    ],
}

#: A full-page screenshot of every lesson run, not only of one whose check failed (each takes
#: a page as tall as the lesson, up to 16,000 px: about half a second, 32 lesson runs a session).
EVERY_SCREENSHOT = os.environ.get("GRADKIT_BROWSER_SCREENSHOTS") == "all"

FAILS_WITH_PRECISION = re.compile(
    r"GradcheckError[\s\S]*\bprecision\b|\bprecision\b[\s\S]*GradcheckError"
)
PASSES = re.compile(r"\bpass(es|ed)?\b", re.IGNORECASE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the browser tests after all others.

    pytest-playwright's session-wide sync API leaves an asyncio loop marked as running in the main
    thread until the session ends; a test after it that calls ``asyncio.run()`` (nbclient does)
    would fail with "asyncio.run() cannot be called from a running event loop".
    """
    here = Path(__file__).resolve().parent
    mine = [item for item in items if here in item.path.resolve().parents]
    if mine:
        others = [item for item in items if here not in item.path.resolve().parents]
        items[:] = others + mine


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Launch Debian's chromium headless, without GPU, sandbox or background network."""
    if not jp.have_chromium():
        pytest.fail(jp.chromium_missing_message(), pytrace=False)
    return {**browser_type_launch_args, "executable_path": jp.CHROMIUM, "args": jp.CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """Where the suite saves its screenshots (``artifacts/screenshots``, git-ignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def lesson_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throwaway copy of the lesson notebooks (the folder the servers serve)."""
    files = lesson_files()
    if not files:
        pytest.fail("no lesson notebooks found in notebooks/", pytrace=False)
    root = tmp_path_factory.mktemp("lessons")
    for source in files:
        shutil.copyfile(source, root / source.name)
    for name, cells in EXTRA_NOTEBOOKS.items():
        jp.write_notebook(root / name, cells)
    return root


class Servers:
    """One server per front end, started on first use, all stopped by :meth:`close`."""

    def __init__(self, root: Path, workdirs: Callable[[str], Path]) -> None:
        self._root, self._workdirs = root, workdirs
        self._servers: dict[str, jp.Server] = {}
        self._lock = threading.Lock()

    def __getitem__(self, front_end: str) -> jp.Server:
        with self._lock:
            if front_end not in self._servers:
                self._servers[front_end] = self._start(front_end)
            return self._servers[front_end]

    def _start(self, front_end: str) -> jp.Server:
        workdir = self._workdirs(front_end)
        token = secrets.token_hex(24)
        expose = ["--JupyterNotebookApp.expose_app_in_browser=True"]
        if front_end == "notebook":
            return jp.start_notebook(self._root, workdir, token=token, extra=expose)
        if front_end == "no-ipympl":
            env = jp.no_ipympl_env(workdir)
            return jp.start_notebook(self._root, workdir, token=token, extra=expose, env=env)
        if front_end == "lab":
            return jp.start_lab(self._root, workdir, token=token)
        if front_end == "lab-no-ipympl":
            return jp.start_lab(self._root, workdir, token=token, env=jp.no_ipympl_env(workdir))
        if front_end == "voila":
            # a closed app's kernel is culled after 10 s without a connection
            cull = [
                "--MappingKernelManager.cull_idle_timeout=10",
                "--MappingKernelManager.cull_interval=5",
            ]
            return jp.start_voila(self._root, workdir, token=token, extra=cull)
        raise ValueError(f"front_end must be one of {ALL_FRONT_ENDS}, got {front_end!r}")

    def close(self) -> None:
        for server in self._servers.values():
            server.stop()
        self._servers.clear()


@pytest.fixture(scope="session")
def servers(lesson_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """The session's servers, one per front end (``servers["lab"]``), started on first use."""
    pool = Servers(lesson_copy, lambda name: tmp_path_factory.mktemp(f"server-{name}"))

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    # A terminated run (a CI timeout) still stops its servers and kernels: pytest runs the
    # fixtures' teardown on KeyboardInterrupt, not on SIGTERM.
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield pool
    finally:
        pool.close()
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def notebook_server(servers: Servers) -> jp.Server:
    """``gradkit notebook`` on the lesson copy, with ``window.jupyterapp`` exposed for the tests."""
    return servers["notebook"]


@pytest.fixture(scope="session")
def browser_context(browser) -> Iterator:
    """One browser context for the session, with the paint recorder (``window.__gk``) installed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(jp.PAGE_JS)
    # every page of the shared context starts as a learner's first visit: no Predict's guess
    # kept from another test (practice/progress.js; tests/browser/test_predict_progress.py
    # checks the keeping, in a browser of its own)
    context.add_init_script(jp.FORGET_PROGRESS_JS)
    context.set_default_timeout(30_000)
    try:
        yield context
    finally:
        context.close()


@dataclass
class LessonRun:
    """A lesson opened in one front end and run top to bottom (Run All, or Voila's own run).

    ``problems``: error outputs, cells that never ran, error texts in output areas, non-empty
    gradkit error areas, button or label texts cut off. ``picture_problems``: pictures without
    size or drawn content. ``screenshot``: where its full-page screenshot goes, taken when a
    check of the lesson fails (:func:`lesson_checks.check_lesson_run`), or for every lesson with
    ``GRADKIT_BROWSER_SCREENSHOTS=all`` (:data:`EVERY_SCREENSHOT`).
    ``text``: the page's visible text (for Voila's "no menu instructions" check).
    ``verdicts``: the texts of the gradcheck verdicts and reports the lesson shows. ``unfold``:
    what a learner saw at each Predict before locking in a guess (:mod:`unfold`). The record
    stays after the page is closed (``page.is_closed()``).
    """

    name: str
    front_end: str
    page: object
    widgets: dict
    problems: list[str]
    picture_problems: list[str]
    seconds: float
    screenshot: Path
    text: str = ""
    verdicts: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    #: the learner's walk through the Predicts after Run All (:func:`unfold.walk`)
    unfold: list[dict] = field(default_factory=list)


class Lessons:
    """Opens each lesson once per session in one front end, runs it, keeps what tests need.

    While one lesson runs, the next one of ``order`` (the lessons the tests ask for, in their
    order) is already loading (its page and kernel start meanwhile), and kernels are shut down in
    the background: the suite waits less. Not in Voila: there asking for the page runs the whole
    lesson, which :func:`harness.open_voila` does once, in the tab in front. Not in JupyterLab
    either: there every lesson after the first opens as a tab of the first one's page, once the
    lesson before it is closed (:func:`harness.open_tab`), so that JupyterLab starts once, not
    once per lesson, and the page holds one notebook at a time, as each check expects.
    """

    def __init__(
        self, context, server: jp.Server, front_end: str, shots: Path, order: list[str]
    ) -> None:
        self._context, self._server, self._front_end = context, server, front_end
        self._shots, self._order = shots / front_end, order
        self._runs: dict[str, LessonRun] = {}
        self._loading: dict[str, tuple[object, list[str], dict, float]] = {}
        self._shutdowns: list[threading.Thread] = []
        #: JupyterLab: the page every lesson opens in, its error recorder's state, and the lesson
        #: whose notebook it shows
        self._lab_page: tuple[object, dict] | None = None
        self._lab_shows: str | None = None

    @property
    def voila(self) -> bool:
        return self._server.kind == "voila"

    @property
    def tabs(self) -> bool:
        """Whether lessons open as tabs of one page (JupyterLab)."""
        return self._server.kind == "lab"

    def _begin(self, name: str) -> None:
        if name in self._runs or name in self._loading:
            return
        if self.tabs and self._lab_page is not None:
            return  # opened in the page already up, when it is run (_open_tab)
        page = self._context.new_page()
        # Notebook 7.6.5 itself throws "Cannot read properties of undefined (reading 'schema')"
        # while it loads any notebook: only errors from Run All on count. Voila runs the cells
        # while the page loads, so there every error counts. In JupyterLab each lesson of the
        # page gets a list of its own (_open_tab).
        state = {"running": self.voila, "errors": []}

        def record(error: Exception) -> None:
            if state["running"]:
                state["errors"].append(str(error))

        page.on("pageerror", record)
        if not self.voila:  # Voila runs the lesson when the page is asked for: in run()
            jp.begin_open(page, self._server, name)
        if self.tabs:
            self._lab_page, self._lab_shows = (page, state), name
        self._loading[name] = (page, state["errors"], state, time.perf_counter())

    def _open_tab(self, name: str) -> None:
        """JupyterLab: open lesson ``name`` in the page already up, after closing the lesson it
        shows (its record stays)."""
        page, state = self._lab_page
        if self._lab_shows is not None:
            self.release(self._lab_shows)
        state["running"], state["errors"] = False, []
        start = time.perf_counter()
        jp.open_tab(page, name)
        self._lab_shows = name
        self._loading[name] = (page, state["errors"], state, start)

    @contextlib.contextmanager
    def notebook(self, name: str) -> Iterator[object]:
        """A page showing notebook ``name`` with its kernel idle, for a check that is no lesson
        run (no record); its kernel is shut down after. In JupyterLab a tab of the lessons' page
        when that is up (the lesson it shows is closed first), elsewhere a page of its own."""
        if self.tabs and self._lab_page is not None and self._lab_shows not in self._loading:
            page = self._lab_page[0]
            if self._lab_shows is not None:
                self.release(self._lab_shows)
            jp.open_tab(page, name)
            try:
                jp.wait_kernel_idle(page)
                yield page
            finally:
                self._shut_down(jp.close_tab(page, name))
            return
        page = self._context.new_page()
        try:
            jp.open_notebook(page, self._server, name)
            yield page
        finally:
            jp.shutdown_kernel(page)
            page.close()

    def _next(self, name: str) -> str | None:
        later = self._order[self._order.index(name) + 1 :] if name in self._order else []
        return next((n for n in later if n not in self._runs), None)

    def run(self, name: str) -> LessonRun:
        """The lesson ``name`` (file name), opened and run; cached for the session."""
        if name not in self._runs:
            if self.tabs and self._lab_page is not None and name not in self._loading:
                self._open_tab(name)
            self._begin(name)
            page, errors, state, start = self._loading.pop(name)
            if not self.voila:
                jp.wait_kernel_idle(page)
            # Voila runs a lesson each time its page is asked for, and a page loaded in a
            # background tab is not what a learner sees: its next lesson is not loaded ahead
            following = None if self.voila else self._next(name)
            if following is not None:
                self._begin(following)
            page.bring_to_front()
            state["running"] = True
            if self.voila:
                widgets = jp.open_voila(page, self._server, name)
                problems = jp.output_problems(page, "page")
            else:
                widgets = jp.run_all(page)
                problems = jp.problems(page) + [
                    p for p in jp.output_problems(page) if not p.startswith("gradkit error area")
                ]
            outputs = "body" if self.voila else ".jp-NotebookPanel"
            jp.wait_settled(page.locator(outputs).first, 300)
            # what a learner meets first: the lesson up to its first Predict (a viewport's worth)
            self._shots.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(self._shots / f"{Path(name).stem}-closed.png"))
            walked = unfold.walk(page)  # every Predict locked in, one after the other
            unfold.open_all(page)  # what no Predict opened (a planted page): the checks see all
            jp.wait_settled(page.locator(outputs).first, 300)
            seconds = time.perf_counter() - start
            scope = "page" if self.voila else "notebook"
            pictures = jp.picture_problems(page, scope)
            problems += jp.clipped_labels(page, scope)
            shot = self._shots / f"{Path(name).stem}.png"
            if EVERY_SCREENSHOT:
                jp.full_screenshot(page, shot)
            text = page.locator("body").inner_text() if self.voila else ""
            verdicts = page.locator(
                ".jp-OutputArea-output .gradkit-verdict, .jp-OutputArea-output .gradkit-report"
            ).all_inner_texts()
            self._runs[name] = LessonRun(
                name,
                self._front_end,
                page,
                widgets,
                problems,
                pictures,
                seconds,
                shot,
                text,
                verdicts,
                errors,
                walked,
            )
        run = self._runs[name]
        if not run.page.is_closed():
            run.page.bring_to_front()  # a background tab gets no animation frames
        return run

    def release(self, name: str) -> None:
        """Close the lesson's page and shut its kernel down (in the background); the record of
        the run stays."""
        run = self._runs.get(name)
        if run is None:
            return
        if self.tabs and self._lab_shows == name and not run.page.is_closed():
            self._lab_shows = None
            self._shut_down(jp.close_tab(run.page, name))
        elif not self.tabs:
            self._close(run.page)

    def _close(self, page) -> None:
        # a page closed with run_before_unload (Voila) may still read open: closed only once
        if page.is_closed() or getattr(page, "_gradkit_closing", False):
            return
        page._gradkit_closing = True
        session = None if self.voila else jp.session_id(page)
        # Voila shuts its kernel down on unload (and culls it 10 s later when not); a Notebook 7
        # page must not run it: a "leave page?" dialog would keep the page open.
        page.close(run_before_unload=self.voila)
        self._shut_down(session)

    def _shut_down(self, session: str | None) -> None:
        """Shut the kernel of Jupyter session ``session`` down, in the background."""
        if session:
            thread = threading.Thread(
                target=self._server.api, args=(f"api/sessions/{session}", "DELETE"), daemon=True
            )
            thread.start()
            self._shutdowns.append(thread)

    def close(self) -> None:
        """Release every page, the ones still loading too, and wait for the kernels to stop."""
        for name in list(self._runs):
            self.release(name)
        for page, *_ in self._loading.values():
            if not self.voila:
                with contextlib.suppress(Exception):  # a page that never finished loading
                    jp.wait_kernel_idle(page, 30_000)
            self._close(page)
        self._loading.clear()
        if self._lab_page is not None:
            self._close(self._lab_page[0])
            self._lab_page = None
        for thread in self._shutdowns:
            thread.join(timeout=30)


def lesson_order(items: list[pytest.Item]) -> dict[str, list[str]]:
    """Front end -> the lessons the session's tests run there (their ``front_end`` and ``name``
    parameters, tests that use ``all_lessons``), in the order the tests come: what
    :class:`Lessons` loads ahead. JupyterLab runs a few lessons only: loading the next lesson of
    the folder there started four kernels and pages no test used."""
    order: dict[str, list[str]] = {}
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        front_end, name = params.get("front_end"), params.get("name")
        if "all_lessons" in getattr(item, "fixturenames", ()) and front_end and name:
            names = order.setdefault(front_end, [])
            if name not in names:
                names.append(name)
    return order


class AllLessons:
    """:class:`Lessons` for each front end, made on first use: ``all_lessons["lab"].run(name)``.

    ``order``: front end -> the lessons in the order the tests ask for them
    (:func:`lesson_order`); a lesson outside it loads nothing ahead."""

    def __init__(self, context, servers: Servers, shots: Path, order: dict[str, list[str]]) -> None:
        self._context, self._servers, self._shots = context, servers, shots
        self._order = order
        self._by_front_end: dict[str, Lessons] = {}

    def __getitem__(self, front_end: str) -> Lessons:
        # one front end at a time: the others' pages are closed (their records stay)
        for other, lessons in self._by_front_end.items():
            if other != front_end:
                lessons.close()
        if front_end not in self._by_front_end:
            server = self._servers[front_end]
            self._by_front_end[front_end] = Lessons(
                self._context, server, front_end, self._shots, self._order.get(front_end, [])
            )
        return self._by_front_end[front_end]

    def close(self) -> None:
        for lessons in self._by_front_end.values():
            lessons.close()


@pytest.fixture(scope="session")
def all_lessons(
    request: pytest.FixtureRequest, browser_context, servers: Servers, screenshot_dir: Path
) -> Iterator[AllLessons]:
    """Lesson pages in every front end, each run once per session (see :class:`Lessons`)."""
    order = lesson_order(request.session.items)
    pages = AllLessons(browser_context, servers, screenshot_dir, order)
    try:
        yield pages
    finally:
        pages.close()


@pytest.fixture(scope="session")
def lessons(all_lessons: AllLessons) -> Lessons:
    """Lesson pages in Notebook 7 (``lessons.run(name)``)."""
    return all_lessons["notebook"]


def _check_dtype_switch(lab, screenshot: Path | None = None) -> None:
    """In a GradcheckLab (a Locator): float32 -> GradcheckError with cause precision, then
    float64 -> pass, by clicking its dtype control the way a learner does."""
    verdict = lab.locator(".gradkit-verdict").first
    dtype = lab.locator(".gradkit-dtype").first
    dtype.scroll_into_view_if_needed()
    jp.choose(dtype, "float32")
    expect(verdict).to_contain_text(FAILS_WITH_PRECISION, timeout=20_000)
    if screenshot is not None:
        jp.wait_settled(lab)
        lab.screenshot(path=str(screenshot))
    jp.choose(dtype, "float64")
    expect(verdict).to_contain_text(PASSES, timeout=20_000)
    expect(verdict).not_to_contain_text("GradcheckError")


@pytest.fixture(scope="session")
def check_dtype_switch():
    """The GradcheckLab dtype round trip, shared by the Notebook 7 and Voila tests."""
    return _check_dtype_switch
