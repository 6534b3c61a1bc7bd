"""``gradkit warm [LESSONS...] [--cache DIR]``: fill the scene cache with the lessons' scenes.

What a hub image runs once at build time, so that no learner's kernel computes a scene another
kernel could have read. Each lesson is executed top to bottom in a fresh kernel (nbclient), with
the scene cache on: every widget it builds stores the tables torch computed for it, exactly as a
learner's Run All would, with the lesson's own arguments (a lesson's widget calls may use its
variables, so executing it is the one faithful way to know its scenes). A last cell added to
the copy run asks the kernel what its cache did; the lesson files are never written.

LESSONS are lesson names or their starts (``01``, ``03_why``) or notebook paths; none means
every lesson shipped. ``--cache DIR`` sets ``GRADKIT_CACHE`` for the kernels (default: the
environment's, else the platform's folder). A progress bar (one line per lesson when stderr is
no terminal) and a summary: scenes stored and read, the cache's size and folder, the time.
Exit status 1 when a lesson raised (its scenes up to there are stored all the same).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from .errors import EXIT_FAIL, EXIT_PASS, UsageError
from .lesson_copy import lesson_files

__all__ = ["Progress", "WarmResult", "add_parser", "chosen_lessons", "run_warm", "warm_lesson"]

_MARK = "GRADKIT-WARM "
#: Run in each kernel after its lesson: the deferred work first, then the cache's counts.
_REPORT_CELL = (
    "import json as _json\n"
    "from gradkit.widgets.base.schedule import run_pending as _run_pending\n"
    "from gradkit.widgets.base.cache import scene_cache as _cache\n"
    "_run_pending()\n"
    f"print({_MARK!r} + _json.dumps({{'stored': _cache.stores, 'read': _cache.hits,"
    " 'folder': str(_cache.folder), 'bytes': _cache.size()}))\n"
)


@dataclass
class WarmResult:
    """What warming one lesson did."""

    lesson: str
    stored: int = 0
    read: int = 0
    folder: str = ""
    bytes: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``gradkit warm`` on the ``gradkit`` command's subparsers."""
    warm = sub.add_parser("warm", help="fill the scene cache with the lessons' scenes (hub images)")
    warm.add_argument("lessons", metavar="LESSON", nargs="*", help="e.g. 01 03 (default: all)")
    warm.add_argument("--cache", metavar="DIR", help="the cache folder (sets GRADKIT_CACHE)")
    warm.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")


def chosen_lessons(names: list[str]) -> list[Path]:
    """The notebooks LESSONS names (every shipped lesson for none); UsageError for a stray one."""
    shipped = lesson_files()
    if not names:
        return shipped
    chosen: list[Path] = []
    for name in names:
        path = Path(name)
        found = [path] if path.suffix == ".ipynb" and path.is_file() else []
        found = found or [p for p in shipped if p.stem.startswith(name) or p.name == name]
        if not found:
            known = ", ".join(p.stem for p in shipped)
            raise UsageError(f"no lesson named {name!r}; choose from {known} or give a path")
        chosen.extend(p for p in found if p not in chosen)
    return chosen


def warm_lesson(path: Path, timeout: int, progress: Progress) -> WarmResult:
    """Execute one lesson in a fresh kernel (cache on) and read back what its cache did."""
    import nbformat  # the CLI's other commands never need Jupyter's machinery
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    result = WarmResult(path.stem)
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_REPORT_CELL))
    code = [(k, c) for k, c in enumerate(nb.cells) if c.cell_type == "code"]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gradkit-warm-") as work:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": work}})  # fmt: skip
        with client.setup_kernel():
            for done, (index, cell) in enumerate(code, 1):
                try:
                    client.execute_cell(cell, index)
                except CellExecutionError as error:
                    result.errors.append(f"cell {index}: {str(error).strip().splitlines()[-1]}")
                progress.step(path.stem, done, len(code))
    result.seconds = time.perf_counter() - start
    for output in nb.cells[-1].get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith(_MARK):
                counts = json.loads(line[len(_MARK) :])
                result.stored, result.read = counts["stored"], counts["read"]
                result.folder, result.bytes = counts["folder"], counts["bytes"]
    return result


class Progress:
    """A one-line progress bar on a terminal; one line per lesson elsewhere (image builds)."""

    WIDTH = 30

    def __init__(self, lessons: list[str], stream: TextIO) -> None:
        self.lessons, self.stream = lessons, stream
        self.live = stream.isatty()

    def step(self, lesson: str, done: int, total: int) -> None:
        """Cell ``done`` of ``total`` of ``lesson`` has run."""
        if not self.live:
            return
        k = self.lessons.index(lesson)
        fraction = (k + done / max(total, 1)) / len(self.lessons)
        bar = "#" * round(fraction * self.WIDTH)
        self.stream.write(
            f"\r[{bar:<{self.WIDTH}}] {fraction:4.0%}  {lesson} ({done}/{total})\033[K"
        )
        self.stream.flush()

    def lesson_done(self, result: WarmResult) -> None:
        """One line per lesson: its scenes, its time and any error."""
        if self.live:
            self.stream.write("\r\033[K")
        note = f"   {len(result.errors)} error(s): {result.errors[0]}" if result.errors else ""
        self.stream.write(
            f"{result.lesson:28} {result.stored:4d} scenes stored, {result.read:4d} read"
            f"  {result.seconds:6.1f} s{note}\n"
        )
        self.stream.flush()


def run_warm(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``gradkit warm``: every chosen lesson in turn, then the summary; the exit status."""
    out = out or sys.stdout
    lessons = chosen_lessons(list(args.lessons))
    if args.cache:
        os.environ["GRADKIT_CACHE"] = str(Path(args.cache).expanduser().resolve())
    progress = Progress([p.stem for p in lessons], sys.stderr)
    start, results = time.perf_counter(), []
    for path in lessons:
        results.append(warm_lesson(path, args.timeout, progress))
        progress.lesson_done(results[-1])
    last = results[-1]
    if last.folder == "None":
        out.write("gradkit warm: the cache is off (GRADKIT_CACHE=off): nothing was stored\n")
    out.write(
        f"gradkit warm: {len(lessons)} lesson(s), {sum(r.stored for r in results)} scenes stored,"
        f" {sum(r.read for r in results)} already there; cache {last.bytes / 2**20:.1f} MiB"
        f" in {last.folder or '(unknown: the report cell did not run)'};"
        f" {time.perf_counter() - start:.1f} s\n"
    )
    failed = [r.lesson for r in results if r.errors]
    if failed:
        out.write(f"gradkit warm: cells raised in {', '.join(failed)}\n")
    return EXIT_FAIL if failed else EXIT_PASS
