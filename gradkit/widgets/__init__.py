"""Jupyter widgets for learning gradcheck; each one works as the last line of a cell.

>>> from gradkit.widgets import SlopeExplorer
>>> SlopeExplorer()  # doctest: +SKIP

- :class:`SlopeExplorer`: tangent (analytic slope, or your backward's) versus secant (numeric).
- :class:`EpsilonLab`: the V-shaped error versus eps for four dtypes, with gradcheck's tolerance.
- :class:`GradcheckLab`: gradcheck's verdict, its cause and the Jacobians, for the zoo.
- :class:`FloatRuler`: the representable numbers around x and where x ± eps land.
- :class:`JacobianBuilder`: the numeric Jacobian filled column by column as each entry is nudged,
  the analytic one row by row through backward, with call counts that grow with n.
- :class:`Quiz`: multiple choice with feedback for every option; questions live in a data file.
- :class:`Predict`: commit to a guess, then see the true value beside it.
- :class:`ExercisePanel`, :class:`ZooHunt`: write a backward and get it checked; diagnose the zoo.

Each widget is one anywidget (an ipywidgets ``DOMWidget``, so it composes in ``VBox`` and works in
Notebook 7, JupyterLab 4, Voila, marimo and a static export) with the CSS classes
``gradkit-widget`` and its own root class. Python computes, with torch and ahead of time, every
place a control can reach and sends it as tables; the page draws every picture and writes every
readout from them, so eps, dtype, scheme and x moves need no kernel message. The values shown
are traits of each class (the error area's HTML is ``error``), and the controls have Python
handles, listed in each class's docstring; ``close()`` frees the widget, and re-running a
notebook cell closes the widgets its previous run made.
``README.md`` beside this file is the guide for a new widget.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .._lazy import lazy_attributes


def _widget_homes() -> dict[str, str]:
    """Each widget class and its family: the names every family subpackage (each folder here but
    ``base``) lists in its ``__init__.py``'s ``__all__``, read from the file, nothing imported.
    A new family is found by itself."""
    homes = {}
    for init in sorted(Path(__file__).parent.glob("*/__init__.py")):
        if init.parent.name == "base":
            continue
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
                "__all__"
            ]:
                homes.update(dict.fromkeys(ast.literal_eval(node.value), f".{init.parent.name}"))
    return homes


#: Each public class and its family, imported on first use: a lesson pays only for the widgets
#: it shows (``from gradkit.widgets import SlopeExplorer`` loads no other family).
_HOMES = _widget_homes()

__all__ = sorted(_HOMES)


__getattr__ = lazy_attributes(__name__, _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
