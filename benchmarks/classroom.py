"""A class on one server: N learners press Run All on lesson 03 at the same moment.

Each learner is one kernel (nbclient), started and idle before the start signal, as a notebook
a learner has open. At the signal every kernel runs the lesson top to bottom; a learner's time is
from the signal to its last cell's reply. Five runs per N, back to back:

- **anchor**: N kernels that only ``import torch`` (the floor no lesson can beat);
- **anchor+grad**: N kernels that import torch and take one gradient as gradcheck does (torch's
  first ``autograd.grad`` with ``grad_outputs`` imports sympy: any lesson with a gradient pays it);
- **no widgets**: the lesson with its gradkit widgets left out (:func:`cells_without_widgets`):
  what the lesson's own cells cost (its prints, gradcheck, ``gradkit.check``), so that the warm
  lesson against it is what the widgets alone cost;
- **cold**: the lesson with an empty scene cache (every kernel computes its own scenes);
- **warm**: the lesson with the cache that ``gradkit warm`` filled
  (:func:`gradkit.cli.warm.warm_lesson`).

Per learner the kernel also reports gradkit's own share: the wall time spent importing gradkit
modules (with what they import), building gradkit widgets or running their work deferred after
a cell (intervals merged; torch work inside them counts), the CPU time of the same spans, the
kernel's CPU time from the signal to its last cell (every thread: a busy machine moves it far
less than wall time, so the CPU rows compare the lesson with the anchor when other work shares
the cores), and its memory after the lesson (RSS and PSS from ``/proc/self/smaps_rollup``, all
N kernels alive). Rows compare p50 and max with the anchors' p50 and max from the same run.

gradkit's bytecode is written first (:func:`compile_gradkit`, as ``pip install`` does), so that
a kernel imports what a class's server holds: from a source checkout with
``PYTHONDONTWRITEBYTECODE`` set, every kernel would compile gradkit's sources anew.

``python -m benchmarks.classroom --learners 1,10,20 [--lesson 00]`` prints the detailed table;
``make bench ARGS='--only classroom'`` runs N = 1, 2 (``--full``: 1, 10, 20). At N = 20 the
machine's speed drifts between runs by more than gradkit costs: ``--rounds 5`` then runs the warm
lesson, the anchor with a gradient and the lesson without widgets five times more, each round's
three back to back in a rotating order (:func:`paired_rounds`), and prints the median ratios with
their range.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import compileall
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat

from gradkit.cli.lesson_copy import lesson_files
from gradkit.cli.runner import notebook_client

from . import Row

__all__ = ["cells_without_widgets", "compile_gradkit", "paired_rounds", "run", "run_class"]

LESSON = "03_why_float32_fails"
_ANCHOR = "N kernels: import torch only"
_ANCHOR_GRAD = "N kernels: torch + one gradient"
_FIRST_GRADIENT = (  # as gradcheck asks for one: with grad_outputs (which loads torch's sympy)
    "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * x\n"
    "torch.autograd.grad(y, x, torch.ones_like(y))"
)
_NO_WIDGETS = "N kernels: the lesson less its widgets"
_CPU_NOTE = "(kernel CPU s: robust to a busy machine)"
_SHARE_NOTE = "(gradkit's imports, widgets, later work)"
_MARK = "GRADKIT-CLASS "
#: Run in each kernel before the signal (not timed): records when gradkit works, as wall-clock
#: spans with their CPU seconds: each top-level import of a gradkit module (with what it
#: imports), each outermost construction of a gradkit widget, each run of the work deferred
#: after a cell; and the kernel's CPU clock as the setup ends.
_SETUP = """
import importlib.abc as _abc, functools as _ft, sys as _sys, time as _time
class _GradkitTimer(_abc.MetaPathFinder):
    spans, depth = [], 0
    def timed(self, fn):
        @_ft.wraps(fn)
        def run(*args, **kwargs):
            if self.depth:
                return fn(*args, **kwargs)
            start, cpu = _time.time(), _time.process_time(); self.depth += 1
            try: return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                self.spans.append((start, _time.time(), _time.process_time() - cpu))
        return run
    def loaded(self, module):
        for name, value in list(vars(module).items()):
            mine = getattr(value, "__module__", None) == module.__name__
            widget = isinstance(value, type) and hasattr(value, "comm")
            if mine and widget and "__init__" in vars(value):
                value.__init__ = self.timed(value.__init__)
            elif mine and name == "run_pending":
                setattr(module, name, self.timed(value))
    def find_spec(self, name, path=None, target=None):
        if not name.startswith("gradkit") or getattr(self, "finding", False):
            return None
        self.finding = True
        try:
            spec = next((s for f in _sys.meta_path if f is not self
                         for s in [getattr(f, "find_spec", lambda *a: None)(name, path, target)]
                         if s is not None), None)
        finally:
            self.finding = False
        if spec is not None and hasattr(spec.loader, "exec_module"):
            run = self.timed(spec.loader.exec_module)
            def exec_module(module, run=run):
                run(module); self.loaded(module)
            spec.loader.exec_module = exec_module
        return spec
