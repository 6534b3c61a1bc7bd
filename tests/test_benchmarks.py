"""benchmarks/ (outside the wheel): the GPU script's code paths on CPU, and the runner's usage.

Nothing here times anything: the suites' helpers are run for their results and messages only.
"""

from __future__ import annotations

import concurrent.futures
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from benchmarks import OPT_IN, SUITES, Row, format_table, summarize
from benchmarks import engine as bench_engine
from gradkit.zoo import WrongSquareFn

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {"eps": 1e-6, "atol": 1e-5, "rtol": 1e-3}


def _dense(n: int, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn(n, n, generator=gen, dtype=torch.float64)
    x = torch.randn(n, generator=gen, dtype=torch.float64)
    return (lambda v: v @ w), x.requires_grad_(True)


def _run_benchmarks(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_benchmarks_live_outside_the_package():
    assert not (ROOT / "gradkit" / "bench").exists()
    assert SUITES == ("engine", "fastmode", "widgets", "browser", "classroom", "opinfo")
    assert OPT_IN == ("opinfo",)  # the whole operator table runs only when named
    assert (ROOT / "tests" / "browser" / "harness.py").is_file()


def test_fast_mode_rows_hold_both_engines_against_torchs_fast_mode():
    from benchmarks import fastmode

    rows = fastmode.fast_check_rows(64, repeat=1)  # 64 entries: 4 outputs
    assert [r.name for r in rows] == [
        "check(fast_mode, engine=torch) n=64",
        "check(fast_mode, engine=batched) n=64",
    ]
    assert all(
        r.anchor == "gradcheck(fast_mode=True)" and r.goal == "<= 2x gradcheck's time" for r in rows
    )


def test_floor_check_is_the_bare_computation():
    f, x = _dense(20)
    assert bench_engine.floor_check(f, x, **SETTINGS)
    assert not bench_engine.floor_check(lambda v: WrongSquareFn.apply(v), x, **SETTINGS)


def test_tf32_script_runs_on_cpu():
    off, on = bench_engine.tf32_effect(torch.device("cpu"))
    assert (off["allow_tf32"], on["allow_tf32"]) == (False, True)
    for r in (off, on):
        assert r["rel_error"] < 1e-5  # float32 rounding only: the CPU has no TF32
        assert r["sized"] == "pass"
        assert r["default"] == "GradcheckError"  # float32 at eps=1e-6: rounding swamps slopes


def test_tf32_rows_show_error_and_verdicts(monkeypatch, capsys):
    canned = [
        {
            "allow_tf32": False,
            "rel_error": 0.0,
            "default": "GradcheckError",
            "sized": "pass",
            "sized_cause": "pass",
            "seconds": 0.002,
        },
        {
            "allow_tf32": True,
            "rel_error": 3e-4,
            "default": "GradcheckError",
            "sized": "GradcheckError",
            "sized_cause": "precision",
            "seconds": 0.003,
        },
    ]
    monkeypatch.setattr(bench_engine, "tf32_effect", lambda device: canned)
    off, on = bench_engine._tf32_rows(torch.device("cpu"))
    assert "TF32 off" in off.name and "TF32 on" in on.name
    assert "rel err 0.0e+00; verdict pass" in off.goal
    assert "rel err 3.0e-04; verdict GradcheckError (precision)" in on.goal
    assert on.anchor_median_ms == pytest.approx(2.0)
    assert "TF32 raised the float32 matmul error" in capsys.readouterr().err


def test_engine_rows_run_on_cpu():
    rows = bench_engine._engine_rows((16, 24), torch.device("cpu"), "[cpu]", repeat=3)
    assert len(rows) == 6 and all(isinstance(r, Row) for r in rows)
    assert all(r.median_ms > 0 and r.anchor_median_ms > 0 for r in rows)
    assert "n=24" in rows[3].name and "torch gradcheck" in rows[3].anchor


def test_resolve_device_accepts_cpu_and_names_the_fix_otherwise():
    assert bench_engine.resolve_device("cpu") == torch.device("cpu")
    with pytest.raises(SystemExit, match="use cpu or cuda"):
        bench_engine.resolve_device("tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message shown without a GPU")
def test_gpu_script_without_a_gpu_says_so_without_a_traceback():
    """The runner's main lets the message's SystemExit through (Python prints no traceback for
    it); the slow test below runs python -m benchmarks end to end."""
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit, match="needs a CUDA GPU"):
        bench_engine.resolve_device("cuda")
    with pytest.raises(SystemExit, match="needs a CUDA GPU"):
        main(["--only", "engine", "--device", "cuda"])


@pytest.mark.slow  # a Python of its own that imports torch: make test, not make unit
@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message shown without a GPU")
def test_gpu_script_without_a_gpu_says_so_end_to_end():
    done = _run_benchmarks("--only", "engine", "--device", "cuda")
    assert done.returncode != 0
    assert "needs a CUDA GPU" in done.stderr
    assert "Traceback" not in done.stderr


def test_runner_refuses_an_unknown_suite(capsys):
    from benchmarks.__main__ import main

    with pytest.raises(SystemExit) as stop:
        main(["--only", "engine,nope"])
    assert stop.value.code == 2
    assert "unknown suite(s) ['nope']" in capsys.readouterr().err


def test_table_shows_ratio_and_verdict():
    median, p95 = summarize([1.0, 2.0, 3.0, 4.0])
    assert (median, p95) == (2.5, 4.0)
    row = Row("engine", "figure", 2.0, 3.0, "anchor", 8.0, 9.0, ">=2x", True)
    assert row.ratio == 4.0
    table = format_table([row])
    assert "4.0x" in table and table.endswith(">=2x  ok")


def test_every_widget_the_widgets_suite_builds_still_builds():
    from benchmarks import widgets as suite

    for _name, make in suite.CASES:
        make().close()


def test_widget_builds_time_the_first_picture_apart_from_the_rest():
    from benchmarks import widgets as suite
    from gradkit.widgets import SlopeExplorer

    first, rest = suite._builds(SlopeExplorer, 2)
    assert len(first) == len(rest) == 2 and min(first) > 0 and min(rest) > 0
    row = suite._row("x", [300.0], [100.0], True)
    assert row.met is False and row.goal == "p95 <= 250 ms"
    assert suite._row("x", [10.0], [100.0], True).met is True


def test_classroom_merges_overlapping_spans():
    from benchmarks.classroom import _merged

    assert _merged([(0.0, 1.0), (0.5, 2.0), (3.0, 3.5), (3.1, 3.2)]) == 2.5
    assert _merged([]) == 0.0


def _class_run(seconds: float, cpu: float, gradkit_cpu: float = 0.0) -> dict:
    return {"seconds": seconds, "gradkit": gradkit_cpu, "cpu": cpu, "gradkit_cpu": gradkit_cpu}


def _class_results(warm: float, anchor_grad: float = 2.0) -> dict[str, list[dict]]:
    runs = {"anchor": 1.5, "anchor+grad": anchor_grad, "no widgets": 2.25, "cold": warm}
    runs["warm"] = warm
    out = {
        m: [_class_run(s, s - 0.1, 0.1 if m in ("cold", "warm") else 0.0)] for m, s in runs.items()
    }
    for run in (r for rs in out.values() for r in rs):
        run.update(rss=300.0, pss=200.0)
    return out


@pytest.mark.parametrize(
    ("n", "warm", "goal", "met"),
    [
        (1, 2.19, "p50 <= anchor+grad + 0.2 s", True),
        (1, 2.21, "p50 <= anchor+grad + 0.2 s", False),
        (20, 2.19, "p50 <= 1.1x anchor+grad", True),
        (20, 2.21, "p50 <= 1.1x anchor+grad", False),
        (2, 9.0, "(the anchor with torch's first gradient)", None),
    ],
)
def test_classroom_judges_the_warm_lesson_against_the_anchor_with_a_gradient(n, warm, goal, met):
    from benchmarks.classroom import _ANCHOR_GRAD, _rows

    rows = {r.name.split("), ", 1)[1]: r for r in _rows(n, _class_results(warm))}
    judged = [r for r in rows.values() if r.anchor == _ANCHOR_GRAD]
    assert len(judged) == 1 and (judged[0].goal, judged[0].met) == (goal, met)
    alone = rows["warm cache, against itself less its widgets: p50|max"]  # the widgets' share
    assert (alone.median_ms, alone.anchor_median_ms, alone.met) == (1000 * warm, 2250.0, None)
    cpu, share = rows["warm: kernel CPU"], rows["warm: gradkit CPU"]  # CPU against CPU
    assert cpu.anchor == share.anchor == _ANCHOR_GRAD + ", CPU" and cpu.met is share.met is None
    assert (cpu.median_ms, cpu.anchor_median_ms, share.median_ms) == pytest.approx(
        (1000 * (warm - 0.1), 1900.0, 100.0)
    )


def test_classroom_detail_sets_the_warm_lesson_beside_the_anchor_with_a_gradient():
    from benchmarks.classroom import detail

    text = detail(1, _class_results(2.5))
    assert "N=1   warm against anchor+grad: p50 +0.50 s (1.25x), CPU +0.50 s (1.26x)" in text
    assert "N=1   no widgets against anchor+grad: p50 +0.25 s (1.12x), CPU +0.25 s (1.13x)" in text
    assert "N=1   warm against no widgets: p50 +0.25 s (1.11x), CPU +0.25 s (1.12x)" in text
    anchor_line = next(line for line in text.splitlines() if " anchor+grad " in line)
    assert "gradkit" not in anchor_line and "CPU  1.90 s" in anchor_line


def test_classroom_rounds_say_each_median_ratio_and_its_range():
    from benchmarks.classroom import rounds_line

    rounds = [(2.24, 2.2, 2.0), (2.6, 2.5, 2.0), (2.1, 2.08, 2.0)]  # warm, no widgets, anchor+grad
    measured = [
        {"warm": (w, w / 2), "no widgets": (b, b / 2), "anchor+grad": (a, a / 4)}
        for w, b, a in rounds
    ]
    assert rounds_line(20, measured).splitlines() == [
        "3 rounds, each of the three back to back:",
        "N=20  warm against anchor+grad: p50 1.12x (1.05–1.30), CPU 2.24x (2.10–2.60)",
        "N=20  no widgets against anchor+grad: p50 1.10x (1.04–1.25), CPU 2.20x (2.08–2.50)",
        "N=20  warm against no widgets: p50 1.02x (1.01–1.04), CPU 1.02x (1.01–1.04)",
    ]


def test_classroom_leaves_a_lessons_widgets_out_and_keeps_its_own_work():
    """The lesson less its widgets keeps every statement of its own; a widget used beyond being
    built and shown is refused (its work and the lesson's could not be timed apart)."""
    import nbformat

    from benchmarks.classroom import cells_without_widgets

    def lesson(*cells: str) -> nbformat.NotebookNode:
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])

    first = "import torch\nfrom gradkit.widgets import FloatRuler as Ruler, Quiz\nx = 1"
    shown = "%time y = torch.ones(2)\nruler = Ruler(x=0.5)\nruler\nQuiz('q')\nprint(y)"
    assert cells_without_widgets(lesson(first, shown, "ruler", "Quiz('q')")) == [
        "import torch\nx = 1",
        "get_ipython().run_line_magic('time', 'y = torch.ones(2)')\nprint(y)",
    ]
    with pytest.raises(ValueError, match=r"code cell 1 uses ruler beyond building and showing"):
        cells_without_widgets(lesson(first, "ruler = Ruler()\nprint(ruler.eps)"))
    with pytest.raises(ValueError, match="code cell 0 is not Python"):
        cells_without_widgets(lesson("def f(:"))


