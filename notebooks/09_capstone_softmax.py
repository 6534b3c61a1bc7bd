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
# # Lesson 9: two inputs and a softmax
#
# **After this lesson you will be able to** write a backward that returns one gradient per
# input, and write the backward of a softmax, whose Jacobian is full. (Lesson 10 adds
# gradcheck's other checks, and a checklist for testing any custom backward.)
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>
#
# <div class="gradkit-voila-only" hidden="hidden">
#
# **This lesson's exercises are written in code.** This page shows the lesson without its
# code, so the exercises cannot be written here: open the lesson in Jupyter (Notebook 7 or
# JupyterLab) to do them. The exercise's hints and solution work on this page too.
#
# </div>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.
# >
# > **The exercises** work as in lesson 8: fix `backward` in the Function's cell, run that
# > cell again, then check it (the panel's *Check my code*, or the softmax's check cell).

# %%
import torch

import gradkit
from gradkit.exercises import grade
from gradkit.widgets import ExercisePanel, GradcheckLab, Quiz

# %% [markdown]
# ## Exercise 3: a product of two inputs
#
# MyProduct computes a * b for two tensors of the same shape. backward returns one gradient
# per input, in the order of forward's inputs: the gradient for a, then the one for b.


# %%
class MyProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * a, grad_output * b  # one gradient per input, in order


# %%
product_panel = ExercisePanel("product")
product_panel

# %% [markdown]
# `grade` gives the same feedback as text, for scripts and tests:

# %%
print(grade("product", MyProduct))


# %% [markdown]
# ## Capstone: a softmax
#
# So far every Jacobian was diagonal. Softmax, y = exp(x) / Σ exp(x), is not: every output
# entry depends on every input entry. Its Jacobian, for output entry i and input entry j, is
#
# $$\frac{\partial y_i}{\partial x_j} = y_i\,(\delta_{ij} - y_j),
#   \qquad \delta_{ij} = 1 \text{ if } i = j \text{, else } 0.$$
#
# backward must return, for each input entry j, Σᵢ grad_outputᵢ · ∂yᵢ/∂xⱼ. `MySoftmax`'s
# starting backward copies the sigmoid's rule, `grad_output * y * (1 - y)`: only the diagonal.


# %%
class MySoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.softmax(x, dim=-1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y * (1 - y)  # the diagonal only: what about i != j?


# %% [markdown]
# **Notice:** in gradcheck's answer below the diagonal entries agree, and the worst entry
# sits off the diagonal: its output entry i and input entry j differ. In the lab's
# difference heatmap the diagonal stays blue while the entries off the diagonal turn red.
#
# <details><summary>Hint</summary>
#
# Σᵢ gᵢ yᵢ (δᵢⱼ − yⱼ) = yⱼ gⱼ − yⱼ Σᵢ gᵢ yᵢ, where g is `grad_output` (as on lesson 00's
# notation sheet): one product, one sum and one subtraction, all with tensors of x's shape
# (`keepdim=True` keeps the sum's shape).
# </details>

# %% [markdown] tags=["notebook-only"]
# **Try:** fix `backward` in the cell above, run it, then run the check below again.

# %%
logits = torch.tensor([0.1, 1.2, -0.4, 0.7], dtype=torch.float64, requires_grad=True)
print(gradkit.check(MySoftmax.apply, (logits,)))
softmax_lab = GradcheckLab(fn=MySoftmax, inputs=(logits,), panels=["verdict", "difference"])
softmax_lab

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("09-broadcast-weight")
quiz
