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
# # Lesson 3: why float32 fails a correct rule
#
# **After this lesson you will be able to** explain with the spacing of float32 numbers why a
# correct backward rule fails gradcheck in float32, and recognise that failure in
# gradcheck's answer.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## How float32 stores a number
#
# A float stores a number as its significant digits, the **mantissa**, times a power of two.
# float32 keeps 24 significant bits (float64 keeps 53), so it holds only some numbers. Between
# two neighbouring powers of two, a stretch called a **binade** (0.5 to 1 is one, 0.25 to 0.5
# the next one down), they are evenly spaced. The gap from a number to the next one up is one
# **ulp** (unit in the last place). Each binade down has the same count of numbers in half
# the length, so its spacing is half as large.

# %%
import math

import torch

for name, dtype in (("float32", torch.float32), ("float64", torch.float64)):
    bits = 1 - math.log2(torch.finfo(dtype).eps)  # finfo.eps: the gap above 1, not a nudge
    print(f"{name}: {bits:.0f} significant bits, about {bits * math.log10(2):.0f} digits")
x = torch.tensor(0.5)
above = (torch.nextafter(x, torch.tensor(1.0)) - x).item()
below = (x - torch.nextafter(x, torch.tensor(0.0))).item()
print(f"float32 spacing in [0.5, 1): {above:.3g}, in [0.25, 0.5): {below:.3g}")
print(f"eps = 1e-6 spans {1e-6 / above:.3g} spacings above 0.5 and {1e-6 / below:.3g} below")
print(f"0.5 + 1e-6 lands {((x + 1e-6) - x).item() / above:.0f} spacings above 0.5")
print(f"0.5 - 1e-6 lands {(x - (x - 1e-6)).item() / below:.0f} spacings below 0.5")

# %% [markdown]
# So 0.5 ± 1e-6 are not float32 numbers: each rounds to the nearest one. The spacing is
# 5.96e-08 above 0.5 and 2.98e-08 below it, and eps = 1e-6 spans 16.8 spacings above and 33.6
# below: the landings, 17 and 34 spacings away, miss their targets by a fraction of a spacing.
#
# ## Predict
#
# gradcheck measures the slope of x² at 0.5 from exactly these two landings: it divides
# f(landing above) − f(landing below) by 2 · eps. The exact slope is 1. Work out what
# gradcheck measures in float32, and lock in your guess.

# %%
import textwrap
import warnings

from torch.autograd import gradcheck

import gradkit
from gradkit.widgets import FloatRuler, Predict, Quiz
from gradkit.zoo import SquareFn

predict = Predict(
    "03-float32-slope",
    compute=lambda: gradkit.numeric_slope(lambda v: v * v, 0.5, 1e-6, dtype=torch.float32),
)
predict

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %% [markdown]
# ## See it on the float ruler
#
# `FloatRuler` draws the float32 numbers near 0.5 as ticks, and where x − eps and x + eps
# land; its readouts give the spacing and the nudge that really happened, to compare with
# your guess. **Notice:** just below 0.5 the ticks stand twice as close as above it: a new
# binade.

# %%
ruler = FloatRuler(x=0.5, eps=1e-6, dtype=torch.float32)
ruler

# %% [markdown]
# ## gradcheck on a float32 input
#
# The same correct `SquareFn` (the zoo's copy of lesson 2's) now receives a float32 input.
# torch first warns that the input is not double precision; then it raises `GradcheckError`.
# Both are caught and printed here, so that the lesson goes on.

# %%
bad32 = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        gradcheck(SquareFn.apply, (bad32,))
    except Exception as error:
        raised = error
for w in caught:  # wrapped between words, as a page shows it
    print(textwrap.fill(f"{w.category.__name__}: {w.message}", 88, subsequent_indent="  "))
print(f"{type(raised).__name__}: {raised}")

# %% [markdown]
# The numeric slope reads 1.0133 where the exact slope is 1, as the ruler showed: both
# landings lie 1.0133 times eps from 0.5, so the real step is 1.0133 times the 2 · eps
# gradcheck divides by.
# `gradkit.check` retries the same rule in float64, sees it pass there, and names the cause
# *precision*:

# %%
report = gradkit.check(SquareFn.apply, (bad32,))
report

# %% [markdown]
# The card names two roundings, and every central difference meets both. The **landings**:
# x ± eps are not float32 numbers, so the nudge that really happened is not 2 · eps. **f's
# rounding**: each f(x ± eps) is rounded to float32 too. For x² at 0.5 the landings do it
# all: x² of the two landings, computed exactly in float64, gives the same slope.

# %%
up, down = x + 1e-6, x - 1e-6  # the two landings, float32 numbers
exact = (up.double() ** 2 - down.double() ** 2) / 2e-6
rounded = (up**2 - down**2) / 2e-6
print(f"x² of the landings, exact: {exact.item():.5g}; rounded to float32: {rounded.item():.5g}")

# %% [markdown]
# The error, 0.0133, is more than ten times the 0.00102 that gradcheck allows
# (atol + rtol · |numeric|). The backward rule is right; the measurement is off. A rounding
# of a few 1e-08 is harmless in a value, but dividing by 2 · eps = 2e-06 multiplies it by
# 500,000.
#
# **Try** on the ruler above: press ×10 a few times and watch the landings; then type 1e-6
# into the eps box and switch the dtype to float16. **Notice:** at larger eps the same miss
# is a smaller share of the nudge. In float16 the spacing near 0.5 is so wide that both
# landings fall back on x itself: the slope is exactly 0.
#
# So gradcheck's tiny nudge suits float64 and drowns in float32 rounding. Which eps would
# suit float32? Lesson 4 derives it.
#
# ## Check yourself

# %%
quiz = Quiz("03-bfloat16-collapse")
quiz
