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
# # Lesson 8: write your own backward
#
# **After this lesson you will be able to** write backward rules for x³, the sigmoid, a
# product of two inputs and a softmax, fix them from gradcheck's feedback, avoid the classic
# slips, and test any custom backward with a checklist.

# %% [markdown]
# > **Live widgets.** The widgets need a running Python kernel: they come alive once the cells
# > above them have run, in order from the top. A pink box under a cell is a warning, not an
# > error: the cell still ran.

# %% [markdown]
# ## How the exercises work
#
# Each exercise has a cell with a Function for you to fix, and a panel below it. The panel
# finds your class by name and checks it: first that forward computes the right values,
# then the backward rule with `gradkit.check` in float64. *Hint* shows one hint at a time;
# *Show solution* asks once more before it shows anything.

# %%
import torch

import gradkit
from gradkit.exercises import grade
from gradkit.widgets import ExercisePanel, GradcheckLab, Quiz

# %% [markdown]
# ## Exercise 1: the cube
#
# MyCube computes x³. Its starting backward runs but holds a common mistake. Run the cell,
# read the panel's feedback, fix the cell, run it again and press *Check my code*.


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
# MySigmoid computes sigmoid(x) = 1 / (1 + exp(−x)). Same routine: run, read, fix, check.


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
# ## Exercise 3: a product of two inputs
#
# MyProduct computes a * b for two tensors of the same shape; backward returns one gradient
# per input, in the order of forward's inputs.


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
# backward must return, for each input entry j, Σᵢ grad_outputᵢ · ∂yᵢ/∂xⱼ. The starting
# code below copies the sigmoid's rule, y(1 − y), which is only the diagonal.


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
# **Try:** run the check below, fix `backward`, then run both cells again.
# **Notice:** the diagonal entries agree; the worst entry sits off the diagonal: its
# output entry i and input entry j differ. In the lab's difference heatmap the
# diagonal stays blue while the off-diagonal cells turn red.
#
# <details><summary>Hint</summary>
#
# Σᵢ gᵢ yᵢ (δᵢⱼ − yⱼ) = yⱼ gⱼ − yⱼ Σᵢ gᵢ yᵢ: one product, one sum and one subtraction, all
# with tensors of x's shape (`keepdim=True` keeps the sum's shape compatible).
# </details>

# %%
logits = torch.tensor([0.1, 1.2, -0.4, 0.7], dtype=torch.float64, requires_grad=True)
print(gradkit.check(MySoftmax.apply, (logits,)))
softmax_lab = GradcheckLab(fn=MySoftmax, inputs=(logits,))
softmax_lab

# %% [markdown]
# ## Two classic slips
#
# A correct rule can still fail for reasons of its own inputs. Slip 1: an input without
# `requires_grad=True`. gradcheck has nothing to check and says so:

# %%
from gradkit.zoo import SigmoidFn

plain = torch.tensor([0.1, 1.2, -0.4], dtype=torch.float64)  # requires_grad forgotten
try:
    torch.autograd.gradcheck(SigmoidFn.apply, (plain,))
except ValueError as error:
    print("ValueError:", error)

# %% [markdown]
# Slip 2: a float32 input, the default dtype of `torch.tensor([...])`. torch warns in a pink
# box, then fails a correct rule (lessons 3 and 4):

# %%
default_dtype = torch.tensor([0.1, 1.2, -0.4], requires_grad=True)
print("dtype:", default_dtype.dtype)
print("cause:", gradkit.check(SigmoidFn.apply, (default_dtype,)).cause)

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("08-classic-slips")
quiz

# %% [markdown]
# ## Checklist: testing a custom backward
#
# 1. **float64 inputs** (complex128 for complex), each with `requires_grad=True`.
# 2. **Small inputs with unequal sizes**, e.g. 3 × 4 and not 4 × 4: a missing transpose then
#    fails loudly, and slow mode stays cheap (2n + 2 forward calls).
# 3. **Ordinary values**: random, distinct, more than eps away from kinks (0 for relu, abs).
# 4. **Slow mode** for the verdict; fast_mode only as a quick screen.
# 5. **Read the cause**: *precision* → use float64; *bug* → look at the worst entry (output
#    entry i, input entry j) and its pattern; *error* → read torch's message.
# 6. **Every input**: backward returns one gradient per forward input, in order (None for a
#    non-tensor input).
# 7. **Randomness**: make forward deterministic for the check; give a noisy backward a
#    `nondet_tol`.
# 8. **Twice differentiable?** Run `gradgradcheck` too (appendix).
# 9. **Low precision** is a separate test: compare against a float64 reference with a
#    tolerance that fits the dtype.
