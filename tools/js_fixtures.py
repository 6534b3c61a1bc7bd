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


if __name__ == "__main__":
    main()
