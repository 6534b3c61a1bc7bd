"""The practice widgets: a quiz, a predict-then-run moment, an exercise panel and the zoo hunt.

- :class:`Quiz` and :class:`Predict` (``quiz.py``, ``predict.py``): Python sends the question or
  prompt with every verdict it needs (each option's rightness and explanation; the true value
  computed at build time with its tolerance and feedback); the page (``quiz.js``,
  ``predict.js``, ``feedback.js``) shuffles, takes the answer, marks, reveals and explains, with
  no kernel needed. Python reads the answer back from the state the page sends.
- :class:`ExercisePanel` and :class:`ZooHunt` (``exercise.py``, ``zoo_hunt.py``,
  ``specimens.py``): the page (``panel.js``) draws from the state and what Python writes in the
  scene, with one code path. Hints, the solution and a hunt's runs are page state (buttons the
  page presses itself); Python checks the learner's code and sends each verdict of a specimen
  run. A page with no kernel (a static export) starts from the hunt's every verdict, saved with
  it; only checking the learner's code needs a running notebook there.

Each class is imported on first use: a lesson with a Quiz and a Predict loads neither the
exercise grader nor the zoo hunt (nor builds their ES bundles).
"""

from __future__ import annotations

from ..._lazy import lazy_attributes

#: Each public class and its module, imported on first use.
_HOMES = {
    "ExercisePanel": ".exercise",
    "Predict": ".predict",
    "Quiz": ".quiz",
    "ZooHunt": ".zoo_hunt",
}

__all__ = ["ExercisePanel", "Predict", "Quiz", "ZooHunt"]


__getattr__ = lazy_attributes(__name__, _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
