"""gradkit's two steps in nbgrader's pipelines: the lesson's starter, and the first guesses kept.

- generate_assignment: nbgrader replaces an answer cell without solution markers by its stub;
  :class:`StarterCells`, placed right after nbgrader's ``ClearSolutions``, puts back the lesson's
  starter code kept in the cell's metadata (``metadata.gradkit.starter``), before nbgrader's
  checksums are computed.
- autograde: its first pass clears every output (``ClearOutput``); :class:`KeepFirstGuesses`,
  placed just before, copies the record the recording cell's output holds (the learner's first
  guesses, :mod:`gradkit.course.saved`) into ``metadata.gradkit.first_guesses``, where the
  autograder's test cells read it.

Imported only by the course's ``nbgrader_config.py`` (nbgrader is needed from here on).
"""

from __future__ import annotations

from nbgrader.converters import Autograde, GenerateAssignment
from nbgrader.preprocessors import ClearOutput, ClearSolutions, NbGraderPreprocessor

from .saved import record_outputs

__all__ = ["KeepFirstGuesses", "StarterCells", "autograde_preprocessors", "release_preprocessors"]


class StarterCells(NbGraderPreprocessor):
    """Each answer cell with ``metadata.gradkit.starter`` gets that code back after
    ``ClearSolutions``."""

    def preprocess_cell(self, cell, resources, index):
        starter = cell.get("metadata", {}).get("gradkit", {}).get("starter")
        if starter is not None and cell.get("cell_type") == "code":
            cell.source = starter
        return cell, resources


def release_preprocessors() -> list[type]:
    """nbgrader's own generate_assignment preprocessors with :class:`StarterCells` after
    ``ClearSolutions``."""
    defaults = list(GenerateAssignment.class_traits()["preprocessors"].make_dynamic_default())
    if ClearSolutions not in defaults:
        raise RuntimeError(
            "this nbgrader's generate_assignment has no ClearSolutions step; gradkit cannot "
            "release the lessons' starters with it (nbgrader 0.9 is known to work)"
        )
    at = defaults.index(ClearSolutions) + 1
    return [*defaults[:at], StarterCells, *defaults[at:]]


class KeepFirstGuesses(NbGraderPreprocessor):
    """The recording cell's record (the last one, as the page keeps one) into
    ``metadata.gradkit.first_guesses`` (None when there is none), before ``ClearOutput``; a
    value the learner's file put there before is replaced."""

    def preprocess(self, nb, resources):
        records = record_outputs(nb)
        kept = nb.metadata.setdefault("gradkit", {})
        if not isinstance(kept, dict):
            nb.metadata["gradkit"] = kept = {}
        kept["first_guesses"] = records[-1] if records else None
        return nb, resources


def autograde_preprocessors() -> list[type]:
    """nbgrader's own autograde sanitizing steps with :class:`KeepFirstGuesses` before
    ``ClearOutput``."""
    defaults = list(Autograde.class_traits()["sanitize_preprocessors"].make_dynamic_default())
    if ClearOutput not in defaults:
        raise RuntimeError(
            "this nbgrader's autograde has no ClearOutput step; gradkit cannot keep the first "
            "guesses with it (nbgrader 0.9 is known to work)"
        )
    at = defaults.index(ClearOutput)
    return [*defaults[:at], KeepFirstGuesses, *defaults[at:]]
