"""Exercises for the lessons: the learner writes a backward rule, gradkit checks it.

Each :class:`Exercise` names the class the learner defines (e.g. ``MyCube``), the forward it
must compute, sample inputs, hints revealed one at a time, and a solution shown only on request.

- :mod:`gradkit.exercises.data`: :data:`EXERCISES`, the exercises as data; their starter and
  solution code are real modules in ``starters/`` and ``solutions/``.
- :mod:`gradkit.exercises.grader`: :func:`grade` checks a learner's Function (forward first, then
  gradcheck in float64, with the exercise's other checks switched on: vmap, forward mode, None
  gradients) and returns :class:`Feedback`; :func:`hint` and :func:`solution` give the same help
  as plain text.
- :mod:`gradkit.exercises.entries`: where the numbers disagree, as the feedback names it: output
  entry i and input entry j, for backward and for forward mode.
- :mod:`gradkit.exercises.suite`: lesson 12's pytest file, ``test_my_function.py``, written into
  the learner's folder by :func:`~gradkit.exercises.suite.write_suite`, never over a file there.
- The notebook versions are widgets: :class:`gradkit.widgets.ExercisePanel` and
  :class:`gradkit.widgets.ZooHunt`. They are also importable from here, loaded only
  when asked for, so that this package itself needs no widgets.

>>> import torch
>>> class MyCube(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x**3
...     @staticmethod
...     def backward(ctx, grad_output):
...         (x,) = ctx.saved_tensors
...         return grad_output * 3 * x**2
>>> grade("cube", MyCube).passed
True
"""

from __future__ import annotations

import importlib

from .data import EXERCISES, Exercise
from .grader import Feedback, grade, hint, solution

__all__ = [
    "EXERCISES",
    "Exercise",
    "ExercisePanel",
    "Feedback",
    "ZooHunt",
    "grade",
    "hint",
    "solution",
]

#: Widgets that lived here before; kept importable (``from gradkit.exercises import ZooHunt``).
_WIDGETS = {
    "ExercisePanel": "gradkit.widgets.practice",
    "ZooHunt": "gradkit.widgets.practice",
}


def __getattr__(name: str) -> object:
    """Load a widget class on first use, so importing the exercises needs no widgets."""
    if name in _WIDGETS:
        return getattr(importlib.import_module(_WIDGETS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
