"""Shared test setup: a headless matplotlib backend, no figure or widget survives a test."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
import warnings

os.environ.setdefault("MPLBACKEND", "Agg")

import pytest
import torch

# Never the learner's scene cache: a throwaway one for the session (the servers and kernels tests
# start inherit it) and a fresh one for each test (_scene_cache below).
os.environ["GRADKIT_CACHE"] = tempfile.mkdtemp(prefix="gradkit-test-cache-")
atexit.register(shutil.rmtree, os.environ["GRADKIT_CACHE"], True)
# ... and never the learner's own cache folder, where misses go when GRADKIT_CACHE is read only.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="gradkit-test-home-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))

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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
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


@pytest.fixture(autouse=True)
def _scene_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GRADKIT_CACHE", str(tmp_path_factory.mktemp("scene-cache")))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("own-cache")))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close("all")


@pytest.fixture
def make():
    """``make(cls, *args, **kwargs)`` builds a widget and closes it after the test."""
    built = []

    def build(cls, *args, **kwargs):
        w = cls(*args, **kwargs)
        built.append(w)
        return w

    yield build
    for w in built:
        w.close()


@pytest.fixture
def quiet_gradcheck():
    """Silence torch's 'not double precision' warning where a test provokes it on purpose."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.fixture
def check_child_in_process(monkeypatch):
    """``gradkit check``'s child (:func:`gradkit.cli.check_target.child_main`) run in this
    process: the same job in, the same JSON answer file out, without starting a Python that
    imports torch again. For what the report says; what only a real process shows (a stop, a
    signal, Ctrl-C, a closed stdout, the exit status of ``python -m gradkit.cli``) is tested
    with a real child in tests/test_cli_check.py and tests/test_cli.py."""
    from gradkit.cli import check_run, check_target

    monkeypatch.setattr(sys, "path", list(sys.path))  # the target's folder is put on it
    loaded = set(sys.modules)

    def run_child(job: dict) -> tuple[dict, int]:
        with tempfile.TemporaryDirectory(prefix="gradkit-check-") as work:
            result = os.path.join(work, "answer.json")
            check_target.child_main(result, json.dumps(job))
            with open(result, encoding="utf-8") as handle:
                return json.load(handle), 0  # a child that answered exits 0

    monkeypatch.setattr(check_run, "_run_child", run_child)
    yield
    for name in set(sys.modules) - loaded:
        if name.startswith("_gradkit_check_"):  # the learner's file, loaded under this name
            del sys.modules[name]
