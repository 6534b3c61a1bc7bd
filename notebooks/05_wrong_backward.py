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
# # Lesson 5: a wrong backward fails
#
# **After this lesson you will be able to** catch a `GradcheckError` and carry on, say which
# slope the nudges measure when backward is wrong, and read torch's "Jacobian mismatch"
# message.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## Two squares, one wrong
#
# Two custom squares share one forward, x * x, and differ only in backward: `SquareFn`
# multiplies the incoming gradient by 2x, which is correct, and `WrongSquareFn` multiplies it
# by 3x, which is wrong.

# %%
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


# %%
class WrongSquareFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x


# %% [markdown]
# Both are checked on 0.5 and 1.5 in float64, as gradcheck expects. The correct one passes:

# %%
good_input = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
try:
    good_ok = gradcheck(SquareFn.apply, (good_input,), raise_exception=True)
except Exception:
    good_ok = False
print("Correct backward passes:", good_ok)

# %% [markdown]
# The wrong one makes gradcheck raise `GradcheckError`. A program that checks several rules
# catches that error and carries on, like this:
#
#     try:
#         gradcheck(WrongSquareFn.apply, (bad_input,), raise_exception=True)
#         bad_ok = True
#     except Exception as error:  # gradcheck's GradcheckError
#         bad_ok = False
#         print("Wrong backward error type:", type(error).__name__)
#     print("Wrong backward passes:", bad_ok)
#
# Run below, it prints the error's type, then the verdict False. Asked again with
# `raise_exception=False`, gradcheck returns False instead of raising, printed last:

# %%
bad_input = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
try:
    gradcheck(WrongSquareFn.apply, (bad_input,), raise_exception=True)
    bad_ok = True
except Exception as error:
    bad_ok = False
    print("Wrong backward error type:", type(error).__name__)
print("Wrong backward passes:", bad_ok)
print(gradcheck(WrongSquareFn.apply, (bad_input,), raise_exception=False))

# %% [markdown]
# ## Predict: which slope do the nudges see?
#
# At x = 2, WrongSquareFn's backward claims the slope 3x = 6. gradcheck's nudges measure a
# slope of their own. Which one, once eps is small? Lock in your guess.

# %%
import gradkit
from gradkit.widgets import Predict, Quiz, SlopeExplorer

predict = Predict(
    "05-wrong-secant",
    compute=lambda: gradkit.numeric_slope(lambda v: WrongSquareFn.apply(v), 2.0, 1e-6),
)
predict

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %% [markdown]
# ## Your backward on screen
#
# `SlopeExplorer` also takes a Function. Its blue line then has the slope **your backward**
# claims (the legend says so: it is no tangent of the curve unless the backward is right), and
# its secant the slope the nudges measure.
#
# **Try:** press ÷10 several times. **Notice:** where the secant settles, and whether it ever
# turns towards the blue line.

# %%
explorer = SlopeExplorer(f=WrongSquareFn, x=2.0, eps=1e-3, panels=["curve"])
explorer

# %% [markdown]
# The secant settles on slope 4, the slope of x², and never turns towards the blue line's 6:
# the nudges run forward only, and forward is right. No eps rescues a wrong rule.
#
# ## Reading torch's message
#
# The message names the output and the input (both 0 here) and prints both Jacobians whole:

# %%
from torch.autograd.gradcheck import GradcheckError

try:
    gradcheck(WrongSquareFn.apply, (bad_input,))
except GradcheckError as error:
    print(error)

# %% [markdown]
# The numerical diagonal holds 1 and 3 (the true slopes 2x), the analytical one 1.5 and 4.5
# (what 3x claims): every entry is 1.5 times too large. Careful with larger matrices: torch
# prints them transposed, one row per input entry. These lessons always say **output entry
# i, input entry j**, as `gradkit.check` does. torch names no entry and no difference; with
# two entries you can spot the bug, with a hundred you cannot. `gradkit.check` can:

# %%
gradkit.check(WrongSquareFn.apply, (bad_input,))

# %% [markdown]
# Lesson 6 finds a single wrong entry in a large Jacobian, in a picture.
#
# ## Check yourself

# %%
quiz = Quiz("05-exp-times-x")
quiz
