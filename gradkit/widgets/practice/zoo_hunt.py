"""ZooHunt: read a zoo Function's code, predict gradcheck's verdict, then run it.

Every specimen's code is sent with the widget, so the page (``panel.js``) switches specimens by
itself. A run is page state too (``runs``, ``first_guesses``): Python, seeing a specimen run, runs
:func:`gradkit.check` on it and sends its verdict in the scene, and the page words the result and
the score from the verdicts and :data:`RUN_WORDS`. Also importable from ``gradkit.exercises``.
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
from ..base.page import shown_value
from ..base.rows import button, dropdown, toggle
from .common import Choice, PracticeWidget
from .specimens import hunt_names, specimen_html

__all__ = ["ZooHunt"]

_PROMPT = "Read the code, choose a prediction, then run gradcheck."
#: What a run says (the page, ``panel.js``, fills them in from the scene's verdicts).
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
    run_button : Control
        Runs :func:`gradkit.check` on the entry's sample inputs (float64): the page presses it
        itself (a run is page state: ``huntRun`` in ``panel.js``); from Python set ``runs`` and
        ``first_guesses``, or read a specimen's report with :meth:`report`.
    last : CheckReport or None
        The report of the specimen run last.
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
    runs = traitlets.Dict(
        help="specimen label -> the prediction at its latest run (None: run without one)"
    ).tag(sync=True, state=True)
    first_guesses = traitlets.Dict(
        help="specimen label -> the prediction at its first run (None: run before any "
        "prediction, so it never scores)"
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
            self._reports: dict[str, CheckReport] = {}  # label -> the report of its run
            self._verdicts: dict[str, dict] = {}  # label -> its verdict, as the scene sends it
            pairs = [(f"Specimen {k}: {zoo.entry(n).formula}", n) for k, n in enumerate(names, 1)]
            self._labels = {n: f"Specimen{k}Fn" for k, n in enumerate(names, start=1)}
            self._by_label = dict(pairs)  # label -> zoo name
            self._specimens = self._every_specimen(pairs[:1])  # the rest after the first picture
            self._build_controls(pairs, guesses)
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
            self.later(lambda: self._publish(self._every_specimen()))
            forget = self.guard(lambda _change: self.update_state({"prediction": None}))
            self.observe(forget, names=["entry"])
            self.observe(self.guard(self._ran), names=["runs"])

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
            also={"prediction": None},  # a new specimen asks for a new prediction
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
        pairs = [(cause, cause) for cause in guesses]  # None until one is picked
        self.prediction_buttons = self.add_control(Choice(self, causes.spec, pairs), None)
        self.run_button = button(
            self,
            "run",
            "Run gradcheck",
            css="gradkit-run-gradcheck",
            tooltip="Run gradkit.check on this Function's sample inputs (float64)",
            by_page=("runs", "first_guesses"),
        )

    def _every_specimen(self, pairs: Any = None) -> dict[str, str]:
        """The code of each specimen of ``pairs`` (label, zoo name); default every one."""
        pairs = self._by_label.items() if pairs is None else pairs
        return {label: specimen_html(n, self._labels[n]) for label, n in pairs}

    def _publish(self, specimens: dict[str, str] | None = None) -> None:
        """The specimens' code (``specimens``: more of it), the verdicts of the specimens run, the
        words (the page picks by entry and runs)."""
        self._specimens = specimens or self._specimens
        scene = {
            "specimens": self._specimens,
            "verdicts": {label: self.verdict(label) for label in self.runs},
            "words": dict(RUN_WORDS),
            "prompt": _PROMPT,
            "total": len(self.names),
        }
        self.send_scene(scene, key=self._scene_count + 1)

    def _ran(self, change: dict) -> None:
        """Specimens run (in the page, or set from Python): their verdicts, sent in the scene."""
        old = change["old"] or {}
        for label, guess in (change["new"] or {}).items():
            if label not in old or old[label] != guess:
                self.last = self.report(label)
        self._publish()

    def check_page_values(self, incoming: dict) -> dict:
        """The page's runs and first guesses map specimens to a prediction offered (or None); the
        other values are checked as every widget's are."""
        own = {key: incoming[key] for key in ("runs", "first_guesses") if key in incoming}
        offered = self.prediction_buttons.options
        for key, value in own.items():
            if not isinstance(value, dict) or any(
                label not in self._by_label or (guess is not None and guess not in offered)
                for label, guess in value.items()
            ):
                raise InputError(
                    f"the page sent {key}={shown_value(value)}; it must map specimens to one "
                    f"of {offered} (or none)"
                )
        rest = {key: value for key, value in incoming.items() if key not in own}
        return {**super().check_page_values(rest), **own}

    def check_page_value(self, key: str, value: Any) -> None:
        """The specimen the page picks must be one of the labels sent."""
        if key != "entry":
            super().check_page_value(key, value)
        elif value not in self._by_label:
            raise InputError(f"the page sent entry={value!r}; it must be one of the specimens")

    def report(self, label: str) -> CheckReport:
        """gradkit's report on specimen ``label`` (its sample inputs, float64), run once."""
        if label not in self._reports:
            e = zoo.entry(self._by_label[label])
            self._reports[label] = check(e.apply, e.inputs())
        return self._reports[label]

    def verdict(self, label: str) -> dict:
        """What a run of specimen ``label`` shows beside the words: ``{"name": its zoo name,
        "cause": the cause gradkit reports, "unmasked": the report, the name and the bug}``."""
        if label not in self._verdicts:
            name, report = self._by_label[label], self.report(label)
            bug = zoo.entry(name).bug or "none: this Function is correct."
            unmasked = (
                f"{report._repr_html_()}<div>{html.escape(self._labels[name])} is the zoo's "
                f"<b>{html.escape(name)}</b>. The bug: {html.escape(bug)}</div>"
            )
            self._verdicts[label] = {"name": name, "cause": report.cause, "unmasked": unmasked}
        return self._verdicts[label]

    def scene_without_kernel(self) -> dict:
        """A page with no kernel runs every specimen itself: every specimen's code and verdict
        (each run now, on its sample inputs, unless run already)."""
        return {
            "specimens": self._every_specimen(),
            "verdicts": {label: self.verdict(label) for label in self._by_label},
        }
