"""Guards for the lessons' words: what the prose says must be what the screen shows.

Pure functions of a lesson notebook (an ``nbformat`` node), executed or not; the tests in
``tests/test_lesson_text.py`` run them on every lesson as ``tests/test_notebooks.py`` executed
it, and on copies with a planted fault.

- :func:`unbacked_numbers`: every number the prose quotes with two or more significant digits
  must appear, to the digits quoted, in what the lesson's cells print or display, in its code,
  or in a widget readout. A number typed by hand that no cell computes is reported.
- :func:`unshown_warnings`: a sentence saying that something *warns* must be followed by a
  code cell whose output shows a warning (a stderr box, or a report's warning section).
- :func:`predict_spoilers`: nothing between a ``Predict(...)`` cell and the next code cell
  (the predict cell's other outputs, the prose in between) may give its answer away.
- :func:`cell_instructions`: prose that tells the learner to run or fix a cell; it belongs in
  a cell tagged ``notebook-only`` (:data:`NOTEBOOK_ONLY`), which a page without the notebook's
  code (a Voila app, a static export) hides.

Run as a script on executed notebooks to check them by hand::

    .venv/bin/python tools/lesson_text.py executed/03_why_float32_fails.ipynb
"""

from __future__ import annotations

import html
import math
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "NOTEBOOK_ONLY",
    "Number",
    "cell_instructions",
    "numbers",
    "predict_spoilers",
    "unbacked_numbers",
    "unshown_warnings",
]

#: The cell tag for what a page without a kernel or without code must not show: instructions
#: about cells and code. Each lesson's first cell carries the CSS that hides such cells wherever
#: nbconvert renders the page (Voila; an HTML export), since nbconvert gives a tagged cell the
#: class ``celltag_notebook-only``; an export can also drop them:
#: ``jupyter nbconvert --to html --TagRemovePreprocessor.enabled=True
#: --TagRemovePreprocessor.remove_cell_tags='{"notebook-only"}' LESSON.ipynb``.
#: The counterpart, a note only for such a page, is a ``<div class="gradkit-voila-only"
#: hidden="hidden">`` that the same CSS shows in Voila.
NOTEBOOK_ONLY = "notebook-only"

