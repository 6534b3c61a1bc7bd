"""The scene cache: a second build reads what torch computed; nothing off is ever trusted.

Every test runs with its own throwaway ``GRADKIT_CACHE`` (conftest), never the learner's.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from gradkit.widgets import SlopeExplorer
from gradkit.widgets.base import cache as cache_module
from gradkit.widgets.base import cache_entry
from gradkit.widgets.base.cache import SceneCache, cache_folder, scene_cache, scene_key, size_limit
from gradkit.widgets.base.tables import unpack
from gradkit.widgets.slope import scene as slope_scene
from gradkit.zoo import CubeFn, NoisyBackwardTanhFn, RandomForwardFn, WrongSquareFn

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def torch_calls(monkeypatch):
    """Counts SlopeExplorer's calls into torch (``slope_rows``: one per x position measured)."""
    calls = []
    real = slope_scene.slope_rows

    def counted(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(slope_scene, "slope_rows", counted)
    return calls


def _tables(w):
    return unpack(w.tables, w.scene["tables"])


def _entries() -> list[Path]:
    return sorted(scene_cache.folder.glob("*.gks"))


class Counter:
    """A compute function that counts its calls."""

    def __init__(self, value=None):
        self.calls = 0
        self.value = value if value is not None else (2.5, np.arange(12.0).reshape(3, 4))

    def __call__(self):
        self.calls += 1
        return self.value


# ----------------------------------------------------------------------- second build reads
def test_second_build_reads_the_scene_and_torch_is_not_called(make, torch_calls):
    first = make(SlopeExplorer, f="sin(x)", x=0.7)
    measured = len(torch_calls)
    assert measured == 2 * SlopeExplorer.RADIUS + 1  # every x position sent, once
    assert len(_entries()) == measured
    second = make(SlopeExplorer, f="sin(x)", x=0.7)
    assert len(torch_calls) == measured  # torch was not called again
    a, b = _tables(first), _tables(second)
    for name in ("analytic", "rows", "zoom", "curve"):
        assert np.array_equal(a[name], b[name], equal_nan=True), name
    assert second.numeric == first.numeric and second.analytic == first.analytic


def test_a_zoo_function_is_cached_and_a_learners_own_never(make, torch_calls):
    make(SlopeExplorer, f=WrongSquareFn, x=2.0)
    make(SlopeExplorer, f=WrongSquareFn.apply, x=2.0)
    assert len(torch_calls) == 2 * SlopeExplorer.RADIUS + 1
    del torch_calls[:]
    before = len(_entries())
    for _ in range(2):
        make(SlopeExplorer, f=lambda v: v * v, x=2.0)
    assert len(torch_calls) == 2 * (2 * SlopeExplorer.RADIUS + 1)
    assert len(_entries()) == before  # nothing stored for the learner's lambda


def test_only_stable_functions_have_keys():
    from gradkit.zoo import scalar_functions

    assert scene_key("slope", scalar_functions()["x²"], 2.0) == ("slope", "menu:x²", 2.0)
    assert scene_key("slope", torch.sin, 2.0) == ("slope", "menu:sin(x)", 2.0)
    assert scene_key("slope", CubeFn, 1.0) == scene_key("slope", CubeFn.apply, 1.0)
    assert scene_key("slope", lambda v: v * v, 2.0) is None
    assert scene_key("slope", RandomForwardFn, 1.0) is None  # a random forward: never frozen
    assert scene_key("slope", NoisyBackwardTanhFn, 1.0) is None

    class CubeFn2(CubeFn):
        pass

    CubeFn2.__name__ = "CubeFn"  # a learner's class named like a zoo entry is not the entry
    assert scene_key("slope", CubeFn2, 1.0) is None


# --------------------------------------------------------------------------------- misses
@pytest.mark.parametrize(
    "change",
    ["function", "x", "dtype", "torch version", "gradkit version", "gradkit code"],
)
def test_a_changed_key_misses(monkeypatch, change):
    compute = Counter()
    parts = {"f": torch.sin, "x": 0.5, "dtype": torch.float32}
    scene_cache.fetch(scene_key("t", parts["f"], parts["x"], parts["dtype"]), compute)
    scene_cache.fetch(scene_key("t", parts["f"], parts["x"], parts["dtype"]), compute)
    assert compute.calls == 1
    if change == "function":
        parts["f"] = torch.cos
    elif change == "x":
        parts["x"] = 0.5 + 2**-50
    elif change == "dtype":
        parts["dtype"] = torch.float64
    elif change == "torch version":
        monkeypatch.setattr(torch, "__version__", "9.9.9+elsewhere")
    elif change == "gradkit version":
        monkeypatch.setattr("gradkit.__version__", "9.9.9")
    else:
        monkeypatch.setattr(cache_entry, "_FINGERPRINT", ["another build"])
    scene_cache.fetch(scene_key("t", parts["f"], parts["x"], parts["dtype"]), compute)
    assert compute.calls == 2


def test_cache_off_stores_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADKIT_CACHE", "off")
    assert cache_folder() is None
    compute = Counter()
    for _ in range(2):
        scene_cache.fetch(scene_key("t", torch.sin, 1.0), compute)
    assert compute.calls == 2


# ------------------------------------------------------------------------- never trusted
def _corrupt(path: Path, how: str, other: Path) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif how == "one bit flipped":
        path.write_bytes(data[:-5] + bytes([data[-5] ^ 1]) + data[-4:])
    elif how == "foreign":  # a whole, valid entry of another key under this key's name
        shutil.copyfile(other, path)
    else:  # shapes off the buffer, with a digest that matches (made by someone, not by us)
        magic, start = cache_entry.MAGIC, len(cache_entry.MAGIC) + 4
        size = int.from_bytes(data[len(magic) : start], "little")
        header = json.loads(data[start : start + size])
        header["layout"]["0"]["shape"] = [1000, 1000]
        head, buffer = json.dumps(header).encode(), data[start + size + 32 :]
        digest = hashlib.sha256(head + buffer).digest()
        path.write_bytes(magic + len(head).to_bytes(4, "little") + head + digest + buffer)


@pytest.mark.parametrize(
    "how", ["truncated", "empty", "garbage", "one bit flipped", "foreign", "shapes off"]
)
def test_a_bad_entry_is_recomputed_and_replaced(how):
    key, other_key = scene_key("t", torch.sin, 1.0), scene_key("t", torch.sin, 2.0)
    compute = Counter()
    scene_cache.fetch(other_key, Counter((0.0, np.zeros((3, 4)))))
    first = scene_cache.fetch(key, compute)
    _corrupt(scene_cache.path(key), how, scene_cache.path(other_key))
    again = scene_cache.fetch(key, compute)
    assert compute.calls == 2
    assert again[0] == first[0] and np.array_equal(again[1], first[1])
    assert scene_cache.fetch(key, compute)[0] == 2.5 and compute.calls == 2  # whole again


def test_values_come_back_exactly():
    value = (
        1 / 3,
        {"rows": np.array([np.nan, -np.inf, 5e-324, 1 / 3]), "f32": np.float32([0.1, 2.0])},
        [None, True, "x²", 7, float("nan")],
    )
    scene_cache.fetch(scene_key("t", torch.exp, 1.0), lambda: value)
    got = scene_cache.fetch(scene_key("t", torch.exp, 1.0), lambda: 1 / 0)
    assert got[0] == value[0] and got[2][:4] == value[2][:4] and np.isnan(got[2][4])
    assert got[1]["rows"].tobytes() == value[1]["rows"].tobytes()
    assert got[1]["f32"].dtype == np.float32 and np.array_equal(got[1]["f32"], value[1]["f32"])
    ints = scene_cache.fetch(scene_key("t", torch.exp, 2.0), lambda: np.arange(3))
    assert ints.dtype == np.int64  # returned as computed, not stored (it would not come back so)
    assert not scene_cache.path(scene_key("t", torch.exp, 2.0)).exists()


# ------------------------------------------------------------------------ two processes
_FILLER = """
import json, sys, time
from pathlib import Path
import numpy as np, torch
from gradkit.widgets.base.cache import scene_cache, scene_key

start = Path(sys.argv[1])
(start.parent / f"ready-{sys.argv[2]}").touch()  # imported: ready to race
while not start.exists():
    time.sleep(0.01)

def compute():
    time.sleep(0.3)  # both processes are computing at once, then both write
    return (0.25, np.linspace(0.0, 1.0, 200_000))

value = scene_cache.fetch(scene_key("race", torch.sin, 0.5), compute)
print(json.dumps([scene_cache.misses, scene_cache.stores, float(value[1].sum())]))
"""


def test_two_processes_filling_one_entry_both_leave_a_valid_one(tmp_path):
    start = tmp_path / "go"
    fillers = [
        subprocess.Popen(
            [sys.executable, "-c", _FILLER, str(start), str(k)], stdout=subprocess.PIPE, text=True
        )
        for k in range(2)
    ]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    start.touch()
    results = [json.loads(p.communicate(timeout=120)[0]) for p in fillers]
    assert all(p.returncode == 0 for p in fillers)
    want = float(np.linspace(0.0, 1.0, 200_000).sum())
    assert results == [[1, 1, want], [1, 1, want]]  # each computed and wrote a whole entry
    assert [p.name for p in scene_cache.folder.iterdir()] == [_entries()[0].name]  # no temp left
    got = scene_cache.fetch(scene_key("race", torch.sin, 0.5), lambda: 1 / 0)
    assert got[0] == 0.25 and float(got[1].sum()) == want


# ---------------------------------------------------------------------------- read only
def test_a_read_only_folder_is_read_and_never_an_error(monkeypatch, make, torch_calls):
    make(SlopeExplorer, f="sin(x)", x=0.7)
    measured, entries = len(torch_calls), _entries()

    def read_only(*_args, **_kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)  # as on a read-only file system
    monkeypatch.setattr(os, "utime", read_only)
    w = make(SlopeExplorer, f="sin(x)", x=0.7)
    assert len(torch_calls) == measured  # read
    other = make(SlopeExplorer, f="exp(x)", x=0.7)  # not there: computed, shown, not stored
    assert len(torch_calls) == 2 * measured
    assert w.error_area.value == other.error_area.value == ""
    assert other.numeric == pytest.approx(np.exp(0.7), rel=1e-6)
    assert _entries() == entries


def test_an_unwritable_folder_is_no_error(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GRADKIT_CACHE", str(blocker / "cache"))  # unwritable even for root
    compute = Counter()
    for _ in range(2):
        assert scene_cache.fetch(scene_key("t", torch.sin, 1.0), compute)[0] == 2.5
    assert compute.calls == 2


_READER = """
import json
from gradkit.widgets import SlopeExplorer
from gradkit.widgets.slope import scene
calls = []
real = scene.slope_rows
scene.slope_rows = lambda *a, **k: calls.append(a[1]) or real(*a, **k)
read = SlopeExplorer(f="sin(x)", x=0.7)
n = len(calls)
new = SlopeExplorer(f="exp(x)", x=0.7)
print(json.dumps([n, len(calls) - n, read.error_area.value, new.error_area.value, new.numeric]))
"""


@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare (util-linux)")
def test_a_truly_read_only_mount_is_read(make):
    """The folder mounted read only (a user namespace: no root needed outside it)."""
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    if probe.returncode:
        pytest.skip(f"no user namespaces here: {probe.stderr.decode().strip()}")
    make(SlopeExplorer, f="sin(x)", x=0.7)
    folder = str(scene_cache.folder.parent)
    script = (
        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 42; '
        'touch "$1/probe" 2>/dev/null && exit 43; shift; exec "$@"'
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", folder, sys.executable, "-c", _READER],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    if done.returncode == 42:
        pytest.skip(f"no read-only bind mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    n_read, n_new, error_read, error_new, numeric = json.loads(done.stdout)
    assert (n_read, n_new) == (0, 2 * SlopeExplorer.RADIUS + 1)
    assert error_read == error_new == "" and numeric == pytest.approx(np.exp(0.7), rel=1e-6)


# ---------------------------------------------------------------------------- size limit
def test_the_size_limit_evicts_the_oldest(tmp_path):
    one = len(cache_entry.encode_entry("k", (1.0, np.zeros(1000))))
    cache = SceneCache(tmp_path, limit=int(3.5 * one))
    keys = [scene_key("t", torch.sin, float(k)) for k in range(5)]
    for hours, key in zip((3, 2, 1.5), keys, strict=False):
        cache.fetch(key, lambda: (1.0, np.zeros(1000)))
        os.utime(cache.path(key), (time.time() - hours * 3600,) * 2)
    cache.fetch(keys[0], lambda: 1 / 0)  # a hit an hour on keeps the oldest young
    assert cache.hits == 1 and cache.size() <= cache.limit
    cache.fetch(keys[3], lambda: (1.0, np.zeros(1000)))  # 4 entries: over the limit
    cache.fetch(keys[4], lambda: (1.0, np.zeros(1000)))
    left = {p.name for _, _, p in cache.entries()}
    assert left == {cache.path(k).name for k in (keys[0], keys[3], keys[4])}
    assert cache.size() <= cache.limit


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("", 512 * 2**20),
        ("1000", 1000),
        ("500M", 500 * 2**20),
        ("2GB", 2 * 2**30),
        ("x", 512 * 2**20),
    ],
)
def test_size_limit_from_the_environment(monkeypatch, text, limit):
    monkeypatch.setenv("GRADKIT_CACHE_SIZE", text)
    assert size_limit() == limit


def test_the_real_cache_folder_is_never_the_tests():
    assert os.environ["GRADKIT_CACHE"] != str(cache_module.default_folder())
    assert str(scene_cache.folder).startswith(tempfile.gettempdir())


# --------------------------------------------------------------------------- gradkit warm
def test_warm_names_lessons_and_refuses_a_stray_one():
    from gradkit.cli import UsageError, lesson_files
    from gradkit.cli.warm import chosen_lessons

    assert chosen_lessons([]) == lesson_files()
    assert [p.stem for p in chosen_lessons(["01", "03_why"])] == [
        "01_nudging",
        "03_why_float32_fails",
    ]
    with pytest.raises(UsageError, match="no lesson named 'zz'"):
        chosen_lessons(["zz"])


@pytest.mark.slow
def test_warm_fills_the_cache_that_the_next_kernel_reads(tmp_path, monkeypatch, make, torch_calls):
    import nbformat

    lesson = tmp_path / "mini.ipynb"
    cells = ["from gradkit.widgets import SlopeExplorer", 'w = SlopeExplorer(f="tanh(x)", x=1.0)']
    nbformat.write(
        nbformat.v4.new_notebook(cells=list(map(nbformat.v4.new_code_cell, cells))), lesson
    )
    cache = tmp_path / "hub-cache"
    done = subprocess.run(
        [sys.executable, "-m", "gradkit.cli", "warm", str(lesson), "--cache", str(cache)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    n = 2 * SlopeExplorer.RADIUS + 1
    assert f"1 lesson(s), {n} scenes stored, 0 already there" in done.stdout
    assert str(cache / "scenes") in done.stdout and "mini" in done.stderr
    monkeypatch.setenv("GRADKIT_CACHE", str(cache))
    make(SlopeExplorer, f="tanh(x)", x=1.0)
    assert torch_calls == []  # every scene read: another process's torch computed them


def test_only_the_caches_own_files_are_ever_removed(monkeypatch, tmp_path):
    scene_cache.fetch(scene_key("t", torch.sin, 1.0), Counter())
    folder, day = scene_cache.folder, time.time() - 86400
    for name in ("notes.txt", ".tmp-dead.gks", ".tmp-writing.gks"):
        (folder / name).write_text("x")
    for name in ("notes.txt", ".tmp-dead.gks"):
        os.utime(folder / name, (day, day))
    scene_cache.clear()
    assert sorted(p.name for p in folder.iterdir()) == [".tmp-writing.gks", "notes.txt"]
    monkeypatch.setenv("GRADKIT_CACHE", "off")  # no folder: nothing is scanned, not even "."
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.gks").write_text("x")
    os.utime(tmp_path / "old.gks", (day, day))
    assert scene_cache.size() == 0 and scene_cache.entries() == []
    scene_cache.clear()
    assert (tmp_path / "old.gks").exists()


def test_warm_progress_is_a_bar_on_a_terminal_and_lines_elsewhere():
    import io

    from gradkit.cli.warm import Progress, WarmResult

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for stream in (Terminal(), io.StringIO()):
        progress = Progress(["01_nudging", "03_why"], stream)
        progress.step("03_why", 2, 4)
        progress.lesson_done(WarmResult("03_why", stored=5, read=1, seconds=2.0))
        text = stream.getvalue()
        assert "03_why                          5 scenes stored,    1 read" in text
        assert ("[" + "#" * 22) in text if stream.isatty() else "[" not in text


def test_a_second_float_ruler_reads_its_scene(make, monkeypatch):
    from gradkit.widgets import FloatRuler
    from gradkit.widgets.ruler import ruler as ruler_module

    calls = []
    real = ruler_module.ruler_point
    monkeypatch.setattr(ruler_module, "ruler_point", lambda x: calls.append(x) or real(x))
    first = make(FloatRuler, x=0.5)
    assert len(calls) == 2 * FloatRuler.RADIUS + 1
    second = make(FloatRuler, x=0.5)
    assert len(calls) == 2 * FloatRuler.RADIUS + 1  # torch was not called again
    a, b = _tables(first), _tables(second)
    assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def test_a_second_epsilon_lab_reads_its_scene_and_still_measures_on_request(make, monkeypatch):
    from gradkit.widgets import EpsilonLab
    from gradkit.widgets.epsilon import lab as lab_module

    calls = []
    real = lab_module.lab_point
    monkeypatch.setattr(lab_module, "lab_point", lambda f, x: calls.append(x) or real(f, x))
    first = make(EpsilonLab, f="sin(x)", x=0.5)
    assert len(calls) == 2 * EpsilonLab.RADIUS + 1
    second = make(EpsilonLab, f="sin(x)", x=0.5)
    assert len(calls) == 2 * EpsilonLab.RADIUS + 1  # torch was not called again
    a, b = _tables(first), _tables(second)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    # the Python side still answers from torch: the curves, and a typed eps off the grid
    assert second.sweep.scheme == "central" and set(second.sweeps) == {"central", "forward"}
    second.eps = 3e-7
    assert second.state["eps_exact"] == 3e-7 and second.exact is not None
    make(EpsilonLab, f=lambda v: v * v * v, x=0.5)  # a learner's own: measured, never stored
    make(EpsilonLab, f=lambda v: v * v * v, x=0.5)
    assert len(calls) == 3 * (2 * EpsilonLab.RADIUS + 1)