_sys.meta_path.insert(0, _GradkitTimer())
_sys.meta_path[0].cpu0 = _time.process_time()
"""
_REPORT = f"""
_cpu = _time.process_time() - _sys.meta_path[0].cpu0
import json as _json
_mem = dict(l.split(":", 1) for l in open("/proc/self/smaps_rollup").read().splitlines()[1:])
print({_MARK!r} + _json.dumps({{"spans": _sys.meta_path[0].spans, "cpu": _cpu,
      "rss": int(_mem["Rss"].split()[0]) / 1024, "pss": int(_mem["Pss"].split()[0]) / 1024}}))
"""


def cells_without_widgets(source: nbformat.NotebookNode) -> list[str]:
    """The lesson's code cells with its gradkit widgets left out: each ``from gradkit.widgets
    import``, each statement that builds a widget it imported (``ruler = FloatRuler(...)`` or a
    bare ``FloatRuler(...)``) and each bare display of one (``ruler``). What is left is
    re-written by ``ast`` (comments go); a cell left empty goes.

    Raises
    ------
    ValueError
        When a cell is not Python (magics are, as a kernel reads them), or uses a widget
        otherwise (``ruler.eps = 3``): then the lesson's work and its widgets' cannot be timed
        apart.
    """
    from IPython.core.inputtransformer2 import TransformerManager  # magics, as a kernel reads

    widgets: set[str] = set()  # the classes imported, then the names bound to widgets too
    cells = []
    for index, cell in enumerate(c for c in source.cells if c.cell_type == "code"):
        try:
            body = ast.parse(TransformerManager().transform_cell(cell.source)).body
        except SyntaxError as error:
            raise ValueError(f"code cell {index} is not Python ({error.msg})") from None
        kept = []
        for node in body:
            value = getattr(node, "value", None)
            built = isinstance(value, ast.Call) and getattr(value.func, "id", None) in widgets
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "gradkit.widgets"
            ):
                widgets |= {alias.asname or alias.name for alias in node.names}
            elif isinstance(node, ast.Assign) and built:
                widgets |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.Expr) and (built or getattr(value, "id", None) in widgets):
                pass  # building a widget to show it, or showing one
            elif used := {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & widgets:
                line = ast.unparse(node).splitlines()[0]
                raise ValueError(
                    f"code cell {index} uses {', '.join(sorted(used))} beyond building and "
                    f"showing it ({line!r}): its work and the widget's cannot be timed apart"
                )
            else:
                kept.append(node)
        if kept:
            cells.append(ast.unparse(ast.Module(kept, type_ignores=[])))
    return cells


def _merged(spans: list[tuple[float, float]]) -> float:
    """Total length of the union of intervals."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        total += max(0.0, b - max(a, end))
        end = max(end, b)
    return total


async def _learner(client: Any, cells: list, start: asyncio.Event) -> float:
    """Wait for the signal, run every cell; seconds from the signal to the last reply."""
    await start.wait()
    t0 = time.time()
    for index, cell in cells:
        await client.async_execute_cell(cell, index)
    return time.time() - t0