# A number as prose and outputs write it: 4, 0.75, 1,000,000, 2.0266e-06, 5.4e8, −3 (with a
# Unicode minus). Not part of a word or a name (float64, x0, 00_start_here, 0x1F).
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-−]?)(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?P<exp>[eE][-−+]?\d+)?(?![\w])",
    re.ASCII,
)
_TAGS = re.compile(r"<[^>]*>")
_SENTENCE = re.compile(r"(?<=[.!?:])\s+")
_WARNS = re.compile(r"\bwarns\b", re.IGNORECASE)
_WARNING_SHOWN = re.compile(r"Warning\b|\bwarning:", re.IGNORECASE)
_PREDICT = re.compile(r"\bPredict\(\s*[\"'](?P<id>[^\"']+)[\"']")
#: Words that send the learner to a cell or to code: only for cells tagged notebook-only.
CELL_WORDS = re.compile(
    r"\b(?:run|re-?run|fix|edit|execute)\b[^.\n]{0,40}\bcells?\b"
    r"|\b(?:the|this|that|next|previous)\s+cells?\b"
    r"|\bcells?\s+(?:above|below)\b"
    r"|\bShift\s*\+\s*Enter\b|(?-i:\bRun All\b|\bRun\s*[▸>→])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Number:
    """A number as written: its text, its value and how many significant digits it shows."""

    text: str
    value: float
    digits: int

    def matches(self, value: float) -> bool:
        """Whether ``value``, rounded to this number's significant digits, is this number."""
        if not math.isfinite(value):
            return False
        if value == 0 or self.value == 0:
            return value == self.value
        rounded = float(f"{value:.{self.digits}g}")
        return math.isclose(rounded, self.value, rel_tol=1e-9, abs_tol=0.0)


def numbers(text: str) -> Iterator[Number]:
    """Every number in ``text`` with its significant digits (leading zeros and, in a whole
    number, trailing zeros do not count: 0.0016 has 2, 500,000 has 1, 16.80 has 4)."""
    for m in _NUMBER.finditer(text):
        whole = m.group("int").replace(",", "")
        frac = (m.group("frac") or "")[1:]
        digits = (whole + frac).lstrip("0")
        if not frac:
            digits = digits.rstrip("0")
        exp = (m.group("exp") or "").replace("−", "-")
        sign = "-" if m.group("sign") else ""
        value = float(f"{sign}{whole}.{frac or 0}{exp}")
        yield Number(m.group(0), value, max(len(digits), 1) if value else 0)


# ------------------------------------------------------------------------------ notebook text


def _source(cell: Mapping) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _tags(cell: Mapping) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _output_text(output: Mapping) -> str:
    """What one output shows, as text (HTML without its tags and entities)."""
    if output.get("output_type") == "stream":
        text = output.get("text", "")
        return "".join(text) if isinstance(text, list) else text
    if output.get("output_type") == "error":
        return f"{output.get('ename', '')}: {output.get('evalue', '')}"
    data = output.get("data", {})
    parts = []
    for mime in ("text/plain", "text/html", "text/markdown"):
        value = data.get(mime)
        if value is None:
            continue
        value = "".join(value) if isinstance(value, list) else str(value)
        parts.append(html.unescape(_TAGS.sub(" ", value)) if mime == "text/html" else value)
    return "\n".join(parts)


def _outputs(cell: Mapping) -> str:
    return "\n".join(_output_text(o) for o in cell.get("outputs", []))


def _prose(text: str) -> str:
    """Markdown as read: without HTML comments, style blocks and tags."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"<style\b.*?</style>", " ", text, flags=re.S | re.I)
    return html.unescape(_TAGS.sub(" ", text))


# ------------------------------------------------------------------------------ the guards


def unbacked_numbers(nb: Mapping, readouts: Iterable[str] = ()) -> list[str]:
    """Numbers quoted in the prose (2+ significant digits) that nothing on the page backs.

    Parameters
    ----------
    nb : notebook node
        The lesson, executed (outputs in place).
    readouts : iterable of str
        The widgets' readout texts after Run All (HTML or text), if known.

    Returns
    -------
    list of str
        One line per unbacked number: the cell, the number and the sentence around it.
    """
    corpus = [_source(c) for c in nb["cells"] if c["cell_type"] == "code"]
    corpus += [_outputs(c) for c in nb["cells"] if c["cell_type"] == "code"]
    corpus += [html.unescape(_TAGS.sub(" ", r)) for r in readouts]
    backing = [n.value for text in corpus for n in numbers(text)]
    problems = []
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        prose = _prose(_source(cell))
        for number in numbers(prose):
            if number.digits < 2 or any(number.matches(v) for v in backing):
                continue
            problems.append(f"cell {k}: {number.text!r} in {_around(prose, number.text)!r}")
    return problems


def unshown_warnings(nb: Mapping) -> list[str]:
    """Sentences saying something warns, without a warning in the next code cell's output."""
    problems = []
    cells = nb["cells"]
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for sentence in _SENTENCE.split(_prose(_source(cell))):
            if not _WARNS.search(sentence):
                continue
            following = next((c for c in cells[k + 1 :] if c["cell_type"] == "code"), None)
            if following is None or not _WARNING_SHOWN.search(_outputs(following)):
                problems.append(f"cell {k}: {' '.join(sentence.split())!r} shows no warning after")
    return problems


def predict_spoilers(
    nb: Mapping, answers: Mapping[str, object], tolerances: Mapping[str, float] | None = None
) -> list[str]:
    """Where a predict's answer shows before the learner could commit.

    Between a ``Predict("id", ...)`` cell and the next code cell, the predict cell's own
    outputs (other than the widget) and the prose must not contain the answer: for a number,
    no number that a guess could copy (within the predict's tolerance, or equal to the answer
    at the digits written); for a choice, not the option's word.

    Parameters
    ----------
    nb : notebook node
    answers : mapping
        Predict id -> the true value (a number or the right option).
    tolerances : mapping, optional
        Predict id -> its relative tolerance (numbers only; default 0).
    """
    tolerances = tolerances or {}
    problems = []
    cells = nb["cells"]
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        for match in _PREDICT.finditer(_source(cell)):
            entry = match.group("id")
            if entry not in answers:
                problems.append(f"cell {k}: no answer known for Predict({entry!r})")
                continue
            between = [_outputs(cell)]
            for later in cells[k + 1 :]:
                if later["cell_type"] == "code":
                    break
                between.append(_prose(_source(later)))
            text = "\n".join(between)
            shown = _gives_away(text, answers[entry], tolerances.get(entry, 0.0))
            if shown:
                problems.append(f"cell {k}: Predict({entry!r}) answer {shown!r} shows before it")
    return problems


def _gives_away(text: str, answer: object, tolerance: float) -> str | None:
    if isinstance(answer, bool):
        answer = str(answer)
    if isinstance(answer, str):
        found = re.search(rf"\b{re.escape(answer)}\b", text, re.IGNORECASE)
        return found.group(0) if found else None
    value = float(answer)
    for number in numbers(text):
        close = abs(number.value - value) <= tolerance * abs(value)
        if close or (number.digits >= 2 and number.matches(value)):
            return number.text
    return None


def cell_instructions(nb: Mapping) -> list[str]:
    """Prose outside ``notebook-only`` cells that sends the learner to a cell or to code."""
    problems = []
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown" or NOTEBOOK_ONLY in _tags(cell):
            continue
        prose = _prose(_source(cell))
        for match in CELL_WORDS.finditer(prose):
            problems.append(f"cell {k}: {_around(prose, match.group(0))!r}")
    return problems


def _around(text: str, part: str, width: int = 50) -> str:
    at = text.find(part)
    return " ".join(text[max(0, at - width) : at + len(part) + width].split())


def main(argv: list[str] | None = None) -> int:
    """Check executed notebooks given on the command line; exit 1 if anything is found."""
    import nbformat

    found = 0
    for path in argv if argv is not None else sys.argv[1:]:
        nb = nbformat.read(Path(path), as_version=4)
        for line in [*unbacked_numbers(nb), *unshown_warnings(nb), *cell_instructions(nb)]:
            print(f"{path}: {line}")
            found += 1
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
