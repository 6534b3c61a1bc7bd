"""Write the lesson notebooks in notebooks/ from the cell texts below.

Run from the repository root: ``.venv/bin/python tools/make_lessons.py``. The notebooks are
written without outputs or widget state, with stable cell ids, so a re-run changes nothing unless
a cell text changed. ``--check`` only reports whether the files are up to date (exit status 1 if
not).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT))

from gradkit.exercises import EXERCISES  # noqa: E402

Cell = tuple[str, str]


def md(*parts: str) -> Cell:
    return ("markdown", "\n\n".join(textwrap.dedent(p).strip("\n") for p in parts))


def code(text: str) -> Cell:
    return ("code", textwrap.dedent(text).strip("\n"))


def _table(header: tuple[str, ...], *rows: tuple[str, ...]) -> str:
    lines = [header, tuple("---" for _ in header), *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def _ruff_format(texts: dict[str, str]) -> dict[str, str]:
    """Format notebooks (name -> JSON text) with one `ruff format` call, so its check passes."""
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        ruff = Path(shutil.which("ruff") or "ruff")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: Path(tmp) / name for name in texts}
        for name, path in paths.items():
            path.write_text(texts[name], encoding="utf-8")
        subprocess.run(
            [str(ruff), "format", "--quiet", "--config", str(ROOT / "pyproject.toml"), tmp],
            check=True,
        )
        return {name: path.read_text(encoding="utf-8") for name, path in paths.items()}


RUN_ALL = md(
    """
    > **Run All first** (menu *Run → Run All Cells*): the widgets need a live kernel. A saved
    > notebook keeps no widget state, so before the cells run you see nothing, or "Error
    > displaying widget".
    """
)

# --------------------------------------------------------------------------------------- 00

L00 = [
    md(
        """
        # Start here: what gradcheck is for

        **After this lesson you will be able to** say what `torch.autograd.gradcheck` compares,
        run these lessons, and pick the lesson that answers your question.
        """
    ),
    RUN_ALL,
    md(
        """
        ## What gradcheck is for

        A custom `torch.autograd.Function` has two halves: `forward` computes the output and
        `backward` claims the gradient. PyTorch trusts `backward` blindly. `gradcheck` does not:
        it nudges every input entry a little, measures how the output moves (the **numeric**
        gradient) and compares that with what `backward` claims (the **analytic** gradient).
        It passes only when every entry agrees within a tolerance.

        The zoo in `gradkit.zoo` holds the seed page's two squares: `SquareFn` (backward
        `2x`, correct) and `WrongSquareFn` (backward `3x`, wrong).
        """
    ),
    code(
        """
        import torch

        import gradkit
        from gradkit.zoo import SquareFn, WrongSquareFn

        x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        print("SquareFn passes:", torch.autograd.gradcheck(SquareFn.apply, (x,)))
        """
    ),
    md(
        """
        torch answers a wrong rule with a `GradcheckError` and two whole matrices.
        `gradkit.check` runs the same gradcheck (its verdict is always torch's) and explains it:
        the cause, the worst entry, and what to try.
        """
    ),
    code(
        """
        gradkit.check(WrongSquareFn.apply, (x,))
        """
    ),
    md(
        "## The lessons",
        _table(
            ("lesson", "you will be able to"),
            ("`01_nudging`", "measure a slope by nudging; compare forward and central differences"),
            ("`02_correct_backward`", "write a Function, pass gradcheck, read the two Jacobians"),
            ("`03_float32_noise`", "explain why a correct rule fails in float32; pick an eps"),
            ("`04_wrong_backward`", "catch `GradcheckError`, read torch's message, find the entry"),
            ("`05_bug_zoo`", "recognise common backward bugs from gradcheck's answer"),
            (
                "`06_cost_and_fast_mode`",
                "predict gradcheck's cost (2n + 2 calls), see what fast_mode misses",
            ),
            (
                "`07_write_your_own`",
                "write backward rules and fix them from the checker's feedback",
            ),
            ("`08_beyond`", "handle kinks, random forwards, complex inputs, gradgradcheck, TF32"),
        ),
    ),
    md(
        "## The widgets, in one screen",
        _table(
            ("widget", "what it shows", "lessons"),
            (
                "`SlopeExplorer`",
                "f near x, the tangent (analytic slope), the secant through x ± eps (numeric)",
                "00, 01",
            ),
            ("`EpsilonLab`", "error against eps for four dtypes, with gradcheck's tolerance", "03"),
            (
                "`GradcheckLab`",
                "gradcheck's verdict; numeric, analytic and difference Jacobians; torch's message",
                "02, 03, 04, 06",
            ),
            ("`FloatRuler`", "the numbers a dtype can hold near x; where x ± eps land", "03"),
            ("`Quiz`", "a question with instant feedback, at the end of each lesson", "all"),
        ),
        """
        Here is `SlopeExplorer` with the seed page's example: x² at 2 with eps 0.001. Make eps
        larger (type a number into its box, or use the step buttons) and watch the secant; pick
        x³ and the secant tilts away from the tangent.
        """,
    ),
    code(
        """
        from gradkit.widgets import Quiz, SlopeExplorer

        explorer = SlopeExplorer()
        explorer
        """
    ),
    md("## Check yourself"),
    code(
        """
        quiz = Quiz(
            "What does gradcheck compare?",
            [
                "The output of forward with a stored reference value",
                "The gradient backward claims with a slope measured by nudging the inputs",
                "A float32 run of the function with a float64 run",
                "The speed of forward with the speed of backward",
            ],
            1,
            "gradcheck nudges each input entry by eps, measures the slope of the output "
            "(numeric) and compares it with backward's answer (analytic), entry by entry.",
        )
        quiz
        """
    ),
]

# --------------------------------------------------------------------------------------- 01

L01 = [
    md(
        """
        # Lesson 1: a gradient measured by nudging

        **After this lesson you will be able to** measure a slope by nudging an input, tell the
        central difference from the forward difference, and say why the nudge eps matters.
        """
    ),
    RUN_ALL,
    md(
        """
        ## The seed's example

        A numerical gradient nudges an input a little and measures the slope from the outputs.
        For x² at 2 the measured slope matches the exact slope, 4.
        """
    ),
    code(
        """
        import torch
        from torch.autograd import gradcheck


        def f(v):
            return v * v


        eps = 0.001
        numeric = (f(2.0 + eps) - f(2.0 - eps)) / (2 * eps)
        print("Numerical gradient:", round(numeric, 3))
        print("Exact gradient:", 4.0)
        """
    ),
    md(
        """
        The numeric slope is the slope of the line through (2 − eps, f(2 − eps)) and
        (2 + eps, f(2 + eps)): a *secant*. The exact slope is the slope of the *tangent* at 2.
        `gradkit.numeric_slope` makes the same measurement (in any dtype), and
        `gradkit.analytic_slope` asks autograd for the exact slope. Unrounded, the numeric slope
        is not exactly 4: the last digits carry float64 rounding.
        """
    ),
    code(
        """
        import gradkit

        print("numeric: ", gradkit.numeric_slope(f, 2.0, 1e-3))
        print("analytic:", gradkit.analytic_slope(f, 2.0))
        """
    ),
    md(
        """
        ## See it

        The widget draws f near x with both lines. The zoom keeps a tiny eps visible. Try:

        1. eps = 0.5, then 1: for x² the secant stays parallel to the tangent, whatever eps.
        2. Switch the function to x³: now a large eps tilts the secant.
        3. Switch the scheme to *forward*: the secant now runs from x to x + eps.
        """
    ),
    code(
        """
        from gradkit.widgets import Quiz, SlopeExplorer

        explorer = SlopeExplorer(f=f, x=2.0, eps=1e-3)
        explorer
        """
    ),
    md(
        """
        ## Forward versus central difference

        The **forward** difference (f(x + eps) − f(x)) / eps looks to one side only; the
        **central** difference (f(x + eps) − f(x − eps)) / (2 eps), which gradcheck uses, looks
        both ways. For x² at 2:
        """
    ),
    code(
        """
        for eps in (1e-1, 1e-2, 1e-3):
            fwd = gradkit.numeric_slope(f, 2.0, eps, scheme="forward")
            cen = gradkit.numeric_slope(f, 2.0, eps, scheme="central")
            print(f"eps={eps:g}  forward={fwd:.6f}  central={cen:.6f}")
        """
    ),
    md(
        """
        The forward difference reads 4.1, 4.01, 4.001: its error is eps itself, shrinking in
        step with eps. The central difference reads 4 at every eps, because its error is
        proportional to eps² times the third derivative, and the third derivative of x² is 0.
        For x³ at 0.5 (exact slope 0.75) both errors show:
        """
    ),
    code(
        """
        def cube(v):
            return v**3


        for eps in (1e-1, 1e-2, 1e-3):
            fwd = gradkit.numeric_slope(cube, 0.5, eps, scheme="forward")
            cen = gradkit.numeric_slope(cube, 0.5, eps, scheme="central")
            print(f"eps={eps:g}  forward={fwd:.6f}  central={cen:.6f}")
        """
    ),
    md(
        """
        Ten times smaller eps: the forward error (0.16, 0.0151, 0.001501) shrinks about ten
        times, the central error (0.01, 0.0001, 0.000001) a hundred times. That is why gradcheck
        uses the central difference. Lesson 3 shows what stops you from making eps tiny.

        ## Check yourself
        """
    ),
    code(
        """
        quiz = Quiz(
            "For x³ at 0.5 with eps = 0.01 (exact slope 0.75), which difference comes closer?",
            [
                "The forward difference",
                "The central difference",
                "Both are equally close",
            ],
            1,
            "Central: 0.750100 (error 0.0001 = eps²) against forward: 0.765100 (error 0.0151).",
        )
        quiz
        """
    ),
]

# --------------------------------------------------------------------------------------- 02

L02 = [
    md(
        """
        # Lesson 2: a correct backward passes

        **After this lesson you will be able to** write a custom `torch.autograd.Function` with
        `forward` and `backward`, check it with gradcheck, and read the numeric and analytic
        Jacobians that gradcheck compares.
        """
    ),
    RUN_ALL,
    md(
        """
        ## The seed's SquareFn

        The custom square runs here in float64, as gradcheck demands. `forward` saves its input
        for later; `backward` receives `grad_output` (the gradient arriving from whatever uses
        the output) and returns it times the local derivative 2x.
        """
    ),
    code(
        """
        import torch
        from torch.autograd import gradcheck


        class SquareFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * 2 * x


        good = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        print("Correct backward passes:", gradcheck(SquareFn.apply, (good,)))
        """
    ),
    md(
        """
        ## What gradcheck compared

        gradcheck builds two Jacobians; gradkit prints them with one row per output entry and
        one column per input entry (torch's own messages print the transpose). The **numeric**
        one nudges input entry k by ±eps (eps = 1e-6) and fills column k with the measured
        slopes; the **analytic** one runs `backward` once per output entry. `x * x` works entry
        by entry, so both are diagonal, with 2x = 1 and 3 on the diagonal.
        `[0][0]` picks output 0 with respect to input 0.
        """
    ),
    code(
        """
        import gradkit

        print(gradkit.numeric_jacobian(SquareFn.apply, (good,))[0][0])
        print(gradkit.analytic_jacobian(SquareFn.apply, (good,))[0][0])
        """
    ),
    md(
        """
        An entry passes when |analytic − numeric| ≤ atol + rtol · |numeric|, with gradcheck's
        defaults atol = 1e-5 and rtol = 1e-3. For the entry 3 that allows 1e-5 + 0.003 =
        0.00301. `gradkit.check` reports the closest call:
        """
    ),
    code(
        """
        gradkit.check(SquareFn.apply, (good,))
        """
    ),
    md(
        """
        ## Play with it

        `GradcheckLab` runs gradcheck on every change and draws the three Jacobians. It takes
        your own Function with its inputs. Press *float32* (it fails: lesson 3 explains why),
        then *retry in float64*; or pick `WrongSquareFn` from the list (lesson 4).
        """
    ),
    code(
        """
        from gradkit.widgets import GradcheckLab, Quiz

        lab = GradcheckLab(fn=SquareFn, inputs=(good,))
        lab
        """
    ),
    md("## Check yourself"),
    code(
        """
        quiz = Quiz(
            "With atol = 1e-5 and rtol = 1e-3, how far may the analytic entry stray from a "
            "numeric entry of 3?",
            ["0.00001", "0.003", "0.00301", "0.3"],
            2,
            "atol + rtol · |numeric| = 1e-5 + 1e-3 · 3 = 0.00301.",
        )
        quiz
        """
    ),
]

# --------------------------------------------------------------------------------------- 03

L03 = [
    md(
        """
        # Lesson 3: float32 noise fails a correct rule

        **After this lesson you will be able to** recognise a precision failure, explain it with
        rounding, choose an eps that works in float32, and say why gradcheck still wants
        float64.
        """
    ),
    RUN_ALL,
    md(
        """
        ## The seed's float32 input

        The same correct square now receives a float32 input. torch warns that the input is not
        double precision, then raises `GradcheckError`: the tiny nudges drown in float32
        rounding. The `try`/`except` keeps the notebook running. (`SquareFn` from lesson 2 also
        lives in `gradkit.zoo`.)
        """
    ),
    code(
        """
        import torch
        from torch.autograd import gradcheck

        import gradkit
        from gradkit.zoo import SquareFn

        bad32 = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
        try:
            print(gradcheck(SquareFn.apply, (bad32,)))
        except Exception as error:
            print(type(error).__name__)
            print(error)
        """
    ),
    md(
        """
        ## Explanation 1: the verdict

        The numeric slope reads 1.0133 where the exact slope is 1: an error of 1.33e-2, 13
        times the 1.02e-3 that gradcheck allows (atol + rtol · |numeric|). `gradkit.check`
        retries the same rule in float64, sees it pass, and names the cause *precision*.
        """
    ),
    code(
        """
        report = gradkit.check(SquareFn.apply, (bad32,))
        report
        """
    ),
    md(
        """
        Where does 1.0133 come from? Near 0.5, neighbouring float32 numbers are 5.96e-8 apart.
        0.5 + 1e-6 is not one of them, so it rounds, and so does 0.5 − 1e-6:
        """
    ),
    code(
        """
        x = torch.tensor(0.5)
        print("spacing at 0.5:", (torch.nextafter(x, torch.tensor(1.0)) - x).item())
        print(f"x + eps = {(x + 1e-6).item():.10f}")
        print(f"x - eps = {(x - 1e-6).item():.10f}")
        print("real step / intended step:", ((x + 1e-6) - (x - 1e-6)).item() / 2e-6)
        """
    ),
    md(
        """
        The two nudged inputs sit 2.0266e-6 apart, not 2e-6, yet gradcheck divides by 2e-6: the
        slope comes out 1.0133 times too large. Rounding error that small is harmless in a
        value, but dividing by 2 · eps = 2e-6 magnifies it 500,000 times.

        ## Explanation 2: the V curve

        `EpsilonLab` measures the error at 61 values of eps for four dtypes. Rounding error grows
        as eps shrinks (it is divided by eps); truncation error grows as eps grows. Here f = x³
        at 0.5, which has both, so the float64 and float32 curves are Vs; the red line is
        gradcheck's tolerance and the stars mark each dtype's best eps in theory. At the default
        eps = 1e-6 the float32 curve sits above the red line and float64 far below it.
        Move eps (type it, or use the step buttons) and switch the dtype.
        """
    ),
    code(
        """
        from gradkit.widgets import EpsilonLab, FloatRuler, GradcheckLab, Quiz

        eps_lab = EpsilonLab(f="x³", x=0.5)
        eps_lab
        """
    ),
    md(
        """
        ## Explanation 3: the float ruler

        `FloatRuler` draws the float32 numbers near 0.5 and where x − eps and x + eps land.
        Switch to float16: both land back on x itself, and the numeric slope is exactly 0.
        """
    ),
    code(
        """
        ruler = FloatRuler(x=0.5, eps=1e-6, dtype=torch.float32)
        ruler
        """
    ),
    md(
        """
        ## Which eps works for float32?

        A larger nudge makes the same rounding error a smaller share of the step. For x = 0.5
        (torch's warning has made its point, so it is silenced from here on):
        """
    ),
    code(
        """
        import warnings

        warnings.filterwarnings("ignore", message="Input #0 requires gradient")
        for eps in (1e-6, 1e-5, 1e-4, 1e-3):
            ok = gradcheck(SquareFn.apply, (bad32,), eps=eps, raise_exception=False)
            print(f"eps={eps:g}: passes {ok}")
        """
    ),
    md(
        """
        eps = 1e-4 and 1e-3 pass. So why does gradcheck still want float64? Because the eps that
        works depends on the values: rounding error scales with the size of f, so at x = 1000
        (f = 1e6) the same eps = 1e-3 fails in float32, reading 1937.5 for a slope of 2000,
        while float64 at the default eps passes.
        """
    ),
    code(
        """
        big32 = torch.tensor([1000.0], dtype=torch.float32, requires_grad=True)
        print("float32, eps=1e-3:", gradkit.check(SquareFn.apply, (big32,), eps=1e-3).explanation)
        big64 = big32.detach().double().requires_grad_()
        print("float64, eps=1e-6:", gradcheck(SquareFn.apply, (big64,)))
        """
    ),
    md(
        """
        ## float16 and bfloat16: the extreme

        The gap between 1 and the next number up (`torch.finfo(dtype).eps`) is 1.19e-7 in
        float32, 9.77e-4 in float16 and 7.81e-3 in bfloat16. At eps = 1e-6, x ± eps rounds back
        to x in the two half-precision types and the numeric slope is exactly 0; even at
        eps = 1e-2 the slope of x² at 0.5, exactly 1, comes out as 0.982 in float16 and 1.07 in
        bfloat16:
        """
    ),
    code(
        """
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            x = torch.tensor(0.5, dtype=dtype)
            same = (x + 1e-6 == x).item()
            tiny = gradkit.numeric_slope(lambda v: v * v, 0.5, 1e-6, dtype=dtype)
            big = gradkit.numeric_slope(lambda v: v * v, 0.5, 1e-2, dtype=dtype)
            print(f"{dtype}: finfo.eps {torch.finfo(dtype).eps:.3g}, x + 1e-6 == x is {same}")
            print(f"    slope at eps=1e-6: {tiny:.6g}, at eps=1e-2: {big:.6g}")
        """
    ),
    md(
        """
        ## The lab: switch dtypes yourself

        SquareFn on [0.5, 1.5]. Press *float32*: GradcheckError, cause *precision*. Press
        *float64* (or *retry in float64*): pass. Raise eps to 1e-3 in float32 and watch it pass.
        """
    ),
    code(
        """
        lab = GradcheckLab(fn=SquareFn)
        lab
        """
    ),
    md("## Check yourself"),
    code(
        """
        quiz = Quiz(
            "Why did the correct SquareFn fail gradcheck with a float32 input?",
            [
                "Its backward rule is wrong for float32 tensors",
                "float32 rounding moved x ± eps, so the measured slope was 1.0133 instead of 1",
                "gradcheck does not accept float32 inputs at all",
                "The tolerance is ten times stricter for float32",
            ],
            1,
            "x + eps and x - eps rounded to numbers 2.0266e-6 apart while gradcheck divided by "
            "2e-6. The rule is fine: it passes in float64.",
        )
        quiz
        """
    ),
]

# --------------------------------------------------------------------------------------- 04

L04 = [
    md(
        """
        # Lesson 4: a wrong backward fails

        **After this lesson you will be able to** catch a `GradcheckError` and carry on, read
        torch's "Jacobian mismatch" message, and find the wrong entry in the difference heatmap.
        """
    ),
    RUN_ALL,
    md(
        """
        ## The seed's example

        Two custom squares share one forward and differ only in backward: `SquareFn` multiplies
        the incoming gradient by 2x (correct), `WrongSquareFn` by 3x (wrong). Both inputs hold
        0.5 and 1.5 in float64. The first gradcheck returns True. The second raises
        `GradcheckError`, which the `except` block catches: it prints the error type, then the
        failure as False. Catching the error lets one program report both outcomes and still
        exit cleanly.
        """
    ),
    code(
        """
        import torch
        from torch.autograd import gradcheck


        class SquareFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * 2 * x


        class WrongSquareFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * 3 * x


        good_input = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        try:
            good_ok = gradcheck(SquareFn.apply, (good_input,), raise_exception=True)
        except Exception:
            good_ok = False
        print("Correct backward passes:", good_ok)

        bad_input = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        try:
            gradcheck(WrongSquareFn.apply, (bad_input,), raise_exception=True)
            bad_ok = True
        except Exception as error:
            bad_ok = False
            print("Wrong backward error type:", type(error).__name__)
        print("Wrong backward passes:", bad_ok)
        """
    ),
    md(
        """
        With `raise_exception=False`, gradcheck returns False instead of raising:
        """
    ),
    code(
        """
        print(gradcheck(WrongSquareFn.apply, (bad_input,), raise_exception=False))
        """
    ),
    md(
        """
        ## Reading torch's message

        The message names the output and input (both 0 here) and prints both Jacobians whole:
        """
    ),
    code(
        """
        from torch.autograd.gradcheck import GradcheckError

        try:
            gradcheck(WrongSquareFn.apply, (bad_input,))
        except GradcheckError as error:
            print(error)
        """
    ),
    md(
        """
        Numerical diagonal 1 and 3 (the true slopes 2x), analytical 1.5 and 4.5 (what 3x
        claims): every entry is 1.5 times too large. (In torch's matrices each row is an
        input entry and each column an output entry; gradkit shows the transpose.) torch
        gives no index and no difference; with two entries you can see the bug, with a
        hundred you cannot. `gradkit.check` names the worst entry and the pattern:
        """
    ),
    code(
        """
        import gradkit

        gradkit.check(WrongSquareFn.apply, (bad_input,))
        """
    ),
    md(
        """
        ## The heatmap of the difference

        `GradcheckLab` draws the numeric, analytic and difference Jacobians and marks the
        worst entry. It starts on the zoo's copy of `WrongSquareFn`; the verdict's cause is
        *bug*. Pick `OneEntryWrongSquareFn` from the list: a 16 × 16 Jacobian with one wrong
        entry, which torch's message would bury in two 16 × 16 matrices and the heatmap
        shows at a glance.
        """
    ),
    code(
        """
        from gradkit.widgets import GradcheckLab, Quiz

        lab = GradcheckLab(fn="WrongSquareFn")
        lab
        """
    ),
    md(
        """
        ## Check yourself: the seed's closing exercise
        """
    ),
    code(
        """
        quiz = Quiz(
            "What does gradcheck do when a backward rule is wrong?",
            [
                "It returns True and prints a warning",
                "It raises GradcheckError, whose message shows the numerical and analytical "
                "Jacobians",
                "It corrects the backward rule",
                "It returns None",
            ],
            1,
            "With the default raise_exception=True it raises GradcheckError (\\"Jacobian "
            "mismatch ...\\"); with raise_exception=False it returns False instead.",
        )
        quiz
        """
    ),
]

# --------------------------------------------------------------------------------------- 05

L05 = [
    md(
        """
        # Lesson 5: a hunt through the bug zoo

        **After this lesson you will be able to** recognise common backward bugs (wrong
        constant, forgotten grad_output, sign error, missing transpose, unreduced broadcast,
        missing conj, in-place change, random forward, non-reentrant backward, one wrong entry)
        from what gradcheck says.
        """
    ),
    RUN_ALL,
    md(
        """
        ## Six causes

        `gradkit.check` sorts every verdict into one of these causes:
        """
    ),
    code(
        """
        import gradkit
        from gradkit.zoo import CATALOGUE

        for cause, meaning in gradkit.CAUSES.items():
            print(f"{cause:17} {meaning}")
        """
    ),
    md(
        """
        ## The hunt

        Each Function appears as a numbered specimen, without its telling name or docstring.
        Read its code, **predict** the cause, then press *Run gradcheck* and read the
        explanation and the zoo's name for it. Two correct Functions hide among the buggy ones.
        The score counts your first tries.
        """
    ),
    code(
        """
        from gradkit.exercises import ZooHunt

        hunt = ZooHunt()
        hunt
        """
    ),
    md(
        """
        ## The zoo, unmasked

        `gradkit.zoo.CATALOGUE` holds correct Functions and buggy twins, each named after its
        bug. The buggy ones you just hunted:
        """
    ),
    code(
        """
        for name, entry in CATALOGUE.items():
            if not entry.correct:
                print(f"{name:27} {entry.description}")
        """
    ),
    md(
        """
        ## One bug by hand

        The same check without the widget: a sigmoid whose backward forgets to multiply by
        `grad_output`.
        """
    ),
    code(
        """
        entry = CATALOGUE["ForgotGradOutputSigmoidFn"]
        print(gradkit.check(entry.apply, entry.inputs()))
        """
    ),
    md(
        """
        In torch's message each row is one input entry and each column one output entry. The
        numeric matrix is diagonal: each sigmoid output depends on its own input only. The
        analytic one repeats one value along each row: torch asks backward for one output's
        gradient at a time, with `grad_output` 1 at that output and 0 elsewhere, and a backward
        that ignores `grad_output` returns y(1 − y) for every input each time.

        Not every bug reaches the Jacobian comparison. `UnreducedBroadcastAddFn` returns b's
        gradient with x's shape, and autograd's engine refuses it first:
        """
    ),
    code(
        """
        entry = CATALOGUE["UnreducedBroadcastAddFn"]
        print(gradkit.check(entry.apply, entry.inputs()).torch_message)
        """
    ),
    md("## Check yourself"),
    code(
        """
        from gradkit.widgets import Quiz

        quiz = Quiz(
            "UnreducedBroadcastAddFn adds a bias b of shape [3] to x of shape [3, 4]. Why does "
            "gradcheck report cause 'error' rather than 'bug'?",
            [
                "Its forward raises an error",
                "autograd rejects b's gradient: shape [3, 4] where [3] was expected, so no "
                "Jacobians are compared",
                "The Jacobians differ in float32 only",
                "gradcheck cannot handle two inputs",
            ],
            1,
            "torch: 'returned an invalid gradient at index 1 - got [3, 4] but expected shape "
            "compatible with [3]'. Sum the gradient over the broadcast columns to fix it.",
        )
        quiz
        """
    ),
]

# --------------------------------------------------------------------------------------- 06

L06 = [
    md(
        """
        # Lesson 6: what gradcheck costs, and what fast_mode misses

        **After this lesson you will be able to** predict how many times gradcheck runs your
        function, compare slow and fast mode timings, and explain how `fast_mode=True` can pass
        a wrong backward.
        """
    ),
    RUN_ALL,
    md(
        """
        ## Counting calls

        The seed page's note: *gradcheck suits small inputs, because every input is nudged one
        entry at a time.* `gradkit.cost.count_calls` counts the forward and backward calls of
        one gradcheck, here on `torch.sin` with n input entries:
        """
    ),
    code(
        """
        import torch

        from gradkit import cost

        for slow, fast in cost.call_table((1, 10, 100)):
            print(f"n={slow.n:3}  slow: {slow.forward:3} forward, {slow.backward:3} backward"
                  f"   fast_mode: {fast.forward} forward, {fast.backward} backward")
        """
    ),
    md(
        """
        Slow mode makes 2n + 2 forward calls (4, 22, 202): one plain run, two nudged runs per
        input entry, and one for the check that backward copes with an undefined gradient.
        Backward runs 2m + 2 times for m output entries (here m = n): one backward per output
        entry builds the analytic Jacobian, which is built twice to see that backward answers
        the same both times, plus one run with a zero `grad_output` and one with an undefined
        gradient. fast_mode makes 4 of each whatever n.

        ## Timing

        Best of three runs on this machine (your numbers will differ; the trend will not):
        """
    ),
    code(
        """
        for t in cost.time_gradcheck((10, 100, 300)):
            print(f"n={t.n:4}  slow {t.slow_s * 1e3:7.2f} ms   fast {t.fast_s * 1e3:5.2f} ms"
                  f"   slow/fast {t.ratio:5.1f}")
        """
    ),
    md(
        """
        ## What fast_mode gives up

        fast_mode does not build the Jacobians. It draws two random unit vectors u and v and
        compares one number, vᵀ J u, computed both ways. torch draws u and v from a fresh
        generator with a fixed seed, so the same input size gets the same u and v every time:
        the verdicts below repeat exactly.

        `OneEntryWrongSquareFn` is x * x whose backward adds 0.1 to the first Jacobian entry
        only. With 10 inputs:
        """
    ),
    code(
        """
        miss = cost.fast_mode_miss(10)
        print("fast_mode passes:", miss.fast_passed)
        print("slow mode passes:", miss.slow_passed)
        print(f"the bug's share of vᵀJu, 0.1·u0·v0: {miss.bug_term:.2e}")
        print(f"the difference fast_mode allows:    {miss.allowed:.2e}")
        """
    ),
    md(
        """
        The wrong entry counts in vᵀ J u only with the weight u0 · v0, and here that weight is
        small: the bug adds 6.24e-4 where 2.42e-3 is allowed, so fast_mode passes it while slow
        mode, which compares every entry, fails it. Which input sizes let the bug through?
        """
    ),
    code(
        """
        print("fast_mode misses the bug at n =", cost.fast_mode_misses(range(1, 21)))
        """
    ),
    md(
        """
        Four sizes out of twenty (6, 10, 12, 13); at 16 entries, the zoo's own sample, fast_mode
        catches it. Luck decides, so use fast_mode for a quick screen and slow mode on a small
        input for the verdict.

        ## See it in the lab

        The lab holds OneEntryWrongSquareFn on 10 inputs. Slow mode: GradcheckError with one hot
        cell in the difference heatmap. Tick *fast_mode*: pass.
        """
    ),
    code(
        """
        from gradkit.widgets import GradcheckLab, Quiz
        from gradkit.zoo import OneEntryWrongSquareFn

        ten = torch.linspace(0.25, 2.0, 10, dtype=torch.float64, requires_grad=True)
        lab = GradcheckLab(fn=OneEntryWrongSquareFn, inputs=(ten,))
        lab
        """
    ),
    md("## Check yourself"),
    code(
        """
        quiz = Quiz(
            "gradcheck takes too long on your 1,000,000-entry input. What keeps the check "
            "trustworthy?",
            [
                "Switch to fast_mode and trust its verdict",
                "Run slow mode on a small input of the same kind (2n + 2 calls stay cheap)",
                "Use float32 inputs, which are faster",
                "Raise atol until it passes",
            ],
            1,
            "A backward rule does not depend on the input size: check it fully on a small input. "
            "fast_mode passed a one-entry bug at n = 6, 10, 12 and 13.",
        )
        quiz
        """
    ),
]

# --------------------------------------------------------------------------------------- 07


def _exercise_cells(key: str) -> list[Cell]:
    ex = EXERCISES[key]
    return [
        md(
            f"## {ex.title}",
            textwrap.fill(
                f"{ex.task} The starting code runs, but its backward holds a common mistake. "
                "Run the cell, read the feedback in the panel below it, fix the cell, run it "
                "again and press *Check my code*.",
                width=92,
            ),
        ),
        code(ex.starter),
        code(
            f"""
            {key}_panel = ExercisePanel("{key}")
            {key}_panel
            """
        ),
    ]


L07 = [
    md(
        """
        # Lesson 7: write your own backward

        **After this lesson you will be able to** write backward rules for x³, the sigmoid and a
        product of two inputs, check them with gradcheck, and fix them from its feedback.
        """
    ),
    RUN_ALL,
    md(
        """
        ## How the exercises work

        Each exercise has a cell with a Function for you to fix, and a panel below it. The panel
        looks up your class by name and checks it: first that forward computes the right values,
        then the backward rule with `gradkit.check` in float64. *Hint* shows one hint at a time;
        *Show solution* asks once more before it shows anything.
        """
    ),
    code(
        """
        import torch

        from gradkit.exercises import ExercisePanel, grade
        """
    ),
    *_exercise_cells("cube"),
    *_exercise_cells("sigmoid"),
    *_exercise_cells("product"),
    md(
        """
        ## Without the panel

        `grade` gives the same feedback as text, for scripts and tests:
        """
    ),
    code(
        """
        print(grade("product", MyProduct))
        """
    ),
]

# --------------------------------------------------------------------------------------- 08

L08 = [
    md(
        """
        # Lesson 8: beyond the seed

        **After this lesson you will be able to** tell a kink from a bug, handle random forwards
        and noisy backwards, check complex and second derivatives, and know what low precision
        and TF32 do to numbers you compare.
        """
    ),
    RUN_ALL,
    code(
        """
        import torch
        from torch.autograd import gradcheck, gradgradcheck

        import gradkit
        from gradkit import zoo
        """
    ),
    md(
        """
        ## Kinks: relu and abs at 0

        At a kink the slope from the left differs from the slope from the right. The central
        difference straddles it and measures their average.
        """
    ),
    code(
        """
        for x0 in (0.0, 5e-7, 1e-5):
            for fn in (zoo.ReluFn, zoo.AbsFn):
                x = torch.tensor([x0], dtype=torch.float64, requires_grad=True)
                r = gradkit.check(fn.apply, (x,))
                print(f"{fn.__name__} at {x0:g}: {r.cause:4}  numeric {r.worst.numeric:.4g}"
                      f"  analytic {r.worst.analytic:.4g}")
        """
    ),
    md(
        """
        relu at 0: numeric 0.5 (the average of 0 and 1) against the rule's 0, so it fails. abs
        at 0 passes by symmetry: numeric 0 (the average of −1 and 1) and sign(0) = 0. At 5e-7,
        closer to 0 than eps = 1e-6, both fail; at 1e-5 both pass. The rules are fine: keep test
        inputs more than eps away from kinks.

        The picture: relu at 0 with eps = 0.001. The secant through x ± eps straddles the kink
        and reads slope 0.5; the tangent autograd reports is flat. Step x up by one notch (the
        step buttons move it by 0.05, far more than eps) and both read 1.
        """
    ),
    code(
        """
        from gradkit.widgets import Quiz, SlopeExplorer

        explorer = SlopeExplorer(f="relu(x)", x=0.0, eps=1e-3)
        explorer
        """
    ),
    md(
        """

        ## Random forwards and noisy backwards

        A dropout-like forward draws a new mask on every call, so nudged outputs change by more
        than the nudge. A backward that adds tiny noise (like `atomicAdd` on a GPU) gives two
        different answers for the same input; `nondet_tol` accepts that much noise.
        """
    ),
    code(
        """
        torch.manual_seed(0)
        entry = zoo.CATALOGUE["RandomForwardFn"]
        print(gradkit.check(entry.apply, entry.inputs()).explanation)
        entry = zoo.CATALOGUE["NoisyBackwardTanhFn"]
        print("noisy backward passes:", gradkit.check(entry.apply, entry.inputs()).passed)
        tolerant = gradkit.check(entry.apply, entry.inputs(), nondet_tol=1e-8)
        print("with nondet_tol=1e-8:", tolerant.passed)
        """
    ),
    md(
        """
        ## Complex inputs: Wirtinger and the missing conj

        For a complex input and a holomorphic f such as z², torch's convention (Wirtinger
        calculus) wants backward to return `grad_output * conj(df/dz)`, and gradcheck checks
        the real and imaginary parts of the outputs separately. Here df/dz = 2z, and forgetting
        `.conj()` fails on the imaginary part:
        """
    ),
    code(
        """
        z = zoo.CATALOGUE["ComplexSquareFn"].inputs()
        print("with conj:   ", gradcheck(zoo.ComplexSquareFn.apply, z, raise_exception=False))
        report = gradkit.check(zoo.MissingConjComplexSquareFn.apply, z)
        print("without conj:", report.passed)
        print(report.torch_message.splitlines()[0])
        """
    ),
    md(
        """
        ## Second derivatives: gradgradcheck

        `gradgradcheck` checks the backward of your backward. A backward that passes gradcheck
        can still cut the graph, for instance with `.detach()`, and then its own gradient is
        zero:
        """
    ),
    code(
        """
        class DetachedSquareFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return grad_output * 2 * x.detach()


        x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        print("gradcheck:    ", gradcheck(DetachedSquareFn.apply, (x,)))
        print("gradgradcheck:", gradgradcheck(DetachedSquareFn.apply, (x,), raise_exception=False))
        print("SquareFn gradgradcheck:", gradgradcheck(zoo.SquareFn.apply, (x,)))
        """
    ),
    md(
        """
        ## Low precision and TF32

        Check a rule in float64, then test a low-precision kernel against a float64 reference
        with a tolerance that fits its dtype. On NVIDIA GPUs from Ampere on, float32 matrix
        products may run in TF32, which keeps 10 of float32's 23 mantissa bits
        (`torch.backends.cuda.matmul.allow_tf32`, off by default for matmul; cuDNN convolutions
        use it by default). The CPU can imitate that rounding:
        """
    ),
    code(
        """
        def to_tf32(t):  # round float32 to 10 mantissa bits, as TF32 does
            return ((t.view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)


        gen = torch.Generator().manual_seed(0)
        a, b = torch.randn(2, 256, 256, generator=gen)
        exact = a.double() @ b.double()
        for name, product in (("float32", a @ b), ("TF32-like", to_tf32(a) @ to_tf32(b))):
            error = (product.double() - exact).norm() / exact.norm()
            print(f"{name:9} relative error {error:.1e}")
        """
    ),
    md(
        """
        About a thousand times more error: compare TF32 results against float64 with a
        tolerance near 1e-3, not 1e-5. gradcheck itself runs in float64, which TF32 never
        touches. On a GPU, the next cell measures the real thing; without one it says so and
        skips.
        """
    ),
    code(
        """
        if torch.cuda.is_available():
            print("GPU:", torch.cuda.get_device_name())
            a_gpu, b_gpu = a.cuda(), b.cuda()
            saved = torch.backends.cuda.matmul.allow_tf32
            for allow in (False, True):
                torch.backends.cuda.matmul.allow_tf32 = allow
                product = (a_gpu @ b_gpu).double().cpu()
                error = (product - exact).norm() / exact.norm()
                print(f"GPU float32 matmul, allow_tf32={allow}: relative error {error:.1e}")
            torch.backends.cuda.matmul.allow_tf32 = saved
        else:
            print("No CUDA device here: the GPU TF32 comparison is skipped (needs an NVIDIA GPU).")
        """
    ),
    md("## Check yourself"),
    code(
        """
        quiz = Quiz(
            "ReluFn's backward returns 0 at x = 0 and gradcheck fails there. What should you do?",
            [
                "Change the backward to return 0.5 at 0",
                "Test away from the kink: keep inputs more than eps from 0",
                "Switch to float32",
                "Use fast_mode",
            ],
            1,
            "The rule is fine; the central difference straddles the kink and measures 0.5, the "
            "average of the two one-sided slopes. At 1e-5 (more than eps from 0) it passes.",
        )
        quiz
        """
    ),
]

LESSONS: dict[str, list[Cell]] = {
    "00_start_here": L00,
    "01_nudging": L01,
    "02_correct_backward": L02,
    "03_float32_noise": L03,
    "04_wrong_backward": L04,
    "05_bug_zoo": L05,
    "06_cost_and_fast_mode": L06,
    "07_write_your_own": L07,
    "08_beyond": L08,
}


def build(stem: str, cells: list[Cell]) -> nbformat.NotebookNode:
    """One notebook: no outputs, no widget state, stable cell ids, the python3 kernel."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    for k, (kind, source) in enumerate(cells):
        if kind == "markdown":
            cell = nbformat.v4.new_markdown_cell(source)
        else:
            cell = nbformat.v4.new_code_cell(source)
        cell.id = f"{stem[:2]}-{k:02d}"
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    texts = {
        f"{stem}.ipynb": nbformat.writes(build(stem, cells)) + "\n"
        for stem, cells in LESSONS.items()
    }
    stale = []
    for name, text in _ruff_format(texts).items():
        path = NOTEBOOKS / name
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(name)
        if not args.check:
            path.write_text(text, encoding="utf-8")
    verb = "stale" if args.check else "written"
    print(f"{len(stale)} notebook(s) {verb}: {', '.join(stale) or 'none'}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
