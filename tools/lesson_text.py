"""Guards for the lessons' words: what the prose says must be what the screen shows.

Pure functions of a lesson notebook (an ``nbformat`` node), executed or not; the tests in
``tests/test_lesson_text.py`` run them on every lesson as ``tests/test_notebooks.py`` executed
it, and on copies with a planted fault.

- :func:`unbacked_numbers`: every number the prose quotes with two or more significant digits
  must appear, to the digits quoted, in what the lesson's cells print or display, in its code,
  or in a widget readout. A number typed by hand that no cell computes is reported.
- :func:`unshown_warnings`: a sentence saying that something *warns* (or that a *pink box* is a
  warning) must be followed by a code cell whose output shows a warning (a stderr box, or a
  report's warning section).
- :func:`predict_spoilers`: nothing on screen while a ``Predict(...)`` waits for its guess (every
  cell before it, and its own cell, which shows the widget only) may give its answer away.
- :func:`hunt_spoilers`: a ZooHunt's specimens named (by their telling zoo names) in its own
  cell, or after it before a Predict has gated the rest.
- :func:`colons_before_hidden_code`: prose ending in a colon before a code cell that shows
  nothing: on a page without the code (Voila) the colon points at nothing.
- :func:`cell_instructions`: prose that tells the learner to run or fix a cell; it belongs in
  a cell tagged ``notebook-only`` (:data:`NOTEBOOK_ONLY`), which a page without the notebook's
  code (a Voila app, a static export) hides.
- :func:`notation_slips`: a symbol used against the notation sheet (:data:`NOTATION`, the
  table in ``00_start_here``): a vector written with a letter the sheet does not give to a
  vector ("J·u", "vᵀJ", "tangent u"); u is the unit roundoff and nothing else.

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
    "NOTATION",
    "NOTEBOOK_ONLY",
    "VECTORS",
    "Number",
    "cell_instructions",
    "code_pointers",
    "colons_before_hidden_code",
    "defined_names",
    "hunt_spoilers",
    "notation_slips",
    "notebook_notation_slips",
    "numbers",
    "place_pointers",
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
#: A sentence that says a warning shows: "torch warns", "a pink box under a cell is a warning".
_WARNS = re.compile(r"\bwarns\b|\bpink box\b", re.IGNORECASE)
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


#: The notation sheet: each symbol's one meaning in every lesson. ``00_start_here`` shows it as
#: a table (its "Notation" section, which a test holds to this dict, row for row); every lesson's
#: prose, the quiz file and the texts the lessons print are checked against it
#: (:func:`notation_slips`).
NOTATION: dict[str, str] = {
    "f": "the function checked",
    "x": "the input; x<sub>j</sub> is its entry j",
    "y": "the output, y = f(x); y<sub>i</sub> is its entry i",
    "n": "how many entries the input has",
    "m": "how many entries the output has",
    "i": "an output entry: row i of a Jacobian",
    "j": "an input entry: column j of a Jacobian",
    "J": "the Jacobian, written J (m × n): J[i, j], how fast output entry i moves with input "
    "entry j",
    "eps": "the nudge: how far gradcheck moves one input entry (1e-6 by default); ε in a formula",
    "eps*": "the best eps for a function and a dtype (lesson 4)",
    "u": "the unit roundoff of a dtype (lesson 4), never a vector",
    "e<sub>j</sub>": "the unit vector: 1 at entry j, 0 elsewhere",
    "p": "a vector of the input's size (a direction): fast_mode's p, forward mode's tangent",
    "q": "a vector of the output's size, handed to backward as grad_output: fast_mode's q "
    "(lesson 7)",
    "g": "grad_output, the gradient backward receives, in a formula (lessons 9 and 10)",
    "atol, rtol": "tolerances (lesson 2): an entry passes within atol + rtol × its numeric size",
}
#: The letters the sheet gives to vectors: only these stand beside ᵀ or J·, or name a tangent,
#: a vector or a direction.
VECTORS = frozenset("pqge")
#: Where a letter stands for a vector: qᵀ, J·p, "p = each unit vector" (any letter off
#: :data:`VECTORS` is a slip there); "tangent p" (there only u and letters off the sheet are:
#: "a direction x moves in" is English).
_VECTOR_USES = (
    re.compile(r"(?<![\w])(?P<v>[a-z])\s*ᵀ"),  # a matrix (Bᵀ) is a capital
    re.compile(r"\bJ\s*·\s*(?P<v>[a-z])(?![\w(])"),
    re.compile(
        r"(?<![\w])(?P<v>[A-Za-z])\s*=\s*(?:each|every|a|the)\s+(?:unit\s+)?"
        r"(?:vector|tangent|direction)"
    ),
)
_NAMED_VECTOR = re.compile(
    r"\b(?:tangent|vector|direction)s?[*_`]*\s+[*_`]*(?P<v>[b-zA-HJ-Z])(?![\w(])"
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
    nb: Mapping,
    answers: Mapping[str, object],
    tolerances: Mapping[str, float] | None = None,
    readouts: Mapping[str, Iterable[str]] | None = None,
) -> list[str]:
    """Where a predict's answer is on screen before the learner could commit.

    A Predict keeps every cell after its own out of sight until its guess is locked in (the
    lesson unfolds), so what a learner sees while guessing is every cell before the Predict's
    (prose, code, outputs, and the readouts of the widgets built there) and the Predict's own
    cell. Its own cell shows the widget and nothing else. None of the rest may give the answer
    away: for a number, no number a guess could copy (in the prose, within the predict's
    tolerance when it has one; anywhere, the answer rounded to the digits a number claims,
    :func:`_claims`); for a choice, no sentence of the prose that leads to it (after the last
    code cell before it) that states the option (a question may name it).

    Parameters
    ----------
    nb : notebook node
    answers : mapping
        Predict id -> the true value (a number or the right option).
    tolerances : mapping, optional
        Predict id -> its relative tolerance (numbers only; default 0).
    readouts : mapping, optional
        Widget variable name -> the widget's readout texts after Run All; a widget counts as
        on screen before a Predict when the cell that assigns it comes first.
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
            if _shown_besides_widgets(cell):
                problems.append(f"cell {k}: Predict({entry!r})'s own cell shows more than it")
            shown = _gives_away(
                _before(cells, k, readouts or {}), answers[entry], tolerances.get(entry, 0.0)
            )
            if shown:
                problems.append(f"cell {k}: Predict({entry!r}) answer {shown!r} shows before it")
    return problems


