"""ExercisePanel and ZooHunt: kernel buttons, the readouts Python writes into the scene, the
specimens sent ahead, what the page may send, and every practice bundle."""

from __future__ import annotations

import html

import pytest
from ipywidgets.widgets.widget import _instances

from gradkit import zoo
from gradkit.exercises import EXERCISES
from gradkit.widgets import ExercisePanel, Predict, Quiz, ZooHunt
from gradkit.widgets.base import GradkitWidget, schedule
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
    assert hunt.code_html.value == hunt.scene["specimens"][_label(hunt, "CubeFn")]
    assert hunt.result.value == hunt.scene["prompt"]
    page_sends(hunt, entry="Specimen 9: made up")
    assert "one of the specimens" in hunt.error_area.value and hunt.entry_dropdown.value == "CubeFn"


def test_running_gradcheck_needs_the_kernel_and_writes_result_and_score(make):
    hunt = make(ZooHunt, ["WrongSquareFn", "SquareFn"])
    run = next(c for c in hunt.spec["controls"] if c["name"] == "run")
    assert run["kind"] == "button" and run["kernel"] is True
    hunt.run_button.click()
    label = _label(hunt, "WrongSquareFn")
    assert "without a prediction" in hunt.scene["results"][label] == hunt.result.value
    hunt.prediction_buttons.value = "precision"
    page_clicks(hunt, "run")
    assert "Not quite: you predicted precision, the cause is bug." in hunt.result.value
    assert "the zoo's <b>WrongSquareFn</b>" in hunt.result.value
    hunt.prediction_buttons.value = "bug"
    hunt.run_button.click()  # a second try does not change the first-try score
    assert hunt.scene["score"] == hunt.score.value
    # the first run had no prediction: this Function never scores
    assert "Score: 0 right at the first try, out of 0 predicted (2 Functions" in hunt.score.value
    hunt.entry_dropdown.value = "SquareFn"
    assert hunt.result.value == hunt.scene["prompt"]  # no result yet for this one
    hunt.prediction_buttons.value = "pass"
    hunt.run_button.click()
    assert "Right: the cause is pass." in hunt.result.value
    assert "Score: 1 right at the first try, out of 1 predicted" in hunt.score.value
    assert hunt.error_area.value == ""


def test_hunt_arguments_are_named():
    with pytest.raises(TypeError, match="names must be a list of zoo names"):
        ZooHunt("WrongSquareFn")
    with pytest.raises(KeyError, match="no zoo entry named"):
        ZooHunt(["NoSuchFn"])
    with pytest.raises(ValueError, match="names must list at least one"):
        ZooHunt([])


# --------------------------------------------------------------------------- ExercisePanel


def test_the_panel_buttons_need_the_kernel_and_readouts_come_from_python(make):
    panel = make(ExercisePanel, "cube", namespace={})
    assert [(c["name"], c["kind"], c["kernel"]) for c in panel.spec["controls"]] == [
        ("check", "button", True),
        ("hint", "button", True),
        ("solution", "button", True),
    ]
    assert [r["name"] for r in panel.spec["readouts"]] == ["feedback", "hints", "solution"]
    readouts = panel.scene["readouts"]
    assert "No class named MyCube" in readouts["feedback"] == panel.feedback.value
    assert readouts["hints"] == readouts["solution"] == ""


def test_in_voila_check_is_greyed_and_says_why_hints_still_work(make, monkeypatch):
    monkeypatch.setenv("VOILA_KERNEL_ID", "k")
    panel = make(ExercisePanel, "cube", namespace={})
    assert panel.control_state["check"] == {"disabled": True}
    assert "Open the notebook in Jupyter" in panel.feedback.value
    assert "No class named" not in panel.feedback.value
    panel.hint_button.click()
    assert panel.hints_shown == 1 and "Hint 1" in panel.hints_html.value


def test_hints_one_at_a_time_and_the_solution_asked_twice(make):
    ex = EXERCISES["cube"]
    panel = make(ExercisePanel, "cube", namespace={})
    for k in range(1, len(ex.hints) + 1):
        page_clicks(panel, "hint")
        assert panel.scene["readouts"]["hints"].count("Hint ") == k == panel.hints_shown
    assert panel.control_state["hint"] == {"disabled": True, "text": "No more hints"}
    panel.solution_button.click()
    assert panel.control_state["solution"]["text"] == "Sure? Click again"
    assert panel.solution_html.value == ""
    panel.solution_button.click()
    assert panel.control_state["solution"] == {"text": "Solution shown", "disabled": True}
    assert panel.solution_html.value.endswith(f"<pre>{html.escape(ex.solution)}</pre>")


def test_check_reads_the_learners_class_and_errors_show(make, monkeypatch):
    from gradkit import exercises
    from gradkit.exercises.solutions.cube import MyCube

    namespace = {}
    panel = make(ExercisePanel, "cube", namespace=namespace)
    namespace["MyCube"] = MyCube
    panel.check_button.click()
    assert panel.last.passed and "Correct" in panel.feedback.value

    def explode(*_args):
        raise RuntimeError("grading exploded")

    monkeypatch.setattr(exercises, "grade", explode)
    panel.check_button.click()
    assert "RuntimeError: grading exploded" in panel.error_area.value
    assert "Correct" in panel.feedback.value  # the last feedback stays
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
    assert f"render: (args) => render(args, {cls.view}, gradkitOptions)," in tail
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


def test_a_guess_made_after_seeing_the_verdict_never_scores(make):
    """The hunt's score counts only predictions made before the verdict: running a Function with
    no prediction shows it, so a later guess for that Function is no first try."""
    hunt = make(ZooHunt, ["WrongSquareFn", "SquareFn"])
    hunt.run_button.click()  # peeked: the verdict is on screen
    assert "no longer counts toward your score" in hunt.result.value
    hunt.prediction_buttons.value = "bug"
    hunt.run_button.click()
    assert "Right: the cause is bug." in hunt.result.value
    assert "Score: 0 right at the first try, out of 0 predicted" in hunt.score.value
    hunt.entry_dropdown.value = "SquareFn"
    hunt.prediction_buttons.value = "pass"
    hunt.run_button.click()
    assert "Score: 1 right at the first try, out of 1 predicted" in hunt.score.value
