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

# %% [markdown]
# ## The zoo and its buggy twins
#
# The **zoo**, `gradkit.zoo`, is a collection of ready-made Functions. Each correct Function
# has one or more **buggy twins**: the same forward, with a backward that makes one common
# mistake. `WrongSquareFn` from lesson 5 is the twin of `SquareFn`.
#
# `gradkit.check` sorts every verdict into one of the causes below (lesson 10 adds three
# more, for gradcheck's other checks). Two of them use words of their own: a change **in
# place** writes into a tensor's own memory (`x.mul_(2)`) instead of making a new tensor, and
# an **`as_strided` view** reads another tensor's memory with a layout of its own, so that
# two of its entries can be one number in memory.

# %%
# %matplotlib inline
import textwrap

import matplotlib.pyplot as plt

import gradkit
from gradkit.widgets import Predict, Quiz, ZooHunt
from gradkit.zoo import CATALOGUE

LATER = ("batched_grad", "forward_ad", "undefined_grad")  # the checks of lesson 10
taught = {c: meaning for c, meaning in gradkit.CAUSES.items() if c not in LATER}
for cause, meaning in taught.items():
    print(textwrap.fill(meaning, 100, initial_indent=f"{cause:17} ", subsequent_indent=" " * 18))

# %% [markdown]
# ## One wrong entry among many
#
# Each picture below is one twin's Jacobian: for output entry i (its row) and input entry j
# (its column), the difference between the analytic and the numeric entry, divided by what
# gradcheck allows. Entries within the tolerance are blue (darker means safer), entries
# beyond it red (darker means further off). `OneEntryWrongSquareFn` is x² on 16 inputs,
# whose backward is off in one entry only; beside it, `WrongSquareFn` and
# `ForgotGradOutputSigmoidFn`.
#
# **Notice:** one red entry among 256, where torch's message would print two 16 × 16
# matrices; a wrong constant turns the whole diagonal red; a forgotten `grad_output` turns
# the entries off the diagonal red.

# %%
TWINS = ("OneEntryWrongSquareFn", "WrongSquareFn", "ForgotGradOutputSigmoidFn")
plt.style.use(gradkit.FIGURE_STYLE)  # see-through, grey text: reads on light and dark pages
fig, axes = plt.subplots(1, 3, figsize=(10, 3.6), layout="constrained")
for ax, name in zip(axes, TWINS, strict=True):
    report = gradkit.check(CATALOGUE[name].apply, CATALOGUE[name].inputs())
    numeric, analytic = report.numeric[0][0], report.analytic[0][0]
    allowed = report.atol + report.rtol * numeric.abs()
    ratio = ((analytic - numeric).abs() / allowed).clamp(1e-3, 1e3)  # beyond 1: it fails
    shown = ax.imshow(ratio.log10(), cmap="RdBu_r", vmin=-3, vmax=3)
    n, ticks = len(ratio), range(0, len(ratio), max(1, len(ratio) // 4))
    ax.set(title=name, xlabel="input entry j", ylabel="output entry i", xticks=ticks, yticks=ticks)
    print(f"{name}: a {n} × {n} Jacobian, {int((ratio > 1).sum())} of {n * n} entries red")
fig.colorbar(shown, ax=axes, label="log10(|analytic − numeric| / allowed)")
plt.show()

# %% [markdown]
# ## The hunt
#
# Each Function appears as a numbered specimen, without its telling name or docstring:
# buggy twins and correct Functions, mixed.
#
# **Try:** read a specimen's code and **predict** the cause before you press *Run
# gradcheck*. **Notice:** the explanation, and the zoo's name for the bug. The score counts
# your first tries.

# %%
LATER = ("MissingConjComplexSquareFn", "InplaceSavedExpFn", "RandomForwardFn")
LATER += ("NoisyBackwardTanhFn",)  # bugs of complex numbers, memory and randomness
# the taught bugs and some correct look-alikes, in a fixed mix: the same on every run
specimens = gradkit.zoo.hunt_specimens(leave_out=LATER)
hunt = ZooHunt(names=specimens, causes=("pass", "precision", "bug", "error"))
hunt

# %% [markdown]
# ## Before the zoo is unmasked
#
# Once you have hunted: how many of the specimens does gradcheck pass? The zoo's names for
# all of them follow your guess.

# %%
passes = Predict(
    "06-hunt-passes",
    compute=lambda: sum(
        gradkit.check(CATALOGUE[n].apply, CATALOGUE[n].inputs()).passed for n in hunt.names
    ),
)
passes

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %% [markdown]
# ## The zoo, unmasked
#
# The buggy twins you just hunted, each named after its bug. The zoo holds a few more, of
# kinds this lesson does not teach (complex numbers, memory, randomness); they stay folded.

# %%
from IPython.display import HTML


def items(names):
    return "".join(f"<li><code>{name}</code>: {CATALOGUE[name].bug}</li>" for name in names)


bugs = [name for name, entry in CATALOGUE.items() if not entry.correct and name in hunt.names]


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
print(textwrap.fill(gradkit.check(entry.apply, entry.inputs()).torch_message, 96))

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("06-matmul-shapes")
quiz
