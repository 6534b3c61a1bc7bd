"""The lesson notebooks: stored clean, and each one runs top to bottom in a fresh kernel.

Every notebook is executed once (two at a time) with one extra cell appended in memory: a
self-check that drives the lesson's main widget (and its quiz) through its controls and asserts
that the widget's error area stayed empty, so a callback error cannot hide. The tests then read
the executed copies.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
STEMS = [p.stem for p in NOTEBOOKS]
CELL_TIMEOUT = 120
WORKERS = 2 if (os.cpu_count() or 1) >= 2 else 1

pytestmark = pytest.mark.notebooks

_HELPERS = """
def _clean(*panels):
    for panel in panels:
        area = getattr(panel, "error_area", None) or panel.error
        assert area.value == "", f"{type(panel).__name__} error area: {area.value}"


def _answer(quiz):
    for choice in quiz.choice_buttons.options:
        quiz.choice_buttons.value = choice
        if quiz.correct:
            break
    assert quiz.correct and "Right" in quiz.feedback_html.value
    _clean(quiz)


def _drive_slopes(explorer):
    before = explorer.numeric
    explorer.function_dropdown.value = "x³"
    explorer.eps_up.click()
    explorer.eps_text.value = "0.1"
    assert explorer.numeric != before
    explorer.scheme_buttons.value = "forward"
    explorer.dtype_buttons.value = torch.float32
    explorer.eps_down.click()
    _clean(explorer)


def _verdict(lab):
    return lab.verdict_html.value
