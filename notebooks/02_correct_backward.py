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
# # Lesson 2: a correct backward passes
#
# **After this lesson you will be able to** write a custom `torch.autograd.Function` with
# `forward` and `backward`, check it with gradcheck, say how gradcheck builds the two
# Jacobians it compares, and write a backward with the chain rule.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>
#
# <div class="gradkit-voila-only" hidden="hidden">
#
# **This lesson has an exercise written in code.** This page shows the lesson without its
# code, so the exercise cannot be written here: open the lesson in Jupyter (Notebook 7 or
# JupyterLab) to do it. Its hints and its solution work on this page too.
#
# </div>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## A custom square
#
# `forward` computes x * x and saves its input for later; `backward` receives `grad_output`
# (the gradient arriving from whatever uses the output) and returns it times the local
# derivative 2x. The input is float64, the double-precision dtype, as gradcheck expects: a
# float32 input gets only a warning, and lesson 3 shows why a correct rule then fails.

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
# gradcheck takes the Function's `apply` and a tuple of its inputs (here one tensor holding
# 0.5 and 1.5), and returns True when the backward rule agrees with the nudges:

# %%
good = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print("Correct backward passes:", gradcheck(SquareFn.apply, (good,)))

# %% [markdown]
# ## What gradcheck compared: two Jacobians
#
# The **Jacobian**, written J, holds one slope per pair of entries: its entry in row i,
# column j is how fast **output entry i** moves when **input entry j** is nudged (J, i and j
# mean this in every lesson: lesson 00's notation sheet lists each symbol). gradcheck builds
# it twice:
#
# - the **numeric** Jacobian: nudge input entry j by ±eps (eps = 1e-6) and fill column j with
#   the measured slopes of every output entry;
# - the **analytic** Jacobian: run `backward` with `grad_output` 1 at output entry i and 0
#   elsewhere, and fill row i with what it returns.
#
# The widget writes e<sub>j</sub> for the direction that is 1 at entry j and 0 elsewhere: x +
# eps·e<sub>j</sub> is x with entry j nudged. Building both Jacobians takes one plain run of
# forward, two nudged runs per input entry, and one backward call per output entry.
#
# **Try:** press *step* a few times, then raise n. **Notice:** a column of the numeric
# Jacobian appears per nudged entry, a row of the analytic one per backward call.

# %%
from gradkit.widgets import ExercisePanel, JacobianBuilder, Quiz

builder = JacobianBuilder(f=SquareFn, n=3)
builder

# %% [markdown]
# The builder counts its own calls: for n = 3, 7 forward (one plain run, two nudged runs per
# input entry) and 3 backward (one per output entry). Beside them it shows gradcheck's count
# for the same Function, 8 and 8: gradcheck runs forward once more to see how backward copes
# with a missing gradient, builds the analytic Jacobian twice to see that backward repeats
# itself, and makes two more backward calls for checks of its own. Lesson 7 counts every call.
#
# `x * x` works entry by entry (output entry i depends on input entry i only), so both
# Jacobians are diagonal, with 2x on the diagonal. The builder nudged inputs of its own (its
# tables show them); for the inputs of the check above, 0.5 and 1.5, the diagonal holds
# 2x = 1 and 3 in both Jacobians:

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
# ## The chain rule
#
# sin(x²) is sin applied to x². The **chain rule** gives its derivative: the outer
# derivative, taken at the inner value, times the inner derivative, so cos(x²) · 2x. Its
# backward returns `grad_output` times that. `MySinSquare`'s starting backward returns
# `grad_output * torch.cos(x**2)`: it forgets the inner derivative. Its panel checks the class
# with gradcheck (through `gradkit.check`, in float64) and catches the slip: its feedback names
# an entry where the nudges and backward disagree.

# %% [markdown] tags=["notebook-only"]
# **Try:** read the panel's feedback, fix `backward` in the next cell, run that cell again and
# press *Check my code*. *Hint* shows one hint at a time; *Show solution* asks once more
# before it shows anything.


# %%
class MySinSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x**2)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.cos(x**2)  # the outer derivative; and the inner one?


# %%
chain_panel = ExercisePanel("sin_square")
chain_panel

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("02-jacobian-shape")
quiz
