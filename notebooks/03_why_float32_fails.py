# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lesson 3: why float32 fails a correct rule
#
# **After this lesson you will be able to** recognise a precision failure in gradcheck's
# answer, and explain it with the spacing of float32 numbers.

# %% [markdown]
# > **Live widgets.** The widgets need a running Python kernel: they come alive once the cells
# > above them have run, in order from the top. A pink box under a cell is a warning, not an
# > error: the cell still ran.

# %% [markdown]
# ## Predict first
#
# The slope of x² at 0.5 is exactly 1. Now measure it as gradcheck does, with the central
# difference and eps = 1e-6, but with float32 numbers (single precision: about 7 digits)
# instead of float64 (about 16). Type your guess and lock it in: the widget then measures.

# %%
import torch

import gradkit
from gradkit.widgets import FloatRuler, Predict, Quiz

predict = Predict(
    "03-float32-slope",
    compute=lambda: gradkit.numeric_slope(lambda v: v * v, 0.5, 1e-6, dtype=torch.float32),
)
predict

# %% [markdown]
# ## gradcheck on a float32 input
#
# The same correct `SquareFn` (from lesson 2; the zoo of ready-made Functions has a copy) now
# receives a float32 input.
# torch first warns, in a pink box, that the input is not double precision; then it raises
# `GradcheckError`. The `try`/`except` catches the error so that the notebook keeps running.

# %%
from torch.autograd import gradcheck

from gradkit.zoo import SquareFn

bad32 = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
try:
    print(gradcheck(SquareFn.apply, (bad32,)))
except Exception as error:
    print(type(error).__name__)
    print(error)

# %% [markdown]
# The numeric slope reads 1.0133 where the exact slope is 1. `gradkit.check` retries the
# same rule in float64, sees it pass there, and names the cause *precision*:

# %%
report = gradkit.check(SquareFn.apply, (bad32,))
report

# %% [markdown]
# The error, 0.0133, is more than ten times the 0.00102 that gradcheck allows
# (atol + rtol · |numeric|). The backward rule is right; the measurement is off.
#
# ## Where 1.0133 comes from
#
# float32 holds only some numbers: near 0.5, neighbouring float32 numbers sit a fixed
# distance apart. 0.5 + 1e-6 is not one of them, so it rounds, and so does 0.5 − 1e-6:

# %%
x = torch.tensor(0.5)
spacing = (torch.nextafter(x, torch.tensor(1.0)) - x).item()
print(f"spacing at 0.5: {spacing:.3g}, so eps = 1e-6 spans {1e-6 / spacing:.3g} spacings")
print(f"x + eps = {(x + 1e-6).item():.10f}")
print(f"x - eps = {(x - 1e-6).item():.10f}")
step = ((x + 1e-6) - (x - 1e-6)).item()
print(f"real step {step:.5g} instead of 2e-06: {step / 2e-6:.5g} times too long")

# %% [markdown]
# The spacing is 5.96e-08. The two nudged inputs land 2.0266e-06 apart instead of 2e-06,
# yet gradcheck divides by 2e-06: the slope comes out 1.0133 times too large. A rounding
# error of a few 1e-08 is harmless in a value, but dividing by 2 · eps = 2e-06 multiplies
# it by 500,000.

# %% [markdown]
# ## See it on the float ruler
#
# `FloatRuler` draws the float32 numbers near 0.5 as ticks, and where x − eps and x + eps
# land.
#
# **Try:** press ×10 a few times; then switch the dtype to float16.
# **Notice:** at 1e-6 each landing misses its target by a fraction of a tick, a sizeable
# share of a nudge only 16.8 ticks long; at larger eps the same miss is a smaller share. In
# float16 both land back on x itself: the slope is exactly 0.

# %%
ruler = FloatRuler(x=0.5, eps=1e-6, dtype=torch.float32)
ruler

# %% [markdown]
# So gradcheck's tiny nudge suits float64 and drowns in float32 rounding. Which eps would
# suit float32? Lesson 4 derives it.
#
# ## Check yourself

# %%
quiz = Quiz("03-why-float32")
quiz
