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
# **After this lesson you will be able to** recognise common backward bugs (a wrong
# constant, a forgotten grad_output, a sign error, a missing transpose, an unreduced
# broadcast, a missing conj, an in-place change, a random forward, a noisy backward, one
# wrong entry) from what gradcheck says.

# %% [markdown]
# > **Live widgets.** The widgets need a running Python kernel: they come alive once the cells
# > above them have run, in order from the top. A pink box under a cell is a warning, not an
# > error: the cell still ran.

# %% [markdown]
# ## The zoo and its buggy twins
#
# The **zoo**, `gradkit.zoo`, is a collection of ready-made Functions. Each correct Function
# has one or more **buggy twins**: the same forward, with a backward that makes one common
# mistake. `WrongSquareFn` from lesson 5 is the twin of `SquareFn`.
#
# ## The causes
#
# `gradkit.check` sorts every verdict into one of these causes:

# %%
import gradkit
from gradkit.zoo import CATALOGUE

for cause, meaning in gradkit.CAUSES.items():
    print(f"{cause:17} {meaning}")

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
from gradkit.widgets import Quiz, ZooHunt

hunt = ZooHunt()
hunt

# %% [markdown]
# ## The zoo, unmasked
#
# The buggy twins you just hunted, each named after its bug:

# %%
for name, entry in CATALOGUE.items():
    if not entry.correct:
        print(f"{name:27} {entry.description}")

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
# shape [3] to x of shape [3, 4], and returns b's gradient with x's shape. Autograd refuses
# it before gradcheck can compare anything:

# %%
entry = CATALOGUE["UnreducedBroadcastAddFn"]
print(gradkit.check(entry.apply, entry.inputs()).torch_message)

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("06-broadcast-error")
quiz
