"""Jupyter widgets for learning gradcheck; each one works as the last line of a cell.

>>> from gradkit.widgets import SlopeExplorer
>>> SlopeExplorer()  # doctest: +SKIP

- :class:`SlopeExplorer`: tangent (analytic slope) versus secant (numeric slope) as eps shrinks.
- :class:`EpsilonLab`: the V-shaped error versus eps for four dtypes, with gradcheck's tolerance.
- :class:`GradcheckLab`: gradcheck's verdict, its cause and the Jacobians, for the zoo.
- :class:`FloatRuler`: the representable numbers around x and where x ± eps land.
- :class:`Quiz`: multiple choice with immediate feedback.

Each widget is an ``ipywidgets.VBox`` with the CSS class ``gradkit-widget``; its controls,
readouts (class ``gradkit-readout``), error area (``error_area``, class ``gradkit-error``) and
figure (``figure``) are public attributes, listed in each class's docstring. Figures live on an
ipympl canvas and never enter pyplot; ``close()`` frees them, and re-running a notebook cell
closes the widgets its previous run made.
"""

from .epsilon_lab import EpsilonLab
from .float_ruler import FloatRuler
from .gradcheck_lab import GradcheckLab
from .quiz import Quiz
from .slope_explorer import SlopeExplorer

__all__ = ["EpsilonLab", "FloatRuler", "GradcheckLab", "Quiz", "SlopeExplorer"]