def _shown_besides_widgets(cell: Mapping) -> bool:
    """Whether a code cell's outputs show anything but widget views."""
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "application/vnd.jupyter.widget-view+json" in data:
            continue
        if _output_text(output).strip():
            return True
    return False


def _before(cells: list, k: int, readouts: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """What is on screen while the Predict of cell ``k`` waits: the prose before it, the code up
    to its own, the outputs and widget readouts before it."""
    prose = [_prose(_source(c)) for c in cells[:k] if c["cell_type"] == "markdown"]
    lead = []  # the prose that leads to the Predict: after the last code cell before it
    for c in reversed(cells[:k]):
        if c["cell_type"] == "code":
            break
        lead.insert(0, _prose(_source(c)))
    code = [_source(c) for c in cells[: k + 1] if c["cell_type"] == "code"]
    printed = [_outputs(c) for c in cells[:k] if c["cell_type"] == "code"]
    for name, texts in readouts.items():
        made = re.compile(rf"^{re.escape(name)}\s*=", re.M)
        if any(c["cell_type"] == "code" and made.search(_source(c)) for c in cells[:k]):
            printed += [html.unescape(_TAGS.sub(" ", t)) for t in texts]
    return {
        "prose": "\n".join(prose),
        "code": "\n".join(code),
        "printed": "\n".join(printed),
        "lead": "\n".join(lead),
    }


_COUNT_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
_COMMENT = re.compile(r"#(.*)$", re.MULTILINE)


def _count_in_comments(code: str, value: float) -> str | None:
    """A small whole count (0 to 12) that a code comment says, as a word or a digit ("# two
    correct ones"): a guess copies a count as easily as a long number."""
    if value != int(value) or not 0 <= value <= 12:
        return None
    count = int(value)
    said = re.compile(rf"\b(?:{_COUNT_WORDS[count]}|{count})\b(?![.\d])", re.IGNORECASE)
    for comment in _COMMENT.findall(code):
        found = said.search(comment)
        if found:
            return f"#{comment}".strip()[:80]
    return None


def _claims(number: Number) -> bool:
    """Whether a number claims enough digits to give a value away: 2 or more significant digits
    besides trailing zeros (0.0016, 22, 8.1e+02), or 3 or more with them after a decimal point
    (4.000); not a 2 in "2x", an x = 1.0, or a round 10 or 20 (the rule of the browser check,
    ``tests/browser/unfold.py``)."""
    mantissa = re.split(r"[eE]", number.text.lstrip("+-−"))[0].replace(",", "")
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) >= 2 or ("." in mantissa and len(digits) >= 3)


