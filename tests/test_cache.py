"""The scene cache: a second build reads what torch computed; nothing off is ever trusted.

Every test runs with its own throwaway ``GRADKIT_CACHE`` (conftest), never the learner's.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradkit.widgets import SlopeExplorer
from gradkit.widgets.base import cache as cache_module
from gradkit.widgets.base import cache_entry
from gradkit.widgets.base.cache import (
    SceneCache,
    cache_folder,
    fields,
    scene_cache,
    scene_key,
    size_limit,
)
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


#: What the tests' computes return: a number and a 3 x 4 float64 table.
PAIR = fields(x=float, rows=("float64", (3, 4)))


def pair(x: float, rows=None) -> dict:
    return {"x": x, "rows": np.arange(12.0).reshape(3, 4) if rows is None else rows}


class Counter:
    """A compute function that counts its calls."""

    def __init__(self, value=None):
        self.calls = 0
        self.value = value if value is not None else pair(2.5)

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
    ["function", "x", "dtype", "torch version", "gradkit version", "gradkit code", "cpu"],
)
def test_a_changed_key_misses(monkeypatch, change):
    compute = Counter()
    parts = {"f": torch.sin, "x": 0.5, "dtype": torch.float32}
    scene_cache.fetch(scene_key("t", parts["f"], parts["x"], parts["dtype"]), compute, PAIR)
    scene_cache.fetch(scene_key("t", parts["f"], parts["x"], parts["dtype"]), compute, PAIR)
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
    elif change == "cpu":
        monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512-elsewhere")
    else:
        monkeypatch.setattr(cache_entry, "_fingerprint", lambda: "another build")
    scene_cache.fetch(scene_key("t", parts["f"], parts["x"], parts["dtype"]), compute, PAIR)
    assert compute.calls == 2


def test_cache_off_stores_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADKIT_CACHE", "off")
    assert cache_folder() is None
    compute = Counter()
    for _ in range(2):
        scene_cache.fetch(scene_key("t", torch.sin, 1.0), compute, PAIR)
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
        header["layout"]["rows"]["shape"] = [1000, 1000]
        head, buffer = json.dumps(header).encode(), data[start + size + 32 :]
        digest = hashlib.sha256(head + buffer).digest()
        path.write_bytes(magic + len(head).to_bytes(4, "little") + head + digest + buffer)


@pytest.mark.parametrize(
    "how", ["truncated", "empty", "garbage", "one bit flipped", "foreign", "shapes off"]
)
def test_a_bad_entry_is_recomputed_and_replaced(how):
    key, other_key = scene_key("t", torch.sin, 1.0), scene_key("t", torch.sin, 2.0)
    compute = Counter()
    scene_cache.fetch(other_key, Counter(pair(0.0, np.zeros((3, 4)))), PAIR)
    first = scene_cache.fetch(key, compute, PAIR)
    _corrupt(scene_cache.path(key), how, scene_cache.path(other_key))
    again = scene_cache.fetch(key, compute, PAIR)
    assert compute.calls == 2
    assert again["x"] == first["x"] and np.array_equal(again["rows"], first["rows"])
    assert scene_cache.fetch(key, compute, PAIR)["x"] == 2.5 and compute.calls == 2  # whole


def test_values_come_back_exactly():
    value = {
        "third": 1 / 3,
        "tiny": 5e-324,
        "nan": float("nan"),
        "count": 7,
        "rows": np.array([np.nan, -np.inf, 5e-324, 1 / 3]),
        "f32": np.float32([[0.1, 2.0]]),
    }
    kinds = fields(
        third=float,
        tiny=float,
        nan=float,
        count=float,
        rows=("float64", (4,)),
        f32=("float32", (1, 2)),
    )
    scene_cache.fetch(scene_key("exact", torch.exp, 1.0), lambda: value, kinds)
    got = scene_cache.fetch(scene_key("exact", torch.exp, 1.0), lambda: 1 / 0, kinds)
    assert (got["third"], got["tiny"], got["count"]) == (1 / 3, 5e-324, 7)
    assert np.isnan(got["nan"]) and type(got["count"]) is int
    assert got["rows"].tobytes() == value["rows"].tobytes()
    assert got["f32"].dtype == np.float32 and got["f32"].tobytes() == value["f32"].tobytes()
    for other in ({"rows": np.arange(3)}, {"flag": True}, {"x": None}, (1.0,), {1: 1.0}):
        key = scene_key("exact", torch.exp, 2.0)
        got = scene_cache.fetch(key, lambda v=other: v, lambda _: True)
        assert got is other  # returned as computed, not stored (it would not come back so)
        assert not scene_cache.path(key).exists()


# ------------------------------------------------------------------------ two processes
_FILLER = """
import json, sys, time
from pathlib import Path
import numpy as np, torch
from gradkit.widgets.base.cache import fields, scene_cache, scene_key

