"""Lessons closed before anything runs: every Predict is followed by a heading saved collapsed.

In Notebook 7 and JupyterLab a level-1 heading saved with ``jp-MarkdownHeadingCollapsed`` hides
every cell up to the next level-1 heading, before a kernel runs anything and after a reopen, and
Jupyter's own keyboard moves skip the cells it hides. So each lesson's stored ``.ipynb`` must carry:
right after each Predict's cell, a level-1 heading cell saved collapsed (the gate that the
Predict's page code expands when the guess is locked in); and no other level-1 heading after the
title, or a gate would end early and show what follows it.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from gradkit.cli import lesson_files

COLLAPSED = "jp-MarkdownHeadingCollapsed"
_PREDICT = re.compile(r"^\w+\s*=\s*Predict\(", re.M)
_LEVEL_ONE = re.compile(r"^#\s+\S")


def gate_problems(cells: list) -> list[str]:
    """What keeps a lesson from being closed before Run All, one line each (empty: closed)."""
    problems = []
    gates = set()
    for k, cell in enumerate(cells):
        if cell.cell_type == "code" and _PREDICT.search(cell.source):
            after = cells[k + 1] if k + 1 < len(cells) else None
            if (
                after is None
                or after.cell_type != "markdown"
                or not _LEVEL_ONE.match(after.source.lstrip())
            ):
                problems.append(f"cell {k + 1}: the cell after this Predict is no level-1 heading")
            elif after.metadata.get(COLLAPSED) is not True:
                problems.append(f"cell {k + 2}: the heading after a Predict is not saved collapsed")
            else:
                gates.add(k + 1)
    titles = [
        k
        for k, cell in enumerate(cells)
        if cell.cell_type == "markdown" and _LEVEL_ONE.match(cell.source.lstrip())
    ]
    for k in titles[1:]:
        if k not in gates:
            problems.append(f"cell {k + 1}: a level-1 heading that is no gate ends a gate early")
    return problems


@pytest.mark.parametrize("path", lesson_files(), ids=lambda p: Path(p).stem)
def test_every_predict_is_followed_by_a_collapsed_gate(path: Path) -> None:
    cells = nbformat.read(path, as_version=4).cells
    assert gate_problems(cells) == [], path.name


def test_a_lesson_with_a_predict_has_a_gate() -> None:
    """The guard reads what it should: the lessons hold Predicts, and so gates."""
    predicts = sum(
        len(_PREDICT.findall(cell.source))
        for path in lesson_files()
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code"
    )
    assert predicts >= 8


def test_the_guard_catches_a_missing_an_open_and_a_stray_heading() -> None:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    gate = md("# After your guess")
    gate.metadata[COLLAPSED] = True
    predict = code('p = Predict("01-forward-slope", compute=f)\np')
    good = [md("# Lesson"), predict, gate, md("## More")]
    assert gate_problems(good) == []
    missing = [md("# Lesson"), predict, md("## More")]
    assert "no level-1 heading" in gate_problems(missing)[0]
    opened = [md("# Lesson"), predict, md("# After your guess"), md("## More")]
    assert "not saved collapsed" in gate_problems(opened)[0]
    stray = [md("# Lesson"), predict, gate, md("# Another part")]
    assert "ends a gate early" in gate_problems(stray)[0]
