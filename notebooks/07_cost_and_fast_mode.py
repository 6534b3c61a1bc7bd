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
# # Lesson 7: what gradcheck costs, and what fast_mode misses
#
# **After this lesson you will be able to** predict how many times gradcheck runs your
# function, watch that cost grow with the input, and explain how `fast_mode=True` can pass
# a wrong backward.

# %% [markdown]
# > **Live widgets.** The widgets need a running Python kernel: they come alive once the cells
# > above them have run, in order from the top. A pink box under a cell is a warning, not an
# > error: the cell still ran.

# %% [markdown]
# ## Predict first
#
# gradcheck suits small inputs, because every input is nudged one entry at a time. Recall
# lesson 2: two nudged runs (x + eps and x − eps) per input entry fill one column of the
# numeric Jacobian. How many times does gradcheck call forward for an input of 10 entries?
# Type a number and lock it in.

# %%
import torch

from gradkit import cost
from gradkit.widgets import GradcheckLab, JacobianBuilder, Predict, Quiz
from gradkit.zoo import OneEntryWrongSquareFn, SquareFn

ten = torch.linspace(0.25, 2.0, 10, dtype=torch.float64, requires_grad=True)
calls = Predict("07-calls-n10", compute=lambda: cost.count_calls(torch.sin, (ten,)).forward)
calls

# %% [markdown]
# ## Counting calls
#
# `gradkit.cost.count_calls` counts the forward and backward calls of one gradcheck, here
# on `torch.sin` with n input entries:

# %%
for slow, fast in cost.call_table((1, 10, 100)):
    print(
        f"n={slow.n:3}  slow: {slow.forward:3} forward, {slow.backward:3} backward"
        f"   fast_mode: {fast.forward} forward, {fast.backward} backward"
    )

# %% [markdown]
# Slow mode (the default) makes 2n + 2 forward calls (4, 22, 202): one plain run, two nudged
# runs per input entry, and one to check that backward copes with an undefined gradient.
# Backward runs 2m + 2 times for m output entries (here m = n): one call per output entry
# builds the analytic Jacobian, built twice to see that backward answers the same both
# times, plus one run with a zero `grad_output` and one with an undefined gradient.
#
# ## Watch the cost grow
#
# **Try:** press *run all*, then raise n to 10, 20, 40 and run again. **Notice:** the call
# counts grow in step with n, and the time with them: an input of a million entries would
# need 2n + 2 forward calls, each on the whole input.

# %%
builder = JacobianBuilder(f=SquareFn, n=4)
builder

# %% [markdown]
# Best of three timings on this machine (your numbers will differ; the trend will not):

# %%
for t in cost.time_gradcheck((10, 50, 200)):
    print(
        f"n={t.n:4}  slow {t.slow_s * 1e3:7.2f} ms   fast {t.fast_s * 1e3:5.2f} ms"
        f"   slow/fast {t.ratio:5.1f}"
    )

# %% [markdown]
# ## fast_mode
#
# `fast_mode=True` skips the Jacobians. It draws two random vectors u and v and compares
# one number, vᵀ J u, computed from the nudges and from backward: 4 calls whatever n.
#
# `OneEntryWrongSquareFn` is x * x whose backward adds 0.1 to one Jacobian entry (output
# entry 0, input entry 0). Slow mode fails it on 10 inputs. Does fast_mode?

# %%
catch = Predict("07-fast-mode-catches", compute=lambda: cost.fast_mode_miss(10).fast_passed)
catch

# %% [markdown]
# The arithmetic behind the verdict:

# %%
miss = cost.fast_mode_miss(10)
print("fast_mode passes:", miss.fast_passed)
print("slow mode passes:", miss.slow_passed)
print(f"the bug's share of vᵀJu, 0.1·u0·v0: {miss.bug_term:.2e}")
print(f"the difference fast_mode allows:    {miss.allowed:.2e}")

# %% [markdown]
# The wrong entry enters vᵀ J u only with the weight u0 · v0, and here that weight is small:
# the bug adds 6.24e-04 where 2.42e-03 is allowed, so fast_mode passes it. torch draws u and
# v from a generator with a fixed seed, so this verdict repeats every run. Which input sizes
# let the bug through?

# %%
print("fast_mode misses the bug at n =", cost.fast_mode_misses(range(1, 21)))

# %% [markdown]
# Four sizes out of twenty. Luck decides, so use fast_mode for a quick screen and slow mode
# on a small input for the verdict.
#
# ## See it in the lab
#
# The lab holds OneEntryWrongSquareFn on the same 10 inputs.
#
# **Try:** tick *fast_mode*, then untick it. **Notice:** slow mode shows one hot cell, at
# output entry 0, input entry 0 of the 10 × 10 difference heatmap; fast_mode passes.

# %%
lab = GradcheckLab(fn=OneEntryWrongSquareFn, inputs=(ten,))
lab

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("07-big-input")
quiz
