"""gradkit as an nbgrader course: the lessons as assignments, and where the class is stuck.

- :mod:`gradkit.course.assignment`: a lesson notebook as an nbgrader source notebook (each
  exercise's starter an autograded answer, its check an autograder test running gradkit's grader,
  a read-only cell that records first guesses), and the course's ``nbgrader_config.py``.
- :mod:`gradkit.course.record`: in the learner's kernel, each first guess (Predict, quiz, zoo
  specimen) kept in the recording cell's output, saved with the notebook, never sent anywhere.
- :mod:`gradkit.course.saved`: that record read back from a submitted notebook, entry by entry.
- :mod:`gradkit.course.checks`: what the autograder's test cells call.
- :mod:`gradkit.course.release`: the nbgrader preprocessors that release the lesson's starter
  and keep the first guesses for the autograder.
- :mod:`gradkit.course.summary` and :mod:`gradkit.course.picture`: the teacher's summary from the
  gradebook and the submissions, as text and as an HTML page.

Nothing here imports nbgrader or the widgets at import time: the lessons work without them.
"""

from __future__ import annotations

from .checks import check_exercise, check_first_guess
from .record import GUESS_FILE, read_first_guesses, record_first_guesses
from .saved import RECORD_MIME, read_saved_guesses

__all__ = [
    "GUESS_FILE",
    "RECORD_MIME",
    "check_exercise",
    "check_first_guess",
    "read_first_guesses",
    "read_saved_guesses",
    "record_first_guesses",
]
