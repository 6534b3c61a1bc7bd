"""Write the fixtures the JavaScript tests share with Python (``tests/js/fixtures/*.json``).

Each fixture is what Python's rule gives for a set of inputs; ``tests/js/*.test.mjs`` check the
browser twin gives the same, and ``tests/widgets/test_js_fixtures.py`` checks the files are what
Python gives now (run ``python tools/js_fixtures.py`` after changing a rule on purpose).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "js" / "fixtures"

#: Values snapped, labelled and stepped; texts parsed (both sides must agree on every one).
EPS_VALUES = (1e-12, 1.4e-12, 1.5e-12, 3e-7, 3.16e-7, 1e-6, 7e-4, 0.001, 0.35, 1.0)
EPS_TEXTS = ("1e-6", " 0.001 ", "−1e-6", "abc", "0", "5", "1e-20", "nan", "3e-7", "2E-3")


def eps_fixture() -> dict:
    """The eps rule (gradkit.widgets.base.eps) on :data:`EPS_VALUES` and :data:`EPS_TEXTS`."""
    sys.path.insert(0, str(ROOT))
    from gradkit.widgets.base import eps
    from gradkit.widgets.base.guard import InputError

    def parsed(text: str) -> dict:
        try:
            return {"value": eps.parse_eps(text)}
        except InputError as error:
            return {"error": str(error)}

    return {
        "grid": list(eps.EPS_GRID),
        "decade": eps.EPS_DECADE,
        "values": [
            {
                "eps": v,
                "label": eps.eps_label(v),
                "state": eps.eps_state(v),
                "down": eps.step_eps(eps.eps_state(v), -1),
                "up": eps.step_eps(eps.eps_state(v), 1),
            }
            for v in EPS_VALUES
        ],
        "texts": [{"text": t, **parsed(t)} for t in EPS_TEXTS],
    }


def slope_fixture() -> dict:
    """A SlopeExplorer scene (x³ at 0.5, one x position) and what Python reads from it."""
    sys.path.insert(0, str(ROOT))
    import base64

    from gradkit.widgets.base.schedule import deferring, run_pending
    from gradkit.widgets.slope import SlopeExplorer

    with deferring(True):  # the first picture only: one x position
        w = SlopeExplorer(f="x³", x=0.5)
    states = []
    for dtype in ("float64", "float32", "float16"):
        for scheme in ("central", "forward"):
            for eps in (1e-1, 1e-6, 1e-9):
                w.update_state({"dtype": dtype, "scheme": scheme})
                w.eps = eps
                states.append(
                    {"state": dict(w.state), "numeric": w.numeric, "analytic": w.analytic}
                )
    w.close()
    run_pending()  # the closed widget's deferred work: nothing left for later
    from gradkit.widgets.base.tables import json_safe

    return {
        "scene": w.scene,
        "tables": base64.b64encode(w.tables).decode(),
        "states": json_safe(states),
    }


#: The practice widgets' quiz file (fixed: lesson edits never make the fixture stale).
PRACTICE_BANK = FIXTURES / "practice_bank.toml"
#: Typed guesses for a number and for a choice; (entry id, true value, guesses locked in).
NUMBER_TEXTS = ("22", " 22 ", "1e-3", "−1.5", "1_000", ".5", "5.", "+3", "2E3", "twenty two",
                "", "   ", "nan", "inf", "1e400", "1,5", "0x10")  # fmt: skip
CHOICE_TEXTS = ("passes", " passes ", "maybe", "")
PREDICT_LOCKS = (
    ("p-slope", 1.0132789611816406, ("1.0133", "1.01", "1.0", "1.02335", "0.9", "-1.0133")),
    ("p-calls", None, ("22", "22.0", "2.2e1", "21", "23")),
    ("p-edge", None, ("105", "95", "105.0000001", "94.9999999", "100")),
    ("p-fast", "passes", ("fails", "passes")),
)


def practice_fixture() -> dict:
    """Quiz and Predict scenes from :data:`PRACTICE_BANK` and what Python reads from them:
    each option's verdict and feedback, typed guesses checked, locked guesses graded."""
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
        seeds = {i: [_closed(Quiz(i, bank=bank, user=f"learner{k}")).scene["seed"]
                     for k in range(8)] for i in bank.quizzes}  # fmt: skip
    finally:
        if saved is not None:
            os.environ["GRADKIT_QUIZ_ORDER"] = saved
    inline = Quiz("Is `x < y` & y > x?", ["yes", "no"], 0, explain=["Both `<`.", "Read again."])

    def checked(entry_id: str, text: str) -> dict:
        try:
            return {"text": text, "value": check_guess(bank.predict(entry_id), text)}
        except InputError as error:
            return {"text": text, "error": str(error)}

    def locked(entry_id: str, compute: object, guess: str) -> dict:
        p = Predict(entry_id, compute, bank=bank)
        p.lock(guess)
        _closed(p)
        return {"guess": guess, "correct": p.correct, "feedback": p.feedback_html.value}

    predicts = []
    for entry_id, actual, guesses in PREDICT_LOCKS:
        compute = None if actual is None else (lambda a=actual: a)
        scene = _closed(Predict(entry_id, compute, bank=bank)).scene
        texts = NUMBER_TEXTS if scene["kind"] == "number" else CHOICE_TEXTS
        predicts.append({
            "scene": scene,
            "locks": [locked(entry_id, compute, g) for g in guesses],
            "guesses": [checked(entry_id, t) for t in texts],
        })  # fmt: skip
    return {"quizzes": [*quizzes, _quiz_answers(inline)], "seeds": seeds, "predicts": predicts}


def _closed(widget: object) -> object:
    """``widget``, closed: a fixture reads what it sent, nothing more."""
    widget.close()
    return widget


def _quiz_answers(quiz: object) -> dict:
    """A quiz's scene and, for each option chosen, Python's verdict and feedback text."""
    answers = []
    for option in quiz.choices:
        quiz.choose(option)
        text = quiz.feedback_html.value
        answers.append({"choice": option, "correct": quiz.correct, "text": text})
    quiz.close()
    return {"scene": quiz.scene, "answer": quiz.answer, "answers": answers}


FIXTURE_MAKERS = {
    "eps.json": eps_fixture,
    "slope.json": slope_fixture,
    "practice.json": practice_fixture,
}


def render(name: str) -> str:
    """The text of fixture ``name`` as Python's rules give it now."""
    return json.dumps(FIXTURE_MAKERS[name](), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in FIXTURE_MAKERS:
        (FIXTURES / name).write_text(render(name), encoding="utf-8")
        print(f"wrote {FIXTURES / name}")


if __name__ == "__main__":
    main()