start = Path(sys.argv[1])
(start.parent / f"ready-{sys.argv[2]}").touch()  # imported: ready to race
while not start.exists():
    time.sleep(0.01)

def compute():
    time.sleep(0.3)  # both processes are computing at once, then both write
    return {"x": 0.25, "rows": np.linspace(0.0, 1.0, 200_000)}

kinds = fields(x=float, rows=("float64", (200_000,)))
value = scene_cache.fetch(scene_key("race", torch.sin, 0.5), compute, kinds)
print(json.dumps([scene_cache.misses, scene_cache.stores, float(value["rows"].sum())]))
"""


@pytest.mark.slow  # starts a Python of its own: make test runs it, make unit not
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
    kinds = fields(x=float, rows=("float64", (200_000,)))
    got = scene_cache.fetch(scene_key("race", torch.sin, 0.5), lambda: 1 / 0, kinds)
    assert got["x"] == 0.25 and float(got["rows"].sum()) == want


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
    assert w.error == other.error == ""
    assert other.numeric == pytest.approx(np.exp(0.7), rel=1e-6)
    assert _entries() == entries


def test_an_unwritable_folder_is_no_error_and_misses_go_to_the_learners_own(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GRADKIT_CACHE", str(blocker / "cache"))  # unwritable even for root
    compute = Counter()
    told = _cache_warnings(
        lambda: [scene_cache.fetch(scene_key("t", torch.sin, 1.0), compute, PAIR) for _ in "ab"]
    )
    assert len(told) == 1 and "a-file/cache cannot be opened (Not a directory)" in told[0]
    assert compute.calls == 1  # the second read the learner's own folder
    assert [p.parent for p in scene_cache.own_folder.glob("*.gks")] == [scene_cache.own_folder]
    assert str(scene_cache.own_folder).startswith(tempfile.gettempdir())  # never the real one


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
print(json.dumps([n, len(calls) - n, read.error, new.error, new.numeric]))
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
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    if done.returncode == 42:
        pytest.skip(f"no read-only bind mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    n_read, n_new, error_read, error_new, numeric = json.loads(done.stdout)
    assert (n_read, n_new) == (0, 2 * SlopeExplorer.RADIUS + 1)
    assert error_read == error_new == "" and numeric == pytest.approx(np.exp(0.7), rel=1e-6)


# ---------------------------------------------------------------------------- size limit
def test_the_size_limit_evicts_the_oldest(monkeypatch):
    key_length = len(cache_entry.key_text(scene_key("t", torch.sin, 0.0)))
    one = len(cache_entry.encode_entry("k" * key_length, pair(1.0)))
    monkeypatch.setenv("GRADKIT_CACHE_SIZE", str(int(3.5 * one)))
    cache = SceneCache()
    keys = [scene_key("t", torch.sin, float(k)) for k in range(5)]
    for hours, key in zip((3, 2, 1.5), keys, strict=False):
        cache.fetch(key, lambda: pair(1.0), PAIR)
        os.utime(cache.path(key), (time.time() - hours * 3600,) * 2)
    cache.fetch(keys[0], lambda: 1 / 0, PAIR)  # a hit an hour on keeps the oldest young
    assert cache.hits == 1 and cache.size() <= size_limit()
    cache.fetch(keys[3], lambda: pair(1.0), PAIR)  # 4 entries: over the limit
    cache.fetch(keys[4], lambda: pair(1.0), PAIR)
    left = {p.name for _, _, p in cache.entries()}
    assert left == {cache.path(k).name for k in (keys[0], keys[3], keys[4])}
    assert cache.size() <= size_limit()


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
    monkeypatch.setattr(cache_module, "_WARNED", set())
    told = _cache_warnings(lambda: size_limit())
    assert size_limit() == limit
    assert len(told) == (text == "x")  # only a value that is not a size warns


def test_the_real_cache_folder_is_never_the_tests():
    assert os.environ["GRADKIT_CACHE"] != str(scene_cache.own_folder.parent)
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
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    n = 2 * SlopeExplorer.RADIUS + 1
    assert f"1 lesson(s), {n} scenes stored, 0 already there" in done.stdout
    assert str(cache / "scenes") in done.stdout and "mini" in done.stderr
    monkeypatch.setenv("GRADKIT_CACHE", str(cache))
    make(SlopeExplorer, f="tanh(x)", x=1.0)
    assert torch_calls == []  # every scene read: another process's torch computed them


def test_only_the_caches_own_files_are_ever_removed(monkeypatch, tmp_path):
    scene_cache.fetch(scene_key("t", torch.sin, 1.0), Counter(), PAIR)
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
    second.eps_slider.value = 3e-7
    assert second.state["eps_exact"] == 3e-7 and second.numbers_here() is not None
    make(EpsilonLab, f=lambda v: v * v * v, x=0.5)  # a learner's own: measured, never stored
    make(EpsilonLab, f=lambda v: v * v * v, x=0.5)
    assert len(calls) == 3 * (2 * EpsilonLab.RADIUS + 1)


# ------------------------------------------------------------------- a cache a class can trust
OTHER_UID = 12345  # another Unix user (tests run as root here, so chown can plant one)
_needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="planting another owner needs root"
)


def _cache_warnings(action) -> list[str]:
    """The CacheWarnings ``action()`` gives, every one (Python's own once-only filter off)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return [str(w.message) for w in caught if issubclass(w.category, cache_module.CacheWarning)]


def _forged(folder_root: Path, key: tuple) -> Path:
    """An entry a forger wrote: whole, digest-valid, the right key, numbers of their choosing."""
    value = pair(42.0, np.full((3, 4), 42.0))
    path = folder_root / "scenes" / scene_cache.path(key).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cache_entry.encode_entry(cache_entry.key_text(key), value))
    return path


