"""``export_site``: lessons in, a static site out (see the package docstring for the layout)."""

from __future__ import annotations

import os
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._palette import CARDS_CSS
from ..lesson_copy import lesson_files, lessons_dir
from .cells import cell_html, output_html, shown_cells
from .folder import TEMPORARY_EXTRA, ExportError, check_room, check_site, name_limit, write_site
from .highlight import highlight_css
from .markdown import REMOTE_IMAGE
from .notebooks import (
    CellTimeLimitError,
    execute,
    find_notebooks,
    is_executed,
    read_notebook,
    widget_state,
)
from .pages import Lesson, describe, index_page, lesson_page
from .widgets import Modules, PageWidgets

__all__ = [
    "TIMEOUT",
    "ExportSummary",
    "check_name_lengths",
    "check_page_names",
    "export_site",
    "render_lesson",
]

HERE = Path(__file__).parent
#: The site's own files, copied from the wheel: name in SITE -> file beside this module.
ASSETS = {"assets/loader.js": HERE / "loader.js", "assets/site.css": HERE / "site.css"}
#: Seconds one cell may run by default (``--timeout``).
TIMEOUT = 120


@dataclass
class ExportSummary:
    """What an export wrote: the pages, the site's size in bytes, the widgets per kind."""

    site: Path
    pages: list[str]
    size: int
    live: int
    notes: list[str]
    seconds: float


def render_lesson(
    notebook: Any,
    path: Path,
    modules: Modules,
    shipped: bool = False,
    warn: Callable[[str], None] = lambda _line: None,
) -> Lesson:
    """One executed notebook as a :class:`~.pages.Lesson` (its cells as HTML, its widgets).

    Parameters
    ----------
    notebook : NotebookNode
        The executed notebook, with its widget state.
    path : Path
        Where it came from (its folder holds the images its markdown names).
    modules : Modules
        The site's widget modules, shared by every page.
    shipped : bool
        Whether the lesson ships with gradkit (its page links to Binder).
    warn : callable
        Receives one line per image left out of the page or linked to (see
        :func:`~.markdown.image_src`), per cell whose output was cut, and one for the widgets
        shown as a note because their code is not the installed gradkit's.
    """
    folder = path.parent

    def outputs(output: dict) -> str:
        return output_html(output, widgets, folder, warn)

    widgets = PageWidgets(widget_state(notebook), modules, outputs)
    cells = shown_cells(notebook)
    rendered = [cell_html(cell, widgets, folder, warn) for cell in cells]
    first = next((k for k, c in enumerate(cells) if c.get("cell_type") == "markdown"), None)
    title, description = describe(rendered[first] if first is not None else "", path.stem)
    lesson = Lesson(path.stem, title, description, rendered, shipped=shipped)
    if widgets.models:
        lesson.scripts, lesson.models_json = widgets.scripts(), widgets.page_json()
    lesson.live, lesson.notes = len(widgets.live), list(widgets.notes)
    lesson.writes_code = any(
        c.get("cell_type") == "code" and "ExercisePanel(" in "".join(c.get("source") or "")
        for c in notebook.get("cells", [])
    )
    if widgets.foreign:
        warn(
            f"{len(widgets.foreign)} widget(s) ({', '.join(sorted(set(widgets.foreign)))}) carry "
            "code that is not this gradkit's (saved by another version, or changed): each is "
            "shown as a note; export the notebook unexecuted to play them"
        )
    if widgets.tampered:
        warn(
            f"{len(widgets.tampered)} widget(s) saved text that could run or load "
            f"({'; '.join(widgets.tampered)[:300]}), which gradkit never saves: each is shown "
            "as a note; export the notebook unexecuted to play them"
        )
    return lesson


def _executed(path: Path, notebook: dict, log: Callable[[str], None], timeout: int) -> Any:
    """The notebook as the page shows it: taken as it is when it ran, else executed now."""
    if is_executed(notebook):
        log(f"taken    {path} (already executed)")
        return notebook
    start = time.perf_counter()
    try:
        run = execute(notebook, path.parent, timeout)
    except CellTimeLimitError as late:
        shown = (late.source.strip().splitlines() or [""])[0][:60]
        what = f"cell {late.cell} ({shown})" if shown.strip() else f"cell {late.cell}"
        if late.cell > len(notebook["cells"]):
            what = "saving the widgets' state after the last cell"
        raise ExportError(
            f"PATH {path}: {what} ran longer than --timeout {late.seconds} s and was stopped; "
            "make it faster, or give a larger --timeout. Nothing was written"
        ) from None
    except Exception as error:
        first = (str(error).strip().splitlines() or [""])[0][:300]
        raise ExportError(
            f"PATH {path} could not be executed ({type(error).__name__}: {first}); run it in "
            "Jupyter to see why, or save it executed and export that. Nothing was written"
        ) from error
    errors = sum(
        out.get("output_type") == "error"
        for cell in run["cells"]
        for out in cell.get("outputs", [])
    )
    said = f"; {errors} cell(s) raised an error, shown on the page" if errors else ""
    log(f"executed {path} in {time.perf_counter() - start:.1f} s{said}")
    return run


def _same(name: str) -> str:
    """A file name as a file system may see it: case and Unicode forms do not matter."""
    return unicodedata.normalize("NFC", name).casefold()


