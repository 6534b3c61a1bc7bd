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
readout from them, so eps, dtype, scheme and x moves need no kernel message. Controls and the
error area (``error_area``) are Python handles, listed in each class's docstring; ``close()``
frees the widget, and re-running a notebook cell closes the widgets its previous run made.
``README.md`` beside this file is the guide for a new widget.
"""

from __future__ import annotations

from .._lazy import lazy_attributes

#: Each public class and its module, imported on first use: a lesson pays only for the
#: widgets it shows (``from gradkit.widgets import SlopeExplorer`` loads no other family).
_HOMES = {
    "EpsilonLab": ".epsilon",
    "ExercisePanel": ".practice",
    "FloatRuler": ".ruler",
    "GradcheckLab": ".lab",
    "JacobianBuilder": ".jacobian",
    "Predict": ".practice",
    "Quiz": ".practice",
    "SlopeExplorer": ".slope",
    "ZooHunt": ".practice",
}

__all__ = [
    "EpsilonLab",
    "ExercisePanel",
    "FloatRuler",
    "GradcheckLab",
    "JacobianBuilder",
    "Predict",
    "Quiz",
    "SlopeExplorer",
    "ZooHunt",
]


__getattr__ = lazy_attributes(__name__, _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