def _plant(root: Path, attack: str, entry: Path, outside: Path) -> None:
    scenes = root / "scenes"
    if attack == "folder owned by another user":
        os.chown(root, OTHER_UID, -1)
    elif attack == "folder writable by its group":
        os.chmod(root, 0o775)
    elif attack == "scenes/ owned by another user":
        os.chown(scenes, OTHER_UID, -1)
    elif attack == "scenes/ writable by anyone":
        os.chmod(scenes, 0o777)
    elif attack == "entry owned by another user":
        os.chown(entry, OTHER_UID, -1)
    elif attack == "entry writable by anyone":
        os.chmod(entry, 0o666)
    elif attack == "scenes/ a symlink":
        shutil.move(scenes, outside / "scenes")
        scenes.symlink_to(outside / "scenes")
    else:  # the entry a symlink to a file elsewhere
        shutil.move(entry, outside / entry.name)
        entry.symlink_to(outside / entry.name)


ATTACKS = [
    "folder owned by another user",
    "folder writable by its group",
    "scenes/ owned by another user",
    "scenes/ writable by anyone",
    "entry owned by another user",
    "entry writable by anyone",
    "scenes/ a symlink",
    "entry a symlink",
]


@_needs_root
@pytest.mark.parametrize("attack", ATTACKS)
def test_a_planted_entry_is_never_read_and_one_warning_names_the_fix(monkeypatch, tmp_path, attack):
    root, outside = tmp_path / "class-cache", tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.setenv("GRADKIT_CACHE", str(root))
    key, other = scene_key("t", torch.sin, 0.7), scene_key("t", torch.sin, 0.8)
    entry = _forged(root, key)
    assert SceneCache().fetch(key, Counter(), PAIR)["x"] == 42.0  # as forged
    _plant(root, attack, entry, outside)
    cache, compute = SceneCache(), Counter()
    told = _cache_warnings(
        lambda: [cache.fetch(key, compute, PAIR), cache.fetch(other, Counter(), PAIR)]
    )
    assert cache.fetch(key, lambda: 1 / 0, PAIR)["x"] == 2.5  # compute's, never the forger's
    assert compute.calls == 1 and cache.hits == 1
    assert len(told) == 1  # one warning for the folder, not one per entry
    message = told[0]
    assert (
        f"scene cache {root}:" in message
        and attack.split()[0].rstrip("/") in message
        and "Fix: chown -R" in message
    )
    assert "chmod -R go-w" in message
    if attack.startswith("entry"):  # a trusted folder: the bad entry was replaced there
        assert not entry.is_symlink() and SceneCache().fetch(key, Counter(), PAIR)["x"] == 2.5
    else:
        assert (cache.own_folder / entry.name).is_file()