async def _class(
    n: int, cells_source: list[str] | None, cache: Path, work: Path, lesson: str = LESSON
) -> list[dict]:
    """N learners at once; per learner: seconds, gradkit's share (wall and CPU seconds), the
    kernel's CPU seconds, RSS and PSS (MiB)."""
    source = nbformat.read(_lesson(lesson), as_version=4)
    env = {"GRADKIT_CACHE": str(cache)}  # on top of this process's environment
    books, clients = [], []
    for _ in range(n):
        nb = source if cells_source is None else nbformat.v4.new_notebook()
        nb = nbformat.from_dict(json.loads(json.dumps(nb)))
        if cells_source is not None:
            nb.cells = [nbformat.v4.new_code_cell(s) for s in cells_source]
        books.append(nb)
        clients.append(notebook_client(nb, work, timeout=1800, env=env))
    start = asyncio.Event()
    async with contextlib.AsyncExitStack() as stack:
        for client in clients:
            await stack.enter_async_context(client.async_setup_kernel())
            await client.kc.execute_interactive(_SETUP, timeout=120)
        cells = [[(k, c) for k, c in enumerate(nb.cells) if c.cell_type == "code"] for nb in books]
        tasks = [
            asyncio.ensure_future(_learner(c, x, start))
            for c, x in zip(clients, cells, strict=True)
        ]
        await asyncio.sleep(0.5)
        start.set()
        seconds = await asyncio.gather(*tasks)
        out = []
        for client, nb, s in zip(clients, books, seconds, strict=True):
            report = nbformat.v4.new_code_cell(_REPORT)
            nb.cells.append(report)
            await client.async_execute_cell(report, len(nb.cells) - 1)
            text = "".join(o.get("text", "") for o in report.outputs)
            data = json.loads(text.split(_MARK, 1)[1])
            out.append(
                {
                    "seconds": s,
                    "gradkit": _merged([(a, b) for a, b, _ in data["spans"]]),
                    "cpu": data["cpu"],
                    "gradkit_cpu": sum(c for _, _, c in data["spans"]),
                    "rss": data["rss"],
                    "pss": data["pss"],
                }
            )
    return out


def _stats(runs: list[dict], key: str) -> tuple[float, float]:
    values = [r[key] for r in runs]
    return statistics.median(values), max(values)


#: The comparisons a class run prints: (run, against), each as p50 wall and CPU ratios.
VERSUS = (("warm", "anchor+grad"), ("no widgets", "anchor+grad"), ("warm", "no widgets"))


def _p50s(results: dict[str, list[dict]], mode: str) -> tuple[float, float]:
    """(p50 seconds, p50 CPU seconds) of one run."""
    return _stats(results[mode], "seconds")[0], _stats(results[mode], "cpu")[0]


def _lesson(name: str) -> Path:
    """The shipped lesson whose name starts with ``name``."""
    return next(p for p in lesson_files() if p.stem.startswith(name))


def compile_gradkit(package: Path | None = None) -> None:
    """Write the bytecode of gradkit's modules (or ``package``'s) beside them, as ``pip install``
    does: a module compiled already is left alone, a folder that cannot be written is skipped."""
    if package is None:
        import gradkit

        package = Path(gradkit.__file__).parent
    compileall.compile_dir(package, quiet=2)


def _cells_of(lesson: Path) -> dict[str, list[str] | None]:
    """What each run's kernels execute (None: the lesson itself, cold or warm)."""
    return {
        "anchor": ["import torch"],
        # torch's own first gradient imports sympy (torch.fx's symbolic shapes, ~0.45 s): any
        # lesson that takes a gradient pays it, gradkit or not; this anchor shows what is left
        "anchor+grad": [_FIRST_GRADIENT],
        "no widgets": cells_without_widgets(nbformat.read(lesson, as_version=4)),
        "cold": None,
        "warm": None,
    }


