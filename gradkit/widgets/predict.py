"""Predict: commit to a guess, then run the code and see the true value beside it.

>>> from gradkit.widgets import Predict
>>> Predict("07-calls-n10", compute=lambda: count_calls(torch.sin, (x,)).forward)  # doctest: +SKIP

The prompt and the feedback live in ``gradkit/data/quizzes.toml`` (``[[predict]]`` entries, see
:mod:`gradkit.quiz_bank`). "Lock in my guess" freezes the guess first, and only then runs
``compute()``: the true value appears beside the guess with the feedback for a right or a
wrong guess. A locked guess cannot be changed.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from ..quiz_bank import PredictEntry, QuizBank, as_bank, grade_prediction, parse_guess
from ._base import GradkitWidget
from ._controls import Control
from ._format import InputError
from ._panel_helpers import LAB_CSS, feedback_html, feedback_readout, with_theme

__all__ = ["Predict"]


class Predict(GradkitWidget):
    """A predict-then-run moment: guess, lock it in, then see the true value.

    Parameters
    ----------
    predict_id : str
        The id of a ``[[predict]]`` entry of the quiz file, e.g. ``"07-calls-n10"``.
    compute : callable, optional
        Called with no arguments after the guess is locked in; returns the true value (a number,
        or one of the options: a bool matches options such as "passes"/"fails" or "yes"/"no").
        Default: the entry's ``answer`` from the file.
    bank : str, path or QuizBank, optional
        Another quiz file; default the one shipped with gradkit.

    Attributes
    ----------
    entry : PredictEntry
    guess_text : Control
        The answer box (kind "number"); ``.value`` is the typed text.
    guess_buttons : Control
        The options (kind "choice"); ``.value`` is the picked option or None.
    lock_button : Control
        "Lock in my guess"; ``.click()`` as in the browser.
    result_html, feedback_html : Readout
        The guess beside the true value; the feedback.
    locked : bool
        Whether a guess was locked in.
    locked_guess : float, str or None
    actual : float, str or None
        The true value, once revealed.
    correct : bool or None
        Whether the locked guess was right (None before the reveal).
    error_area : ErrorArea
        ``.value`` is the HTML of the error area (empty when all is well).
    """

    css = "gradkit-predict"
    view = "predict"
    _stage = None  # close() from __del__ after a constructor refused its arguments
    _css = with_theme(LAB_CSS)

    def __init__(
        self,
        predict_id: str,
        compute: Callable[[], object] | None = None,
        *,
        bank: str | Path | QuizBank | None = None,
    ) -> None:
        entry = as_bank(bank).predict(predict_id)
        _check_compute(entry, compute)
        super().__init__()
        with self._building():
            self.entry: PredictEntry = entry
            self._compute = compute
            self.locked = False
            self.locked_guess: float | str | None = None
            self._locked_raw: str | None = None
            self.actual: float | str | None = None
            self.correct: bool | None = None
            guess_control = self._build_guess(entry)
            self.lock_button = self.button(
                "lock",
                "Lock in my guess",
                css="gradkit-lock",
                tooltip="freeze your guess, then run the code and compare",
            )
            self.result_html = self.readout("result", "gradkit-predict-result")
            self.feedback_html = feedback_readout(self)
            self.lock_button.on_click(lambda _button: self._lock())
            guess_control.observe(lambda change: self._guess_changed(change))
            self._layout(
                entry.prompt,
                "",
                [guess_control, self.lock_button],
                [self.result_html, self.feedback_html],
            )
            self.result_html.value = (
                "<span class='gk-r-detail'>Commit to a guess first: the answer appears only "
                "after you lock it in.</span>"
            )
            self.alt = f"prediction: {entry.prompt}"

    def _build_guess(self, entry: PredictEntry) -> Control:
        """The answer box (kind "number") or the option buttons (kind "choice")."""
        self.guess_text = self.guess_buttons = None
        if entry.kind == "number":
            unit = f" ({entry.unit})" if entry.unit else ""
            self.guess_text = self.text(
                "guess",
                value="",
                label="guess",
                css="gradkit-guess",
                tooltip=f"type a number{unit}, then lock it in",
                placeholder="a number",
            )
            return self.guess_text
        self.guess_buttons = self.toggle(
            "guess",
            list(entry.options),
            value=None,
            label="guess",
            css="gradkit-guess",
            tooltips=[f"guess: {o}" for o in entry.options],
        )
        return self.guess_buttons

    # ----------------------------------------------------------------------------- actions
    def guess(self, value: float | str) -> bool:
        """Lock in ``value`` as the guess, run ``compute`` and reveal; return whether it was right.

        Raises
        ------
        RuntimeError
            When a guess is already locked in (it cannot be changed).
        ValueError, TypeError
            When ``value`` is not a number (kind "number") or not one of the options.
        """
        if self.locked:
            raise RuntimeError(
                f"the guess {self._shown(self.locked_guess)} is locked in and cannot be changed; "
                f"run the cell again for a fresh Predict({self.entry.id!r})"
            )
        parse_guess(self.entry, value)  # a clear error before anything changes
        control = self.guess_text if self.entry.kind == "number" else self.guess_buttons
        control.value = str(value) if self.entry.kind == "number" else value
        self._reveal(value)
        return bool(self.correct)

    def _guess_changed(self, change: dict) -> None:
        if not self.locked:
            return
        # a locked guess stays: put the box or the buttons back as they were
        if self.values.get("guess") != self._locked_raw:
            self._set_values({"guess": self._locked_raw})

    def _lock(self) -> None:
        if self.locked:
            raise InputError(
                f"Your guess {html.escape(self._shown(self.locked_guess))} is already locked in."
            )
        raw = self.values.get("guess")
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            what = "Type a number" if self.entry.kind == "number" else "Pick one of the options"
            raise InputError(f"{what} first, then lock it in.")
        try:
            parse_guess(self.entry, raw)
        except (TypeError, ValueError) as error:
            raise InputError(html.escape(str(error))) from None
        self._reveal(raw)

    def _reveal(self, raw: float | str) -> None:
        given = parse_guess(self.entry, raw)
        self._locked_raw = self.values.get("guess")
        self.locked, self.locked_guess = True, given
        self._freeze(True)
        self.busy = True
        try:
            actual = self._compute() if self._compute is not None else self.entry.answer
            verdict = grade_prediction(self.entry, given, actual)
        except BaseException:
            self.locked, self.locked_guess = False, None  # nothing was revealed: try again
            self._freeze(False)
            raise
        finally:
            self.busy = False
        self.actual, self.correct = verdict.expected, verdict.correct
        self.result_html.value = self._result_line(given, verdict.expected, verdict.correct)
        self.feedback_html.value = feedback_html(verdict.correct, verdict.explanation, retry=False)

    def _freeze(self, frozen: bool) -> None:
        control = self.guess_text if self.entry.kind == "number" else self.guess_buttons
        control.disabled = frozen
        self.lock_button.disabled = frozen
        self.lock_button._set_state(text="Locked in" if frozen else "Lock in my guess")

    # ------------------------------------------------------------------------------ text
    def _shown(self, value: float | str | None) -> str:
        if isinstance(value, float):
            return f"{value:.6g}"
        return "" if value is None else str(value)

    def _result_line(self, given: float | str, actual: float | str, correct: bool) -> str:
        unit = f" {html.escape(self.entry.unit)}" if self.entry.unit else ""
        guess = f"<b>{html.escape(self._shown(given))}</b>{unit}"
        true = f"<b>{html.escape(self._shown(actual))}</b>{unit}"
        detail = ""
        if self.entry.kind == "number" and isinstance(actual, float) and isinstance(given, float):
            how_far = _how_far(given, actual, correct, self.entry)
            detail = f" <span class='gk-r-detail'>({how_far})</span>"
        return (
            f"<span class='gk-r-label'>your guess</span>&nbsp; {guess} &nbsp;·&nbsp; "
            f"<span class='gk-r-label'>true value</span>&nbsp; {true}{detail}"
        )

    def __repr__(self) -> str:
        return f"Predict({self.entry.id!r})"


def _check_compute(entry: PredictEntry, compute: object) -> None:
    """compute must be a function of no arguments, or absent when the file gives the answer."""
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


def _how_far(given: float, actual: float, correct: bool, entry: PredictEntry) -> str:
    """The rule for a right number, and how far off a wrong guess was."""
    if entry.tolerance > 0:
        rule = f"within {entry.tolerance * 100:.3g} % counts as right"
    else:
        rule = "only the exact value counts as right"
    if correct or actual == 0:
        return rule
    # how far off, relative to the true value: |guess - actual| / |actual|
    off = abs(given - actual) / abs(actual) * 100
    side = "above" if given > actual else "below"
    return f"{off:.2g} % {side} the true value; {rule}"
