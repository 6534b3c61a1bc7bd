"""Write the fixtures the JavaScript tests share with Python (``tests/js/fixtures/*.json``).

Each fixture is what Python's rule gives for a set of inputs; ``tests/js/*.test.mjs`` check the
browser twin gives the same, and ``tests/widgets/test_base.py`` checks the files are what Python
gives now (run ``python tools/js_fixtures.py`` after changing a rule on purpose) and that they
stay small together (:data:`FIXTURES_MAX_BYTES`).

To stay small a fixture holds a few states of a scene, each as its changes from the first
(``state`` once, then ``changes`` per state), and a scene's table buffer zlib-compressed
(``tables_zlib``: base64 of the bytes the kernel sends, compressed; ``tests/js/fixture.mjs``
inflates them for the page's own ``decodeTables``).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "js" / "fixtures"
#: All fixture files together stay under this many bytes (tests/widgets/test_base.py checks).
FIXTURES_MAX_BYTES = 150_000
#: Containers this deep or deeper are written on one line (shallower ones one entry a line).
LINE_DEPTH = 4
#: A container whose one-line text is at most this long stays on one line at any depth.
LINE_WIDTH = 200


def tables_text(buffer: bytes) -> str:
    """A scene's table buffer as a fixture holds it: zlib-compressed, then base64."""
    import base64
    import zlib

    return base64.b64encode(zlib.compress(buffer, 9)).decode()


def table_bytes(text: str) -> bytes:
    """The buffer :func:`tables_text` wrote (the bytes the kernel sends the page)."""
    import base64
    import zlib

    return zlib.decompress(base64.b64decode(text))


def as_changes(rows: list[dict]) -> dict:
    """``rows`` (each with a ``state``) written with each state once: ``state`` is the first
    row's, and each row holds ``changes``, the keys whose value differs from it."""
    if not rows:
        return {"state": None, "states": []}
    first = rows[0]["state"]
    out = []
    for row in rows:
        state = row["state"]
        if state.keys() != first.keys():
            raise ValueError(f"a state's keys differ from the first's: {state} vs {first}")
        changes = {k: v for k, v in state.items() if v != first[k]}
        out.append({"changes": changes, **{k: v for k, v in row.items() if k != "state"}})
    return {"state": first, "states": out}


