"""What every lesson must show in a front end after it ran top to bottom, shared by
``test_lessons.py`` (Notebook 7), ``test_lessons_lab.py`` (JupyterLab 4) and
``test_lessons_voila.py`` (Voila): three files, so that ``pytest -n 2 --dist loadfile`` can run
two front ends at once.

In Notebook 7 and Voila every lesson runs; in JupyterLab the fewest lessons that together show
every kind of output (:data:`LAB_LESSONS`).
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import nbformat
from conftest import FRONT_ENDS
from test_voila import voila_text_problems

from gradkit import widgets
from gradkit.cli import lesson_files

import harness as jp
from unfold import spoilers

__all__ = [
    "LAB_LESSONS",
    "LESSONS",
    "PAGE_KINDS",
    "case_ids",
    "cases",
    "check_ipympl_where_it_should_be",
    "check_lesson_run",
    "covering_lessons",
    "kinds_shown",
]

LESSONS = [path.name for path in lesson_files()]
#: A one-cell notebook next to the lessons (written by the ``lesson_copy`` fixture).
PROBE = "_probe.ipynb"
#: Menu instructions that make no sense in a Voila app (it has no menus and no cells to run).
MENU_INSTRUCTIONS = re.compile(r"Run All|Run\s*>|Run\s*▸|Run\s*→")

#: What a lesson can put on the page that a front end must render: each widget class, a
#: matplotlib figure, gradkit's report card.
PAGE_KINDS = {name: re.compile(rf"\b{name}\(") for name in widgets.__all__} | {
    "matplotlib figure": re.compile(r"\bplt\.(show|subplots|figure)\("),
    "report card": re.compile(r"\bgradkit\.check\("),
}


def kinds_shown(path: Path) -> set[str]:
    """The :data:`PAGE_KINDS` a lesson's code cells make."""
    code = "\n".join(
        cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"
    )
    return {kind for kind, made in PAGE_KINDS.items() if made.search(code)}


def covering_lessons(kinds: dict[str, set[str]]) -> list[str]:
    """The fewest lessons that together show every kind any lesson shows (the first such set in
    lesson order; a dozen lessons make a few thousand sets to try)."""
    every = set().union(*kinds.values())
    for size in range(1, len(kinds) + 1):
        for chosen in itertools.combinations(sorted(kinds), size):
            if set().union(*(kinds[name] for name in chosen)) == every:
                return list(chosen)
    return sorted(kinds)


#: JupyterLab renders what Notebook 7 renders (the same widget manager and output areas): every
#: lesson runs in Notebook 7 and Voila, and in JupyterLab the few that together show every kind
#: of output (``GRADKIT_BROWSER_ALL_LESSONS=1`` runs every lesson everywhere).
LAB_LESSONS = (
    LESSONS
    if os.environ.get("GRADKIT_BROWSER_ALL_LESSONS") == "1"
    else covering_lessons({path.name: kinds_shown(path) for path in lesson_files()})
)


def cases(front_ends: tuple[str, ...]) -> list[tuple[str, str]]:
    """(front end, lesson) for each of ``front_ends`` that the suite runs (:data:`FRONT_ENDS`),
    one front end after the other, in lesson order."""
    return [
        (front_end, name)
        for front_end in FRONT_ENDS
        if front_end in front_ends
        for name in (LAB_LESSONS if front_end.startswith("lab") else LESSONS)
    ]


def case_ids(chosen: list[tuple[str, str]]) -> list[str]:
    """Test ids of :func:`cases`: ``notebook-03``."""
    return [f"{front_end}-{name[:2]}" for front_end, name in chosen]


def check_lesson_run(all_lessons, front_end: str, name: str) -> None:
    """Run the lesson: no error output or error box, every widget rendered, every picture drawn
    (nonzero size, drawn content), no uncaught JavaScript error, no answer given away; in Voila,
    no menu instructions; in Notebook 7 and JupyterLab, the notebook-only note. The lesson's page
    is closed afterwards (its record stays); a failing check first takes its full-page screenshot
    (``run.screenshot``, named in the message)."""
    lessons = all_lessons[front_end]
    try:
        run = lessons.run(name)
        try:
            _check_run(run, front_end, name)
        except AssertionError:
            if not run.page.is_closed():  # what the failure message points to
                jp.full_screenshot(run.page, run.screenshot)
            raise
    finally:
        lessons.release(name)


def _check_run(run, front_end: str, name: str) -> None:
    """The checks of :func:`check_lesson_run` on the run's record and its open page."""
    where = f"{name} in {front_end} (screenshot {run.screenshot})"
    assert not run.problems, f"{where} shows errors:\n" + "\n".join(run.problems)
    shown = run.widgets
    assert shown["failed"] == 0, f"{where}: 'Error displaying widget' on the page"
    assert shown["rendered"] == shown["expected"], (
        f"{where}: {shown['expected']} widget outputs but {shown['rendered']} rendered"
    )
    assert not run.picture_problems, f"{where}: pictures missing:\n" + "\n".join(
        run.picture_problems
    )
    assert run.console_errors == [], f"{where}: uncaught JavaScript errors {run.console_errors}"
    given_away = spoilers(run.unfold, where)
    assert given_away == [], "the lesson gives an answer away:\n" + "\n".join(given_away)
    if front_end == "voila":
        menus = sorted(set(MENU_INSTRUCTIONS.findall(run.text)))
        assert not menus, f"{where}: the Voila app tells the learner to use menus: {menus}"
        assert voila_text_problems(name, run.text) == [], where
    else:
        _notebook_only_notes_show_in_the_notebook(run, where)


def _notebook_only_notes_show_in_the_notebook(run, where: str) -> None:
    """In Notebook 7 and JupyterLab the notebook-only note is there, the note meant for a page
    without code (Voila) is not, and the CSS that switches them in Voila never shows as text."""
    text = run.page.locator("body").inner_text()
    assert "Live widgets" in text, f"{where}: the note on running cells is missing"
    assert "open the lesson in Jupyter" not in text, f"{where} shows the Voila-only note"
    assert "celltag_" not in text and "gradkit-voila-only" not in text, f"{where} shows CSS"


def check_ipympl_where_it_should_be(all_lessons, front_end: str) -> None:
    """The no-ipympl runs prove something only if ipympl is really gone there: its kernel cannot
    import it and its page has no ipympl plugin, while plain Notebook 7 has both. In JupyterLab
    the probe opens in the lessons' page (:meth:`conftest.Lessons.notebook`)."""
    absent = front_end.endswith("no-ipympl")
    with all_lessons[front_end].notebook(PROBE) as page:
        plugin = page.evaluate(f"() => window.jupyterapp.hasPlugin('{jp.IPYMPL_PLUGIN}')")
        assert plugin is not absent, f"{front_end}: ipympl plugin loaded is {plugin}"
        found = jp.kernel_execute(
            page,
            "import importlib.util\n"
            "try:\n    import ipympl\n    print('imported')\n"
            "except ModuleNotFoundError as error:\n    print(error)",
        )["stdout"]
        expected = "No module named 'ipympl'" if absent else "imported"
        assert expected in found, f"{front_end}: import ipympl printed {found!r}"