def check_page_names(notebooks: Sequence[Path]) -> None:
    """Refuse, before anything runs, a page that would take another's file or the index's.

    Each page is named after its notebook; ``Index.ipynb`` and ``index.ipynb``, or ``A.ipynb``
    and ``a.ipynb``, would be one file where case does not count (Windows, macOS), and
    ``index.ipynb`` would be the site's own ``index.html``.
    """
    taken: dict[str, Path] = {}
    for path in notebooks:
        page = f"{path.stem}.html"
        seen = taken.setdefault(_same(page), path)
        if seen != path:
            raise ExportError(
                f"PATH: {seen} and {path} would be one page: {seen.stem}.html and {page} are "
                "one file on Windows and macOS (where case does not count); rename one of them"
            )
    index = taken.get(_same("index.html"))
    if index is not None:
        raise ExportError(
            f"PATH {index} would be written as {index.stem}.html, which is the site's own "
            "index.html (the list of lessons); rename the notebook"
        )


def check_name_lengths(notebooks: Sequence[Path], site: Path) -> None:
    """Refuse, before anything runs, a page whose file name the file system of ``--out`` would
    refuse (with the temporary name each file is first written as)."""
    limit = name_limit(site) - TEMPORARY_EXTRA
    for path in notebooks:
        page = f"{path.stem}.html"
        size = len(os.fsencode(page))
        if size > limit:
            raise ExportError(
                f"PATH {path}: its page, {path.stem[:40]}….html, would be a file name of {size} "
                f"bytes, and the file system of --out {site} takes {limit} for a page; rename "
                f"the notebook to a name of at most {limit - 5} bytes. Nothing was written"
            )


def export_site(
    paths: Sequence[Path],
    site: Path,
    force: bool = False,
    log: Callable[[str], None] = print,
    timeout: int = TIMEOUT,
) -> ExportSummary:
    """Execute (or take) the lessons and write the static site into ``site``.

    Parameters
    ----------
    paths : sequence of Path
        Lesson notebooks or folders of them; empty: the lessons shipped with gradkit.
    site : Path
        The ``--out`` folder: new or empty, or any folder with ``force``.
    force : bool
        Write into a folder that is not empty (the site's own file names only).
    log : callable
        Receives one line per lesson as it is done, and the warnings: one per image left out,
        cell cut or page with a widget shown as a note, one for all pictures on the internet.
    timeout : int
        Seconds one cell may run (``--timeout``).

    Returns
    -------
    ExportSummary

    Raises
    ------
    ExportError
        A bad PATH or ``--out`` (a broken notebook, two pages of one name, a page name too long
        for ``--out``'s file system), before anything is executed or written; a cell that runs
        past ``timeout``, or a site its disk has no room for, before anything is written.
    """
    start = time.perf_counter()
    notebooks = find_notebooks(list(paths) or [lessons_dir()])
    check_page_names(notebooks)
    check_name_lengths(notebooks, site)
    names = [f"{p.stem}.html" for p in notebooks] + ["index.html", *ASSETS]
    check_site(site, force, names)
    read = {path: read_notebook(path) for path in notebooks}  # each checked before any runs
    shipped = {p.name for p in lesson_files()}
    modules, lessons = Modules(), []
    remote: dict[Path, int] = {}
    for path in notebooks:
        notebook = _executed(path, read[path], log, timeout)

        def warn(line: str, path: Path = path) -> None:
            if line.startswith(REMOTE_IMAGE):
                remote[path] = remote.get(path, 0) + 1
            else:
                log(f"warning  {path}: {line}")

        lessons.append(render_lesson(notebook, path, modules, path.name in shipped, warn))
    if remote:
        where = ", ".join(f"{path.name} ({count})" for path, count in remote.items())
        log(
            f"warning  {sum(remote.values())} picture(s) on the internet are links on the pages, "
            f"not pictures (nothing in the site loads from the network): {where}; save them "
            "beside the notebook to show them"
        )
    files = _site_files(lessons, modules)
    check_site(site, force, list(files))
    check_room(site, sum(len(data) for data in files.values()))
    write_site(site, files)
    live = sum(lesson.live for lesson in lessons)
    notes = [name for lesson in lessons for name in lesson.notes]
    return ExportSummary(
        site,
        [f"{lesson.name}.html" for lesson in lessons],
        sum(len(data) for data in files.values()),
        live,
        notes,
        time.perf_counter() - start,
    )


def _site_files(lessons: list[Lesson], modules: Modules) -> dict[str, bytes]:
    """Every file of the site: pages, index, the loader, the stylesheet, widget modules."""
    files: dict[str, bytes] = {}
    for k, lesson in enumerate(lessons):
        previous = lessons[k - 1] if k else None
        following = lessons[k + 1] if k + 1 < len(lessons) else None
        files[f"{lesson.name}.html"] = lesson_page(lesson, previous, following).encode()
    files["index.html"] = index_page(lessons).encode()
    files["assets/loader.js"] = ASSETS["assets/loader.js"].read_bytes()
    # the cards' stylesheet too: an output's <style> does not survive cleaning (cells.py)
    site_css = ASSETS["assets/site.css"].read_text(encoding="utf-8")
    css = "\n".join((site_css, highlight_css(), CARDS_CSS)) + "\n"
    files["assets/site.css"] = css.encode()
    files.update(modules.files)
    return files
