"""Lessons that unfold, checked in a real page: no Predict's answer on screen before the commit.

:func:`walk` plays a learner on a page where every cell has run (Run All, Voila, the static
site): Predict by Predict, in page order, it records what is on screen, locks in a guess and reads
the true value the widget then reveals. :func:`spoilers` reads those records: each Predict must
be on screen at its turn, the cells after it out of sight until its guess is locked in, and its
true value nowhere on screen before that, in any rounding a cell or the prose might print.
"""

from __future__ import annotations

import math
import re

__all__ = ["open_all", "spoilers", "walk"]

#: The cells out of sight: hidden by gradkit's class (Voila, the site), or under a heading that
#: Jupyter collapsed (Notebook 7 and JupyterLab: the gate after each Predict).
HIDDEN_CELLS = "'.gk-unfold-hidden, .jp-Cell.lm-mod-hidden'"

#: A learner's walk through the page's Predicts (a page's own script: widgets answer at once).
WALK_JS = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 60)));
  // hidden by gradkit's class (Voila, the site), or by a collapsed heading (Jupyter's own)
  const hidden = () => document.querySelectorAll(HIDDEN_CELLS).length;
  const records = [];
  for (const w of document.querySelectorAll('.gradkit-widget.gradkit-predict')) {
    const record = {shown: w.offsetParent !== null, hidden: hidden(),
                    text: document.body.innerText, kind: 'choice'};
    const input = w.querySelector('input.gradkit-guess');
    if (input) {
      record.kind = 'number';
      input.value = '1';
      input.dispatchEvent(new Event('change'));
    } else {
      const option = w.querySelector('.gk-option');
      if (option) option.click();
    }
    await frame();
    const lock = w.querySelector('button.gradkit-lock');
    if (lock) lock.click();
    await frame();
    // a wrong guess gets a hint and one more try: no true value, the rest still closed
    const second = w.querySelector('button.gradkit-lock-second');
    if (second && second.offsetParent !== null) {
      record.hinted = w.querySelector('.gradkit-predict-result').innerText;
      record.closedAfterHint = hidden() >= record.hidden && record.hidden > 0;
      const again = w.querySelector('input.gradkit-second-guess');
      if (again) again.value = '2';
      else { const o = w.querySelector('.gradkit-second-guess .gk-option'); if (o) o.click(); }
      second.click();
      await frame();
    }
    const result = w.querySelector('.gradkit-predict-result');
    record.result = result ? result.innerText : '';
    record.after = hidden();
    records.push(record);
  }
  return records;
}""".replace("HIDDEN_CELLS", HIDDEN_CELLS)

_TRUE_VALUE = re.compile(r"true value\s+([-+−]?[0-9][0-9.,]*(?:e[-+−]?[0-9]+)?)", re.I)
_NUMBER = re.compile(r"(?<![\w.])[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+−]?\d+)?(?![\w.]*\d)")


def walk(page) -> list[dict]:
    """Walk the page's Predicts as a learner (see the module's docstring); returns the records."""
    return page.evaluate(WALK_JS)


#: Press "Open the whole lesson" where one shows, then its "Show every answer" (it asks first).
OPEN_ALL_JS = """() => {
  const shown = (css) => [...document.querySelectorAll(css)].find((x) => x.offsetParent !== null);
  const hidden = () => document.querySelectorAll(HIDDEN_CELLS).length;
  const before = hidden();
  const open = shown('button.gradkit-open-all');
  if (open) open.click();
  const openedUnasked = open !== undefined && hidden() < before;
  const sure = shown('button.gradkit-open-all-sure');
  if (sure) sure.click();
  const notes = [...document.querySelectorAll('.gk-unfold')]
    .filter((n) => n.offsetParent !== null).map((n) => n.innerText);
  return {notes, openedUnasked, asked: open === undefined || sure !== undefined};
}""".replace("HIDDEN_CELLS", HIDDEN_CELLS)


def open_all(page) -> list[str]:
    """Press "Open the whole lesson" where one shows, and say yes when it asks (the rest of a
    check sees every cell).

    Returns what is wrong, which must be nothing: a "the rest of the lesson opens when…" note
    still on screen after it (the page is open, so no Predict may say its rest is closed), or a
    button that opened the lesson without asking first (a learner's stray click gives nothing
    away).
    """
    found = page.evaluate(OPEN_ALL_JS)
    problems = list(found["notes"])
    if found["openedUnasked"] or not found["asked"]:
        problems.append("'Open the whole lesson' opened it without asking first")
    return problems


def _claims_digits(text: str) -> bool:
    """Whether a printed number claims enough digits to give a value away: 2 or more
    significant digits besides trailing zeros (0.0016, 22), or 3 or more after a decimal point
    with them (4.000); not a 2 in "2x", an x = 1.0, or a round 10 or 20."""
    mantissa = re.split(r"[eE]", text.lstrip("+-−"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) >= 2 or ("." in mantissa and len(digits) >= 3)


def _rounds_to(value: float, text: str) -> bool:
    """Whether ``text`` (a number as printed) is ``value`` rounded to the digits ``text`` has."""
    try:
        shown = float(text.replace("−", "-"))
    except ValueError:
        return False
    mantissa, _, exponent = text.lower().replace("−", "-").partition("e")
    decimals = len(mantissa.partition(".")[2])
    unit = 10.0 ** (int(exponent or 0) - decimals)  # the value of the last digit printed
    return math.isclose(value, shown, rel_tol=1e-12) or abs(value - shown) <= unit / 2


def answer_shown(value: float, text: str) -> list[str]:
    """The numbers in ``text`` that give ``value`` away: it, rounded to their digits, when they
    claim enough digits (:func:`_claims_digits`: a 2 in "2x" or an x = 1.0 is no spoiler)."""
    return [n for n in _NUMBER.findall(text) if _claims_digits(n) and _rounds_to(value, n)]


def spoilers(records: list[dict], where: str) -> list[str]:
    """What the walk found wrong, one line each (empty: the lesson unfolds)."""
    problems = []
    for k, record in enumerate(records, 1):
        name = f"{where}: Predict {k} of {len(records)}"
        if not record["shown"]:
            problems.append(f"{name} is out of sight at its turn (an earlier gate hides it)")
        last = k == len(records)
        if record["hidden"] == 0 and not last:
            problems.append(f"{name}: no cell is hidden before its guess is locked in")
        if record["after"] >= record["hidden"] and record["hidden"] > 0:
            problems.append(f"{name}: locking in the guess showed no hidden cell")
        if "hinted" in record and _TRUE_VALUE.search(record["hinted"]):
            problems.append(f"{name}: the hint before the second try shows the true value")
        if "hinted" in record and not record["closedAfterHint"] and not last:
            problems.append(f"{name}: a wrong guess opened the lesson before its second try")
        found = _TRUE_VALUE.search(record["result"])
        if record["kind"] == "number":
            if found is None:
                problems.append(f"{name}: no true value shown after the lock: {record['result']!r}")
                continue
            value = float(found.group(1).replace(",", "").replace("−", "-"))
            shown = answer_shown(value, record["text"])
            if shown:
                problems.append(
                    f"{name}: its true value {found.group(1)} is on screen before the commit, "
                    f"as {sorted(set(shown))}"
                )
    return problems
