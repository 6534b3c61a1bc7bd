"""The practice widgets: a quiz, a predict-then-run moment, an exercise panel and the zoo hunt.

Python sends each question, prompt or specimen with every verdict it needs, and the page marks,
reveals and explains from it (see ``gradkit/widgets/README.md``); only checking a learner's code
needs a running kernel. Each class is imported on first use: a lesson with a Quiz and a Predict
loads neither the exercise grader nor the zoo hunt.
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