def run_class(n: int, work: Path, lesson_name: str = LESSON) -> dict[str, list[dict]]:
    """Anchor, anchor+grad, no widgets, cold and warm runs of N learners, back to back."""
    from gradkit.cli.warm import Progress, warm_lesson

    compile_gradkit()
    lesson = _lesson(lesson_name)
    cold, warm = work / f"cold-{n}", work / f"warm-{n}"
    cells = _cells_of(lesson)
    results = {  # the warm run goes last, once `gradkit warm` has filled its cache
        mode: asyncio.run(_class(n, run, cold, work, lesson.stem))
        for mode, run in cells.items()
        if mode != "warm"
    }
    with open(os.devnull, "w") as quiet:  # what `gradkit warm --cache` does
        warm_lesson(lesson, 1800, Progress([lesson.stem], quiet), env={"GRADKIT_CACHE": str(warm)})
    results["warm"] = asyncio.run(_class(n, None, warm, work, lesson.stem))
    return results


def paired_rounds(
    n: int, work: Path, rounds: int, lesson_name: str = LESSON
) -> list[dict[str, tuple[float, float]]]:
    """The warm lesson, the anchor with a gradient and the lesson without widgets, ``rounds``
    times: per round each one's p50 seconds and p50 CPU seconds (:func:`_p50s`), the three runs
    of a round back to back, the order rotating from round to round, so that a drift of the
    machine's speed reaches every side. Uses the warm cache :func:`run_class` filled in ``work``."""
    lesson = _lesson(lesson_name)
    warm = work / f"warm-{n}"
    cells = _cells_of(lesson)
    order, measured = ["warm", "anchor+grad", "no widgets"], []
    for _ in range(rounds):
        sides = {m: asyncio.run(_class(n, cells[m], warm, work, lesson.stem)) for m in order}
        measured.append({m: _p50s(sides, m) for m in sides})
        order = order[1:] + order[:1]
    return measured


def rounds_line(n: int, measured: list[dict[str, tuple[float, float]]]) -> str:
    """Per comparison of :data:`VERSUS`, the rounds' median ratio and its range, wall and CPU."""
    parts = []
    for a, b in VERSUS:
        wall, cpu = (
            f"{statistics.median(v):.2f}x ({min(v):.2f}–{max(v):.2f})"
            for v in ([r[a][i] / r[b][i] for r in measured] for i in (0, 1))
        )
        parts.append(f"N={n:<3} {a} against {b}: p50 {wall}, CPU {cpu}")
    return f"{len(measured)} rounds, each of the three back to back:\n" + "\n".join(parts)


def _rows(n: int, results: dict[str, list[dict]]) -> list[Row]:
    a50, amax = _stats(results["anchor"], "seconds")
    rows = []
    for mode in ("cold", "warm"):
        p50, top = _stats(results[mode], "seconds")
        goal, met = "(no goal)", None
        if mode == "warm" and n >= 20:
            goal, met = "p50 <= 1.25x anchor", p50 <= 1.25 * a50
        elif mode == "warm" and n == 1:
            goal, met = "p50 <= anchor + 0.3 s", p50 <= a50 + 0.3
        name = f"lesson 03, {n} learner(s), {mode} cache: p50|max"
        ms = (p50 * 1000, top * 1000, _ANCHOR, a50 * 1000, amax * 1000)
        rows.append(Row("classroom", name, *ms, goal, met))
    g50, gmax = _stats(results["anchor+grad"], "seconds")
    p50, top = _stats(results["warm"], "seconds")
    goal, met = "(the anchor with torch's first gradient)", None
    if n >= 20:
        goal, met = "p50 <= 1.1x anchor+grad", p50 <= 1.1 * g50
    elif n == 1:
        goal, met = "p50 <= anchor+grad + 0.2 s", p50 <= g50 + 0.2
    name = f"lesson 03, {n} learner(s), warm cache: p50|max"
    ms = (p50 * 1000, top * 1000, _ANCHOR_GRAD, g50 * 1000, gmax * 1000)
    rows.append(Row("classroom", name, *ms, goal, met))
    if "no widgets" in results:  # what the widgets alone cost: the lesson less its widgets
        b50, bmax = _stats(results["no widgets"], "seconds")
        name = f"lesson 03, {n} learner(s), warm cache, against itself less its widgets: p50|max"
        ms = (p50 * 1000, top * 1000, _NO_WIDGETS, b50 * 1000, bmax * 1000)
        rows.append(Row("classroom", name, *ms, "(what the widgets add)", None))
    # the same comparison in CPU seconds, and gradkit's own CPU share against the same anchor
    c50, cmax = _stats(results["anchor+grad"], "cpu")
    anchor = (_ANCHOR_GRAD + ", CPU", c50 * 1000, cmax * 1000)
    for key, what, note in (
        ("cpu", "kernel CPU", _CPU_NOTE),
        ("gradkit_cpu", "gradkit CPU", _SHARE_NOTE),
    ):
        k50, kmax = _stats(results["warm"], key)
        name = f"lesson 03, {n} learner(s), warm: {what}"
        rows.append(Row("classroom", name, k50 * 1000, kmax * 1000, *anchor, note, None))
    return rows


