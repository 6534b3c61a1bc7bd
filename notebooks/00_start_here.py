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
# # Start here: what gradcheck is for
#
# **After this lesson you will be able to** say what `torch.autograd.gradcheck` compares,
# use these lessons' widgets, and pick the lesson that answers your question.
#
# <!-- cells tagged notebook-only (instructions about cells and code) are hidden on a page
# without the notebook's code, such as a Voila app -->
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## What gradcheck is for
#
# A custom `torch.autograd.Function` has two halves: `forward` computes the output and
# `backward` returns the gradient. PyTorch trusts `backward` blindly. `gradcheck` does not:
# it nudges every input entry by a small step called **eps**, measures how the output moves
# (the **numeric** gradient), and compares that with what `backward` returns (the
# **analytic** gradient). It passes only when every entry agrees within a tolerance.
#
# gradkit ships a **zoo**: a collection of ready-made Functions in `gradkit.zoo`. Most come
# in pairs, a correct Function and its **buggy twin**, which has the same `forward` and a
# broken `backward`. The first pair: `SquareFn` computes x² with backward 2x (correct), and
# its twin `WrongSquareFn` claims 3x (wrong).

# %%
import torch

import gradkit
from gradkit.zoo import SquareFn, WrongSquareFn

x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print("SquareFn passes:", torch.autograd.gradcheck(SquareFn.apply, (x,)))

# %% [markdown]
# On a wrong rule, torch raises a `GradcheckError` that prints two whole tables of slopes.
# `gradkit.check` runs the same gradcheck (its verdict is always torch's) and explains it:
# the cause, the worst entry, and what to try next.

# %%
gradkit.check(WrongSquareFn.apply, (x,))

# %% [markdown]
# ## The lessons
#
# | lesson | you will be able to |
# | --- | --- |
# | `01_nudging` | measure a slope by nudging; compare forward and central differences |
# | `02_correct_backward` | write a Function, pass gradcheck, use the chain rule |
# | `03_why_float32_fails` | explain why a correct rule fails gradcheck in float32 |
# | `04_choosing_eps` | derive the best eps for a dtype, and see why gradcheck uses 1e-6 |
# | `05_wrong_backward` | see your backward's slope on screen, read torch's message |
# | `06_bug_zoo` | find a wrong entry in a heatmap; recognise common backward bugs |
# | `07_cost_and_fast_mode` | predict gradcheck's cost, and what fast_mode compares instead |
# | `08_write_your_own` | write backward rules and fix them; avoid two classic slips |
# | `09_capstone_softmax` | two inputs, and a softmax's backward |
# | `10_beyond_the_jacobian` | vmap, forward mode, undefined gradients: pass them all; a checklist |
# | `11_appendix_beyond` | (optional) kinks, randomness, complex, gradgradcheck, low precision |
# | `12_gradcheck_in_your_tests` | put gradcheck in a test suite: inputs, tolerances, modules |

# %% [markdown]
# ## Notation, for every lesson
#
# Each symbol means one thing in every lesson; the lessons come back here when a letter
# needs a meaning. torch's own code uses some of the letters otherwise (u and v are the names
# it gives fast_mode's random vectors): the lessons rename them to this table's.
#
# | symbol | means, in every lesson |
# | --- | --- |
# | f | the function checked |
# | x | the input; x<sub>j</sub> is its entry j |
# | y | the output, y = f(x); y<sub>i</sub> is its entry i |
# | n | how many entries the input has |
# | m | how many entries the output has |
# | i | an output entry: row i of a Jacobian |
# | j | an input entry: column j of a Jacobian |
# | J | the Jacobian, written J (m × n): J[i, j], how fast output entry i moves with input entry j |
# | eps | the nudge: how far gradcheck moves one input entry (1e-6 by default); ε in a formula |
# | eps\* | the best eps for a function and a dtype (lesson 4) |
# | u | the unit roundoff of a dtype (lesson 4), never a vector |
# | e<sub>j</sub> | the unit vector: 1 at entry j, 0 elsewhere |
# | p | a vector of the input's size (a direction): fast_mode's p, forward mode's tangent |
# | q | a vector of the output's size, handed to backward as grad_output: fast_mode's q (lesson 7) |
# | g | grad_output, the gradient backward receives, in a formula (lessons 9 and 10) |
# | atol, rtol | tolerances (lesson 2): an entry passes within atol + rtol × its numeric size |

# %% [markdown]
# ## The widgets, in one screen
#
# | widget | what it shows | lessons |
# | --- | --- | --- |
# | `SlopeExplorer` | f near x, its analytic and its numeric slope as lines | 00, 01, 05, appendix |
# | `JacobianBuilder` | gradcheck's two tables of slopes, one column or row at a time | 02 |
# | `FloatRuler` | the numbers float32 (or another format) holds near x | 03 |
# | `EpsilonLab` | the error against eps for each number format | 04 |
# | `GradcheckLab` | gradcheck's verdict, its two tables and where they differ | 09 |
# | `ZooHunt` | a Function's code: you predict gradcheck's verdict, then run it | 06 |
# | `ExercisePanel` | checks the Function you wrote, with hints and a solution | 02, 08–10, tests |
# | `Predict` | you lock in a guess (a wrong one: a hint, one more try) | 01, 03–07, 10, tests |
# | `Quiz` | a question with feedback on every answer | all |

# %% [markdown] tags=["notebook-only"]
# > **A Predict closes the rest of its lesson.** In Jupyter, what follows a Predict sits under
# > a collapsed heading, *After your guess*, until you lock in your guess; the keyboard skips
# > it. Its "cells hidden" button opens it by hand, and Find (Ctrl+F) searches it too and opens
# > it where it finds a match: both show the answer before you commit, so guess first.

# %% [markdown]
# Here is `SlopeExplorer` on x² at 2 with eps 0.001. It draws f near x, the **tangent** at x
# (its slope is the analytic gradient) and the **secant** through the points at x − eps and
# x + eps (its slope is the numeric gradient).
#
# **Try:** press ×10 a few times, or type 0.5 into the eps box and press Enter.
# **Notice:** the secant's points move apart, yet for x² the secant stays parallel to the
# tangent: both slopes read 4.

# %%
from gradkit.widgets import Quiz, SlopeExplorer

explorer = SlopeExplorer(f="x²", x=2.0, eps=1e-3, panels=["curve"])
explorer

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("00-what-gradcheck-compares")
quiz