def test_a_trusted_read_only_class_cache_is_read_and_misses_go_to_the_learners_own(
    monkeypatch, tmp_path
):
    """A hub's class cache the learner cannot write: read, and misses go to their own folder."""
    root = tmp_path / "class-cache"
    monkeypatch.setenv("GRADKIT_CACHE", str(root))
    shipped = scene_key("t", torch.sin, 0.7)
    SceneCache().fetch(shipped, Counter(pair(1.5)), PAIR)  # the image's build
    before = sorted(p.name for p in (root / "scenes").iterdir())
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: real_access(p, mode) and not str(p).startswith(str(root))
    )
    cache, compute = SceneCache(), Counter()
    assert cache.fetch(shipped, compute, PAIR)["x"] == 1.5 and compute.calls == 0
    new = scene_key("t", torch.sin, 0.9)
    assert [cache.fetch(new, compute, PAIR)["x"] for _ in "ab"] == [2.5, 2.5]
    assert compute.calls == 1 and cache.hits == 2 and cache.stores == 1
    assert sorted(p.name for p in (root / "scenes").iterdir()) == before  # untouched
    assert (cache.own_folder / cache.path(new).name).is_file()


def test_eviction_never_deletes_through_a_symlink(monkeypatch, tmp_path):
    root, outside = tmp_path / "cache", tmp_path / "elsewhere"
    outside.mkdir()
    precious = outside / "precious.gks"
    precious.write_text("someone's file")
    monkeypatch.setenv("GRADKIT_CACHE", str(root))
    cache = SceneCache()
    cache.fetch(scene_key("t", torch.sin, 1.0), Counter(), PAIR)
    (root / "scenes" / "linked.gks").symlink_to(precious)
    cache.clear()
    assert precious.read_text() == "someone's file"
    assert [p.name for p in (root / "scenes").iterdir()] == ["linked.gks"]  # only the link
    shutil.rmtree(root / "scenes")
    (root / "scenes").symlink_to(outside)  # the whole scenes/ folder a symlink
    told = _cache_warnings(cache.clear)
    assert len(told) == 1 and "scenes is a symlink" in told[0]
    assert cache.entries() == [] and cache.size() == 0
    assert precious.read_text() == "someone's file"


def test_a_hit_through_a_symlinked_entry_touches_nothing_outside(monkeypatch, tmp_path):
    root, outside = tmp_path / "cache", tmp_path / "elsewhere"
    monkeypatch.setenv("GRADKIT_CACHE", str(root))
    outside.mkdir()
    key = scene_key("t", torch.sin, 1.0)
    entry = _forged(root, key)
    shutil.move(entry, outside / entry.name)
    entry.symlink_to(outside / entry.name)
    old = time.time() - 86400
    os.utime(outside / entry.name, (old, old))
    cache = SceneCache()
    told = _cache_warnings(lambda: cache.fetch(key, Counter(), PAIR))
    assert len(told) == 1 and f"{entry} is a symlink" in told[0]
    assert cache.misses == 1 and cache.hits == 0
    assert (outside / entry.name).stat().st_mtime == old


@pytest.mark.parametrize("text", ["inf", "nan", "-1", "-5M", "0", "lots", "1e400", "infB"])
def test_a_silly_size_is_the_default_with_one_warning(monkeypatch, text):
    monkeypatch.setenv("GRADKIT_CACHE_SIZE", text)
    monkeypatch.setattr(cache_module, "_WARNED", set())
    told = _cache_warnings(lambda: [size_limit(), size_limit()])
    assert size_limit() == cache_module.DEFAULT_LIMIT
    assert len(told) == 1 and f"GRADKIT_CACHE_SIZE='{text}'" in told[0]
    compute = Counter()  # and every cached widget still works
    for _ in range(2):
        assert scene_cache.fetch(scene_key("t", torch.sin, 1.0), compute, PAIR)["x"] == 2.5
    assert compute.calls == 1


