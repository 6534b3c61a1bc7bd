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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` by work unit, the longest first (:mod:`xdist_scope`)."""
    from xdist_scope import make_scheduler

    return make_scheduler(config, log)


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
