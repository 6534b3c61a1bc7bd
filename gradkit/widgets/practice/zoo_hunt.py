"""ZooHunt: read a zoo Function's code, predict gradcheck's verdict, then run it.

Every specimen's code is sent with the widget, so the page (``panel.js``) switches specimens by
itself; running gradcheck needs the kernel. A page without one (a static export) gets every
specimen's verdict, computed when the hunt's state is saved for it (:meth:`ZooHunt.offline_ahead`),
so *Run gradcheck* works there too. Also importable from ``gradkit.exercises``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import traitlets

from ... import zoo
from ...diagnosis import check
from ...report import CAUSES, CheckReport
from ..base import Control, InputError
from ..base.rows import button, dropdown, toggle
from .common import PageText, PracticeWidget, nullable
from .specimens import hunt_names, specimen_html

__all__ = ["ZooHunt"]

_PROMPT = "Read the code, choose a prediction, then run gradcheck."
#: What a run says, as Python and a page with no kernel (``panel.js``) write it.
RUN_WORDS = {
    "none": "You ran it without a prediction, so this Function no longer counts toward your "
    "score: guess first, it sticks better.",
    "right": "Right: the cause is {cause}.",
    "wrong": "Not quite: you predicted {guess}, the cause is {cause}.",
    "score": "Score: {right} right at the first try, out of {tried} predicted ({total} Functions "
    "in the hunt).",
}
#: The causes a hunt offers by default: the ones the lessons teach before the zoo.
GUESSES = ("pass", "precision", "bug", "kink", "error")


class _SpecimenMenu(Control):
    """The drop-down of specimens: the page shows labels, Python sees zoo names."""

    @property
    def options(self) -> list[tuple[str, Any]]:
        """(label, zoo name) pairs, as an ipywidgets Dropdown lists them."""
        return list(self._pairs)


class ZooHunt(PracticeWidget):
    """A hunt through the zoo: read a Function's code, predict gradcheck's verdict, then run it.

    Each Function is shown as "Specimen k" with its docstring removed and its class name
    replaced, so the code, not the name, tells what is wrong. Running it reveals the zoo name,
    the cause gradcheck reports, the explanation and the bug in one sentence.

    Parameters
    ----------
    names : sequence of str, optional
        Zoo entries to hunt through; default: every buggy entry plus two correct decoys.
    causes : sequence of str, optional
        The causes a learner picks a prediction from (default: the five the lessons teach
        first, :data:`GUESSES`, and the cause each specimen is expected to get);
        ``gradkit.CAUSES`` offers every one.

    Attributes
    ----------
    names : list of str
        The zoo names, in hunt order.
    entry_dropdown : Control
        Labels "Specimen k: formula"; values are the zoo names (``.options`` lists the pairs).
        The page switches specimens itself (every specimen's code is sent ahead).
    prediction_buttons : Control
        The learner's guess of the cause (``None`` until chosen; a new specimen clears it).
    entry, prediction : str or None
        The page's values: the specimen's label, the cause predicted.
    run_button : Control
        Runs :func:`gradkit.check` on the entry's sample inputs (float64); a page with no kernel
        shows the verdicts saved with it.
    code_html, result, score : PageText
        ``.value`` is the HTML the page shows: the specimen's code; the verdict on the
        prediction with gradkit's report and the bug (or an invitation before a run); the
        first-try score.
    error_area
        ``.value`` is the HTML of the error area (empty when all is well).
    last : CheckReport or None
    """

    css = "gradkit-zoo-hunt"
    view = "huntView"
    scripts = ("practice/panel.js",)

    entry = traitlets.Unicode(
        None, allow_none=True, help="the specimen's label in the menu (entry_dropdown)"
    ).tag(sync=True, state=True)
    prediction = traitlets.Unicode(
        None, allow_none=True, help="the cause predicted (prediction_buttons), None until chosen"
    ).tag(sync=True, state=True)

    def __init__(
        self, names: Sequence[str] | None = None, *, causes: Sequence[str] | None = None
    ) -> None:
        names = hunt_names(names)
        if causes is None:  # the causes taught first, and every specimen's own
            own = {zoo.entry(n).expected_cause["float64"] for n in names}
            causes = [c for c in CAUSES if c in GUESSES or c in own]
        guesses = list(causes)
        unknown = [c for c in guesses if c not in CAUSES]
        if unknown or not guesses:
            raise ValueError(f"causes={guesses!r}: pick one or more of {list(CAUSES)}")
        super().__init__()
        with self.building():
            self.names = names
            self.last: CheckReport | None = None
            # zoo name -> right at the first run (None: run before any prediction, so a guess
            # made after seeing the verdict never scores)
            self._first_tries: dict[str, bool | None] = {}
            self._results: dict[str, str] = {}
            self._score = ""
            pairs = [(f"Specimen {k}: {zoo.entry(n).formula}", n) for k, n in enumerate(names, 1)]
            self._labels = {n: f"Specimen{k}Fn" for k, n in enumerate(names, start=1)}
            self._by_label = dict(pairs)  # label -> zoo name
            first, name = pairs[0]
            self._specimens = {first: specimen_html(name, self._labels[name])}  # the rest: later
            self._build_controls(pairs, guesses)
            self.code_html = PageText(self._code)
            self.result = PageText(lambda: self._results.get(self.current("entry"), _PROMPT))
            self.score = PageText(lambda: self._score)
            self.layout(
                "Zoo hunt",
                "read the code, predict gradcheck's verdict, then run it",
                [self.entry_dropdown, self.prediction_buttons, self.run_button],
                [
                    ("code", "gradkit-specimen-code"),
                    ("result", "gradkit-hunt-result"),
                    ("score", "gradkit-hunt-score"),
                ],
                alt="zoo hunt",
            )
            self._publish()
            self.later(self._all_specimens)
            forget = self.guard(lambda _change: self.update_state({"prediction": None}))
            self.observe(forget, names=["entry"])
            self.on_click("run", self.run)

    def _build_controls(self, pairs: list[tuple[str, str]], guesses: list[str]) -> None:
        """The specimen menu (the page switches by itself), the cause buttons, the run button."""
        labels = [label for label, _name in pairs]
        menu = dropdown(
            self,
            "entry",
            labels,
            value=labels[0],
            label="Function",
            css="gradkit-specimen",
            tooltip="Which Function from the zoo to examine",
            kernel=False,
        )
        self.entry_dropdown = self.add_control(_SpecimenMenu(self, menu.spec, pairs), labels[0])
        causes = toggle(
            self,
            "prediction",
            guesses,
            value=None,
            label="I predict",
            css="gradkit-prediction",
            tooltips=[f"{k}: {CAUSES[k]}" for k in guesses],
        )
        self.prediction_buttons = nullable(self, causes)
        self.run_button = button(
            self,
            "run",
            "Run gradcheck",
            css="gradkit-run-gradcheck",
            tooltip="Run gradkit.check on this Function's sample inputs (float64)",
        )

    def _code(self) -> str:
        """The code the page shows for the specimen picked (the same cached HTML it was sent)."""
        name = self.entry_dropdown.value
        return specimen_html(name, self._labels[name])

    def _all_specimens(self) -> None:
        """Every specimen's code, sent after the first picture (the page switches by itself)."""
        labels = self._by_label.items()
        self._specimens = {label: specimen_html(n, self._labels[n]) for label, n in labels}
        self._publish()

    def _publish(self) -> None:
        """Every specimen's code, the results so far and the score (the page picks by entry)."""
        scene = {
            "specimens": self._specimens,
            "results": self._results,
            "prompt": _PROMPT,
            "score": self._score,
        }
        self.send_scene(scene, key=self._scene_count + 1)

    def check_page_value(self, key: str, value: Any) -> None:
        """The specimen the page picks must be one of the labels sent."""
        if key == "entry" and value not in self._by_label:
            raise InputError(f"the page sent entry={value!r}; it must be one of the specimens")
        if key != "entry":
            super().check_page_value(key, value)

    def run(self) -> CheckReport:
        """Check the selected entry and compare the verdict's cause with the prediction."""
        e = zoo.entry(self.entry_dropdown.value)
        report = check(e.apply, e.inputs())
        self.last = report
        guess = self.prediction_buttons.value
        if guess is None:
            verdict, css = RUN_WORDS["none"], ""
        elif guess == report.cause:
            verdict, css = RUN_WORDS["right"].format(cause=report.cause), "gk-good"
        else:
            verdict, css = RUN_WORDS["wrong"].format(guess=guess, cause=report.cause), "gk-bad"
        self._first_tries.setdefault(e.name, None if guess is None else guess == report.cause)
        self._results[self.current("entry")] = (
            f"<div class='gk-hunt-verdict {css}'>{html.escape(verdict)}</div>"
            f"{self._unmasked(e.name, report)}"
        )
        self._score = RUN_WORDS["score"].format(
            right=sum(right is True for right in self._first_tries.values()),
            tried=sum(right is not None for right in self._first_tries.values()),
            total=len(self.names),
        )
        self._publish()
        return report

    def _unmasked(self, name: str, report: CheckReport) -> str:
        """What a run shows after the verdict: gradkit's report, the zoo's name and the bug."""
        e = zoo.entry(name)
        bug = e.bug or "none: this Function is correct."
        return (
            f"{report._repr_html_()}<div>{html.escape(self._labels[name])} is the zoo's "
            f"<b>{html.escape(name)}</b>. The bug: {html.escape(bug)}</div>"
        )

    def offline_ahead(self) -> dict:
        """For a page with no kernel: every specimen's verdict (run now, on its sample inputs),
        so *Run gradcheck* answers there too; a new specimen clears the prediction, as here."""
        verdicts = {}
        for label, name in self._by_label.items():
            e = zoo.entry(name)
            report = check(e.apply, e.inputs())
            verdicts[label] = {
                "name": name,
                "cause": report.cause,
                "unmasked": self._unmasked(name, report),
            }
        return {
            "verdicts": verdicts,
            "words": RUN_WORDS,
            "total": len(self.names),
            "resets": {"entry": {"prediction": None}},
        }