def thinned(values: object, most: int) -> object:
    """``values`` (an array) at evenly spaced samples of its last axis, both ends kept, at most
    ``most`` of them: each sample is still Python's number at that point."""
    n = values.shape[-1]
    if n <= most:
        return values
    step = next(s for s in range(1, n) if (n - 1) % s == 0 and (n - 1) // s + 1 <= most)
    return values[..., ::step]


#: Values snapped and labelled (both sides must agree on every one); values outside the eps
#: controls' range, whose words the page's typed box shows as Python's check says them.
EPS_VALUES = (1e-12, 1.4e-12, 1.5e-12, 3e-7, 3.16e-7, 1e-6, 7e-4, 0.001, 0.35, 1.0)
EPS_OUTSIDE = (1e-20, 5.0, 1.0000001)


def eps_fixture() -> dict:
    """The eps grid, snapping and labels (gradkit.widgets.base.eps) on :data:`EPS_VALUES`, and
    gradkit's words for each of :data:`EPS_OUTSIDE`."""
    sys.path.insert(0, str(ROOT))
    from gradkit._args import check_control_eps
    from gradkit.widgets.base import eps

    def refused(value: float) -> str:
        try:
            check_control_eps(value)
        except ValueError as error:
            return str(error)
        raise AssertionError(f"{value} is inside the eps controls' range")

    return {
        "grid": list(eps.EPS_GRID),
        "values": [
            {"eps": v, "label": eps.eps_label(v), "state": eps.eps_state(v)} for v in EPS_VALUES
        ],
        "outside": [{"text": repr(v), "error": refused(v)} for v in EPS_OUTSIDE],
    }


#: SlopeExplorer's zoom rows and overview curve in the fixture, thinned to at most this many
#: samples each (the page reads the count from the scene): the tests draw them, and read no one
#: number of them against Python's.
SLOPE_SAMPLES = {"zoom": 21, "curve": 201}


def slope_fixture() -> dict:
    """A SlopeExplorer scene (x³ at 0.5, one x position; zoom rows and curve thinned to
    :data:`SLOPE_SAMPLES`) and what Python reads from it."""
    sys.path.insert(0, str(ROOT))
    from gradkit.widgets.base.schedule import deferring, run_pending
    from gradkit.widgets.base.tables import json_safe, pack, unpack
    from gradkit.widgets.slope import SlopeExplorer

    with deferring(True):  # the first picture only: one x position
        w = SlopeExplorer(f="x³", x=0.5)
    states = []
    for dtype in ("float64", "float32", "float16"):
        for scheme in ("central", "forward"):
            for eps in (1e-1, 1e-6, 1e-9):
                w.update_state({"dtype": dtype, "scheme": scheme})
                w.eps_slider.value = eps
                states.append(
                    {"state": dict(w.state), "numeric": w.numeric, "analytic": w.analytic}
                )
    w.update_state({"dtype": "float32", "scheme": "central"})
    w.eps_slider.value = 3e-7  # off the grid: the page reads the kernel's answer
    typed = {"state": dict(w.state), "numeric": w.numeric, "exact": _answer(w)}
    w.close()
    run_pending()  # the closed widget's deferred work: nothing left for later
    arrays = unpack(w.tables, w.scene["tables"])
    arrays.update({name: thinned(arrays[name], most) for name, most in SLOPE_SAMPLES.items()})
    buffer, layout = pack(arrays)
    scene = {**w.scene, "zoom_points": arrays["zoom"].shape[-1], "tables": layout}
    fixture = {"scene": scene, "tables_zlib": tables_text(buffer), **as_changes(states)}
    fixture["x_value"] = w.x_value  # the value at the state's x position (the page: ctx.value)
    return json_safe({**fixture, "typed": typed})


def _number(value: float) -> float | str:
    """A float for JSON: non-finite ones as Python's text ("inf", "-inf", "nan")."""
    return value if math.isfinite(value) else repr(float(value))


def _first_picture(cls: type, **kwargs: object) -> tuple:
    """A widget as its first picture leaves it (one x position), and a function that closes it
    and returns its scene, tables (:func:`tables_text`) and the answer to the page's
    ``numbers_at`` (:func:`_answer`)."""
    sys.path.insert(0, str(ROOT))
    from gradkit.widgets.base.schedule import deferring, run_pending

    with deferring(True):
        w = cls(**kwargs)

    def done() -> dict:
        sent = {"scene": w.scene, "tables_zlib": tables_text(w.tables), "x_value": w.x_value}
        sent["exact"] = _answer(w)  # what the page's numbers_at is answered now
        w.close()
        run_pending()  # the closed widget's deferred work: nothing left for later
        return sent

    return w, done


def _walked_ticks(x: float, eps: float, dtype: object, steps: int = 80) -> list | None:
    """The representable numbers within x ± 1.6·eps in units of eps, walked with nextafter (not
    the bit keys ruler.js reads); None when ``steps`` numbers either side do not reach that far."""
    import torch

    x_t = torch.tensor(x, dtype=dtype)
    if not math.isfinite(float(x_t)):
        return None
    reach, sides = 1.6 * eps, []
    for end in (-math.inf, math.inf):
        v, walked = x_t, []
        for _ in range(steps):
            v = torch.nextafter(v, torch.tensor(end, dtype=dtype))
            walked.append(float(v) - float(x_t))
        if not abs(walked[-1]) >= reach:
            return None
        sides += walked
    return sorted(o / eps for o in [0.0, *sides] if abs(o) <= reach)


#: What a FloatRuler fixture holds of torch's ruler per state, in this order (``ruler_fields``).
RULER_NUMBERS = ("x", "h", "ulp", "ulp_below", "lower", "upper")
RULER_FLAGS = ("underflow", "overflow", "lower_collapsed", "upper_collapsed", "collapsed")


def ruler_fixture() -> dict:
    """FloatRuler scenes (0.5, 0.1, 70000 and 1e300; one x position each) and what torch says for
    every dtype at a few eps (``ruler``: the values of ``ruler_fields``), plus a typed eps off
    the grid (3e-7 at 0.5)."""
    sys.path.insert(0, str(ROOT))
    from gradkit._args import DTYPES
    from gradkit.widgets.ruler import FloatRuler

    scenes = {}
    for name, x in (("half", 0.5), ("tenth", 0.1), ("overflow", 70000.0), ("huge", 1e300)):
        w, done = _first_picture(FloatRuler, x=x, eps=3e-7 if name == "half" else 1e-6)
        states = []
        for dtype in DTYPES:
            for eps in (1e-12, 1e-8, 1e-6, 1e-3, 0.5):
                w.update_state({"dtype": dtype})
                w.eps_slider.value = eps
                r = w.ruler
                ruler = [_number(getattr(r, k)) for k in RULER_NUMBERS]
                ruler += [getattr(r, k) for k in RULER_FLAGS]
                ticks = _walked_ticks(x, eps, DTYPES[dtype])
                states.append({"state": dict(w.state), "ruler": ruler, "ticks": ticks})
        w.eps_slider.value = 3e-7
        exact_state = dict(w.state)
        scenes[name] = {
            **done(),
            "ruler_fields": [*RULER_NUMBERS, *RULER_FLAGS],
            **as_changes(states),
            "exact_state": exact_state,
        }
    return scenes


#: What an EpsilonLab fixture holds of gradkit.sweep's curve per state, in this order
#: (``want_fields``).
SWEEP_FIELDS = ("error", "underflow", "collapsed", "passes")


def epsilon_fixture() -> dict:
    """EpsilonLab scenes (x³ at 0.5 and at 0, log at −1; one x position each) and what
    gradkit.sweep measures there (``want``: the values of ``want_fields``), plus a typed eps off
    the grid (3e-7 at 0.5)."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from gradkit import sweep
    from gradkit._args import EPS_GRID, WIDGET_SCHEMES
    from gradkit.widgets.epsilon import EpsilonLab

    scenes = {}
    for name, f, x in (("main", "x³", 0.5), ("zero", "x³", 0.0), ("log", "log(x)", -1.0)):
        w, done = _first_picture(EpsilonLab, f=f, x=x, eps=3e-7)
        sweeps = (
            {s: sweep(w.f, x, eps=EPS_GRID, scheme=s) for s in WIDGET_SCHEMES} if x >= 0 else {}
        )
        at = {s: sweep(w.f, x, eps=[3e-7], scheme=s) for s in WIDGET_SCHEMES} if x >= 0 else {}
        states = []
        for scheme, result in sweeps.items():
            for dtype, curve in result.dtypes.items():
                for g in (0, EPS_GRID.index(1e-6), EPS_GRID.index(1e-3), len(EPS_GRID) - 2):
                    w.update_state({"dtype": dtype, "scheme": scheme, "eps": g, "eps_exact": None})
                    want = [_number(float(getattr(curve, k)[g])) for k in SWEEP_FIELDS]
                    states.append({"state": dict(w.state), "want": want})
        errors = np.array([[c.error.numpy() for c in r.dtypes.values()] for r in sweeps.values()])
        positive = (
            [v for v in errors.ravel().tolist() if v > 0] + [sweeps["central"].tolerance]
            if sweeps
            else []
        )
        limits = [max(min(positive) / 8, 1e-18), max(max(positive) * 8, 1)] if sweeps else None
        exact = {
            s: {d: _number(float(c.error[0])) for d, c in r.dtypes.items()} for s, r in at.items()
        }
        w.eps_slider.value = 3e-7  # the typed eps the page asks the numbers of
        scenes[name] = {
            **done(),
            "want_fields": list(SWEEP_FIELDS),
            **as_changes(states),
            "limits": limits,
            "exact_want": exact,
        }
    return scenes


#: The practice widgets' quiz file (fixed: lesson edits never make the fixture stale).
PRACTICE_BANK = FIXTURES / "practice_bank.toml"
#: Typed guesses for a number and for a choice; (entry id, true value, guesses locked in).
NUMBER_TEXTS = ("22", " 22 ", "1e-3", "−1.5", "1_000", ".5", "5.", "+3", "2E3", "twenty two",
                "", "   ", "nan", "inf", "1e400", "1,5", "0x10", "infinity", "٢٢", "２２",
                "\u00a022", "\ufeff22", "22\u2003", "\u202f1e-3\u3000", "\x1c22", "\x8522",
                "1e5.5", "-", ".", "e3", "1e", "--1", "1__0")  # fmt: skip
#: The typed guesses checked on each number entry after the first (the first takes them all).
NUMBER_TEXTS_AGAIN = ("22", "−1.5", "twenty two", "1e400")
CHOICE_TEXTS = ("passes", " passes ", "maybe", "")
PREDICT_LOCKS = (
    ("p-slope", 1.0132789611816406, ("1.0133", "1.01", "1.0", "1.02335", "0.9", "-1.0133")),
    ("p-calls", None, ("22", "22.0", "2.2e1", "21", "23")),
    ("p-edge", None, ("105", "95", "105.0000001", "94.9999999", "100")),
    ("p-fast", "passes", ("fails", "passes")),
)


def practice_fixture() -> dict:
    """Quiz and Predict scenes from :data:`PRACTICE_BANK` and what Python reads from them:
    each option's verdict, typed guesses checked, locked guesses graded."""
    sys.path.insert(0, str(ROOT))
    import os

    from gradkit.quiz_bank import load_bank
    from gradkit.widgets import Predict, Quiz
    from gradkit.widgets.base.guard import InputError
    from gradkit.widgets.practice.predict import check_guess

    bank = load_bank(PRACTICE_BANK)
    saved = os.environ.pop("GRADKIT_QUIZ_ORDER", None)  # the learner's own order: a seed
    try:
        quizzes = [_quiz_answers(Quiz(i, bank=bank, user="learner")) for i in bank.quizzes]
        seeds = {
            i: [_closed(Quiz(i, bank=bank, user=f"learner{k}")).scene["seed"] for k in range(8)]
            for i in bank.quizzes
        }
    finally:
        if saved is not None:
            os.environ["GRADKIT_QUIZ_ORDER"] = saved
    inline = Quiz("Is `x < y` & y > x?", ["yes", "no"], 0, explain=["Both `<`.", "Read again."])

    def checked(entry_id: str, text: str) -> dict:
        try:
            return {"text": text, "value": check_guess(bank.predict(entry_id), text)}
        except InputError as error:
            return {"text": text, "error": str(error)}

    def edges(entry_id: str, actual: float | None) -> tuple[str, ...]:
        """Guesses on each edge of the range Python grades right, and one float past it."""
        from gradkit.quiz_bank import right_range

        entry = bank.predict(entry_id)
        if entry.kind != "number" or (actual is None and entry.answer is None):
            return ()
        lo, hi = right_range(entry, entry.answer if actual is None else actual)
        return tuple(
            map(repr, (lo, math.nextafter(lo, -math.inf), hi, math.nextafter(hi, math.inf)))
        )

    def locked(entry_id: str, compute: object, guess: str) -> dict:
        p = Predict(entry_id, compute, bank=bank)
        p.lock(guess)
        _closed(p)
        return {"guess": guess, "correct": p.correct}

    predicts = []
    number_texts = iter([NUMBER_TEXTS])  # every text on the first number entry
    for entry_id, actual, guesses in PREDICT_LOCKS:
        compute = None if actual is None else (lambda a=actual: a)
        scene = _closed(Predict(entry_id, compute, bank=bank)).scene
        number = scene["kind"] == "number"
        texts = next(number_texts, NUMBER_TEXTS_AGAIN) if number else CHOICE_TEXTS
        predicts.append(
            {
                "scene": scene,
                "locks": [
                    locked(entry_id, compute, g) for g in (*guesses, *edges(entry_id, actual))
                ],
                "guesses": [checked(entry_id, t) for t in texts],
            }
        )
    return {
        "quizzes": [*quizzes, _quiz_answers(inline)],
        "seeds": seeds,
        "predicts": predicts,
        "hunt": _hunt_runs(),
    }


def _hunt_runs() -> dict:
    """A zoo hunt's runs as the page sends them (each run's prediction, and the first run's
    kept: the states ``huntRun`` makes), the state after each; the scene at the end holds the
    verdicts Python sent for every run (the page words each state from it). To keep the fixture
    small, each verdict's report is written as a short stand-in, and the specimens' code is left
    out."""
    from gradkit.widgets import ZooHunt

    hunt = ZooHunt(["WrongSquareFn", "SquareFn"])
    runs = []
    for name, guess in (
        ("WrongSquareFn", None),
        ("WrongSquareFn", "precision"),
        ("WrongSquareFn", "bug"),
        ("SquareFn", "pass"),
        ("SquareFn", "precision"),
    ):
        hunt.entry_dropdown.value = name
        hunt.prediction_buttons.value = guess
        firsts = dict(hunt.first_guesses)
        firsts.setdefault(hunt.entry, guess)  # a first run's guess stays
        hunt.set_state({"runs": {**hunt.runs, hunt.entry: guess}, "first_guesses": firsts})
        runs.append(dict(hunt.state))
    hunt.close()
    scene = {k: v for k, v in hunt.scene.items() if k in ("words", "prompt", "total")}
    scene["verdicts"] = {
        label: {**v, "unmasked": f"<p>report of {v['name']}</p>"}
        for label, v in hunt.scene["verdicts"].items()
    }
    return {"scene": scene, "states": runs}


def _closed(widget: object) -> object:
    """``widget``, closed: a fixture reads what it sent, nothing more."""
    widget.close()
    return widget


def _quiz_answers(quiz: object) -> dict:
    """A quiz's scene, the order Python says the page shows its options in and, for each option
    chosen, Python's verdict."""
    from gradkit.quiz_bank import seeded_order

    answers = []
    for option in quiz.choices:
        quiz.choose(option)
        answers.append({"choice": option, "correct": quiz.correct})
    quiz.close()
    order = seeded_order(len(quiz.choices), quiz.scene["seed"])
    return {"scene": quiz.scene, "answer": quiz.answer, "answers": answers, "order": order}


#: The format specs checked: every one the views pass to pyFormat (tests/js/base.test.mjs
#: checks the views use no other), and ".1f".
FORMAT_SPECS = (".0f", ".1f", ".3f", ".1e", ".2e", ".4e", ".1g", ".2g", ".3g", ".4g", ".6g", ".9g",
                ".10g", ".15g")  # fmt: skip
#: Awkward numbers: exact ties (to even at .0f, .2g, ...), near-ties that are not exact, digits
#: carried to a new place, where "g" turns to an exponent, huge and tiny, zeros, non-finite.
FORMAT_VALUES = (0.5, 1.5, 2.5, -2.5, 9.5, 0.125, 0.375, 0.0625, 2.384185791015625, 1.03125,
                 0.15, 2.675, 9.9995, 99.95, 0.99995, 999999.5, 9.99999999995, 1 / 3, -2 / 3,
                 123456.0, 1234567.0, 0.0001, 0.00001, 0.000123456, -0.000123, 1e15, 1e16,
                 -123456.789, 6.02214076e23, 1e22, 1.7976931348623157e308, 1e-30,
                 2.2250738585072014e-308, 5e-324, 0.0, -0.0,
                 math.inf, -math.inf, math.nan)  # fmt: skip


def format_fixture() -> dict:
    """Python's format() on :data:`FORMAT_VALUES` and a few more for the page's ``pyFormat``:
    the same digits, ties rounded to even. One row per value: the value (non-finite ones as
    Python's text), then its text in each of :data:`FORMAT_SPECS`."""
    import random

    rng = random.Random(0)
    values = [*FORMAT_VALUES]
    values += [rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30) for _ in range(8)]
    values += [k / 2 ** rng.randint(1, 30) for k in range(1, 40, 6)]  # exact binary ties
    rows = [[_number(v), *(format(v, spec) for spec in FORMAT_SPECS)] for v in values]
    return {"specs": list(FORMAT_SPECS), "rows": rows}


