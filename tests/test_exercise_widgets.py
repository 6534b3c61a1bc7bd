"""ExercisePanel and ZooHunt on the shared widget base: what the learner sees, errors, closing."""

from __future__ import annotations

import pytest
from ipywidgets.widgets.widget import _instances

from gradkit import zoo
from gradkit.widgets._base import GradkitWidget
from gradkit.widgets.exercise_panel import ExercisePanel
from gradkit.widgets.zoo_hunt import ZooHunt


def test_specimens_hide_every_giveaway():
    hunt = ZooHunt()
    try:
        for name in hunt.names:
            hunt.entry_dropdown.value = name
            shown = hunt.code_html.value
            e = zoo.entry(name)
            assert "class Specimen" in shown and "def backward" in shown
            # no decorator: the zoo's metadata (@zoo_entry) names the bug
            code = shown.split("<pre>")[1]
            assert code.startswith("class Specimen"), code
            if e.bug:
                assert e.bug not in shown and "bug" not in shown.lower(), shown
            assert e.description not in shown
    finally:
        hunt.close()


def test_hunt_and_panel_share_the_base():
    hunt = ZooHunt(["WrongSquareFn", "CubeFn"])
    panel = ExercisePanel("cube", namespace={})
    try:
        for w in (hunt, panel):
            assert isinstance(w, GradkitWidget)
            assert "gradkit-widget" in w._dom_classes
            assert w.error_area.value == ""
        assert [c["name"] for c in hunt.controls] == ["entry", "prediction", "run"]
        assert hunt.controls[0]["options"][0] == "Specimen 1: x²"  # the browser sees labels
        assert hunt.entry_dropdown.value == "WrongSquareFn"  # Python sees zoo names
        hunt.prediction.value = "bug"
        hunt.entry_dropdown.value = "CubeFn"
        assert hunt.prediction.value is None  # a new specimen asks for a new prediction
        assert [c["name"] for c in panel.controls] == ["check", "hint", "solution"]
        panel.solution_button.click()
        assert panel.control_state["solution"]["text"] == "Sure? Click again"
    finally:
        hunt.close()
        panel.close()


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="names must be a list of zoo names"):
        ZooHunt("WrongSquareFn")
    with pytest.raises(TypeError, match="namespace must be a dict"):
        ExercisePanel("cube", namespace=3)


@pytest.mark.parametrize("make", [lambda: ZooHunt(), lambda: ExercisePanel("cube", namespace={})])
def test_close_leaks_nothing(make):
    before = len(_instances)
    w = make()
    w.close()
    assert w.closed and len(_instances) == before
