"""gradkit.exercises: grading, hints, solutions as real modules, the panel and the zoo hunt."""

from __future__ import annotations

import html
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gradkit import exercises
from gradkit.exercises import EXERCISES, ExercisePanel, ZooHunt, grade, hint, solution
from gradkit.exercises.data import code_of
from gradkit.zoo import CATALOGUE

PACKAGE = Path(exercises.__file__).resolve().parent


def _define(source: str, name: str):
    namespace = {"torch": torch}
    exec(source, namespace)
    return namespace[name]


def _starter_cause(key: str) -> str:
    """The cause the starter fails with: a Jacobian mismatch, or (lesson 10's exercise, whose
    Jacobian is right) the first of its other checks, vmap."""
    return "batched_grad" if EXERCISES[key].checks else "bug"


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_starter_fails_with_its_cause_and_solution_passes(key):
    ex = EXERCISES[key]
    starter = grade(key, _define(ex.starter, ex.class_name))
    assert not starter.passed
    assert starter.report is not None and starter.report.cause == _starter_cause(key)
    assert starter.headline.startswith("Not yet")
    if _starter_cause(key) == "bug":
        assert any("your backward returns" in d for d in starter.details)
    solved = grade(key, _define(ex.solution, ex.class_name))
    assert solved.passed, str(solved)
    assert solved.headline == "Correct: gradcheck passes in float64."


def test_feedback_names_the_worst_entry_in_the_learners_terms():
    ex = EXERCISES["cube"]
    feedback = grade("cube", _define(ex.starter, ex.class_name))
    where = next(d for d in feedback.details if d.startswith("At "))
    # x = -1.25: the nudges measure 3x² = 4.6875, the starter's 3x returns -3.75
    assert where == (
        "At output entry 1, input entry 1 (input entry 1 is -1.25): nudging input entry 1 "
        "moves output entry 1 at a slope of 4.6875, but your backward returns -3.75."
    )


def test_feedback_names_the_output_entry_of_an_entry_off_the_diagonal():
    """A backward that sums over the entries fills every entry of the analytic Jacobian: the
    worst sits off the diagonal, where x³'s slope is 0, and the feedback names both entries
    (with only the input entry, "a slope of 0 ... returns 17.4375" reads as nonsense)."""

    class MyCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return (3 * x**2).sum() * grad_output.sum() * torch.ones_like(x)

    feedback = grade("cube", MyCube)
    where = next(d for d in feedback.details if d.startswith("At "))
    assert where.startswith("At output entry 0, input entry 1 (input entry 1 is -1.25): ")
    assert "nudging input entry 1 moves output entry 0 at a slope of 0, but your backward" in where


#: The entry sentence: output entry i and input entry j (each with its tensor's number where the
#: function has several), the input's value, the nudges' slope, then what the learner's rule says.
ENTRY_SENTENCE = re.compile(
    r"At output (?:\d+ )?entry (?P<i>\d+), input (?P<t>\d+ )?entry (?P<j>\d+) "
    r"\(input (?P=t)?entry (?P=j) is [^)]+\): nudging input (?P=t)?entry (?P=j) moves "
    r"output (?:\d+ )?entry (?P=i) at a slope of \S+, but your (?:backward|jvp)\b"
)


def _mismatching(key: str):
    """A Function for ``key`` whose numbers disagree with the nudges: the starter, or (where the
    starter's Jacobian is right) the solution with a jvp that mixes every tangent entry."""
    ex = EXERCISES[key]
    if not ex.checks:
        return _define(ex.starter, ex.class_name)
    solved = _define(ex.solution, ex.class_name)

    class MixedTangent(solved):
        @staticmethod
        def jvp(ctx, x_tangent):
            return solved.jvp(ctx, x_tangent.sum() * torch.ones_like(x_tangent))

    return MixedTangent


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_every_exercises_numeric_feedback_names_output_entry_i_and_input_entry_j(key):
    """A slope alone at "input entry 2" reads as nonsense where the output entry is another
    one (x³'s slope of 0 off the diagonal): every exercise's feedback names both entries."""
    feedback = grade(key, _mismatching(key))
    assert not feedback.passed
    where = [d for d in feedback.details if ENTRY_SENTENCE.match(d)]
    assert len(where) == 1, str(feedback)


def test_the_entry_sentence_guard_needs_both_entries():
    named = (
        "At output entry 0, input entry 1 (input entry 1 is -1.25): nudging input entry 1 moves "
        "output entry 0 at a slope of 0, but your backward"
    )
    assert ENTRY_SENTENCE.match(named)
    assert not ENTRY_SENTENCE.match(named.replace("moves output entry 0", "moves it"))
    assert not ENTRY_SENTENCE.match(named.replace("At output entry 0, ", "At "))


def test_a_wrong_forward_is_reported_before_gradcheck_runs():
    class MyCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x

    feedback = grade("cube", MyCube)
    assert not feedback.passed
    assert feedback.report is None
    assert "forward computes the wrong values" in feedback.details[0]


