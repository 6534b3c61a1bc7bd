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
# # Start here: what gradcheck is for
#
# **After this lesson you will be able to** say what `torch.autograd.gradcheck` compares,
# use these lessons' widgets, and pick the lesson that answers your question.

# %% [markdown]
# > **Live widgets.** The widgets need a running Python kernel: they come alive once the cells
# > above them have run, in order from the top. A pink box under a cell is a warning, not an
# > error: the cell still ran.

# %% [markdown]
# ## What gradcheck is for
#
# A custom `torch.autograd.Function` has two halves: `forward` computes the output and
# `backward` returns the gradient. PyTorch trusts `backward` blindly. `gradcheck` does not:
# it nudges every input entry by a small step called **eps**, measures how the output moves
# (the **numeric** gradient), and compares that with what `backward` returns (the
# **analytic** gradient).
# It passes only when every entry agrees within a tolerance.

# %% [markdown]
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
# On a wrong rule, torch raises a `GradcheckError` with two whole matrices. `gradkit.check`
# runs the same gradcheck (its verdict is always torch's) and explains it: the cause, the
# worst entry, and what to try next.

# %%
gradkit.check(WrongSquareFn.apply, (x,))

# %% [markdown]
# ## The lessons
#
# | lesson | you will be able to |
# | --- | --- |
# | `01_nudging` | measure a slope by nudging; compare forward and central differences |
# | `02_correct_backward` | write a Function, pass gradcheck, watch its Jacobians being built |
# | `03_why_float32_fails` | explain why a correct rule fails gradcheck in float32 |
# | `04_choosing_eps` | derive the best eps for a dtype, and see why gradcheck uses 1e-6 |
# | `05_wrong_backward` | see your backward's slope on screen, read torch's message |
# | `06_bug_zoo` | recognise common backward bugs from gradcheck's answer |
# | `07_cost_and_fast_mode` | predict gradcheck's cost, and what fast_mode misses |
# | `08_write_your_own` | write backward rules, fix them, and test one with a checklist |
# | `09_appendix_beyond` | (optional) kinks, randomness, complex inputs, gradgradcheck, TF32 |

# %% [markdown]
# ## The widgets, in one screen
#
# | widget | what it shows | lessons |
# | --- | --- | --- |
# | `SlopeExplorer` | f near x: the tangent (analytic) and the secant (numeric) | 00, 01, 05 |
# | `JacobianBuilder` | gradcheck's two tables of slopes, one column or row at a time | 02, 07 |
# | `GradcheckLab` | gradcheck's verdict, its two tables and where they differ | 02, 05, 07 |
# | `FloatRuler` | the numbers a dtype can hold near x, and where x ± eps land | 03 |
# | `EpsilonLab` | the error against eps for each dtype, with gradcheck's tolerance | 04 |
# | `Predict` | you commit to a guess, then the cell shows the true value | 03, 07 |
# | `Quiz` | a question with feedback on every answer | all |

# %% [markdown]
# Here is `SlopeExplorer` on x² at 2 with eps 0.001. It draws f near x, the **tangent** at x
# (its slope is the analytic gradient) and the **secant** through the points at x − eps and
# x + eps (its slope is the numeric gradient).
#
# **Try:** make eps larger (press ×10, or type 0.5 into the eps box and press Enter), then
# pick x³ from the function list.
# **Notice:** for x² the secant stays parallel to the tangent whatever eps; for x³ a large
# eps tilts it away.

# %%
from gradkit.widgets import Quiz, SlopeExplorer

explorer = SlopeExplorer(f="x²", x=2.0, eps=1e-3)
explorer

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("00-what-gradcheck-compares")
quiz
