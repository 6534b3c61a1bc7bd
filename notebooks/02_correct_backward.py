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
# # Lesson 2: a correct backward passes
#
# **After this lesson you will be able to** write a custom `torch.autograd.Function` with
# `forward` and `backward`, check it with gradcheck, and say how gradcheck builds the two
# Jacobians it compares.

# %% [markdown]
# > **Live widgets.** The widgets need a running Python kernel: they come alive once the cells
# > above them have run, in order from the top. A pink box under a cell is a warning, not an
# > error: the cell still ran.

# %% [markdown]
# ## A custom square
#
# `forward` computes x * x and saves its input for later; `backward` receives `grad_output`
# (the gradient arriving from whatever uses the output) and returns it times the local
# derivative 2x. The input is float64, the double-precision dtype, as gradcheck demands.

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


# %% [markdown]
# gradcheck takes the Function's `apply` and a tuple of its inputs, and returns True when
# the backward rule agrees with the nudges:

# %%
good = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print("Correct backward passes:", gradcheck(SquareFn.apply, (good,)))

# %% [markdown]
# ## What gradcheck compared: two Jacobians
#
# The **Jacobian** holds one slope per pair of entries: its entry in row i, column j is how
# fast **output entry i** moves when **input entry j** is nudged. gradcheck builds it twice:
#
# - the **numeric** Jacobian: nudge input entry j by ±eps (eps = 1e-6) and fill column j with
#   the measured slopes of every output entry;
# - the **analytic** Jacobian: run `backward` with `grad_output` 1 at output entry i and 0
#   elsewhere, and fill row i with what it returns.
#
# **Try:** press *step* a few times, then raise n. **Notice:** a column of the numeric
# Jacobian appears per nudged entry, a row of the analytic one per backward call.

# %%
from gradkit.widgets import GradcheckLab, JacobianBuilder, Quiz

builder = JacobianBuilder(f=SquareFn, n=3)
builder

# %% [markdown]
# `x * x` works entry by entry (output entry i depends on input entry i only), so both
# Jacobians are diagonal. For our two inputs the diagonal holds 2x = 1 and 3:

# %%
import gradkit

print(gradkit.numeric_jacobian(SquareFn.apply, (good,))[0][0])
print(gradkit.analytic_jacobian(SquareFn.apply, (good,))[0][0])

# %% [markdown]
# (`[0][0]` picks the Jacobian of output 0 with respect to input 0: a Function may have
# several of each.)
#
# ## The tolerance
#
# An entry passes when |analytic − numeric| ≤ atol + rtol · |numeric|, with gradcheck's
# defaults atol = 1e-5 and rtol = 1e-3. For the entry 3 that allows 1e-5 + 0.003 = 0.00301.
# `gradkit.check` reports the entry that came closest to failing:

# %%
gradkit.check(SquareFn.apply, (good,))

# %% [markdown]
# ## Play with it
#
# `GradcheckLab` runs gradcheck on every change and draws the Jacobians.
#
# **Try:** press *float32*, then *retry in float64*; then pick `WrongSquareFn` from the list.
# **Notice:** float32 fails a correct rule (lesson 3 explains why); the wrong twin fails in
# every dtype (lesson 5).

# %%
lab = GradcheckLab(fn=SquareFn, inputs=(good,))
lab

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("02-tolerance")
quiz
