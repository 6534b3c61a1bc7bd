"""The answers saved for a page with no kernel (base/standin.py): the site's model reads them.

They cost torch work no notebook needs, so they are computed only when the widget's state is
saved for a page with no kernel (``ipywidgets.Widget.get_manager_state``, as ``gradkit export``
calls it): the menus' other functions, the builder's n's around the one shown, fast_mode flipped
in the lab, and the scene such a page starts from where it differs from the kernel's
(``scene_without_kernel``: the hunt's every verdict, an exercise's feedback). Each is what the
kernel would have sent for that choice.
"""

from __future__ import annotations

import base64
import html

import ipywidgets
import numpy as np
import pytest

from gradkit import zoo
from gradkit.widgets import (
    EpsilonLab,
    ExercisePanel,
    GradcheckLab,
    JacobianBuilder,
    SlopeExplorer,
    ZooHunt,
)
from gradkit.widgets.base.tables import unpack
from gradkit.widgets.lab.states import state_key
from gradkit.widgets.practice.exercise import NO_KERNEL_FEEDBACK
from gradkit.widgets.practice.specimens import hunt_names
from gradkit.widgets.practice.zoo_hunt import RUN_WORDS


def saved(w) -> dict:
    """The widget's state as ``gradkit export`` saves it (buffers as base64)."""
    return ipywidgets.Widget.get_manager_state(widgets=[w])["state"][w.model_id]


def tables_of(entry: dict) -> dict[str, np.ndarray]:
    return unpack(entry["tables"], entry["scene"]["tables"])


def answers(w) -> list[dict]:
    """The answers saved with ``w``'s state (tables as bytes), as the page gets them."""
    record = saved(w)
    found = record["state"].get("answers", [])
    for b in record.get("buffers", []):
        if b["path"][0] == "answers":
            found[b["path"][1]]["tables"] = base64.standard_b64decode(b["data"])
    return found


@pytest.mark.parametrize("cls", [SlopeExplorer, EpsilonLab, JacobianBuilder, GradcheckLab])
def test_a_notebook_gets_nothing_ahead_until_the_state_is_saved(make, cls, monkeypatch):
    asked = []
    ahead = type(make(cls)).answers_ahead
    monkeypatch.setattr(cls, "answers_ahead", lambda self: asked.append(1) or ahead(self))
    w = make(cls)
    assert "answers" not in w.keys and not asked  # the kernel path: no work, nothing sent
    found = answers(w)
    assert asked and found and all(a["tables"] for a in found)
    assert all(set(a) == {"state", "scene", "tables"} for a in found)
    ids = [(a["scene"]["id"], a["scene"]["key"]) for a in found]  # each its own, as a scene is
    assert len({i for i, _ in ids}) == len({k for _, k in ids}) == len(found)


def test_a_second_save_of_the_same_state_computes_nothing_again(make, monkeypatch):
    w = make(JacobianBuilder, n=3)
    saved(w)
    monkeypatch.setattr(w, "answers_ahead", lambda: pytest.fail("computed again"))
    saved(w)


def test_a_failure_ahead_leaves_the_page_to_say_what_needs_the_kernel(make, monkeypatch):
    w = make(JacobianBuilder, n=3)

    def fails():
        raise RuntimeError("no")

    monkeypatch.setattr(w, "answers_ahead", fails)
    assert "answers" not in saved(w)["state"] and w.error == ""


# ---------------------------------------------------------------------------- the panels


def test_a_page_with_no_kernel_gets_the_exercise_saying_it_cannot_check(make):
    panel = make(ExercisePanel, "cube")
    kernel_scene = dict(panel.scene)
    record = saved(panel)
    scene = record["state"]["scene"]
    assert scene["feedback"] == NO_KERNEL_FEEDBACK != kernel_scene["feedback"]
    assert {k: v for k, v in scene.items() if k != "feedback"} == {
        k: v for k, v in kernel_scene.items() if k != "feedback"
    }  # the hints and the solution, as the kernel sent them
    assert panel.scene == kernel_scene  # the notebook's: as it was
    assert html.escape(panel.exercise.solution) in scene["solution"]


def test_the_hunt_saves_every_specimens_verdict_as_a_run_shows_it(make):
    random = ("RandomForwardFn", "NoisyBackwardTanhFn")  # their reports differ run to run
    hunt = make(ZooHunt, [n for n in hunt_names(None) if n not in random])
    scene = saved(hunt)["state"]["scene"]
    assert hunt.scene["verdicts"] == {}  # the notebook's: none yet
    assert scene["words"] == RUN_WORDS and scene["total"] == len(hunt.names)
    labels = [label for label, _ in hunt.entry_dropdown.options]
    assert list(scene["verdicts"]) == list(scene["specimens"]) == labels
    for label, name in hunt.entry_dropdown.options:
        hunt.entry_dropdown.value = name
        hunt.set_state({"runs": {**hunt.runs, label: None}})  # the page's run
        report = hunt.last
        verdict = scene["verdicts"][label]
        assert verdict["name"] == name and verdict["cause"] == report.cause
        assert hunt.scene["verdicts"][label] == verdict  # as the kernel's run shows it
        assert zoo.entry(name).expected_cause["float64"] == report.cause


