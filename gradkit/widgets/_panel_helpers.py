"""Helpers shared by the lab's panels (Quiz, Predict, JacobianBuilder, ExercisePanel, ZooHunt).

The theme's stylesheet with a panel's own rules added (:func:`with_theme`), the quiz-like and
the exercise panels' styles, the feedback box of Quiz and Predict, the quiz text's
`backticks`-as-code rendering and the option control whose value may be None.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from ._base import GradkitWidget
from ._controls import Control, Readout
from ._theme import THEME

__all__ = [
    "EXERCISE_CSS",
    "LAB_CSS",
    "NullableChoice",
    "add_nullable_choice",
    "feedback_html",
    "feedback_readout",
    "rich_text",
    "with_theme",
]

# Every widget class brings its own copy of the theme (anywidget keeps one stylesheet per class),
# so a later copy would undo an earlier class's rule of equal weight: each rule for one widget
# names both root classes (.gradkit-widget.gradkit-quiz), which outweighs every theme rule.

#: Styles of the exercise widgets (ExercisePanel, ZooHunt), on top of the theme's variables.
EXERCISE_CSS = """
.gradkit-widget.gradkit-exercise .gk-row { flex-direction: column; gap: 6px; }
.gradkit-widget.gradkit-exercise .gk-row > .gradkit-readouts { flex: 0 0 auto; }
.gradkit-widget.gradkit-exercise .gk-header { flex-wrap: wrap; }
.gradkit-widget.gradkit-exercise .gradkit-controls { flex-direction: row; flex-wrap: wrap;
  gap: 6px; }
.gradkit-widget .gradkit-exercise-check button { font-weight: bold; border-color: var(--gk-blue); }
.gradkit-widget .gk-hint-line { margin: 2px 0; }
.gradkit-widget .gradkit-readout pre { font-family: var(--gk-mono); font-size: 12px;
  background: #F7F7F7; padding: 6px 8px; border: 1px solid var(--gk-line); overflow-x: auto;
  line-height: 1.35; margin: 4px 0; }
/* the cause buttons wrap, never clip ("nondeterministic" is wider than 80px) */
.gradkit-widget.gradkit-zoo-hunt .gk-toggle button { width: auto; min-width: 80px;
  flex: 0 0 auto; }
.gradkit-widget.gradkit-zoo-hunt .gradkit-controls { max-width: 360px; }
"""

#: Styles of the quiz-like widgets (Quiz, Predict), on top of the theme's variables.
LAB_CSS = """
.gradkit-widget.gradkit-quiz .gk-row, .gradkit-widget.gradkit-predict .gk-row {
  flex-direction: column; gap: 6px; }
/* in a column the row's flex-basis (300px) would become a height: a blank band under the widget */
.gradkit-widget.gradkit-quiz .gk-row > .gradkit-readouts,
.gradkit-widget.gradkit-predict .gk-row > .gradkit-readouts { flex: 0 0 auto; }
.gradkit-widget.gradkit-quiz .gk-title, .gradkit-widget.gradkit-predict .gk-title {
  font-size: 1.08em; line-height: 1.4; }
.gradkit-widget.gradkit-quiz .gk-header, .gradkit-widget.gradkit-predict .gk-header {
  flex-wrap: wrap; }
.gradkit-widget .gk-options { display: flex; flex-direction: column; gap: 4px;
  align-items: stretch; max-width: 640px; flex: 1 1 auto; }
.gradkit-widget button.gk-option { text-align: left; white-space: normal; padding: 4px 10px;
  line-height: 1.35; }
.gradkit-widget button.gk-option::before { content: "○"; margin-right: 8px;
  color: var(--gk-muted); }
.gradkit-widget button.gk-option[aria-checked="true"]::before { content: "●"; }
.gradkit-widget button.gk-option.gk-right[aria-checked="true"] { border-color: var(--gk-pass);
  background: #E7F4EC; }
.gradkit-widget button.gk-option.gk-wrong[aria-checked="true"] { border-color: var(--gk-error);
  background: #FBEAEA; }
.gradkit-widget .gk-feedback { border-left: 4px solid var(--gk-line); padding: 3px 8px;
  max-width: 640px; line-height: 1.45; }
.gradkit-widget .gk-feedback.gk-right { border-left-color: var(--gk-pass); }
.gradkit-widget .gk-feedback.gk-right .gk-verdict-word { color: var(--gk-pass); }
.gradkit-widget .gk-feedback.gk-wrong { border-left-color: var(--gk-error); }
.gradkit-widget .gk-feedback.gk-wrong .gk-verdict-word { color: var(--gk-error); }
.gradkit-widget .gk-feedback code, .gradkit-widget .gk-title code { font-family: var(--gk-mono); }
"""

_RIGHT, _WRONG = THEME["pass"], THEME["error"]


def with_theme(extra_css: str) -> str:
    """The theme's stylesheet (the base widget's ``_css``, text or a path) plus ``extra_css``."""
    theme = GradkitWidget._css
    text = theme.read_text(encoding="utf-8") if isinstance(theme, Path) else str(theme)
    return text + extra_css


_CODE = re.compile(r"`([^`]+)`")


def rich_text(text: str) -> str:
    """Quiz text as HTML: escaped, with `backticks` shown as code."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text))


def feedback_html(correct: bool, explanation: str, *, retry: bool = True) -> str:
    """The feedback box: ✔ Right / ✘ Not quite, then the explanation."""
    if correct:
        head = "✔ <b class='gk-verdict-word'>Right.</b>"
        color, css = _RIGHT, "gk-right"
    else:
        head = "✘ <b class='gk-verdict-word'>Not quite.</b>"
        if retry:
            head += " Try another answer."
        color, css = _WRONG, "gk-wrong"
    detail = f" {rich_text(explanation)}" if explanation else ""
    return (
        f"<div role='status' class='gk-feedback {css}' style='border-left-color:{color}'>"
        f"{head}{detail}</div>"
    )


def feedback_readout(widget: GradkitWidget) -> Readout:
    """The panel's feedback readout (CSS ``gradkit-feedback gradkit-verdict``), for
    :func:`feedback_html`."""
    readout = widget.readout("feedback", "gradkit-feedback gradkit-verdict")
    readout._dom_classes = ("gradkit-readout", "gradkit-feedback", "gradkit-verdict")
    return readout


class NullableChoice(Control):
    """Option buttons or a menu whose ``.value`` may be None (nothing picked yet)."""

    @property
    def value(self) -> Any:
        """The picked option's value, or None."""
        raw = self._owner.values.get(self.name)
        return None if raw is None else self._to_python(raw)

    @value.setter
    def value(self, value: Any) -> None:
        try:
            raw = None if value is None else self._to_raw(value)
        except ValueError:
            raise ValueError(
                f"{self.name} {value!r} is not one of the options {list(self.options)}"
            ) from None
        self._owner._set_values({self.name: raw})


def add_nullable_choice(widget: GradkitWidget, name: str, kind: str, **spec: Any) -> NullableChoice:
    """A :class:`NullableChoice` (``spec``: as for :class:`Control`) added to ``widget``, with
    nothing picked yet."""
    control = NullableChoice(widget, name, kind, **spec)
    widget._add(control)
    widget.values = {**widget.values, name: None}
    return control
