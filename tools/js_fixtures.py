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


FIXTURE_MAKERS = {"eps.json": eps_fixture, "slope.json": slope_fixture}


def render(name: str) -> str:
    """The text of fixture ``name`` as Python's rules give it now."""
    return json.dumps(FIXTURE_MAKERS[name](), indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in FIXTURE_MAKERS:
        (FIXTURES / name).write_text(render(name), encoding="utf-8")
        print(f"wrote {FIXTURES / name}")


def _sent(w) -> dict:
    """What a widget sent the page: scene, tables (base64), exact and state."""
    import base64

    from gradkit.widgets.base.tables import json_safe

    sent = {"scene": w.scene, "exact": w.exact, "state": dict(w.state)}
    return json_safe({**sent, "tables": base64.b64encode(w.tables).decode()})


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


def lab_fixture() -> dict:
    """GradcheckLab scenes (SquareFn and WrongSquareFn with their states ahead, a typed eps, a
    missing analytic Jacobian, complex inputs in float16) and the entries Python finds failing."""
    sys.path.insert(0, str(ROOT))
    import math

    from gradkit.widgets.base.schedule import deferring, run_pending
    from gradkit.widgets.lab import GradcheckLab, states

    budget, states.AHEAD_BUDGET_S = states.AHEAD_BUDGET_S, math.inf  # every state, however slow
    out = {}
    try:
        for name in ("SquareFn", "WrongSquareFn"):
            w = GradcheckLab(name)
            out[name] = {**_sent(w), "failing": _failing(w)}
            if name == "WrongSquareFn":
                w.eps_text.value = "3e-7"
                out["typed"] = _sent(w)
            w.close()
    finally:
        states.AHEAD_BUDGET_S = budget
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
    import base64

    import numpy as np

    from gradkit.widgets.base.tables import pack, unpack
    from gradkit.widgets.jacobian import JacobianBuilder

    b = JacobianBuilder("WrongSquareFn", n=3)
    steps = []
    for k in range(b.total_steps + 1):
        b.update_state({"step": k})
        steps.append({"step": k, "calls": list(b.calls)})
    sent = _sent(b)
    b.close()
    arrays = dict(unpack(base64.b64decode(sent["tables"]), sent["scene"]["tables"]))
    arrays["seconds"] = np.arange(len(arrays["seconds"])) * 1e-4
    buffer, sent["scene"]["tables"] = pack(arrays)
    sent["tables"] = base64.b64encode(buffer).decode()
    sent["scene"]["history"] = [{**h, "seconds": 0.0009} for h in sent["scene"]["history"]]
    return {**sent, "steps": steps}


FIXTURE_MAKERS.update({"lab.json": lab_fixture, "jacobian.json": jacobian_fixture})

if __name__ == "__main__":
    main()
