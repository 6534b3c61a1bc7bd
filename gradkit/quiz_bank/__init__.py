"""The lessons' quiz questions and predict-then-run moments, kept out of the learner's cells.

The questions live in ``gradkit/data/quizzes.toml`` (or any file of the same format), never in
the code cell a learner sees, so the answer key is not in plain sight. This module loads and
validates that file, looks entries up by id, shuffles each question's options per learner and
grades answers; the widgets :class:`gradkit.widgets.Quiz` and :class:`gradkit.widgets.Predict`
only display what it returns.

File format::

    [[quiz]]
    id = "03-why-float32"
    question = "Why does a correct backward fail gradcheck in float32?"
    answer = "Rounding error of about u·|f|/eps swamps the tiny difference"
    explanation = "Why the right answer is right (shown after a right answer)."
    transfer = "dtype"   # optional: a transfer question ("function", "dtype" or "shape")
    [[quiz.wrong]]
    option = "float32 backward rules are less accurate"
    explanation = "Why this one is wrong (shown when the learner picks it)."

    [[predict]]
    id = "06-calls-n10"
    prompt = "How many forward calls does slow-mode gradcheck make for 10 input entries?"
    kind = "number"      # or "choice", with options = [...] and answer = "..."
    tolerance = 0        # relative tolerance for kind = "number"
    answer = 22          # optional for "number": the value when no compute is given
    right = "Feedback when the guess was right."
    wrong = "Feedback when it was not (the true value is shown beside the guess)."

Options are shuffled per learner: the order depends on the learner's user name and the quiz
id, so it is stable for one learner across runs and differs between learners; over a bank's
quizzes in lesson order the right option's place takes every position in turn. The environment
variable ``GRADKIT_QUIZ_ORDER=fixed`` puts them in the file's order (the answer first), for tests.

>>> bank = load_bank()  # doctest: +SKIP
>>> entry = bank.quiz("03-why-float32")  # doctest: +SKIP
>>> grade_choice(entry, entry.answer).correct  # doctest: +SKIP
True
"""

from .entries import (
    Grade,
    PredictEntry,
    QuizBank,
    QuizBankError,
    QuizEntry,
    UnknownEntryError,
    WrongOption,
)
from .grading import as_actual, grade_choice, grade_prediction, parse_guess, right_range
from .loading import DEFAULT_PATH, TRANSFERS, as_bank, load_bank, parse_bank
from .order import (
    ORDER_VARIABLE,
    answer_place,
    learner_name,
    option_order,
    order_seed,
    seeded_order,
    shuffled_options,
)

__all__ = [
    "DEFAULT_PATH",
    "ORDER_VARIABLE",
    "TRANSFERS",
    "Grade",
    "PredictEntry",
    "QuizBank",
    "QuizBankError",
    "QuizEntry",
    "UnknownEntryError",
    "WrongOption",
    "answer_place",
    "as_actual",
    "as_bank",
    "grade_choice",
    "grade_prediction",
    "learner_name",
    "load_bank",
    "option_order",
    "order_seed",
    "parse_bank",
    "parse_guess",
    "right_range",
    "seeded_order",
    "shuffled_options",
]