FIXTURE_MAKERS = {
    "eps.json": eps_fixture,
    "format.json": format_fixture,
    "slope.json": slope_fixture,
    "ruler.json": ruler_fixture,
    "epsilon.json": epsilon_fixture,
    "practice.json": practice_fixture,
}


def render(name: str) -> str:
    """The text of fixture ``name`` as Python's rules give it now."""
    return json_text(FIXTURE_MAKERS[name]()) + "\n"


def json_text(value: object, depth: int = 0) -> str:
    """``value`` as JSON with no spaces: a dict or a list of containers one entry a line while
    shallower than :data:`LINE_DEPTH` and longer than :data:`LINE_WIDTH`, all else on one line
    (a list of numbers always: a table's row is one line)."""
    flat = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    nested = isinstance(value, dict) or (
        isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value)
    )
    if not nested or depth >= LINE_DEPTH or len(flat) <= LINE_WIDTH:
        return flat
    if isinstance(value, dict):
        entries = [
            f"{json.dumps(k, ensure_ascii=False)}:{json_text(v, depth + 1)}"
            for k, v in value.items()
        ]
    else:
        entries = [json_text(v, depth + 1) for v in value]
    inner = "\n" + " " * (depth + 1)
    ends = "{}" if isinstance(value, dict) else "[]"
    return ends[0] + inner + ("," + inner).join(entries) + "\n" + " " * depth + ends[1]


