"""How ``make test`` (``pytest -n 2 --dist loadfile``) hands test files to its two workers:
by work unit (a file, or the file whose session it reads: :data:`SAME_WORKER`), the longest unit
first (:data:`SECONDS`). ``tests/conftest.py``'s ``pytest_xdist_make_scheduler`` uses it."""

from __future__ import annotations

import pytest

#: Test files that read what another test file builds once per session, and that file: under
#: ``pytest -n 2 --dist loadfile`` (``make test``) both run in one worker, which builds it once.
#: tests/test_lesson_text.py reads the lessons tests/test_notebooks.py executed (``executed``):
#: on the other worker it executed every lesson a second time. tests/test_xdist_scope.py checks
#: that every test file importing from another test file is named here.
SAME_WORKER = {
    "tests/test_lesson_text.py": "tests/test_notebooks.py",
    "tests/hub/test_class_hub.py": "tests/hub/test_hub.py",
}


def worker_scope(nodeid: str) -> str:
    """The unit of work ``--dist loadfile`` gives one worker for the test ``nodeid``: its file,
    or the file whose session it reads (:data:`SAME_WORKER`)."""
    path = nodeid.split("::", 1)[0]
    return SAME_WORKER.get(path, path)


#: Rough serial seconds of the longest units (one file at a time, 5 December 2026, 2 cores).
#: A worker takes the next unit when it is nearly done: the longest go first, so that the last
#: ones are short and both workers end together. xdist's own order, most tests first, left files
#: of 1-4 browser tests (10-35 s each) for last. A unit not named here counts
#: :data:`PER_TEST` seconds a test (:data:`PER_BROWSER_TEST` in tests/browser). A stale number
#: changes the order only, never a result.
SECONDS = {
    "tests/test_notebooks.py": 100,  # with tests/test_lesson_text.py (SAME_WORKER)
    "tests/browser/test_lessons.py": 85,
    "tests/browser/test_keys_and_paints.py": 85,
    "tests/browser/test_lessons_voila.py": 70,
    "tests/browser/test_static_site.py": 67,
    "tests/browser/test_lessons_lab.py": 40,
    "tests/browser/test_closed_lessons.py": 33,
    "tests/browser/test_widgets_in_browser.py": 33,
    "tests/browser/test_themes.py": 26,
    "tests/test_cli.py": 20,
    "tests/test_cache.py": 19,
    "tests/browser/test_voila.py": 16,
    "tests/test_course.py": 13,
    "tests/test_cli_check.py": 13,
    "tests/test_benchmarks.py": 13,
    "tests/browser/test_site_refuses_in_browser.py": 12,
    "tests/browser/test_security.py": 10,
    "tests/browser/test_predict_progress.py": 10,
}
PER_TEST, PER_BROWSER_TEST = 0.1, 2.5


def unit_seconds(scope: str, tests: int) -> float:
    """About how long the unit ``scope`` (:func:`worker_scope`) of ``tests`` tests runs."""
    if scope in SECONDS:
        return SECONDS[scope]
    return tests * (PER_BROWSER_TEST if scope.startswith("tests/browser/") else PER_TEST)


def make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` as pytest-xdist does it, by :func:`worker_scope` instead of by file,
    the longest unit first (:func:`unit_seconds`)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LoadFileTogether(LoadFileScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return worker_scope(nodeid)

        def _assign_work_unit(self, node: object) -> None:
            # the queue is complete before the first unit is handed out (schedule())
            if not self.ordered:
                self.ordered = True
                units = sorted(self.workqueue.items(), key=lambda u: -unit_seconds(*_size(u)))
                self.workqueue.clear()
                self.workqueue.update(units)
            super()._assign_work_unit(node)

    return LoadFileTogether(config, log)


def _size(unit: tuple[str, dict]) -> tuple[str, int]:
    return unit[0], len(unit[1])
