# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: voila
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   voila:
#     template: gradkit
# ---

# %% [markdown]
# # Lesson 12: gradcheck in your test suite
#
# **After this lesson you will be able to** choose gradcheck's test inputs on purpose (0-d,
# empty, negative, zero, not contiguous), set atol and rtol for entries near zero, check every
# parameter of an `nn.Module` with `torch.func.functional_call`, compare a float32 result with
# a float64 reference using `torch.testing.assert_close`, and run it all as a pytest file with
# a time budget.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>
#
# <div class="gradkit-voila-only" hidden="hidden">
#
# **This lesson's exercise is written in code.** This page shows the lesson without its
# code, so the exercise cannot be written here: open the lesson in Jupyter (Notebook 7 or
# JupyterLab) to do it. Its hints and solution work on this page too.
#
# </div>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## Predict first
#
# A passing gradcheck says a backward is right on the inputs it was given, no more. `MyProd`
# computes the product of all entries of x, y = x0 · x1 · …, so the slope for input entry j is
# the product of the other entries. Its author wrote that as y / x, saw a NaN where an entry is
# 0 (0 / 0) and set those slopes to 0. gradcheck passes it on the input it was written against,
# [0.5, 1.25, 2]. Below are six more inputs, each chosen for a shape or a value that a backward
# may trip on: a 0-d tensor, an empty one, negative entries, zeros, and a transposed view whose
# entries are not contiguous in memory. On how many of them does gradcheck fail `MyProd`?

# %%
import torch

import gradkit
from gradkit.exercises import EXERCISES
from gradkit.widgets import ExercisePanel, Predict, Quiz


# %%
class MyProd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.prod()
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        x, y = ctx.saved_tensors
        others = torch.where(x == 0, 0.0, y / x)  # the product of the other entries?
        return grad_output * others


# %%
lucky = torch.tensor([0.5, 1.25, 2.0], dtype=torch.float64, requires_grad=True)
print("gradcheck at [0.5, 1.25, 2]:", torch.autograd.gradcheck(MyProd.apply, (lucky,)))
cases = EXERCISES["prod"].cases  # (name, a function that makes the input)
for name, make in cases:
    (x,) = make()
    shape, contiguous = str(tuple(x.shape)), x.is_contiguous()
    print(f"{name:28} shape {shape:7} contiguous {contiguous!s:5}  {x.tolist()}")

# %%
fails = Predict(
    "12-prod-fails",
    compute=lambda: sum(
        not torch.autograd.gradcheck(MyProd.apply, make(), raise_exception=False)
        for _, make in cases
    ),
)
fails

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %%
for name, make in cases:
    report = gradkit.check(MyProd.apply, make())
    line = f"{name:28} {'passes' if report.passed else 'FAILS'}"
    if not report.passed:
        w = report.worst
        line += f": input entry {w.index[1]}, numeric {w.numeric:.4g}, analytic {w.analytic:.4g}"
    print(line)

# %% [markdown]
# Only the input with one zero entry fails: there the product of the other entries is
# 0.5 · 2 = 1, and the patch returns 0. With two zero entries every product of the others
# holds a 0, so the patch happens to be right; one zero and two zeros are different inputs.
# Choose inputs the way a shortcut could break: shapes (0-d, empty, more than one dimension),
# memory layout (a transposed view: code that calls `.view` fails on it), signs, and the points
# where a formula divides, a function has a kink (the appendix) or leaves its domain. Keep each
# such point on purpose, and keep every input float64, with `requires_grad=True`.
#
# ## Exercise 5: the product of every entry

# %% [markdown] tags=["notebook-only"]
# **In the notebook:** fix `backward` in `MyProd`'s cell under *Predict first*, run that cell
# again and press *Check my code*. The panel checks the input [0.5, 1.25, 2], then the six
# inputs chosen on purpose, and names the first that fails.

# %%
prod_panel = ExercisePanel("prod")
prod_panel

# %% [markdown]
# ## atol and rtol, chosen on purpose
#
# gradcheck passes an entry when |analytic − numeric| ≤ atol + rtol · |numeric| (lesson 2);
# `torch.testing.assert_close(actual, expected)` uses the same test against `expected`. rtol
# scales with the entry; atol is the floor for entries near zero, where a relative test asks
# for more digits than the inputs carry. Here `torch.sin` in float32 against a float64
# reference, as you would test a float32 kernel:

# %%
x = torch.tensor([0.5, 1.5, torch.pi, 2 * torch.pi], dtype=torch.float64)
got, want = torch.sin(x.float()).double(), torch.sin(x)  # float32 result, float64 reference
for a, g, w in zip(x.tolist(), got.tolist(), want.tolist(), strict=True):
    print(
        f"x {a:6.4f}  float32 {g: .4e}  float64 {w: .4e}  relative error {abs(g - w) / abs(w):.1e}"
    )
u = torch.finfo(torch.float32).eps / 2
print(f"float32's u = {u:.3g}; rounding x = 2π to float32 moves it by up to {2 * torch.pi * u:.2g}")
for rtol, atol in ((1e-7, 1e-7), (1.3e-6, 0.0), (1.3e-6, 1e-5)):
    try:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol)
        print(f"rtol {rtol:g}, atol {atol:g}: passes")
    except AssertionError as error:
        print(f"rtol {rtol:g}, atol {atol:g}: fails;", str(error).splitlines()[2])

# %% [markdown]
# At π and 2π sin is near zero, and the float32 result is off by about 1e-7 whatever the size
# of sin(x): rounding x to float32 moved it, and sin's slope there is ±1. Relative to values
# near 1e-16 that is an error of 7.1e+08, so rtol alone fails there, at any rtol worth the
# name. Choose atol from the scale of the inputs (|x| · u times the slope, here about 3.7e-07)
# and rtol from the dtype: 1.3e-6 and 1e-5 are `assert_close`'s own float32 defaults. Compared
# as float64 it would use float64's 1e-7 and 1e-7, which the entry at 2π fails: pass the
# tolerances of the dtype that computed the result. gradcheck's own atol, 1e-5, plays the same
# part for its nudges: the rounding in a slope measured with eps = 1e-6 grows with the size of
# f's outputs (lesson 4), so outputs near 1e5 or larger need a larger atol.
#
# ## A module's parameters
#
# gradcheck nudges the tensors it is given, and a module keeps its parameters inside.
# `torch.func.functional_call(module, parameters, args)` runs the module with the parameters
# passed in, so a function of the parameters can hand them to gradcheck, each weight and bias
# entry an input entry:

# %%
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh()).double()  # float64
inputs = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=torch.float64)
names = [name for name, _ in model.named_parameters()]
params = tuple(p.detach().requires_grad_() for p in model.parameters())


def run(*values):
    return torch.func.functional_call(model, dict(zip(names, values, strict=True)), (inputs,))


print({name: tuple(p.shape) for name, p in zip(names, params, strict=True)})
print(f"n = {sum(p.numel() for p in params)}, m = {run(*params).numel()}")
print("gradcheck passes:", torch.autograd.gradcheck(run, params))

# %% [markdown]
# ## Put it in your test suite
#
# The lesson writes `test_my_function.py` into its own folder (the one this notebook is in)
# and never over a file that is there: edit it to test your own Function, and the lesson
# leaves your version alone. It holds a Function checked on inputs chosen on purpose
# (`pytest.mark.parametrize`, one test per input), a module's parameters checked through
# `functional_call` as in the last section, a float32 check
# with `assert_close`, and a time budget: a fixture measures each test with
# `time.perf_counter` and fails one that took longer. gradcheck runs the function 2n + 2 times
# (lesson 7), so a test past its budget is one whose input grew. `--durations=3` lists the
# slowest three.

# %%
from gradkit.exercises.suite import write_suite

suite = write_suite(".")  # this lesson's own folder, never elsewhere
print(suite.message)
if suite.runnable:
    print(suite.path.read_text(encoding="utf-8"))

# %%
import importlib.util
import subprocess
import sys

command = [sys.executable, "-m", "pytest", "-q", "--durations=3", "--color=no"]
command += ["-p", "no:cacheprovider"]  # no .pytest_cache folder left behind
if importlib.util.find_spec("pytest") is None:
    print("pytest is not installed in this Python: pip install pytest, then run this again")
elif suite.runnable:
    done = subprocess.run(
        [*command, suite.path.name], cwd=suite.path.parent, capture_output=True, text=True
    )
    print(done.stdout)

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("12-float16-near-zero")
quiz