def test_errors_in_learner_code_become_feedback():
    class MyProduct(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, grad_output):
            return (grad_output,)  # one gradient for two inputs

    feedback = grade("product", MyProduct)
    assert not feedback.passed
    assert feedback.report is not None and feedback.report.cause == "error"
    assert feedback.headline == "Not yet: torch raised an error while checking your Function."

    class Broken(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            raise RuntimeError("boom")

    assert "forward raised RuntimeError: boom" in grade("cube", Broken).details[0]


def test_missing_or_wrong_kind_of_class_is_explained():
    assert "No class named MyCube yet" in grade("cube", None).details[0]
    assert "not a torch.autograd.Function" in grade("cube", int).details[0]
    assert "Expected the class MyCube" in grade("cube", 3).details[0]
    with pytest.raises(KeyError, match="no exercise named 'square'"):
        grade("square", None)


def test_hints_and_solutions():
    assert hint("cube", 1).startswith("Hint 1 of 3: ")
    assert "3 * x**2" in hint("cube", 3)
    with pytest.raises(ValueError, match="number must be a whole number from 1 to 3"):
        hint("cube", 4)
    assert "grad_output * b, grad_output * a" in solution("product")


def test_panel_checks_hints_and_hides_the_solution_until_asked_twice():
    ex = EXERCISES["sigmoid"]
    namespace = {}
    panel = ExercisePanel("sigmoid", namespace=namespace)
    assert "No class named MySigmoid" in panel.scene["feedback"]
    namespace["MySigmoid"] = _define(ex.starter, ex.class_name)
    panel.check_button.click()
    assert "Not yet" in panel.scene["feedback"] and panel.last is not None
    assert not panel.last.passed

    assert len(panel.scene["hints"]) == len(ex.hints)  # the page shows the first hints_shown
    for k in range(1, len(ex.hints) + 1):
        panel.hints_shown = k
        assert html.escape(hint(ex, k)) in panel.scene["hints"][k - 1]
    panel.solution_step = 2
    assert "grad_output * y * (1 - y)" in panel.scene["solution"]

    namespace["MySigmoid"] = _define(ex.solution, ex.class_name)
    panel.check_button.click()
    assert panel.last.passed and "Correct" in panel.scene["feedback"]
    assert panel.error == ""


def test_panel_shows_callback_errors_in_its_error_area(monkeypatch):
    panel = ExercisePanel("cube", namespace={})

    def explode(*_args, **_kwargs):
        raise RuntimeError("grading exploded")

    monkeypatch.setattr(exercises, "grade", explode)
    panel.check_button.click()
    assert "RuntimeError: grading exploded" in panel.error
    monkeypatch.undo()
    panel.check_button.click()
    assert panel.error == ""


def test_zoo_hunt_scores_predictions_against_check():
    hunt = ZooHunt()
    assert [value for _label, value in hunt.entry_dropdown.options] == hunt.names
    assert {"CubeFn", "SigmoidFn"} <= set(hunt.names)
    buggy = {n for n, e in CATALOGUE.items() if not e.correct}
    assert buggy <= set(hunt.names)
    for k, name in enumerate(hunt.names, start=1):
        hunt.entry_dropdown.value = name
        shown = hunt.scene["specimens"][hunt.entry]
        assert f"class Specimen{k}Fn(torch.autograd.Function)" in shown
        assert "def backward" in shown
        assert name not in shown and '"""' not in shown  # neither name nor docstring gives it away
        assert hunt.prediction_buttons.value is None
        guess = CATALOGUE[name].expected_cause["float64"]
        hunt.prediction_buttons.value = guess
        run = {hunt.entry: guess}  # the page's run, a first try (huntRun in panel.js)
        hunt.set_state(
            {"runs": {**hunt.runs, **run}, "first_guesses": {**hunt.first_guesses, **run}}
        )
        assert hunt.error == ""
        assert hunt.last.cause == CATALOGUE[name].expected_cause["float64"]
        verdict = hunt.scene["verdicts"][hunt.entry]
        assert verdict["cause"] == hunt.first_guesses[hunt.entry]
        assert f"the zoo's <b>{name}</b>" in verdict["unmasked"]
    assert len(hunt.first_guesses) == len(hunt.names)


def test_zoo_hunt_wrong_and_missing_predictions():
    hunt = ZooHunt(["WrongSquareFn", "SquareFn"])
    wrong, square = (label for label, _name in hunt.entry_dropdown.options)
    with pytest.raises(TypeError, match=r"from Python set w\.runs and w\.first_guesses instead"):
        hunt.run_button.click()  # the page presses it (huntRun in panel.js: tests/js)
    hunt.set_state({"runs": {wrong: None}, "first_guesses": {wrong: None}})  # run unpredicted
    assert hunt.scene["verdicts"][wrong]["cause"] == "bug" == hunt.last.cause
    hunt.set_state(
        {
            "runs": {wrong: None, square: "precision"},
            "first_guesses": {wrong: None, square: "precision"},
        }
    )
    assert hunt.scene["verdicts"][square]["cause"] == "pass" == hunt.last.cause
    assert list(hunt.scene["verdicts"]) == [wrong, square]
    with pytest.raises(KeyError, match="no zoo entry named"):
        ZooHunt(["NoSuchFn"])
    with pytest.raises(ValueError, match="names must list at least one"):
        ZooHunt([])


# ---------------------------------------------------------- solutions and starters as modules


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_solution_and_starter_are_real_modules_that_grade_as_promised(key):
    ex = EXERCISES[key]
    solved = importlib.import_module(f"gradkit.exercises.solutions.{key}")
    started = importlib.import_module(f"gradkit.exercises.starters.{key}")
    assert grade(key, getattr(solved, ex.class_name)).passed
    starter_feedback = grade(key, getattr(started, ex.class_name))
    assert not starter_feedback.passed and starter_feedback.report.cause == _starter_cause(key)


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_the_learner_sees_the_class_from_the_file_without_its_imports(key):
    ex = EXERCISES[key]
    for kind, shown in (("solutions", solution(key)), ("starters", ex.starter)):
        text = (PACKAGE / kind / f"{key}.py").read_text(encoding="utf-8")
        assert shown.startswith(f"class {ex.class_name}(torch.autograd.Function):")
        assert text.endswith(shown) and "import torch" in text.replace(shown, "")
        assert "import" not in shown


def test_every_solution_file_belongs_to_an_exercise():
    for kind in ("solutions", "starters"):
        keys = {p.stem for p in (PACKAGE / kind).glob("*.py") if p.stem != "__init__"}
        assert keys == set(EXERCISES), kind


def test_code_of_names_what_is_missing():
    with pytest.raises(FileNotFoundError, match="no solution for exercise 'square'"):
        code_of("solutions", "square")
    with pytest.raises(ValueError, match="kind must be 'starters' or 'solutions'"):
        code_of("answers", "cube")


def test_the_exercises_need_no_widgets_and_the_widgets_stay_importable_from_them():
    code = (
        "import sys, gradkit.exercises as e; "
        "assert 'ipywidgets' not in sys.modules, 'widgets loaded'; "
        "print(e.grade('cube', None).headline)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Nothing to check yet."

    from gradkit import widgets

    assert ExercisePanel is widgets.ExercisePanel and ZooHunt is widgets.ZooHunt
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        exercises.Nope  # noqa: B018 - the attribute access is the test


def test_printed_feedback_fits_a_page_line():
    """Each detail is wrapped between words (the longest names both entries and two inputs)."""
    ex = EXERCISES["product"]
    printed = str(grade("product", _define(ex.starter, ex.class_name)))
    assert all(len(line) <= 100 for line in printed.splitlines()), printed
    assert "input 0 entry 2 moves output entry 2" in " ".join(printed.split())


# ---------------------------------------------------------- inputs chosen on purpose (cases)


def test_a_backward_right_on_its_lucky_input_fails_on_the_case_chosen_on_purpose():
    """The prod starter passes gradcheck at [0.5, 1.25, 2] (the sample input) and fails where
    exactly one entry is 0; the feedback names that case, its values and the entry."""
    ex = EXERCISES["prod"]
    starter = _define(ex.starter, ex.class_name)
    assert torch.autograd.gradcheck(starter.apply, ex.make_inputs())
    feedback = grade("prod", starter)
    assert not feedback.passed and feedback.report.cause == "bug"
    assert feedback.details[0] == "On the input chosen on purpose 'a zero entry':"
    assert (
        "At output entry 0, input entry 1 (input entry 1 is 0): nudging input entry 1 moves "
        "output entry 0 at a slope of 1, but your backward returns 0." in feedback.details
    )
    assert feedback.details[-1].startswith("Checked at input(s) [0.5, 0, 2].")
    solved = grade("prod", _define(ex.solution, ex.class_name))
    assert solved.passed
    names = ", ".join(name for name, _ in ex.cases)
    assert f"And on 6 inputs chosen on purpose: {names}." in solved.details


def test_the_cases_cover_the_shapes_and_values_a_shortcut_trips_on():
    shapes = {name: make()[0] for name, make in EXERCISES["prod"].cases}
    assert shapes["0-d"].dim() == 0 and shapes["empty"].numel() == 0
    assert not shapes["transposed (not contiguous)"].is_contiguous()
    assert all(t.dtype == torch.float64 and t.requires_grad for t in shapes.values())
    assert (shapes["negative entries"] < 0).any()
    assert int((shapes["a zero entry"] == 0).sum()) == 1


def test_a_wrong_forward_on_a_case_is_named():
    from gradkit.exercises.solutions.prod import MyProd

    class OneDimOnly(MyProd):  # right on 1-d inputs, wrong on the transposed one
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x[..., 0].prod() if x.dim() == 2 else x.prod()

    feedback = grade("prod", OneDimOnly)
    assert feedback.headline == "Not yet: the forward is off."
    assert feedback.details[0] == "On the input chosen on purpose 'transposed (not contiguous)':"


def test_input_values_are_written_for_any_shape():
    from gradkit.exercises.grader import _listed

    t = torch.tensor
    assert _listed((t(0.7), t([]), t([[0.5, -1.0], [2.0, 0.0]]))) == "0.7, [], [[0.5, -1], [2, 0]]"