def meaning(text: str) -> object:
    """A fixture's content with each ``tables_zlib`` inflated (hex): what two texts hold in
    common when one zlib compresses the same bytes differently from another."""

    def plain(value: object) -> object:
        if isinstance(value, dict):
            return {
                k: table_bytes(v).hex() if k == "tables_zlib" else plain(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return plain(json.loads(text))


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in FIXTURE_MAKERS:
        (FIXTURES / name).write_text(render(name), encoding="utf-8")
        print(f"wrote {FIXTURES / name}")


def _answer(w) -> dict | None:
    """The kernel's answer to the page's ``numbers_at`` request for the state shown (a typed
    eps off the grid), as the page gets it: its JSON and its buffer (:func:`tables_text`);
    else None."""
    from gradkit.widgets.base.tables import json_safe

    request = w.request_here()
    if request is None:
        return None
    answer, buffers = w.numbers_at(request, [])
    return {"answer": json_safe(answer), "buffer_zlib": tables_text(buffers[0] if buffers else b"")}


def _sent(w) -> dict:
    """What a widget sent the page: scene, tables (:func:`tables_text`), exact and state."""
    from gradkit.widgets.base.tables import json_safe

    sent = {"scene": w.scene, "exact": _answer(w), "state": dict(w.state)}
    return json_safe({**sent, "tables_zlib": tables_text(w.tables)})


def _changed(sent: dict, before: dict) -> dict:
    """What of ``sent`` differs from ``before`` (the page reads ``{...before, ...changed}``)."""
    missing = object()
    return {k: v for k, v in sent.items() if before.get(k, missing) != v}


#: GradcheckLab's first pictures the fixture holds besides WrongSquareFn's states ahead.
LAB_FIRST_PICTURES = {
    "missing": {"fn": "UnreducedBroadcastAddFn"},
    "unavailable": {"fn": "ComplexSquareFn", "dtype": "float16"},
}


def _failing(w) -> dict[str, list]:
    """[row, col] of the entries outside gradcheck's allowance, per state the lab sent."""
    from gradkit.widgets.base.tables import unpack

    ratios = unpack(w.tables, w.scene["tables"])["ratios"]
    return {
        key: [[int(i), int(j)] for i, j in zip(*(ratios[rec["ratio"]] > 1).nonzero(), strict=True)]
        for key, rec in w.scene["states"].items()
        if rec["ratio"] >= 0
    }


def _worst_said(w) -> dict[str, dict]:
    """Per state the lab sent, the report's own sentence for its worst entry (``comparison``,
    rebuilt by gradkit.report from the numbers sent) and whether gradcheck's test fails it."""
    from gradkit.report import WorstEntry

    said = {}
    for key, rec in w.scene["states"].items():
        if rec["worst"] is not None:
            n, a, t = (rec["worst"][k] for k in ("numeric", "analytic", "tolerance"))
            entry = WorstEntry(0, 0, (0, 0), n, a, t)
            said[key] = {"comparison": entry.comparison, "outside": entry.outside}
    return said


#: The eps steps of GradcheckLab's states ahead in the fixture (the lab's own: states.CLICK_STEPS):
#: the eps shown alone, so the states are the eps shown in every dtype, and fast_mode flipped.
LAB_CLICK_STEPS = (0,)


def lab_fixture() -> dict:
    """GradcheckLab scenes (SquareFn and WrongSquareFn with their states ahead, a typed eps, a
    missing analytic Jacobian, complex inputs in float16) and the entries Python finds failing.
    The typed eps's scene is WrongSquareFn's: ``typed`` holds what changed from it."""
    sys.path.insert(0, str(ROOT))
    from gradkit.widgets.base.schedule import deferring, run_pending
    from gradkit.widgets.lab import GradcheckLab, states

    saved = states.AHEAD_BUDGET_S, states.CLICK_STEPS
    states.AHEAD_BUDGET_S = math.inf  # every state, however slow
    states.CLICK_STEPS = LAB_CLICK_STEPS
    out = {}
    try:
        for name in ("SquareFn", "WrongSquareFn"):
            w = GradcheckLab(name)
            out[name] = {**_sent(w), "failing": _failing(w), "worst_said": _worst_said(w)}
            if name == "WrongSquareFn":
                w.eps_slider.value = 3e-7  # as typed: kept exactly
                out["typed"] = _changed(_sent(w), out[name])
            w.close()
    finally:
        states.AHEAD_BUDGET_S, states.CLICK_STEPS = saved
    with deferring(True):  # the first picture only: one state each
        for name, kwargs in LAB_FIRST_PICTURES.items():
            lab = GradcheckLab(**kwargs)
            out[name] = _sent(lab)
            lab.close()
        run_pending()
    return out


def jacobian_fixture() -> dict:
    """A JacobianBuilder scene (WrongSquareFn, n = 3; times fixed so the file is stable) and
    the calls Python reads at every step."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from gradkit.widgets.base.tables import pack, unpack
    from gradkit.widgets.jacobian import JacobianBuilder

    b = JacobianBuilder("WrongSquareFn", n=3)
    steps = []
    for k in range(b.total_steps + 1):
        b.update_state({"step": k})
        steps.append({"step": k, "calls": [b.result.forward_calls[k], b.result.backward_calls[k]]})
    sent = _sent(b)
    b.close()
    arrays = dict(unpack(table_bytes(sent["tables_zlib"]), sent["scene"]["tables"]))
    arrays["seconds"] = np.arange(len(arrays["seconds"])) * 1e-4
    buffer, sent["scene"]["tables"] = pack(arrays)
    sent["tables_zlib"] = tables_text(buffer)
    sent["scene"]["history"] = [{**h, "seconds": 0.0009} for h in sent["scene"]["history"]]
    return {**sent, "steps": steps}


FIXTURE_MAKERS.update({"lab.json": lab_fixture, "jacobian.json": jacobian_fixture})

if __name__ == "__main__":
    main()