def test_classroom_compiles_the_package_it_times(tmp_path):
    """The kernels import what an install holds: bytecode beside every module."""
    import importlib.util

    from benchmarks.classroom import compile_gradkit

    (tmp_path / "sub").mkdir()
    sources = [tmp_path / "__init__.py", tmp_path / "sub" / "mod.py"]
    for source in sources:
        source.write_text("X = 1\n", encoding="utf-8")
    compile_gradkit(tmp_path)
    assert all(Path(importlib.util.cache_from_source(str(s))).is_file() for s in sources)


@pytest.mark.slow
def test_classroom_runs_learners_and_reports_share_and_memory(tmp_path):
    import asyncio

    from benchmarks.classroom import _class

    cells = ["import torch", "from gradkit.widgets import SlopeExplorer", 'SlopeExplorer(f="x³")']
    # in a thread of its own: a browser test before it (same worker) may leave a loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        runs = pool.submit(asyncio.run, _class(2, cells, tmp_path / "cache", tmp_path)).result()
    assert len(runs) == 2
    for r in runs:  # times are measured, never judged here (a busy machine moves them)
        assert r["seconds"] > 0 and math.isfinite(r["gradkit"]) and 0 < r["pss"] <= r["rss"]
        assert 0 < r["gradkit_cpu"] < r["cpu"]
    assert len(list((tmp_path / "cache" / "scenes").glob("*.gks"))) == 11