def test_the_default_folder_is_platformdirs_own(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("GRADKIT_CACHE")
    own = Path(platformdirs.user_cache_dir("gradkit", False))
    assert cache_folder() == own and scene_cache.folder == scene_cache.own_folder == own / "scenes"
    if sys.platform.startswith("linux"):
        assert own == tmp_path / "xdg" / "gradkit"


# -------------------------------------------------------------------- any bytes: recompute
def _with_header(header_json: bytes, buffer: bytes = b"") -> bytes:
    """An entry around any header, its digest valid (what a forger can always make)."""
    digest = hashlib.sha256(header_json + buffer).digest()
    return (
        cache_entry.MAGIC + len(header_json).to_bytes(4, "little") + header_json + digest + buffer
    )


def _good_header(text: str) -> dict:
    return {"key": text, "numbers": {"x": 1.0}, "layout": {}}


@pytest.mark.parametrize(
    "header",
    [
        b"[1, 2, 3]",
        b'"a string"',
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the JSON parser goes
        b"null",
        "key: missing",
        "numbers: a list",
        "numbers: a string",
        "numbers: a bool",
        "numbers: deep",
        "layout: a string",
        "layout: a negative offset",
        "layout: shape of strings",
        "layout: a bool shape",
        "layout: ints",
        "layout: off the buffer",
    ],
)
def test_a_digest_valid_entry_of_another_shape_is_recomputed(header):
    key = scene_key("t", torch.sin, 1.0)
    text = cache_entry.key_text(key)
    buffer = bytes(8)
    if isinstance(header, str):
        what, how = header.split(": ")
        made = _good_header(text)
        array = {"offset": 0, "shape": [1], "dtype": "float64"}
        if how == "missing":
            del made["key"]
        elif what == "numbers":
            deep: object = 1.0
            for _ in range(200):
                deep = {"x": deep}
            forged = {"a list": [1.0], "a string": {"x": "1"}, "a bool": {"x": True}}
            made["numbers"] = forged.get(how, deep)
        elif how == "a string":
            made["layout"] = "0"
        else:
            changed = {
                "a negative offset": {"offset": -8},
                "shape of strings": {"shape": ["1"]},
                "a bool shape": {"shape": [True]},
                "ints": {"dtype": "int64"},
                "off the buffer": {"shape": [2]},
            }
            made["layout"] = {"rows": {**array, **changed[how]}}
        header = json.dumps(made).encode()
    data = _with_header(header, buffer)
    with pytest.raises(ValueError, match=r".+"):
        cache_entry.decode_entry(data, text)
    scene_cache.path(key).parent.mkdir(parents=True, exist_ok=True)
    scene_cache.path(key).write_bytes(data)
    compute = Counter()
    assert scene_cache.fetch(key, compute, PAIR)["x"] == 2.5 and compute.calls == 1


def test_the_cpu_capability_is_part_of_the_key(monkeypatch):
    compute = Counter()
    key = scene_key("t", torch.sin, 0.5, torch.float32)
    scene_cache.fetch(key, compute, PAIR)
    scene_cache.fetch(key, compute, PAIR)
    assert compute.calls == 1
    assert torch.backends.cpu.get_cpu_capability() in cache_entry.key_text(key)
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "ANOTHER_CPU")
    scene_cache.fetch(key, compute, PAIR)  # an image built on one node, read on another
    assert compute.calls == 2


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400))
def test_any_bytes_are_an_entry_or_a_value_error(data):
    text = cache_entry.key_text(scene_key("t", torch.sin, 1.0))
    for candidate in (data, cache_entry.MAGIC + data, _with_header(data[:200], data[200:])):
        with contextlib.suppress(ValueError):
            cache_entry.decode_entry(candidate, text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=_JSON, numbers=_JSON, layout=_JSON)
def test_any_digest_valid_header_is_an_entry_or_a_value_error(header, numbers, layout):
    text = cache_entry.key_text(scene_key("t", torch.sin, 1.0))
    shaped = {"key": text, "numbers": numbers, "layout": layout}
    for made in (header, shaped):
        head = json.dumps(made).encode()
        with contextlib.suppress(ValueError):
            cache_entry.decode_entry(_with_header(head, bytes(16)), text)


