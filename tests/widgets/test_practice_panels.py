"""ExercisePanel and ZooHunt: the buttons the page presses itself (hints, the solution, a run)
and the one that needs the kernel (check), what Python sends in the scene, the specimens sent
ahead, what the page may send, and every practice bundle."""

from __future__ import annotations

import html

import pytest
from ipywidgets.widgets.widget import _instances

from gradkit import zoo
from gradkit.exercises import EXERCISES
from gradkit.widgets import ExercisePanel, Predict, Quiz, ZooHunt
from gradkit.widgets.base import GradkitWidget, schedule
from gradkit.widgets.practice.zoo_hunt import RUN_WORDS
from tests.widgets.page_messages import page_clicks, page_sends
from tests.widgets.test_base import check_bundle


def _label(hunt, name):
    return next(label for label, value in hunt.entry_dropdown.options if value == name)


# --------------------------------------------------------------------------------- ZooHunt


def test_every_specimen_is_sent_ahead_without_a_giveaway(make):
    hunt = make(ZooHunt)
    specimens = hunt.scene["specimens"]
    assert list(specimens) == [label for label, _ in hunt.entry_dropdown.options]
    for k, name in enumerate(hunt.names, start=1):
        shown = specimens[_label(hunt, name)]
        e = zoo.entry(name)
        code = shown.split("<pre>")[1]
        assert code.startswith(f"class Specimen{k}Fn(torch.autograd.Function)"), code
        assert "def backward" in code and name not in shown and '"""' not in shown
        if e.bug:
            assert e.bug not in shown and "bug" not in shown.lower(), shown
        assert e.description not in shown


def test_the_first_specimen_comes_first_and_the_rest_after_the_cell(make):
    with schedule.deferring(True):
        hunt = make(ZooHunt)
        assert list(hunt.scene["specimens"]) == [hunt.entry_dropdown.options[0][0]] and hunt.busy
        schedule.run_pending()
    assert len(hunt.scene["specimens"]) == len(hunt.names) and not hunt.busy


def test_the_page_switches_specimens_and_python_reads_them(make):
    hunt = make(ZooHunt, ["WrongSquareFn", "CubeFn"])
    entry = next(c for c in hunt.spec["controls"] if c["name"] == "entry")
    assert entry["kernel"] is False and entry["options"][0] == "Specimen 1: x²"
    page_sends(hunt, prediction="bug")
    assert hunt.prediction_buttons.value == "bug"
    page_sends(hunt, entry=_label(hunt, "CubeFn"))
    assert hunt.entry_dropdown.value == "CubeFn"
    assert hunt.prediction_buttons.value is None  # a new specimen asks for a new prediction
    assert hunt.entry == _label(hunt, "CubeFn") in hunt.scene["specimens"]
    assert hunt.runs == {}
    page_sends(hunt, entry="Specimen 9: made up")
    assert "one of the specimens" in hunt.error and hunt.entry_dropdown.value == "CubeFn"


def test_a_run_is_page_state_and_python_sends_the_verdict_of_each_specimen_run(make):
    hunt = make(ZooHunt, ["WrongSquareFn", "SquareFn"])
    run = next(c for c in hunt.spec["controls"] if c["name"] == "run")
    assert run["kind"] == "button" and run["kernel"] is False and run["by_page"] is True
    assert hunt.scene["verdicts"] == {} and hunt.scene["words"] == dict(RUN_WORDS)
    wrong, square = _label(hunt, "WrongSquareFn"), _label(hunt, "SquareFn")
    # the page's press: runs and first_guesses in one message (huntRun in panel.js)
    page_sends(hunt, runs={wrong: None}, first_guesses={wrong: None})
    assert list(hunt.scene["verdicts"]) == [wrong]  # only the specimen run: no giveaway
    verdict = hunt.scene["verdicts"][wrong]
    assert verdict["cause"] == "bug" == hunt.last.cause and verdict["name"] == "WrongSquareFn"
    assert "the zoo's <b>WrongSquareFn</b>" in verdict["unmasked"]
    page_sends(hunt, prediction="precision", runs={wrong: "precision"})
    assert hunt.runs == {wrong: "precision"} and hunt.first_guesses == {wrong: None}
    page_sends(hunt, prediction="bug", runs={wrong: "bug"})  # a second try: first guess kept
    assert hunt.runs == {wrong: "bug"} and hunt.first_guesses == {wrong: None}
    hunt.entry_dropdown.value = "SquareFn"
    assert list(hunt.scene["verdicts"]) == [wrong]
    page_sends(
        hunt, runs={wrong: "bug", square: "pass"}, first_guesses={wrong: None, square: "pass"}
    )
    assert hunt.last.cause == "pass" and hunt.first_guesses == {wrong: None, square: "pass"}
    assert list(hunt.scene["verdicts"]) == [wrong, square]
    assert hunt.scene["verdicts"][square]["cause"] == "pass"
    assert page_clicks(hunt, "run") == {} and hunt.runs == {wrong: "bug", square: "pass"}
    assert hunt.error == ""


