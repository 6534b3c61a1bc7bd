"""Fixtures for the browser suite: one Notebook 7 server, one chromium, lessons run once each.

The server is started the way ``make notebook`` starts it (``gradkit notebook``), on a copy of the
lessons in a temporary folder (running cells saves outputs, which must never land in
``notebooks/``), on 127.0.0.1, a free port and a random token; it is stopped by PID at the end of
the session together with its kernels. Chromium is Debian's (``/usr/bin/chromium``), never one
that Playwright downloads.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import expect

from gradkit.bench import _jupyter as jp
from gradkit.cli import lesson_files

REPO = Path(__file__).resolve().parents[2]
#: Screenshots of every lesson after Run All (git-ignored).
SCREENSHOTS = REPO / "artifacts" / "screenshots"
#: Lessons whose page stays open after the Run All test, for the tests that drive their widgets.
KEEP_OPEN = ("03_float32_noise.ipynb", "04_wrong_backward.ipynb")

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
    return root


@pytest.fixture(scope="session")
def notebook_server(
    lesson_copy: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[jp.Server]:
    """``gradkit notebook`` on the lesson copy, with ``window.jupyterapp`` exposed for the tests."""
    server = jp.start_notebook(
        lesson_copy,
        tmp_path_factory.mktemp("notebook-server"),
        token=secrets.token_hex(24),
        extra=["--JupyterNotebookApp.expose_app_in_browser=True"],
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser_context(browser) -> Iterator:
    """One browser context for the session, with the paint recorder (``window.__gk``) installed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(jp.PAGE_JS)
    context.set_default_timeout(30_000)
    try:
        yield context
    finally:
        context.close()


@dataclass
class LessonRun:
    """A lesson opened in Notebook 7 and run top to bottom (Run All)."""

    name: str
    page: object
    widgets: dict
    problems: list[str]
    seconds: float
    screenshot: Path
    console_errors: list[str] = field(default_factory=list)


class Lessons:
    """Opens each lesson once per session, runs it, and keeps what the later tests need.

    While one lesson runs, the next one in lesson order is already loading (its page and kernel
    start meanwhile), and kernels are shut down in the background: the suite waits less.
    """

    def __init__(self, context, server: jp.Server, shots: Path, order: list[str]) -> None:
        self._context, self._server, self._shots, self._order = context, server, shots, order
        self._runs: dict[str, LessonRun] = {}
        self._loading: dict[str, tuple[object, list[str], dict, float]] = {}
        self._shutdowns: list[threading.Thread] = []

    def _begin(self, name: str) -> None:
        if name in self._runs or name in self._loading:
            return
        page = self._context.new_page()
        errors: list[str] = []
        state = {"running": False}

        def record(error: Exception) -> None:
            # Notebook 7.6.5 itself throws "Cannot read properties of undefined (reading
            # 'schema')" while it loads any notebook: only errors from Run All on count.
            if state["running"]:
                errors.append(str(error))

        page.on("pageerror", record)
        jp.begin_open(page, self._server, name)
        self._loading[name] = (page, errors, state, time.perf_counter())

    def _next(self, name: str) -> str | None:
        later = self._order[self._order.index(name) + 1 :] if name in self._order else []
        return next((n for n in later if n not in self._runs), None)

    def run(self, name: str) -> LessonRun:
        """The lesson ``name`` (file name), opened and run; cached for the session."""
        if name not in self._runs:
            self._begin(name)
            page, errors, state, start = self._loading.pop(name)
            jp.wait_kernel_idle(page)
            following = self._next(name)
            if following is not None:
                self._begin(following)
            page.bring_to_front()
            state["running"] = True
            widgets = jp.run_all(page)
            seconds = time.perf_counter() - start
            shot = jp.full_screenshot(page, self._shots / f"{Path(name).stem}.png")
            self._runs[name] = LessonRun(
                name, page, widgets, jp.problems(page), seconds, shot, errors
            )
        run = self._runs[name]
        run.page.bring_to_front()  # a background tab gets no animation frames
        return run

    def finished(self, name: str) -> None:
        """A test is done with lesson ``name``: release it unless a later test drives it."""
        if name not in KEEP_OPEN:
            self.release(name)

    def release(self, name: str) -> None:
        """Close the lesson's page and shut its kernel down (in the background)."""
        run = self._runs.pop(name, None)
        if run is not None:
            self._close(run.page)

    def _close(self, page) -> None:
        if page.is_closed():
            return
        session = jp.session_id(page)
        page.close()
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
            with contextlib.suppress(Exception):  # a page that never finished loading
                jp.wait_kernel_idle(page, 30_000)
            self._close(page)
        self._loading.clear()
        for thread in self._shutdowns:
            thread.join(timeout=30)


@pytest.fixture(scope="session")
def lessons(browser_context, notebook_server: jp.Server, screenshot_dir: Path) -> Iterator[Lessons]:
    """Lesson pages, each run once per session (see :class:`Lessons`)."""
    order = [path.name for path in lesson_files()]
    pages = Lessons(browser_context, notebook_server, screenshot_dir, order)
    try:
        yield pages
    finally:
        pages.close()


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