def detail(n: int, results: dict[str, list[dict]]) -> str:
    """One line per run: p50 / max to the last cell, the kernel's CPU, gradkit's share (wall
    p50 / max, CPU), memory per kernel; then the comparisons of :data:`VERSUS`."""
    lines = []
    for mode, runs in results.items():
        (p50, top), (g50, gmax) = _stats(runs, "seconds"), _stats(runs, "gradkit")
        cpu, gcpu = _stats(runs, "cpu")[0], _stats(runs, "gradkit_cpu")[0]
        rss, pss = _stats(runs, "rss")[0], _stats(runs, "pss")[0]
        share = f"  gradkit {g50:4.2f} / {gmax:4.2f} s (CPU {gcpu:4.2f} s)"
        lines.append(
            f"N={n:<3} {mode:11}  last cell p50 {p50:6.2f} s  max {top:6.2f} s  CPU {cpu:5.2f} s"
            f"{'' if mode.startswith('anchor') else share}"
            f"  kernel RSS {rss:4.0f} MiB  PSS {pss:4.0f} MiB"
        )
    for a, b in (v for v in VERSUS if set(v) <= set(results)):
        (w, wcpu), (g, gcpu) = _p50s(results, a), _p50s(results, b)
        lines.append(
            f"N={n:<3} {a} against {b}: p50 {w - g:+.2f} s ({w / g:.2f}x), "
            f"CPU {wcpu - gcpu:+.2f} s ({wcpu / gcpu:.2f}x)"
        )
    return "\n".join(lines)


def run(full: bool, device: str) -> list[Row]:
    """``make bench`` suite: N = 1, 2 (``full``: 1, 10, 20); details on stderr."""
    del device
    rows = []
    with tempfile.TemporaryDirectory(prefix="gradkit-class-") as work:
        for n in (1, 10, 20) if full else (1, 2):
            results = run_class(n, Path(work))
            print(detail(n, results), file=sys.stderr, flush=True)
            rows.extend(_rows(n, results))
    return rows


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.classroom --learners 1,10,20``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.classroom", description=__doc__)
    parser.add_argument("--learners", default="1,2", help="comma-separated N (default 1,2)")
    parser.add_argument("--lesson", default=LESSON, help=f"a lesson's name or start ({LESSON})")
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="rounds of warm, anchor+grad and no widgets after each N, back to back",
    )
    args = parser.parse_args(argv)
    if args.rounds < 0:
        parser.error(f"--rounds {args.rounds}: give a whole number 0 or more (0: none)")
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="gradkit-class-") as work:
        for n in [int(v) for v in args.learners.split(",")]:
            print(detail(n, run_class(n, Path(work), args.lesson)), flush=True)
            if args.rounds:
                measured = paired_rounds(n, Path(work), args.rounds, args.lesson)
                print(rounds_line(n, measured), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