def test_the_page_may_send_only_runs_of_its_specimens_with_offered_predictions(make):
    hunt = make(ZooHunt, ["WrongSquareFn", "CubeFn"])
    label = _label(hunt, "WrongSquareFn")
    for bad in ({"Specimen 9: made up": None}, {label: "sideways"}, {label: {"deep": 1}}, [label]):
        page_sends(hunt, runs=bad)
        assert "the page sent runs" in hunt.error, bad
        assert hunt.runs == {} and hunt.scene["verdicts"] == {}
    page_sends(hunt, first_guesses={label: "bug"})
    assert hunt.error == "" and hunt.first_guesses == {label: "bug"}


def test_a_new_specimen_clears_the_prediction_in_the_page_too(make):
    hunt = make(ZooHunt, ["WrongSquareFn", "CubeFn"])
    entry = next(c for c in hunt.spec["controls"] if c["name"] == "entry")
    assert entry["also"] == {"prediction": None}
    page_sends(hunt, prediction="bug")
    page_sends(hunt, entry=_label(hunt, "CubeFn"), prediction=None)  # the menu's one message
    assert hunt.error == "" and hunt.entry_dropdown.value == "CubeFn"
    assert hunt.prediction_buttons.value is None
    page_sends(hunt, prediction="sideways")
    assert "the page sent prediction=&#x27;sideways&#x27;" in hunt.error


def test_hunt_arguments_are_named():
    with pytest.raises(TypeError, match="names must be a list of zoo names"):
        ZooHunt("WrongSquareFn")
    with pytest.raises(KeyError, match="no zoo entry named"):
        ZooHunt(["NoSuchFn"])
    with pytest.raises(ValueError, match="names must list at least one"):
        ZooHunt([])


# --------------------------------------------------------------------------- ExercisePanel


def test_check_needs_the_kernel_and_the_hints_and_solution_are_in_the_scene(make):
    ex = EXERCISES["cube"]
    panel = make(ExercisePanel, "cube", namespace={})
    controls = {c["name"]: c for c in panel.spec["controls"]}
    assert [(n, c["kind"], c["kernel"]) for n, c in controls.items()] == [
        ("check", "button", True),
        ("hint", "button", False),
        ("solution", "button", False),
    ]
    last = len(ex.hints)
    assert controls["hint"]["count"] == ["hints_shown", last]
    assert controls["hint"]["texts"] == {str(last): "No more hints"}
    assert controls["solution"]["count"] == ["solution_step", 2]
    assert [r["name"] for r in panel.spec["readouts"]] == ["feedback", "hints", "solution"]
    scene = panel.scene
    assert "No class named MyCube" in scene["feedback"]
    assert len(scene["hints"]) == last and "Hint 1 of" in scene["hints"][0]
    assert html.escape(ex.solution) in scene["solution"]
    assert {"hints_shown": 0, "solution_step": 0}.items() <= panel.state.items()