@pytest.mark.parametrize(
    "forged",
    [
        {},
        {"x": 1.0},
        {"x": 1.0, "rows": 1.0},
        {**pair(1.0), "more": 1.0},
        pair(1.0, np.zeros((4, 3))),
        pair(1.0, np.zeros((3, 4), np.float32)),
    ],
)
def test_a_value_of_another_shape_is_recomputed_not_handed_to_the_widget(forged):
    """Digest-valid, the right key, a value its family's ``fields`` does not declare: recomputed,
    in a process that has computed no value of that family too."""
    key = scene_key("t", torch.sin, 2.0)
    scene_cache.path(key).parent.mkdir(parents=True, exist_ok=True)
    scene_cache.path(key).write_bytes(cache_entry.encode_entry(cache_entry.key_text(key), forged))
    compute = Counter()
    got = SceneCache().fetch(key, compute, PAIR)
    assert compute.calls == 1 and got["x"] == 2.5 and got["rows"].shape == (3, 4)
    assert SceneCache().fetch(key, compute, PAIR)["x"] == 2.5 and compute.calls == 1  # replaced


# ------------------------------------------------------- a family's first read in a process
@pytest.mark.parametrize(
    ("family", "options"),
    [("SlopeExplorer", {"f": "sin(x)"}), ("EpsilonLab", {"f": "sin(x)"}), ("FloatRuler", {})],
)
@pytest.mark.parametrize("forged", [{}, {"rows": 1.0}, {"$d": 1}, {"rows": np.zeros(3)}])
def test_a_forged_value_is_recomputed_in_a_process_that_computed_none(
    make, monkeypatch, family, options, forged
):
    """Digest-valid entries of every x position a widget reads, each a dict of other keys or
    shapes, in a process that has not computed that family yet: the widget recomputes them
    (no error, torch's numbers), never hands them on (a TypeError in the widget)."""
    import gradkit.widgets as widgets

    cls = getattr(widgets, family)
    keys: list[tuple] = []
    real_fetch = SceneCache.fetch

    def recorded(self, key, compute, expect):
        keys.append(key)
        return real_fetch(self, key, compute, expect)

    monkeypatch.setattr(SceneCache, "fetch", recorded)
    first = make(cls, **options)
    assert first.last_error is None and keys
    for key in keys:
        path = scene_cache.path(key)
        path.write_bytes(cache_entry.encode_entry(cache_entry.key_text(key), forged))
    hits = scene_cache.hits
    second = make(cls, **options)
    assert second.last_error is None, second.last_error
    assert scene_cache.hits == hits  # every forged entry recomputed, none read
    a, b = _tables(first), _tables(second)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


# ---------------------------------------------------------------------- size before reading
def test_a_huge_entry_is_never_read(tmp_path, monkeypatch):
    """A 4 GiB sparse entry (a valid one, padded) is a miss found from its size alone: not one
    byte of it is read into memory."""
    key = scene_key("t", torch.sin, 1.0)
    scene_cache.fetch(key, Counter(), PAIR)
    path = scene_cache.path(key)
    os.truncate(path, 4 * 2**30)  # sparse: no disk used
    reads: list[int] = []
    real_fdopen = os.fdopen

    class Watched:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def read(self, n=-1):
            reads.append(n)
            return self.handle.read(min(n, 64) if n is not None and n >= 0 else 64)

    def watched(fd, mode="r", *args, **kwargs):
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return Watched(handle) if mode == "rb" else handle

    monkeypatch.setattr(os, "fdopen", watched)
    compute = Counter()
    got = SceneCache().fetch(key, compute, PAIR)
    assert got["x"] == 2.5 and compute.calls == 1 and reads == []
    monkeypatch.undo()
    assert path.stat().st_size < 2**20  # replaced by a whole entry
    assert cache_entry.MAX_ENTRY_BYTES < 4 * 2**30


def test_a_value_too_large_for_an_entry_is_not_stored():
    cache, compute = SceneCache(), Counter(pair(1.0, np.zeros(5 * 2**20)))
    key = scene_key("t", torch.sin, 1.0)
    cache.fetch(key, compute, fields(x=float, rows=("float64", (5 * 2**20,))))
    assert cache.stores == 0 and not cache.path(key).exists()
    with pytest.raises(cache_entry.Uncacheable, match="bytes is over"):
        cache_entry.encode_entry("k", {"rows": np.zeros(cache_entry.MAX_ENTRY_BYTES // 8)})
