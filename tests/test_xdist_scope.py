"""``make test`` runs ``pytest -n 2 --dist loadfile``: a test file that reads what another test
file built once per session (tests/test_lesson_text.py reads the lessons tests/test_notebooks.py
executed) must run in the same worker, or the other worker builds it all again
(:data:`xdist_scope.SAME_WORKER`, :func:`xdist_scope.make_scheduler`)."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

from xdist_scope import SAME_WORKER, SECONDS, make_scheduler, unit_seconds, worker_scope

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _imported_test_files(path: Path) -> set[str]:
    """The test files (``tests/...`` paths) that ``path`` imports names from."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("test_"):
            source = path.parent / f"{node.module}.py"
            if source.exists():
                found.add(source.relative_to(ROOT).as_posix())
    return found


def test_a_test_file_that_imports_another_runs_in_its_worker() -> None:
    for path in sorted(TESTS.rglob("test_*.py")):
        name = path.relative_to(ROOT).as_posix()
        for other in _imported_test_files(path):
            assert worker_scope(f"{name}::t") == worker_scope(f"{other}::t"), (
                f"{name} imports from {other}: name it in xdist_scope.SAME_WORKER"
            )
    assert worker_scope("tests/test_cli.py::t[a]") == "tests/test_cli.py"
    for path in [*SAME_WORKER, *SAME_WORKER.values()]:
        assert (ROOT / path).is_file(), f"xdist_scope.SAME_WORKER names {path}, which is gone"


class _Worker:
    """What the scheduler needs of a worker: the tests it is sent, by index."""

    def __init__(self, name: str) -> None:
        self.name, self.sent, self.shutting_down = name, [], False
        self.gateway = SimpleNamespace(id=name)

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.extend(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def _schedule(collection: list[str]) -> dict[str, list[str]]:
    """Worker -> the files xdist's real scheduler (made by the conftest hook) sends it first,
    in order, for two workers that both collected ``collection``."""
    options = {"dist": "loadfile", "tx": ["2*popen"]}
    config = SimpleNamespace(getvalue=options.get, option=SimpleNamespace(loadscopereorder=True))
    scheduler = make_scheduler(config, None)
    workers = [_Worker("gw0"), _Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    files = {}
    for worker in workers:
        sent = [collection[i].split("::")[0] for i in worker.sent]
        files[worker.name] = list(dict.fromkeys(sent))
    return files


def test_loadfile_gives_the_lesson_runs_and_their_readers_to_one_worker() -> None:
    got = _schedule(
        [
            "tests/test_notebooks.py::test_run[00]",
            "tests/test_notebooks.py::test_run[01]",
            "tests/test_lesson_text.py::test_words[00]",
            "tests/test_lesson_text.py::test_words[01]",
            "tests/test_lesson_text.py::test_words[02]",
            "tests/test_cli.py::test_help",
        ]
    )
    together = ["tests/test_notebooks.py", "tests/test_lesson_text.py"]
    assert sorted(got.values()) == [["tests/test_cli.py"], together], got
    assert make_scheduler(SimpleNamespace(getvalue={"dist": "no"}.get), None) is None


def test_the_longest_files_go_first_not_the_ones_with_most_tests() -> None:
    """Two browser tests of 30 s before five unit tests of a second: xdist's own order (most
    tests first) gave the five first and left the long file for the end."""
    closed = "tests/browser/test_closed_lessons.py"
    got = _schedule(
        [f"tests/test_engine.py::test_{i}" for i in range(5)]
        + [f"tests/test_notebooks.py::test_run[0{i}]" for i in range(6)]
        + [f"{closed}::test_closed[{f}]" for f in ("notebook", "lab")]
        + ["tests/test_cli.py::test_help"]
    )
    assert got == {
        "gw0": ["tests/test_notebooks.py"],
        "gw1": [closed, "tests/test_cli.py"],  # a second file once 2 tests or fewer wait
    }, got
    assert unit_seconds(closed, 2) == SECONDS[closed] > unit_seconds("tests/test_engine.py", 5)
    assert unit_seconds("tests/browser/test_new.py", 2) > unit_seconds("tests/test_new.py", 40)
