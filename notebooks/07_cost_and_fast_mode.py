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
# # Lesson 7: what gradcheck costs, and what fast_mode compares
#
# **After this lesson you will be able to** predict how many times gradcheck runs your
# function, count it yourself, watch the cost grow with the input, and say what
# `fast_mode=True` compares instead of the Jacobians, and what one wrong entry does to it.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## Predict first
#
# gradcheck suits small inputs, because every input is nudged one entry at a time. Recall
# lesson 2: two nudged runs (x + eps and x − eps) per input entry fill one column of the
# numeric Jacobian, after one plain run. gradcheck runs forward once more, to see how
# backward copes with an **undefined gradient** (explained below: a gradient that is
# missing). How many times does gradcheck call the function's forward (here `torch.sin`) for
# an input of 10 entries? Count every call, type the number and lock it in.

# %%
import torch

from gradkit import cost
from gradkit.widgets import Predict, Quiz

ten = torch.linspace(0.25, 2.0, 10, dtype=torch.float64, requires_grad=True)
calls = Predict("07-calls-n10", compute=lambda: cost.count_calls(torch.sin, (ten,)).forward)
calls

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %% [markdown]
# ## Count them yourself
#
# Any function can count its own calls: wrap it in one that adds 1 to a counter, then
# hand the wrapper to gradcheck.

# %%
forward_calls = 0


def counted_sin(t):
    global forward_calls
    forward_calls += 1
    return torch.sin(t)


torch.autograd.gradcheck(counted_sin, (ten,))
print("forward calls for n = 10:", forward_calls)

# %% [markdown]
# The count has parts. Besides the plain run and the nudges, gradcheck checks that backward
# copes with an undefined gradient: what backward receives for an output that nothing later
# used, no tensor at all (None) rather than zeros. A **backward pass** is one run of
# autograd from the outputs back to the inputs (for a Function, one call of its `backward`).
# `gradkit.cost.call_plan` states every part of one passing gradcheck:

# %%
plan = cost.call_plan(10)
for part in plan.parts():
    print(f"{part.name:19}{part.forward:3} forward {part.backward:3} backward   {part.what}")
print(f"{'in all, n = m = 10':19}{plan.forward:3} forward {plan.backward:3} backward")

# %% [markdown]
# For n input entries and m output entries: 2n + 2 forward calls and 2m + 2 backward passes.
# The analytic Jacobian is built twice, to see that backward gives the same answer twice.
# `gradkit.cost.count_calls` counts both kinds with a wrapper, as above, on `torch.sin`
# (here m = n), in slow mode and with `fast_mode=True`:

# %%
for slow, fast in cost.call_table((1, 10, 100)):
    print(
        f"n={slow.n:3}  slow: {slow.forward:3} forward, {slow.backward:3} backward"
        f"   fast_mode: {fast.forward} forward, {fast.backward} backward"
    )

# %% [markdown]
# Slow mode's 4, 22 and 202 forward calls grow in step with n, each on the whole input: an
# input of a million entries would need two million runs. Best of three timings on the
# machine that ran this lesson (yours in a notebook; on a published page, the one that built
# it). Your numbers will differ; the trend will not:

# %%
for t in cost.time_gradcheck((10, 50, 200)):
    print(
        f"n={t.n:4}  slow {t.slow_s * 1e3:7.2f} ms   fast {t.fast_s * 1e3:5.2f} ms"
        f"   slow/fast {t.ratio:5.1f}"
    )

# %% [markdown]
# ## fast_mode
#
# `fast_mode=True` skips the Jacobians. It draws two random vectors, p the size of the input
# and q the size of the output, and compares one number, qᵀ J p (J is the Jacobian of lesson
# 2), computed two ways: from the
# nudges, moving x along p (2 forward calls give J·p, then its dot product with q), and from
# backward, one pass with `grad_output = q` (qᵀJ, then its dot product with p). 4 forward
# calls whatever n. (torch's own code calls them u and v; here u stays the unit roundoff of
# lesson 4, as on the notation sheet of lesson 00.) If backward is right, both ways give the
# same number.
#
# `OneEntryWrongSquareFn` is x * x whose backward adds 0.1 to one Jacobian entry (output
# entry 0, input entry 0). Here is fast_mode's number for it on 3 inputs, both ways, with
# torch's own p and q. For x * x, J is diagonal with 2x on it, so J·p is 2x·p entry by entry;
# the wrong backward's qᵀJ is 2x·q except its first entry, 0.1·q0 too large. So the two
# numbers differ by exactly 0.1·p0·q0, the bug's share. Slow mode fails this bug on 10
# inputs. Does fast_mode?

# %%
by_hand = cost.fast_mode_by_hand(n=3)  # x * x with one wrong entry; torch's own p and q
rows = {"x": by_hand.x, "p": by_hand.p, "q": by_hand.q, "J·p": by_hand.jp, "qᵀJ": by_hand.qj}
for name, values in rows.items():
    print(f"{name:4}", "  ".join(f"{v:7.4f}" for v in values))
numeric, analytic = by_hand.numeric, by_hand.analytic
print(f"from the nudges qᵀ(J·p) = {numeric:.6f}, from backward (qᵀJ)·p = {analytic:.6f}")
share = 0.1 * by_hand.p[0] * by_hand.q[0]
print(f"|difference| {abs(analytic - numeric):.2e}, the bug's share 0.1·p0·q0 {share:.2e}")
print(f"allowed {by_hand.allowed:.2e}: fast_mode passes {by_hand.passed}")

# %%
catch = Predict("07-fast-mode-catches", compute=lambda: cost.fast_mode_miss(10).fast_passed)
catch

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your second guess

# %%
miss = cost.fast_mode_miss(10)
print("fast_mode passes:", miss.fast_passed)
print("slow mode passes:", miss.slow_passed)
print(f"the bug's share of qᵀJp, 0.1·p0·q0: {miss.bug_term:.2e}")
print(f"the difference fast_mode allows:    {miss.allowed:.2e}")

# %% [markdown]
# The wrong entry enters qᵀ J p only with the weight p0 · q0 (the first entries of p and q),
# and here that weight is small: the bug adds 6.24e-04 where 2.42e-03 is allowed, so
# fast_mode passes it. torch draws p and q from a fresh generator in its default state, so at
# a given size this verdict repeats on every run; another size draws other p and q. Which
# input sizes let the bug through?

# %%
print("fast_mode misses the bug at n =", cost.fast_mode_misses(range(1, 21)))

# %% [markdown]
# Four sizes out of twenty. Whether the bug slips through depends on the draw of p and q at
# that size, not on the bug, so use fast_mode for a quick screen and slow mode on a small
# input for the verdict.
#
# ## Check yourself

# %%
quiz = Quiz("07-loss-calls")
quiz
