"""The learner's first guesses, kept by their own kernel and saved with their notebook.

``record_first_guesses(NOTEBOOK)`` (the read-only cell at the top of each assignment) watches the
notebook's Predict, Quiz and ZooHunt widgets: the first guess locked in at each Predict, the first
option picked at each quiz and the first cause predicted for each zoo specimen. The cell's output
shows them and holds them as a record (:mod:`gradkit.course.saved`), refreshed with each first
guess kept: the learner's own save writes it into the notebook, nbgrader's submit carries it, and
the autograder and the summary read it from the submitted notebook.

A later guess never replaces a first one: not after a rerun, and not after a kernel restart, for
the kernel also keeps its own note, :data:`GUESS_FILE` beside the notebook, written the moment a
guess is made (the notebook on disk is only as new as the learner's last save). Only the kernel
reads that note. Nothing is sent anywhere. While nbgrader runs the notebook (validate, autograde:
``$NBGRADER_EXECUTION``) nothing is written, and the cell shows what the notebook carries.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .saved import KIND_NAMES, RECORD_MIME, SavedGuesses, check_record, read_saved_guesses

__all__ = [
    "GUESS_FILE",
    "FirstGuesses",
    "read_first_guesses",
    "record_first_guesses",
    "running_recorder",
]

#: The kernel's own note beside the notebook (one per folder, keyed by notebook): its memory
#: across a restart, never read by the autograder or the summary.
GUESS_FILE = "gradkit-first-guesses.json"

#: The kinds of first guess, by the widget class that asks.
KINDS = {"Predict": "predict", "Quiz": "quiz", "ZooHunt": "zoo"}


def read_first_guesses(folder: str | Path, notebook: str) -> dict[str, dict[str, dict]]:
    """The first guesses the saved notebook ``folder/NOTEBOOK.ipynb`` carries (empty kinds when
    there are none; entries that are no first guess are left out, see
    :func:`gradkit.course.saved.read_saved_guesses` for why).

    Returns
    -------
    dict
        ``{"predict": {id: {"guess", "right"}}, "quiz": {...}, "zoo": {specimen: {"guess",
        "right", "cause"}}}``.
    """
    return read_saved_guesses(folder, notebook).guesses


def _kernel_note(folder: Path, notebook: str) -> dict[str, dict[str, dict]]:
    """What this kernel (or an earlier one) noted for ``notebook`` in :data:`GUESS_FILE`."""
    path = folder / GUESS_FILE
    try:
        kept = json.loads(path.read_text(encoding="utf-8")).get(notebook)
    except (OSError, ValueError, AttributeError):
        kept = None
    if not isinstance(kept, dict):
        return SavedGuesses().guesses
    return check_record(kept, notebook).guesses


class FirstGuesses:
    """Watches a notebook's practice widgets and keeps each first guess (see the module)."""

    def __init__(self, notebook: str, folder: str | Path = ".") -> None:
        if not isinstance(notebook, str) or not notebook.strip():
            raise ValueError(
                f"notebook must be the notebook's name, e.g. '01_nudging'; got {notebook!r}"
            )
        self.notebook = notebook
        self.folder = Path(folder)
        self.writing = not os.environ.get("NBGRADER_EXECUTION")
        if self.writing:
            self.guesses = _kernel_note(self.folder, notebook)
        else:  # what autograde's first step kept from the submitted notebook, to show
            autograding = os.environ.get("NBGRADER_EXECUTION") == "autograde"
            saved = read_saved_guesses(self.folder, notebook, autograding=autograding)
            self.guesses = saved.guesses
        self._watched: set[int] = set()
        #: The Predicts and Quizzes watched, by (kind, id): what :meth:`judge` asks.
        self.widgets: dict[tuple[str, str], Any] = {}
        self._display: Any = None

    # ------------------------------------------------------------------ watching
    def watch(self, namespace: Mapping[str, object]) -> None:
        """Watch every Predict, Quiz and ZooHunt in ``namespace`` not watched yet."""
        for widget in list(namespace.values()):
            kind = KINDS.get(type(widget).__name__)
            if kind is None or id(widget) in self._watched or not hasattr(widget, "guard"):
                continue
            self._watched.add(id(widget))
            if kind in ("predict", "quiz"):
                self.widgets[(kind, widget.entry.id)] = widget
            if kind == "predict":
                widget.observe(widget.guard(self._on_predict(widget)), names=["locked"])
            elif kind == "quiz":
                widget.observe(widget.guard(self._on_quiz(widget)), names=["choice"])
            else:  # a run is the hunt's state: its first guesses grow by the specimen run
                widget.observe(widget.guard(self._on_hunt(widget)), names=["first_guesses"])

    def _on_predict(self, widget: Any) -> Callable[[dict], None]:
        def locked(change: dict) -> None:
            if change.get("new") and widget.locked and widget.correct is not None:
                guess = widget.current("guess")
                self.keep("predict", widget.entry.id, {"guess": guess, "right": widget.correct})

        return locked

    def _on_quiz(self, widget: Any) -> Callable[[dict], None]:
        def picked(change: dict) -> None:
            if change.get("new") is not None and widget.correct is not None:
                self.keep(
                    "quiz", widget.entry.id, {"guess": change["new"], "right": widget.correct}
                )

        return picked

    def _on_hunt(self, widget: Any) -> Callable[[dict], None]:
        def ran(change: dict) -> None:
            for label, guess in (change.get("new") or {}).items():
                if guess is None:  # run before any prediction: no first guess (never scores)
                    continue
                verdict = widget.verdict(label)
                first = {
                    "guess": guess,
                    "right": guess == verdict["cause"],
                    "cause": verdict["cause"],
                }
                self.keep("zoo", verdict["name"], first)

        return ran

    # ------------------------------------------------------------------ keeping
    def keep(self, kind: str, key: str, first: dict) -> bool:
        """Keep ``first`` as the first guess of ``kind`` ``key`` unless one is kept already;
        returns whether it was kept."""
        if not self.writing or key in self.guesses[kind]:
            return False
        self.guesses[kind][key] = first
        path = self.folder / GUESS_FILE
        everything: dict = {}
        if path.is_file():
            try:
                everything = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                everything = {}
        everything[self.notebook] = self.guesses
        partial = path.with_name(f".{GUESS_FILE}.partial")
        partial.write_text(json.dumps(everything, indent=1, sort_keys=True), encoding="utf-8")
        partial.replace(path)
        self.show()
        return True

    def record(self) -> dict:
        """The record the cell's output holds (:mod:`gradkit.course.saved`)."""
        return {"notebook": self.notebook, **json.loads(json.dumps(self.guesses))}

    def as_text(self) -> str:
        """What the recording cell shows the learner."""
        lines = [
            "Your first guesses in this notebook, saved with it when you save it. They reach your "
            "teacher only when you submit; a later guess never replaces a first one. After "
            "reloading the page, run this cell again to bring this list up to date."
        ]
        names = KIND_NAMES
        for kind, kept in self.guesses.items():
            for key, first in kept.items():
                lines.append(f"  {names[kind]} {key}: {first['guess']}")
        if not self.writing:
            lines.append("  (nbgrader is running this notebook: nothing new is written)")
        return "\n".join(lines)

    def show(self) -> None:
        """Show (or refresh) what is kept, in the recording cell's output."""
        try:
            from IPython.display import display
        except ImportError:  # pragma: no cover - IPython comes with ipykernel
            return
        data = {"text/plain": self.as_text(), RECORD_MIME: self.record()}
        if self._display is None:
            self._display = display(data, raw=True, display_id=True)
        else:
            self._display.update(data, raw=True)


_ACTIVE: dict[str, Any] = {}


def record_first_guesses(notebook: str) -> FirstGuesses:
    """Keep this notebook's first guesses (the assignment's read-only cell calls it once).

    Parameters
    ----------
    notebook : str
        The notebook's name without ``.ipynb`` (the record's ``notebook``).

    Returns
    -------
    FirstGuesses
        The recorder; after each cell it watches the widgets the cell made.
    """
    from IPython import get_ipython

    recorder = FirstGuesses(notebook)
    shell = get_ipython()
    if shell is not None:
        old = _ACTIVE.pop("hook", None)
        if old is not None:
            shell.events.unregister("post_run_cell", old)

        def after_cell(_result: object) -> None:
            recorder.watch(shell.user_ns)

        shell.events.register("post_run_cell", after_cell)
        _ACTIVE["hook"] = after_cell
    _ACTIVE["recorder"] = recorder
    recorder.show()
    return recorder


def running_recorder() -> FirstGuesses | None:
    """The recorder this kernel's recording cell started (None before it ran)."""
    return _ACTIVE.get("recorder")