def test_in_voila_check_is_greyed_and_says_why_hints_still_work(make, monkeypatch):
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")
    panel = make(ExercisePanel, "cube", namespace={})
    assert panel.control_state["check"] == {"disabled": True}
    assert "Open the notebook in Jupyter" in panel.scene["feedback"]
    assert "No class named" not in panel.scene["feedback"]
    page_sends(panel, hints_shown=1)  # the page's Hint, pressed with check greyed out
    assert panel.hints_shown == 1 and panel.error == ""


def test_hints_one_at_a_time_and_the_solution_asked_twice(make):
    ex = EXERCISES["cube"]
    panel = make(ExercisePanel, "cube", namespace={})
    for k in range(1, len(ex.hints) + 1):
        page_sends(panel, hints_shown=k)  # the page counted one more (labels: tests/js)
        assert panel.hints_shown == k
    page_sends(panel, solution_step=1)  # the page's first press asks to be sure
    assert panel.solution_step == 1
    page_sends(panel, solution_step=2)  # the page's second press shows it
    assert panel.solution_step == 2 and panel.error == ""
    assert panel.scene["solution"].endswith(f"<pre>{html.escape(ex.solution)}</pre>")
    assert panel.control_state == {}  # nothing relabelled from Python: the page counts
    assert page_clicks(panel, "hint") == {} and panel.error == ""


def test_the_page_may_send_only_counts_within_each_counter(make):
    panel = make(ExercisePanel, "cube", namespace={})
    last = len(panel.exercise.hints)
    for key, bad in (("hints_shown", last + 1), ("hints_shown", -1), ("solution_step", 3)):
        page_sends(panel, **{key: bad})
        assert f"the page sent {key}={bad}; it must be a whole number" in panel.error
        assert panel.state[key] == 0
    page_sends(panel, solution_step=True)
    assert "whole number" in panel.error and panel.solution_step == 0


def test_check_reads_the_learners_class_and_errors_show(make, monkeypatch):
    from gradkit import exercises
    from gradkit.exercises.solutions.cube import MyCube

    namespace = {}
    panel = make(ExercisePanel, "cube", namespace=namespace)
    namespace["MyCube"] = MyCube
    panel.check_button.click()
    assert panel.last.passed and "Correct" in panel.scene["feedback"]

    def explode(*_args):
        raise RuntimeError("grading exploded")

    monkeypatch.setattr(exercises, "grade", explode)
    panel.check_button.click()
    assert "RuntimeError: grading exploded" in panel.error
    assert "Correct" in panel.scene["feedback"]  # the last feedback stays
    with pytest.raises(TypeError, match="namespace must be a dict"):
        ExercisePanel("cube", namespace=3)


# ---------------------------------------------------------------------------------- both


@pytest.mark.parametrize("build", [lambda: ZooHunt(), lambda: ExercisePanel("cube", namespace={})])
def test_on_the_base_and_closing_leaks_nothing(build):
    before = len(_instances)
    w = build()
    assert isinstance(w, GradkitWidget) and {"gradkit-widget", w.css} <= set(w._dom_classes)
    w.close()
    assert w.closed and len(_instances) == before


@pytest.mark.parametrize("cls", [Quiz, Predict, ExercisePanel, ZooHunt])
def test_each_bundle_parses_and_defines_every_name_once(cls):
    source = cls._esm
    check_bundle(source)
    tail = source[source.rindex("export default {") :]
    assert f"render: (args) => render(args, {cls.view})," in tail
    assert "initialize: (args) => initialize(args)," in tail and tail.rstrip().endswith("};")


def test_the_hunt_offers_the_causes_taught_first_or_the_ones_asked_for(make):
    from gradkit import CAUSES
    from gradkit.widgets.practice.zoo_hunt import GUESSES

    taught = make(ZooHunt, ["WrongSquareFn", "CubeFn"]).prediction_buttons.options
    assert taught == [c for c in CAUSES if c in GUESSES]
    random = make(ZooHunt, ["RandomForwardFn", "CubeFn"]).prediction_buttons.options
    assert set(random) - {"nondeterministic"} == set(GUESSES) and "nondeterministic" in random
    assert make(ZooHunt, causes=list(CAUSES)).prediction_buttons.options == list(CAUSES)
    with pytest.raises(ValueError, match="causes="):
        ZooHunt(causes=["sideways"])