def _gives_away(texts: Mapping[str, str], answer: object, tolerance: float) -> str | None:
    if isinstance(answer, bool):
        answer = str(answer)
    if isinstance(answer, str):
        for sentence in _SENTENCE.split(texts["lead"]):
            if sentence.rstrip().endswith("?"):
                continue  # a question may name the options
            found = re.search(rf"\b{re.escape(answer)}\b", sentence, re.IGNORECASE)
            if found:
                return " ".join(sentence.split())[:80]
        return None
    value = float(answer)
    said = _count_in_comments(texts["code"], value) if tolerance == 0 else None
    if said:
        return said
    for where in ("prose", "code", "printed"):
        for number in numbers(texts[where]):
            near = abs(number.value - value) <= tolerance * abs(value)
            close = where == "prose" and tolerance > 0 and near
            if close or (_claims(number) and number.matches(value)):
                return number.text
    return None


def hunt_spoilers(nb: Mapping, hunts: Mapping[str, Iterable[str]]) -> list[str]:
    """Where a hunt's answers, its specimens' zoo names, show before the learner commits.

    A ZooHunt shows each Function as "Specimen k" and names it only once it has run. Its own
    cell must not name its specimens (a list of names in the code gives them away), and what
    follows it, up to the next Predict (which keeps the rest out of sight until its guess), must
    not name them either.

    Parameters
    ----------
    nb : notebook node
    hunts : mapping
        The hunt's variable name -> its specimens' zoo names.
    """
    problems = []
    cells = nb["cells"]
    for var, names in hunts.items():
        made = re.compile(rf"^{re.escape(var)}\s*=\s*ZooHunt\(", re.M)
        at = next((k for k, c in enumerate(cells) if made.search(_source(c))), None)
        if at is None:
            problems.append(f"no cell builds the hunt {var!r}")
            continue
        words = {n: re.compile(rf"\b{re.escape(n)}\b") for n in names}
        for k in range(at, len(cells)):
            cell = cells[k]
            if k > at and _PREDICT.search(_source(cell)):
                break
            text = _source(cell) + "\n" + (_outputs(cell) if k > at else "")
            shown = sorted(n for n, word in words.items() if word.search(text))
            if shown:
                problems.append(f"cell {k}: names the hunt's specimens {shown} before a commit")
    return problems


def colons_before_hidden_code(nb: Mapping) -> list[str]:
    """Prose that ends in a colon before a code cell that shows nothing.

    A page without the notebook's code (Voila) hides the code and shows only what it printed or
    drew, so "...which is correct:" above a class definition points at nothing there. The prose
    must say what it shows in words, or the cell must show something. Cells tagged
    :data:`NOTEBOOK_ONLY` are skipped on both sides (they are not on such a page).
    """
    problems = []
    cells = [c for c in nb["cells"] if NOTEBOOK_ONLY not in _tags(c)]
    for k, cell in enumerate(cells[:-1]):
        if cell["cell_type"] != "markdown":
            continue
        prose = " ".join(_prose(_source(cell)).split())
        following = cells[k + 1]
        shows = any(_output_text(o).strip() for o in following.get("outputs", []))
        if prose.endswith(":") and following["cell_type"] == "code" and not shows:
            problems.append(f"cell {k}: {prose[-60:]!r} points at code a page hides")
    return problems


