"""``export_site``: lessons in, a static site out (see the package docstring for the layout)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..lesson_copy import lesson_files, lessons_dir
from .cells import cell_html, highlight_css, output_html, shown_cells
from .folder import ExportError, check_site, write_site
from .markdown import markdown_html
from .notebooks import execute, find_notebooks, is_executed, read_notebook, widget_state
from .pages import Lesson, describe, index_page, lesson_page
from .widgets import Modules, PageWidgets

__all__ = ["ExportSummary", "export_site", "render_lesson"]

HERE = Path(__file__).parent
#: The site's own files, copied from the wheel: name in SITE -> file beside this module.
ASSETS = {"assets/loader.js": HERE / "loader.js", "assets/site.css": HERE / "site.css"}


@dataclass
class ExportSummary:
    """What an export wrote: the pages, the site's size in bytes, the widgets per kind."""

    site: Path
    pages: list[str]
    size: int
    live: int
    notes: list[str]
    seconds: float


def render_lesson(notebook: Any, path: Path, modules: Modules, shipped: bool = False) -> Lesson:
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
    """
    folder = path.parent

    def outputs(output: dict) -> str:
        return output_html(output, widgets, folder)

    widgets = PageWidgets(widget_state(notebook), modules, outputs)
    cells = shown_cells(notebook)
    rendered = [cell_html(cell, widgets, folder) for cell in cells]
    first = next((c for c in cells if c.get("cell_type") == "markdown"), None)
    source = first.get("source", "") if first else ""
    first_html = markdown_html("".join(source) if isinstance(source, list) else source)
    title, description = describe(first_html, path.stem)
    lesson = Lesson(path.stem, title, description, rendered, shipped=shipped)
    if widgets.models:
        lesson.scripts, lesson.models_json = widgets.scripts(), widgets.page_json()
    lesson.live, lesson.notes = len(widgets.live), list(widgets.notes)
    return lesson


def _executed(path: Path, log: Callable[[str], None]) -> Any:
    notebook = read_notebook(path)
    if is_executed(notebook):
        log(f"taken    {path} (already executed)")
        return notebook
    start = time.perf_counter()
    try:
        run = execute(notebook, path.parent)
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


def export_site(
    paths: Sequence[Path],
    site: Path,
    force: bool = False,
    log: Callable[[str], None] = print,
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
        Receives one line per lesson as it is done.

    Returns
    -------
    ExportSummary

    Raises
    ------
    ExportError
        A bad PATH or ``--out``, before anything is executed or written.
    """
    start = time.perf_counter()
    notebooks = find_notebooks(list(paths) or [lessons_dir()])
    names = [f"{p.stem}.html" for p in notebooks] + ["index.html", *ASSETS]
    check_site(site, force, names)
    shipped = {p.name for p in lesson_files()}
    modules, lessons = Modules(), []
    for path in notebooks:
        notebook = _executed(path, log)
        lessons.append(render_lesson(notebook, path, modules, path.name in shipped))
    files = _site_files(lessons, modules)
    check_site(site, force, list(files))
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
    css = ASSETS["assets/site.css"].read_text(encoding="utf-8") + "\n" + highlight_css() + "\n"
    files["assets/site.css"] = css.encode()
    files.update(modules.files)
    if len({name.lower() for name in files}) != len(files):
        raise ExportError("two lessons' pages would have the same name; rename one notebook")
    return files
