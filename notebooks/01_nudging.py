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
# # Lesson 1: a gradient measured by nudging
#
# **After this lesson you will be able to** measure a slope by nudging an input, tell the
# central difference from the forward difference, and say why the size of the nudge matters.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## A slope from two nudges
#
# A **numerical gradient** nudges an input a little, by a step called **eps**, and measures
# the slope from the outputs. For x² at 2 the measured slope matches the exact slope, 4.

# %%
import torch
from torch.autograd import gradcheck


def f(v):
    return v * v


eps = 0.001
numeric = (f(2.0 + eps) - f(2.0 - eps)) / (2 * eps)
print("Numerical gradient:", round(numeric, 3))
print("Exact gradient:", 4.0)

# %% [markdown]
# The numeric slope is the slope of the line through (2 − eps, f(2 − eps)) and
# (2 + eps, f(2 + eps)): a **secant**. The exact slope is the slope of the **tangent** at 2.
# `gradkit.numeric_slope` makes the same measurement in any **dtype** (a tensor's number
# format, such as float64 or float32), and `gradkit.analytic_slope` asks autograd for the
# exact slope. Unrounded, the numeric slope is not exactly 4: its last digits carry rounding.

# %%
import gradkit

print("numeric: ", gradkit.numeric_slope(f, 2.0, 1e-3))
print("analytic:", gradkit.analytic_slope(f, 2.0))

# %% [markdown]
# ## Predict first: one side or both
#
# The nudge above looks both ways, from x − eps to x + eps: the **central** difference,
# (f(x + eps) − f(x − eps)) / (2 eps), which gradcheck uses. The **forward** difference
# looks one way only, ahead of x: (f(x + eps) − f(x)) / eps. (Here *forward* names a
# direction; a Function's `forward`, in lesson 2, is something else: the code that computes
# its output.) Work out by hand what the forward difference measures for x² at 2 with a
# large nudge, eps = 0.1, and lock in your guess.

# %%
from gradkit.widgets import Predict, Quiz, SlopeExplorer

predict = Predict(
    "01-forward-slope",
    compute=lambda: gradkit.numeric_slope(f, 2.0, 0.1, scheme="forward"),
)
predict

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %% [markdown]
# ## Forward versus central difference
#
# Both differences for x² at 2, at three sizes of eps:

# %%
for eps in (1e-1, 1e-2, 1e-3):
    fwd = gradkit.numeric_slope(f, 2.0, eps, scheme="forward")
    cen = gradkit.numeric_slope(f, 2.0, eps, scheme="central")
    print(f"eps={eps:g}  forward={fwd:.6f}  central={cen:.6f}")


# %% [markdown]
# The forward difference reads 4.100000, 4.010000, 4.001000: (2 + eps)² − 2² = 4 eps + eps²,
# so after dividing by eps its error is exactly eps, and it shrinks in step with eps. The
# central difference reads 4.000000 at every eps: looking both ways, the eps² terms cancel.
#
# ## See it
#
# The widget draws f near x with both lines; the zoom keeps even a tiny eps visible.
#
# **Try:** 1. set eps to 0.5, then 1. 2. Pick x³ from the function list. 3. Switch the
# scheme to *forward*.
# **Notice:** for x² the central secant stays parallel to the tangent whatever eps; for x³ a
# large eps tilts it; the forward scheme draws the secant from x to x + eps only.

# %%
explorer = SlopeExplorer(f=f, x=2.0, eps=1e-3)
explorer

# %% [markdown]
# For x³ at 0.5 (exact slope 0.75) both differences make an error:


# %%
def cube(v):
    return v**3


for eps in (1e-1, 1e-2, 1e-3):
    fwd = gradkit.numeric_slope(cube, 0.5, eps, scheme="forward")
    cen = gradkit.numeric_slope(cube, 0.5, eps, scheme="central")
    print(f"eps={eps:g}  forward={fwd:.6f}  central={cen:.6f}", end="   ")
    print(f"errors: forward {fwd - 0.75:.6f}, central {cen - 0.75:.6f}")

# %% [markdown]
# Make eps ten times smaller: the forward error (0.160000, 0.015100, 0.001501) shrinks about
# ten times, in step with eps; the central error (0.010000, 0.000100, 0.000001) a hundred
# times, in step with eps². That is why gradcheck uses the central difference. Lessons 3 and
# 4 show what stops you from making eps tiny.
#
# ## Check yourself

# %%
quiz = Quiz("01-central-error")
quiz
