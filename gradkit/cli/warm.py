"""``gradkit warm [LESSONS...] [--cache DIR]``: fill the scene cache with the lessons' scenes.

What a hub image runs once at build time, so that no learner's kernel computes a scene another
kernel could have read. Each lesson is executed top to bottom in a fresh kernel (nbclient), with
the scene cache on: every widget it builds stores the tables torch computed for it, exactly as a
learner's Run All would, with the lesson's own arguments (a lesson's widget calls may use its
variables, so executing it is the one faithful way to know its scenes). A last cell added to
the copy run asks the kernel what its cache did; the lesson files are never written.

LESSONS are lesson names or their starts (``01``, ``03_why``) or notebook paths; none means
every lesson shipped. ``--cache DIR`` sets ``GRADKIT_CACHE`` for the kernels (default: the
environment's, else the platform's folder). The kernels run this interpreter (the one gradkit is
installed in), never whatever ``python3`` kernel Jupyter finds first. A progress bar (one line
per lesson when stderr is no terminal) and a summary: scenes stored and read, the cache's size
and folder, the time.

Exit status 2 before any kernel starts for a cache folder (``--cache``, else ``$GRADKIT_CACHE``,
else the platform's) that is a file, cannot be written, is a symlink (itself or its ``scenes/``),
is owned by another user or could be written by others (the kernels would not read it), for
``GRADKIT_CACHE=off``, and for a lesson that is not a notebook.
Exit status 1 when a lesson raised, a cell timed out or a kernel died (its scenes up to there
are stored all the same), when the scenes went to another folder than the cache, or when nothing
at all was stored or read: an image built then would ship an empty cache. Each in one line,
never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .._folders import CACHE_OFF, distrust, fix_for, user_cache_folder
from .errors import EXIT_FAIL, EXIT_PASS, UsageError
from .lesson_copy import lesson_files
from .runner import CellError, run_notebook

__all__ = [
    "Progress",
    "WarmResult",
    "add_parser",
    "check_cache_folder",
    "chosen_lessons",
    "read_lesson",
    "run_warm",
    "warm_lesson",
]

_MARK = "GRADKIT-WARM "
#: The longest --timeout a cell may have (a day); more overflows the kernel client's clock.
MAX_TIMEOUT = 86400
#: Run in each kernel after its lesson: the deferred work first, then the cache's counts.
_REPORT_CELL = (
    "import json as _json\n"
    "from gradkit.widgets.base.schedule import run_pending as _run_pending\n"
    "from gradkit.widgets.base.cache import scene_cache as _cache\n"
    "_run_pending()\n"
    "_written = _cache.places()[1]\n"
    f"print({_MARK!r} + _json.dumps({{'stored': _cache.stores, 'read': _cache.hits,"
    " 'folder': str(_cache.folder), 'written': str(_written),"
    " 'bytes': _cache.size(_written or _cache.folder)}))\n"
)


@dataclass
class WarmResult:
    """What warming one lesson did."""

    lesson: str
    stored: int = 0
    read: int = 0
    folder: str = ""
    written: str = ""
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


def read_lesson(path: Path) -> Any:
    """The notebook at ``path`` (nbformat v4), or a usage error that names it."""
    import nbformat  # the CLI's other commands never need Jupyter's machinery

    try:
        return nbformat.read(path, as_version=4)
    except OSError as error:
        raise UsageError(f"LESSON {path} cannot be read ({error.strerror})") from None
    except (ValueError, KeyError, AttributeError, TypeError, nbformat.ValidationError) as error:
        # NotJSONError and bad UTF-8 are ValueErrors; JSON of another shape: not a lesson
        first = (str(error).strip().splitlines() or [type(error).__name__])[0][:120]
        raise UsageError(f"LESSON {path} is not a Jupyter notebook ({first})") from None


def check_cache_folder(folder: Path, named: str = "--cache") -> Path:
    """The cache folder made (if need be) and proven writable and trusted, or a usage error.

    ``named`` is how the command line named it (``--cache``, ``GRADKIT_CACHE``, ...).
    """
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{named} {folder} is a file, not a folder; name a folder")
    try:
        for part in (folder, folder / "scenes"):
            if not part.exists() and not part.is_symlink():
                part.mkdir(parents=True)
                part.chmod(0o755)  # owner writes, learners read, whatever the umask
            reason = distrust(os.lstat(part))
            if reason is not None:
                raise UsageError(
                    f"{named} {part} {reason}: the kernels would not read it (only a folder no "
                    f"one but its owner can write is read). Fix: {fix_for(folder)}"
                )
        with tempfile.NamedTemporaryFile(dir=folder / "scenes", prefix=".tmp-probe-"):
            pass  # a read-only mount, a full disk, no permission: found now, not after an hour
    except OSError as error:
        raise UsageError(
            f"{named} {folder} cannot be written ({error.strerror}); name a folder you can write"
        ) from None
    return folder


def warm_lesson(
    path: Path,
    timeout: int,
    progress: Progress,
    nb: Any = None,
    env: Mapping[str, str] | None = None,
) -> WarmResult:
    """Execute one lesson in a fresh kernel of this Python (cache on); what its cache did.

    Parameters
    ----------
    path : Path
        The lesson (read unless ``nb`` is given; never written).
    timeout : int
        Seconds one cell may run.
    progress : Progress
        Told after each code cell.
    nb : nbformat.NotebookNode, optional
        The lesson already read (run in place, with the report cell appended).
    env : mapping of str to str, optional
        Variables for the kernel on top of this process's (``GRADKIT_CACHE``).

    Returns
    -------
    WarmResult
        A cell that raises or times out, or a kernel that dies, is an entry in ``errors`` (a
        timeout or a dead kernel ends the lesson), never an exception.
    """
    import nbformat

    result = WarmResult(path.stem)
    nb = nb if nb is not None else read_lesson(path)
    nb.cells.append(nbformat.v4.new_code_cell(_REPORT_CELL))
    code = [k for k, c in enumerate(nb.cells) if c.cell_type == "code"]

    def step(index: int, _cell: Any) -> None:
        progress.step(path.stem, code.index(index) + 1, len(code))

    with tempfile.TemporaryDirectory(prefix="gradkit-warm-") as work:
        run = run_notebook(nb, work, timeout=timeout, env=env, on_cell=step)
    result.seconds = run.seconds
    result.errors = [_said(error, timeout) for error in run.errors]
    for output in nb.cells[-1].get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith(_MARK):
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    counts = json.loads(line[len(_MARK) :])
                    result.stored, result.read = counts["stored"], counts["read"]
                    result.folder, result.bytes = counts["folder"], counts["bytes"]
                    result.written = counts["written"]
    return result


def _said(error: CellError, timeout: int) -> str:
    """One line for a lesson's error, as the summary prints it."""
    if error.kind == "timeout":
        return f"cell {error.cell}: still running after --timeout {timeout} s"
    return str(error)


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
    if not 1 <= args.timeout <= MAX_TIMEOUT:
        raise UsageError(
            f"--timeout must be a whole number of seconds from 1 to {MAX_TIMEOUT}, got "
            f"{args.timeout}"
        )
    lessons = chosen_lessons(list(args.lessons))
    notebooks = [read_lesson(path) for path in lessons]  # a stray file: refused before any run
    chosen = args.cache or os.environ.get("GRADKIT_CACHE", "").strip()
    if chosen.lower() in CACHE_OFF:
        raise UsageError(
            f"GRADKIT_CACHE={chosen} turns the cache off, so nothing would be stored; unset it "
            "or name the folder with --cache DIR"
        )
    # absolute, links kept: a kernel reads GRADKIT_CACHE as written and never through a link
    folder = Path(os.path.abspath(Path(chosen).expanduser())) if chosen else user_cache_folder()
    named = "--cache" if args.cache else "GRADKIT_CACHE" if chosen else "the cache folder"
    env = {"GRADKIT_CACHE": str(check_cache_folder(folder, named))}  # the kernels' cache
    progress = Progress([p.stem for p in lessons], sys.stderr)
    start, results = time.perf_counter(), []
    for path, nb in zip(lessons, notebooks, strict=True):
        results.append(warm_lesson(path, args.timeout, progress, nb, env))
        progress.lesson_done(results[-1])
    last = results[-1]
    stored, read = sum(r.stored for r in results), sum(r.read for r in results)
    where = last.folder or "(unknown: the report cell did not run)"
    out.write(
        f"gradkit warm: {len(lessons)} lesson(s), {stored} scenes stored, {read} already there;"
        f" cache {last.bytes / 2**20:.1f} MiB in {where}; {time.perf_counter() - start:.1f} s\n"
    )
    failed = [r.lesson for r in results if r.errors]
    if failed:
        out.write(f"gradkit warm: cells raised in {', '.join(failed)}\n")
        return EXIT_FAIL
    astray = {r.written for r in results if r.stored and r.written != r.folder}
    if astray:
        out.write(
            f"gradkit warm: the kernels could not write {last.folder} and stored the scenes in "
            f"{', '.join(sorted(astray))} instead; fix the folder's permissions and run again\n"
        )
        return EXIT_FAIL
    if stored + read == 0:
        out.write(
            f"gradkit warm: no scene was stored in {last.folder or 'the cache'}: an image built "
            "now would ship an empty cache\n"
        )
        return EXIT_FAIL
    return EXIT_PASS
