"""Predict: commit to a guess, lock it in, then see the true value beside it.

>>> from gradkit.widgets import Predict
>>> Predict("07-calls-n10", compute=lambda: count_calls(torch.sin, (x,)).forward)  # doctest: +SKIP

The prompt and the feedback live in ``gradkit/data/quizzes.toml`` (``[[predict]]`` entries).
Python computes the true value when the widget is built and sends it with the entry's tolerance
and feedback; the page (``predict.js``) takes the guess, locks it in, compares, reveals and
explains, with no kernel needed. Python checks what the page sends as it would its own lock.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import traitlets

from ...quiz_bank import (
    PredictEntry,
    QuizBank,
    as_actual,
    as_bank,
    grade_prediction,
    parse_guess,
    right_range,
)
from ...quiz_bank.grading import GUESS_SPACES
from ..base import Control, InputError
from .common import Choice, PracticeWidget

__all__ = ["Predict", "check_guess"]

#: ``$GRADKIT_OPEN_LESSONS`` values that open every lesson at once (a teacher's preview: no
#: cell hidden behind a Predict, ``unfold.js``).
_OPEN = ("1", "true", "yes", "on")

#: The words for a guess that cannot be locked in, sent to the page: ``parseGuess`` in
#: ``predict.js`` fills in ``{text}`` and ``{options}`` as :func:`check_guess` does.
GUESS_SLIPS = {
    "number_first": "Type a number first, then lock it in.",
    "choice_first": "Pick one of the options first, then lock it in.",
    "not_number": "“{text}” is not a number: type digits such as 22 or 1e-3.",
    "not_option": "“{text}” is not one of the options [{options}].",
}


def check_guess(entry: PredictEntry, raw: object) -> float | str:
    """A guess as typed or picked, as the entry's kind wants it (a number, or an option).

    Raises :class:`InputError` with the words the page shows for the same slip (``parseGuess``
    in ``predict.js``; a shared fixture checks both agree).
    """
    text = "" if raw is None else str(raw).strip(GUESS_SPACES)
    if text:
        with contextlib.suppress(TypeError, ValueError):
            return parse_guess(entry, text)
    if entry.kind == "number":
        slip = "not_number" if text else "number_first"
    else:
        slip = "not_option" if text else "choice_first"
    values = {"text": text, "options": ", ".join(f"'{o}'" for o in entry.options)}
    raise InputError(re.sub(r"\{(\w+)\}", lambda m: values[m[1]], GUESS_SLIPS[slip]))


class Predict(PracticeWidget):
    """A predict-then-run moment: guess, lock it in, then see the true value.

    Parameters
    ----------
    predict_id : str
        The id of a ``[[predict]]`` entry of the quiz file, e.g. ``"07-calls-n10"``.
    compute : callable, optional
        Called once, with no arguments, **when the widget is built** (not when the guess is
        locked in): returns the true value (a number, or one of the options: a bool matches
        options such as "passes"/"fails" or "yes"/"no"). The page keeps it hidden until a
        guess is locked in. Default: the entry's ``answer`` from the file. Should it raise,
        the error shows in the widget's error area and no guess can be locked in.
    bank : str, path or QuizBank, optional
        Another quiz file; default the one shipped with gradkit.

    Attributes
    ----------
    entry : PredictEntry
    guess_text : Control or None
        The answer box (kind "number"); ``.value`` is the typed text.
    guess_buttons : Control or None
        The options (kind "choice"); ``.value`` is the picked option or None.
    lock_button : Control
        "Lock in my guess"; ``.click()`` locks in the guess shown, as the page's button does.

    The page's values (``guess``, ``locked``, ``second``) are read back as :attr:`correct`
    (the score: the first guess's, which a second try never changes) and :attr:`actual` once
    it shows; :meth:`judge` grades any guess, the second try's too.
    """

    css = "gradkit-predict"
    view = "predictView"
    scripts = (
        "practice/feedback.js",
        "practice/unfold.js",
        "practice/progress.js",
        "practice/predict.js",
    )

    guess = traitlets.Unicode(
        None, allow_none=True, help="the guess as typed (a number) or picked (an option), or None"
    ).tag(sync=True, state=True)
    locked = traitlets.Bool(False, help="whether a guess is locked in").tag(sync=True, state=True)
    second = traitlets.Unicode("", help="the second try as given, after a wrong guess").tag(
        sync=True, state=True
    )

    def __init__(
        self,
        predict_id: str,
        compute: Callable[[], object] | None = None,
        *,
        bank: str | Path | QuizBank | None = None,
    ) -> None:
        entry = as_bank(bank).predict(predict_id)
        if compute is not None and not callable(compute):
            raise TypeError(
                f"compute must be a function of no arguments (e.g. lambda: ...), got "
                f"{type(compute).__name__}"
            )
        if compute is None and entry.answer is None:
            raise TypeError(
                f"Predict({entry.id!r}) needs compute=: the quiz file gives no answer for it; "
                "pass e.g. compute=lambda: <the cell's computation>"
            )
        super().__init__()
        with self.building():
            self.entry: PredictEntry = entry
            self._locked_raw: str | None = None
            # the page builds the guess row itself (predict.js): these are Python's handles
            spec = {"kind": "guess", "name": "guess"}
            self.guess_text = self.guess_buttons = None
            if entry.kind == "number":
                self.guess_text = self.add_control(Control(self, spec), "")
            else:
                pairs = [(o, o) for o in entry.options]
                self.guess_buttons = self.add_control(Choice(self, spec, pairs), None)
            lock = Control(self, {"kind": "lock", "name": "lock"})
            self.lock_button = self.add_control(lock, has_value=False)
            readouts = [
                ("result", "gradkit-predict-result"),
                ("feedback", "gradkit-feedback gradkit-verdict"),
            ]
            self.layout(entry.prompt, "", [], readouts, alt=f"prediction: {entry.prompt}")
            # the true value, computed now (compute() or the file's answer), hidden until the lock
            compute = compute or (lambda: entry.answer)
            self._actual = self.guard(lambda: as_actual(entry, compute()))()
            self.send_scene(self._scene(), key=entry.id)
            self.on_click("lock", self._press_lock)
            self.observe(self.guard(self._keep_locked_guess), names=["locked", "guess"])

    def _scene(self) -> dict:
        """What the page needs to check, reveal and explain a guess."""
        known = self.entry.kind == "number" and self._actual is not None
        right = list(right_range(self.entry, self._actual)) if known else None
        return {
            "entry": self.entry.id,  # the question's id (the scene's own "id" counts scenes)
            "prompt": self.entry.prompt,
            "kind": self.entry.kind,
            "options": list(self.entry.options),
            "unit": self.entry.unit,
            "unit_one": self.entry.unit_one,
            "tolerance": self.entry.tolerance,
            "actual": self._actual,
            "right_range": right,  # a number is graded once, here: the page compares
            "right": self.entry.right,
            "wrong": self.entry.wrong,
            "slips": GUESS_SLIPS,
            "open_all": os.environ.get("GRADKIT_OPEN_LESSONS", "").strip().lower() in _OPEN,
        }

    # ----------------------------------------------------------------------- reading
    @property
    def second_try_offered(self) -> bool:
        """Whether a wrong guess gets a second try: a number, or a choice of more than two."""
        return self.entry.kind == "number" or len(self.entry.options) > 2

    @property
    def revealed(self) -> bool:
        """Whether the true value shows (and the rest of the lesson): after a right guess, a
        wrong one with no second try to come, or the second try."""
        if not self.locked:
            return False
        return bool(self.correct) or not self.second_try_offered or bool(self.current("second"))

    @property
    def actual(self) -> float | str | None:
        """The true value once it shows (:attr:`revealed`; None before)."""
        return self._actual if self.revealed else None

    @property
    def correct(self) -> bool | None:
        """Whether the locked guess is right (within the entry's tolerance), None before."""
        return self.judge(self.current("guess")) if self.locked else None

    def judge(self, guess: object) -> bool | None:
        """Whether ``guess`` (a number, its text, or an option) is right here, locked or not.

        Returns None when the true value could not be computed. A teacher's grader uses it
        to judge a first guess read from a learner's notebook against this kernel's own value.
        """
        if self._actual is None:
            return None
        try:
            parsed = parse_guess(self.entry, guess)
        except (TypeError, ValueError):
            return False
        return grade_prediction(self.entry, parsed, self._actual).correct

    # ----------------------------------------------------------------------- acting
    def lock(self, guess: float | str | None = None) -> bool:
        """Lock in ``guess`` (default: the guess shown) as the page's button does; returns
        whether it was right (``lock_in(value)`` is the same).

        Raises
        ------
        RuntimeError
            When a guess is already locked in (it cannot be changed).
        InputError
            When there is no guess, it is not a number (kind "number") or not one of the
            options, or the true value could not be computed.
        """
        if self.locked:
            raise RuntimeError(
                f"the guess {self.current('guess')} is locked in and cannot be changed: the first "
                f"guess is the one that counts (Predict({self.entry.id!r}) keeps it in the page, "
                "across a reload too)"
            )
        raw = self.current("guess") if guess is None else str(guess)
        self._check_lockable(raw)
        self.update_state({"guess": raw, "locked": True})
        return bool(self.correct)

    lock_in = lock

    def _check_lockable(self, raw: str | None) -> None:
        """InputError unless ``raw`` is a guess and there is a true value to compare it with."""
        check_guess(self.entry, raw)
        if self._actual is None:
            raise InputError("The true value could not be computed: fix the error, rerun the cell.")

    def try_again(self, guess: float | str) -> bool:
        """The second try after a wrong guess, as the page's second row gives it: graded, while
        the first guess keeps the score. Returns whether the second try was right.

        Raises
        ------
        RuntimeError
            Before a guess is locked in, after a right one, or when the second try is given.
        InputError
            When ``guess`` is no number (kind "number") or not one of the options.
        """
        refused = self._retry_refused()
        if refused:
            raise RuntimeError(f"Predict({self.entry.id!r}): {refused}")
        raw = str(guess).strip()
        check_guess(self.entry, raw)
        self.update_state({"second": raw})
        return bool(self.judge(raw))

    def _retry_refused(self, arriving: dict[str, Any] | None = None) -> str:
        """Why no second try may be given now ("" when one may). ``arriving``: the values of the
        page's message the second try comes in (a lock recalled after a reload comes whole:
        guess, locked and the second try), which it is checked against."""
        arriving = arriving or {}
        if not (self.locked or arriving.get("locked") is True):
            return "lock in a first guess before a second try"
        if self.judge(arriving.get("guess", self.current("guess"))):
            return "the first guess was right: there is no second try"
        if not self.second_try_offered:
            return "a choice of two has no second try: the other option is the answer"
        if self.current("second"):
            return f"the second try {self.current('second')} is given and cannot change"
        return ""

    def _press_lock(self) -> None:
        if self.locked:
            raise InputError(f"Your guess {self.current('guess')} is already locked in.")
        self.lock()

    def _keep_locked_guess(self, change: dict[str, Any]) -> None:
        if change["name"] == "locked" and change["new"]:  # the guess as locked in, which stays
            self._locked_raw = self.current("guess")
        elif self._locked_raw is not None and self.current("guess") != self._locked_raw:
            self.update_state({"guess": self._locked_raw})
            raise InputError(f"Your guess {self._locked_raw} is locked in and cannot change.")

    def check_page_values(self, incoming: dict) -> dict:
        """Besides the controls' rules: a lock is checked as Python's own, and a guess locked in
        stays locked (and, through :meth:`_keep_locked_guess`, unchanged); a second try only
        where one may be given, checked against the lock it may arrive with (a lock recalled
        after a reload)."""
        checked = super().check_page_values(incoming)
        locked = checked.get("locked", self.locked)
        if not isinstance(locked, bool) or (self.locked and not locked):
            raise InputError(f"the page sent locked={locked!r}; a guess locked in stays locked")
        if locked and not self.locked:
            self._check_lockable(checked.get("guess", self.current("guess")))
        second = checked.get("second", self.current("second"))
        if second != self.current("second"):
            refused = self._retry_refused(checked)
            if refused:
                raise InputError(f"the page sent second={second!r}: {refused}")
            check_guess(self.entry, second)
        return checked

    def __repr__(self) -> str:
        return f"Predict({self.entry.id!r})"