# ------------------------------------------------------------------------- new scenes


def test_the_builder_saves_the_ns_around_its_own_each_from_step_1(make):
    w = make(JacobianBuilder, n=3)
    before = (w.n, w.position, list(w.history), w.scene["id"])
    scenes = answers(w)
    assert (w.n, w.position, list(w.history), w.scene["id"]) == before  # nothing moved
    assert [s["scene"]["for"] for s in scenes] == [{"n": 2}, {"n": 4}, {"n": 5}]  # positions
    assert all(s["state"] == {"step": 1} for s in scenes)  # a new n starts at step 1
    for entry in scenes:
        n = entry["scene"]["for"]["n"]
        scene, tables = entry["scene"], tables_of(entry)
        assert scene["n"] == n and scene["steps"] == 2 * n  # x * x: m = n
        assert tables["numeric"].shape == (n, n)
        np.testing.assert_allclose(np.diag(tables["analytic"]), 2 * tables["x"])
        built = sorted({3, n, *range(min(3, n), max(3, n) + 1)})
        assert [h["n"] for h in scene["history"]] == built
    assert len({s["scene"]["key"] for s in scenes} | {w.scene["key"]}) == 4


@pytest.mark.parametrize("cls", [SlopeExplorer, EpsilonLab])
def test_a_menu_saves_every_other_function_at_the_x_shown(make, cls):
    w = make(cls, f="x³", x=0.5)
    scenes = answers(w)
    assert [s["scene"]["for"]["function"] for s in scenes] == [n for n in w._menu if n != "x³"]
    k = w.x  # x's position
    for entry in scenes:
        assert entry["scene"]["function"] == entry["scene"]["for"]["function"]
        assert entry["scene"]["window"] == [k, 1] and entry["state"] == {}
    other = make(cls, f="sin(x)", x=0.5)
    sin = next(s for s in scenes if s["scene"]["function"] == "sin(x)")
    mine, theirs = tables_of(sin), unpack(other.tables, other.scene["tables"])
    at = k - other.scene["window"][0]  # x's place in the other widget's window
    compared = [f for f in mine if f in theirs and f != "curve"]
    for field in compared:
        np.testing.assert_array_equal(mine[field][0], theirs[field][at], err_msg=field)
    assert len(compared) >= 2


def test_a_curve_only_explorer_saves_no_zoom_for_its_menu(make):
    w = make(SlopeExplorer, panels=["curve"])
    assert all("zoom" not in s["scene"]["tables"] for s in answers(w))
    both = make(SlopeExplorer)
    assert all("zoom" in s["scene"]["tables"] for s in answers(both))


def test_the_lab_saves_fast_mode_flipped_and_every_other_function_of_its_menu(make):
    w = make(GradcheckLab, "OneEntryWrongSquareFn", panels=["verdict", "difference"])
    shown = set(w.scene["states"])
    scenes = answers(w)
    states = w.scene["states"]
    for key in shown:
        fast, dtype, g = key.split("|")
        assert state_key(fast == "0", dtype, int(g)) in states, key
    assert states["1|float64|18"]["fast_mode"] is True
    others = [n for n in w.function_dropdown.options if n != "OneEntryWrongSquareFn"]
    assert [s["scene"]["for"]["function"] for s in scenes] == others
    for entry in scenes:
        scene = entry["scene"]
        assert scene["function"] == scene["for"]["function"]
        assert {"0|float64|18", "1|float64|18"} <= set(scene["states"]), scene["function"]
    wrong = next(s["scene"] for s in scenes if s["scene"]["function"] == "WrongSquareFn")
    assert wrong["states"]["0|float64|18"]["cause"] == "bug"
    assert wrong["about"]["name"] == "WrongSquareFn" and not wrong["about"]["correct"]


def test_the_lab_stops_at_its_time_budget_and_the_page_greys_what_is_missing(make, monkeypatch):
    monkeypatch.setattr("gradkit.widgets.lab.lab.OFFLINE_BUDGET_S", 0.0)
    w = make(GradcheckLab, "WrongSquareFn")
    shown = set(w.scene["states"])
    assert answers(w) == [] and set(w.scene["states"]) == shown