#: Where prose points by position: "below", "above", "the next …".
_BY_PLACE = re.compile(r"\b(?:below|above|underneath)\b", re.IGNORECASE)
#: Words for code itself (a page without the notebook's code hides it).
_CODE_WORDS = re.compile(r"\b(?:code|Function|class|function|method|definition)\b")
#: A sentence about what a cell shows, not its code: those stay on every page.
_SHOWN_WORDS = re.compile(
    r"\b(?:print(?:s|ed)?|output|plot|picture|table|widget|panel|chart|heatmap|ruler|answer)",
    re.IGNORECASE,
)
_DEFINED = re.compile(r"\b(?:class|def)\s+(\w+)|^(\w+)\s*=", re.MULTILINE)


def code_pointers(nb: Mapping) -> list[str]:
    """Prose that points by position at code a page without code hides (Voila, the site).

    A sentence outside ``notebook-only`` cells that says "below" or "above" and names code
    ("the Function below", "the starting code below") or a name the lesson's own code defines
    (`DetachedSquareFn` below), unless it is about what a cell shows (printed, a plot, a panel):
    there the reader sees nothing. The prose must say what the code does in words, or show the
    lines it means as a code block of its own (indented lines are skipped here).
    """
    names = defined_names(nb)
    problems = []
    for k, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown" or NOTEBOOK_ONLY in _tags(cell):
            continue
        lines = [line for line in _source(cell).splitlines() if not line.startswith("    ")]
        for sentence in place_pointers(_prose("\n".join(lines)), names, quoted=True):
            problems.append(f"cell {k}: {sentence[:90]!r} points at code a page hides")
    return problems


def defined_names(nb: Mapping) -> set[str]:
    """The names a notebook's code cells define (``class X``, ``def f``, ``x = ...``)."""
    defined = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            defined |= {a or b for a, b in _DEFINED.findall(_source(cell))}
    return defined


def place_pointers(text: str, names: Iterable[str] = (), quoted: bool = False) -> list[str]:
    """The sentences of ``text`` that point by place ("below", "above") at code: a word for code
    or one of ``names`` (in backticks when ``quoted``, as the lesson's source writes them; bare
    in a page's visible text), unless the sentence is about what a cell shows."""
    names = sorted(n for n in names if len(n) > 2)
    alternatives = "|".join(map(re.escape, names))
    named = None
    if names:
        named = re.compile(f"`(?:{alternatives})`" if quoted else rf"\b(?:{alternatives})\b")
    found = []
    for sentence in _SENTENCE.split(" ".join(text.split())):
        if not _BY_PLACE.search(sentence) or _SHOWN_WORDS.search(sentence):
            continue
        if _CODE_WORDS.search(sentence) or (named and named.search(sentence)):
            found.append(sentence)
    return found


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


def notation_slips(text: str) -> list[str]:
    """Where ``text`` (prose, a quiz's words, a printed explanation) uses a letter for a vector
    that the notation sheet (:data:`NOTATION`) does not give to one: "J·u" and "tangent u" (u is
    the unit roundoff), "vᵀJ" (the sheet has no v). One line per slip, with what to write."""
    slips = []
    named = [m for m in _NAMED_VECTOR.finditer(text) if m["v"] == "u" or m["v"] not in NOTATION]
    for match in [*(m for p in _VECTOR_USES for m in p.finditer(text)), *named]:
        letter = match.group("v")
        if letter not in VECTORS:
            meaning = NOTATION.get(letter, "not on the notation sheet (00_start_here)")
            slips.append(
                f"{_around(text, match.group(0))!r}: {letter} is {meaning}; a vector the size of "
                "the input is p, one the size of the output q (grad_output g), a unit vector e"
            )
    return slips


def notebook_notation_slips(nb: Mapping) -> list[str]:
    """:func:`notation_slips` in a lesson's prose and in what its cells print (an executed
    lesson: the explanations and the sources it prints are read as the learner reads them)."""
    problems = []
    for k, cell in enumerate(nb["cells"]):
        text = _prose(_source(cell)) if cell["cell_type"] == "markdown" else _outputs(cell)
        problems += [f"cell {k}: {slip}" for slip in notation_slips(text)]
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
        lines = [*unbacked_numbers(nb), *unshown_warnings(nb), *cell_instructions(nb)]
        for line in [*lines, *notebook_notation_slips(nb)]:
            print(f"{path}: {line}")
            found += 1
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
