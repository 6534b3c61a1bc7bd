"""Release an exercise with the lesson's starter: an nbgrader preprocessor for generate_assignment.

nbgrader replaces an answer cell without solution markers by its stub; :class:`StarterCells`,
placed right after nbgrader's ``ClearSolutions``, puts back the lesson's starter code kept in the
cell's metadata (``metadata.gradkit.starter``), before nbgrader's checksums are computed. Imported
only by the course's ``nbgrader_config.py`` (nbgrader is needed from here on).
"""

from __future__ import annotations

from nbgrader.converters import GenerateAssignment
from nbgrader.preprocessors import ClearSolutions, NbGraderPreprocessor

__all__ = ["StarterCells", "release_preprocessors"]


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