"""

# One self-check per lesson: it drives the lesson's main widget and its quiz.
SELF_CHECKS: dict[str, str] = {
    "00_start_here": """
        _drive_slopes(explorer)
        _answer(quiz)
    """,
    "01_nudging": """
        _drive_slopes(explorer)
        _answer(quiz)
    """,
    "02_correct_backward": """
        assert "pass" in _verdict(lab)
        lab.dtype_buttons.value = torch.float32
        assert "GradcheckError" in _verdict(lab) and "precision" in _verdict(lab)
        lab.retry_button.click()
        assert "pass" in _verdict(lab)
        lab.rtol_text.value = "1e-2"
        lab.atol_text.value = "1e-4"
        assert "pass" in _verdict(lab) and lab.report.rtol == 1e-2
        lab.function_dropdown.value = "WrongSquareFn"
        assert "bug" in _verdict(lab)
        _clean(lab)
        _answer(quiz)
    """,
    "03_float32_noise": """
        lab.dtype_buttons.value = torch.float32
        assert "GradcheckError" in _verdict(lab) and "precision" in _verdict(lab)
        lab.eps_text.value = "1e-3"
        assert "pass" in _verdict(lab)
        lab.dtype_buttons.value = torch.float64
        assert "pass" in _verdict(lab)
        before = eps_lab.error_readout.value
        eps_lab.eps_up.click()
        assert eps_lab.error_readout.value != before
        eps_lab.eps_text.value = "1e-3"
        eps_lab.dtype_buttons.value = torch.float16
        ruler.dtype_buttons.value = torch.float16
        assert "exactly 0" in ruler.collapse_readout.value
        ruler.eps_up.click()
        _clean(lab, eps_lab, ruler)
        _answer(quiz)
    """,
    "04_wrong_backward": """
        assert "GradcheckError" in _verdict(lab) and "bug" in _verdict(lab)
        lab.function_dropdown.value = "OneEntryWrongSquareFn"
        assert "bug" in _verdict(lab)
        lab.function_dropdown.value = "SquareFn"
        assert "pass" in _verdict(lab)
        _clean(lab)
        _answer(quiz)
    """,
    "05_bug_zoo": """
        for name in hunt.names:
            hunt.entry_dropdown.value = name
            hunt.prediction.value = "bug"
            hunt.run_button.click()
            assert hunt.last is not None and hunt.last.cause in gradkit.CAUSES
            _clean(hunt)
        assert "Score:" in hunt.score.value
        _answer(quiz)
    """,
    "06_cost_and_fast_mode": """
        assert "GradcheckError" in _verdict(lab) and "bug" in _verdict(lab)
        lab.fast_mode_checkbox.value = True
        assert "pass" in _verdict(lab)
        lab.fast_mode_checkbox.value = False
        assert "GradcheckError" in _verdict(lab)
        _clean(lab)
        _answer(quiz)
    """,
    "07_write_your_own": """
        from gradkit.exercises import EXERCISES

        for key, panel in (("cube", cube_panel), ("sigmoid", sigmoid_panel),
                           ("product", product_panel)):
            assert not panel.last.passed and "Not yet" in panel.feedback.value
            panel.hint_button.click()
            assert "Hint 1 of" in panel.hints_html.value
            panel.solution_button.click()
            panel.solution_button.click()
            assert panel.solution_html.value
            exec(EXERCISES[key].solution)
            panel.check_button.click()
            assert panel.last.passed, str(panel.last)
            _clean(panel)
    """,
    "08_beyond": """
        assert (explorer.numeric, explorer.analytic) == (0.5, 0.0)
        explorer.x_up.click()
        assert abs(explorer.numeric - 1.0) < 1e-9 and explorer.analytic == 1.0
        _drive_slopes(explorer)
        _answer(quiz)
    """,
}


def _self_check(stem: str) -> str:
    import textwrap

    body = textwrap.dedent(SELF_CHECKS[stem]).strip()
    return (
        "import torch\nimport gradkit\n"
        + _HELPERS
        + "\n"
        + body
        + f"\nprint('self-check passed: {stem}')\n"
    )


async def _execute(path: Path, semaphore: asyncio.Semaphore) -> tuple[str, object, float]:
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_self_check(path.stem)))
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    async with semaphore:
        start = time.perf_counter()
        await client.async_execute()
        return path.stem, nb, time.perf_counter() - start


async def _execute_all() -> dict[str, tuple[object, float]]:
    semaphore = asyncio.Semaphore(WORKERS)
    done = await asyncio.gather(*(_execute(p, semaphore) for p in NOTEBOOKS))
    return {stem: (nb, seconds) for stem, nb, seconds in done}


@pytest.fixture(scope="module")
def executed() -> dict[str, tuple[object, float]]:
    results = asyncio.run(_execute_all())
    summary = ", ".join(f"{stem[:2]} {seconds:.1f}s" for stem, (_, seconds) in results.items())
    print(f"\nlesson run times ({WORKERS} at a time): {summary}")
    return results


def _text(nb) -> str:
    """Everything the notebook printed (stdout), in order."""
    return "".join(
        o.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if o.output_type == "stream" and o.name == "stdout"
    )


# ------------------------------------------------------------------------------ storage


def test_every_lesson_is_there():
    assert list(SELF_CHECKS) == STEMS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_stored_without_outputs_or_widget_state(path):
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "widgets" not in nb.metadata
    assert '"widgets"' not in text and "application/vnd.jupyter.widget-state" not in text
    for cell in nb.cells:
        assert "widgets" not in cell.metadata
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {cell.id} has stored outputs"
            assert cell.execution_count is None, f"cell {cell.id} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=STEMS)
def test_each_lesson_opens_with_goals_and_ends_with_feedback(path):
    nb = nbformat.read(path, as_version=4)
    first, second = nb.cells[0], nb.cells[1]
    assert first.cell_type == "markdown" and first.source.startswith("# ")
    assert "you will be able to" in first.source
    assert "Run All first" in second.source and "live kernel" in second.source
    last_code = [c for c in nb.cells if c.cell_type == "code"][-1].source
    assert "Quiz(" in last_code or "ExercisePanel(" in last_code or "grade(" in last_code


def test_notebooks_match_their_generator(capsys):
    generator = ROOT / "tools" / "make_lessons.py"
    if not generator.exists():
        pytest.skip("tools/make_lessons.py is not part of this copy (e.g. an sdist)")
    spec = importlib.util.spec_from_file_location(
        "make_lessons", ROOT / "tools" / "make_lessons.py"
    )
    make_lessons = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_lessons)
    status = make_lessons.main(["--check"])
    out = capsys.readouterr().out
    assert status == 0, (
        f"{out}notebooks/ differs from tools/make_lessons.py: edit the generator and run "
        "`.venv/bin/python tools/make_lessons.py`"
    )


# ------------------------------------------------------------------------------ execution


@pytest.mark.parametrize("stem", STEMS)
def test_lesson_runs_top_to_bottom_and_its_widgets_survive_driving(executed, stem):
    nb, _seconds = executed[stem]
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", (
                f"{stem} cell {cell.get('id')}: {output.ename}: {output.evalue}\n"
                + "\n".join(output.traceback[-3:])
            )
    assert f"self-check passed: {stem}" in _text(nb)


def _lines(executed, stem: str) -> list[str]:
    return _text(executed[stem][0]).splitlines()


def _html(nb) -> str:
    """Every rich (HTML) output, e.g. gradkit's verdict cards."""
    return "".join(
        o.get("data", {}).get("text/html", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if o.output_type in ("display_data", "execute_result")
    )


# What the cells print, including every number the lessons' prose quotes.
PRINTED: dict[str, list[str]] = {
    "00_start_here": ["SquareFn passes: True"],
    "01_nudging": [
        "Numerical gradient: 4.0",
        "Exact gradient: 4.0",
        "eps=0.1  forward=4.100000  central=4.000000",
        "eps=0.01  forward=4.010000  central=4.000000",
        "eps=0.001  forward=4.001000  central=4.000000",
        "eps=0.1  forward=0.910000  central=0.760000",
        "eps=0.01  forward=0.765100  central=0.750100",
        "eps=0.001  forward=0.751501  central=0.750001",
    ],
    "02_correct_backward": [
        "Correct backward passes: True",
        "tensor([[1.0000, 0.0000],\n        [0.0000, 3.0000]], dtype=torch.float64)",
    ],
    "03_float32_noise": [
        "GradcheckError\nJacobian mismatch for output 0 with respect to input 0,",
        "numerical:tensor([[1.0133]])",
        "spacing at 0.5: 5.960464477539063e-08",
        "x + eps = 0.5000010133",
        "x - eps = 0.4999989867",
        "real step / intended step: 1.0132789611816406",
        "eps=1e-05: passes False",
        "eps=0.0001: passes True",
        "eps=0.001: passes True",
        "numeric 1937.5 vs analytic 2000",
        "float64, eps=1e-6: True",
        "torch.float32: finfo.eps 1.19e-07",
        "torch.float16: finfo.eps 0.000977, x + 1e-6 == x is True",
        "torch.bfloat16: finfo.eps 0.00781, x + 1e-6 == x is True",
        "slope at eps=1e-6: 0, at eps=1e-2: 0.982422",
        "slope at eps=1e-6: 0, at eps=1e-2: 1.07031",
    ],
    "04_wrong_backward": [
        "Wrong backward error type: GradcheckError",
        "numerical:tensor([[1.0000, 0.0000],\n        [0.0000, 3.0000]], dtype=torch.float64)",
        "analytical:tensor([[1.5000, 0.0000],\n        [0.0000, 4.5000]], dtype=torch.float64)",
    ],
    "05_bug_zoo": [
        "returned an invalid gradient at index 1 - got [3, 4] but expected shape compatible "
        "with [3]",
    ],
    "06_cost_and_fast_mode": [
        "n=  1  slow:   4 forward,   4 backward   fast_mode: 4 forward, 4 backward",
        "n= 10  slow:  22 forward,  22 backward   fast_mode: 4 forward, 4 backward",
        "n=100  slow: 202 forward, 202 backward   fast_mode: 4 forward, 4 backward",
        "fast_mode passes: True\nslow mode passes: False",
        "0.1·u0·v0: 6.24e-04",
        "allows:    2.42e-03",
        "fast_mode misses the bug at n = [6, 10, 12, 13]",
    ],
    "07_write_your_own": [
        "Not yet: the backward rule disagrees with the nudges.",
    ],
    "08_beyond": [
        "ReluFn at 0: kink  numeric 0.5  analytic 0",
        "AbsFn at 0: pass  numeric 0  analytic 0",
        "ReluFn at 5e-07: kink",
        "AbsFn at 5e-07: kink",
        "ReluFn at 1e-05: pass  numeric 1  analytic 1",
        "AbsFn at 1e-05: pass  numeric 1  analytic 1",
        "forward runs on the same input differ by up to",
        "noisy backward passes: False",
        "with nondet_tol=1e-8: True",
        "with conj:    True",
        "without conj: False",
        "While considering the imaginary part of complex outputs only, Jacobian mismatch",
        "gradcheck:     True",
        "gradgradcheck: False",
        "SquareFn gradgradcheck: True",
    ],
}

# Numbers the prose quotes from gradkit's verdict cards (HTML outputs).
CARDS: dict[str, list[str]] = {
    "02_correct_backward": ["0.00301"],
    "03_float32_noise": ["precision", "1.01328", "0.0133", "0.00102"],
    "04_wrong_backward": ["1.5x numeric on every entry"],
}


@pytest.mark.parametrize("stem", STEMS)
def test_lesson_prints_what_its_prose_says(executed, stem):
    nb = executed[stem][0]
    text, cards = _text(nb), _html(nb)
    for expected in PRINTED[stem]:
        assert expected in text, f"{stem} no longer prints {expected!r}"
    for expected in CARDS.get(stem, []):
        assert expected in cards, f"{stem}'s verdict cards no longer show {expected!r}"


def test_01_prints_the_seeds_gradients_exactly(executed):
    lines = _lines(executed, "01_nudging")
    assert lines[:2] == ["Numerical gradient: 4.0", "Exact gradient: 4.0"]


def test_02_prints_the_seeds_pass(executed):
    assert "Correct backward passes: True" in _lines(executed, "02_correct_backward")


def test_03_shows_torchs_warning_once(executed):
    nb = executed["03_float32_noise"][0]
    stderr = "".join(
        o.get("text", "")
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.output_type == "stream" and o.name == "stderr"
    )
    assert stderr.count("is not a double precision floating point") == 1


def test_04_prints_the_seeds_three_lines(executed):
    lines = _lines(executed, "04_wrong_backward")
    start = lines.index("Correct backward passes: True")
    assert lines[start : start + 4] == [
        "Correct backward passes: True",
        "Wrong backward error type: GradcheckError",
        "Wrong backward passes: False",
        "False",  # raise_exception=False
    ]


def test_08_tf32_imitation_costs_about_a_thousand_times_the_error(executed):
    values = {}
    for line in _lines(executed, "08_beyond"):
        if "relative error" in line and not line.startswith("GPU"):
            name, _, value = line.partition(" relative error ")
            values[name.strip()] = float(value)
    assert values["float32"] < 1e-6
    assert 1e-4 < values["TF32-like"] < 1e-3
    assert 300 < values["TF32-like"] / values["float32"] < 3000


def test_08_skips_the_gpu_part_clearly_without_cuda(executed):
    import torch

    text = _text(executed["08_beyond"][0])
    if torch.cuda.is_available():
        assert "GPU float32 matmul, allow_tf32=True" in text
    else:
        assert "No CUDA device here: the GPU TF32 comparison is skipped" in text
