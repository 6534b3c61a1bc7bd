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
# # Lesson 6: a hunt through the bug zoo
#
# **After this lesson you will be able to** find a single wrong entry in a large Jacobian,
# and recognise common backward bugs (a wrong constant, a forgotten grad_output, a sign
# error, a missing transpose, an unreduced broadcast, one wrong entry) from what gradcheck
# says.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.
# > A pink box under a cell is a warning, not an error: the cell still ran.

# %% [markdown]
# ## The zoo and its buggy twins
#
# The **zoo**, `gradkit.zoo`, is a collection of ready-made Functions. Each correct Function
# has one or more **buggy twins**: the same forward, with a backward that makes one common
# mistake. `WrongSquareFn` from lesson 5 is the twin of `SquareFn`.
#
# `gradkit.check` sorts every verdict into one of the causes below. Two of them use words of
# their own: a change **in place** writes into a tensor's own memory (`x.mul_(2)`) instead of
# making a new tensor, and an **`as_strided` view** reads another tensor's memory with a
# layout of its own, so that two of its entries can be one number in memory.

# %%
import gradkit
from gradkit.widgets import GradcheckLab, Quiz, ZooHunt
from gradkit.zoo import CATALOGUE

for cause, meaning in gradkit.CAUSES.items():
    print(f"{cause:17} {meaning}")

# %% [markdown]
# ## One wrong entry among many
#
# `GradcheckLab` draws the numeric and analytic Jacobians and a heatmap of their difference
# divided by what gradcheck allows: entries within the tolerance are blue (darker means
# safer), entries beyond it red (darker means further off). Here it holds
# `OneEntryWrongSquareFn`: x² on 16 inputs, whose backward is off in one entry only.
#
# **Try:** read the heatmap, then pick `WrongSquareFn` and `ForgotGradOutputSigmoidFn` from
# the list. **Notice:** one red entry among 256, where torch's message would print two 16 × 16
# matrices; a wrong constant turns the whole diagonal red; a forgotten `grad_output` turns
# the entries off the diagonal red.

# %%
n = CATALOGUE["OneEntryWrongSquareFn"].inputs()[0].numel()
print(f"OneEntryWrongSquareFn: {n} inputs, a {n} × {n} Jacobian, {n * n} entries")
lab = GradcheckLab(fn="OneEntryWrongSquareFn", panels=["verdict", "difference"])
lab

# %% [markdown]
# ## The hunt
#
# Each Function appears as a numbered specimen, without its telling name or docstring. Two
# correct Functions hide among the buggy ones.
#
# **Try:** read a specimen's code and **predict** the cause before you press *Run
# gradcheck*. **Notice:** the explanation, and the zoo's name for the bug. The score counts
# your first tries.

# %%
LATER = ("MissingConjComplexSquareFn", "InplaceSavedExpFn", "RandomForwardFn")
LATER += ("NoisyBackwardTanhFn",)  # bugs of complex numbers, memory and randomness
bugs = [name for name, entry in CATALOGUE.items() if not entry.correct and name not in LATER]
hunt = ZooHunt(names=[*bugs[:2], "CubeFn", *bugs[2:5], "SigmoidFn", *bugs[5:]])
hunt

# %% [markdown]
# ## The zoo, unmasked
#
# The buggy twins you just hunted, each named after its bug. The zoo holds a few more, of
# kinds this lesson does not teach (complex numbers, memory, randomness); they stay folded.

# %%
from IPython.display import HTML


def items(names):
    return "".join(f"<li><code>{name}</code>: {CATALOGUE[name].bug}</li>" for name in names)


later = f"{len(LATER)} more, not taught here (conj, the complex conjugate: 3 + 4i → 3 − 4i)"
HTML(f"<ul>{items(bugs)}</ul><details><summary>{later}</summary><ul>{items(LATER)}</ul></details>")

# %% [markdown]
# ## One bug by hand
#
# The same check without the widget: a sigmoid whose backward forgets to multiply by
# `grad_output`.

# %%
entry = CATALOGUE["ForgotGradOutputSigmoidFn"]
print(gradkit.check(entry.apply, entry.inputs()))

# %% [markdown]
# The numeric Jacobian is diagonal: output entry i depends on input entry i only. To fill
# the analytic row for output entry i, gradcheck runs backward with `grad_output` 1 at
# output entry i and 0 elsewhere. A backward that ignores `grad_output` returns the whole
# vector y(1 − y) whatever i, so every row comes out the same: the diagonal copied
# everywhere. (torch prints the transpose, so in its message each row repeats one value.)
#
# Not every bug reaches the Jacobian comparison. `UnreducedBroadcastAddFn` adds a bias b of
# shape [3] to x of shape [3, 4]: torch **broadcasts** b, using each of its entries across a
# whole row of x, so b's gradient must add up that row. This backward returns it with x's
# shape instead, and autograd refuses it before gradcheck can compare anything:

# %%
entry = CATALOGUE["UnreducedBroadcastAddFn"]
print(gradkit.check(entry.apply, entry.inputs()).torch_message)

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("06-matmul-shapes")
quiz
