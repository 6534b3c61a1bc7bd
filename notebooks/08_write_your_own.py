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
# # Lesson 8: write your own backward
#
# **After this lesson you will be able to** write backward rules for x³ and the sigmoid, fix
# them from gradcheck's feedback, and avoid two classic slips in the test inputs.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>
#
# <div class="gradkit-voila-only" hidden="hidden">
#
# **This lesson's exercises are written in code.** This page shows the lesson without its
# code, so the exercises cannot be written here: open the lesson in Jupyter (Notebook 7 or
# JupyterLab) to do them. Their hints and solutions work on this page too.
#
# </div>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## How the exercises work
#
# Each exercise is a Function whose backward holds a common slip, with a panel below it. The
# panel finds the class by name and checks it: first that forward computes the right values,
# then the backward rule with `gradkit.check` in float64. *Hint* shows one hint at a time;
# *Show solution* asks once more before it shows anything.

# %% [markdown] tags=["notebook-only"]
# **In the notebook:** read the panel's feedback, fix `backward` in the Function's cell, run
# that cell again and press *Check my code*.

# %%
import torch

import gradkit
from gradkit.widgets import ExercisePanel, Quiz
from gradkit.zoo import SigmoidFn

# %% [markdown]
# ## Exercise 1: the cube
#
# MyCube computes x³. Its starting backward returns `grad_output * 3 * x`: it runs, but is it
# the derivative of x³?


# %%
class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x  # is this the derivative of x**3?


# %%
cube_panel = ExercisePanel("cube")
cube_panel


# %% [markdown]
# ## Exercise 2: the sigmoid
#
# MySigmoid computes sigmoid(x) = 1 / (1 + exp(−x)), whose derivative is best written with
# its own output y: y · (1 − y). The starting backward mixes up y and x: it returns
# `grad_output * torch.sigmoid(x) * (1 - x)`, that is y · (1 − x).


# %%
class MySigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x) * (1 - x)  # sigma'(x) = ?


# %%
sigmoid_panel = ExercisePanel("sigmoid")
sigmoid_panel

# %% [markdown]
# ## Two classic slips
#
# A correct rule can still fail because of its test inputs. Slip 1: an input without
# `requires_grad=True`. gradcheck has nothing to check and says so:

# %%
plain = torch.tensor([0.1, 1.2, -0.4], dtype=torch.float64)  # requires_grad forgotten
try:
    torch.autograd.gradcheck(SigmoidFn.apply, (plain,))
except ValueError as error:
    print("ValueError:", error)

# %% [markdown]
# Slip 2: a float32 input, the default dtype of `torch.tensor([...])`. torch warns that the
# input is not double precision (the warning is caught and printed below); then gradcheck
# fails the zoo's correct sigmoid, and `gradkit.check` names the cause (lessons 3 and 4):

# %%
import textwrap
import warnings

default_dtype = torch.tensor([0.1, 1.2, -0.4], requires_grad=True)
print("dtype:", default_dtype.dtype)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ok = torch.autograd.gradcheck(SigmoidFn.apply, (default_dtype,), raise_exception=False)
for w in caught:  # wrapped between words, as a page shows it
    print(textwrap.fill(f"{w.category.__name__}: {w.message}", 88, subsequent_indent="  "))
print("gradcheck passes:", ok)
print("cause:", gradkit.check(SigmoidFn.apply, (default_dtype,)).cause)

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("08-log-backward")
quiz
