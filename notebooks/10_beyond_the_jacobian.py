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
# # Lesson 10: beyond the Jacobian
#
# **After this lesson you will be able to** switch on gradcheck's other checks (vmap, forward
# mode, undefined gradients), read what each failure means, write a Function that passes them
# all, use `torch.func.jacrev` as a second opinion on a backward, and test your own Function
# with a checklist.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>
#
# <div class="gradkit-voila-only" hidden="hidden">
#
# **This lesson's exercise is written in code.** This page shows the lesson without its
# code, so the exercise cannot be written here: open the lesson in Jupyter (Notebook 7 or
# JupyterLab) to do it. Its hints and solution work on this page too.
#
# </div>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.
# >
# > **The exercise** works as in lesson 8: fix `MyTanh` in its cell, run that cell again and
# > press *Check my code*; the panel names the next check that fails.

# %% [markdown]
# ## One Function, every check
#
# So far gradcheck compared two Jacobians. It can check more, each behind a switch:
#
# | switch | torch's default | what it checks |
# | --- | --- | --- |
# | `check_batched_grad` | off | backward runs under `vmap`, on a stack of grad_outputs at once |
# | `check_forward_ad` | off | the forward-mode rule `jvp` agrees with the nudges |
# | `check_undefined_grad` | on | backward copes with a gradient that is None |
# | `check_backward_ad` | on | the comparison you know, through backward |
#
# A Jacobian that is right says nothing about the first three: a backward can get every entry
# right and still break under `vmap`, in forward mode, or when a gradient is None. Each check
# below meets a zoo twin whose Jacobian is right and which fails that one check, and then the
# fix, as `gradkit.zoo.SinFn` writes it: SinFn computes sin(x) and passes every check, and
# each part of its code shows where its check needs it. Exercise 4, at the end, hands you a
# tanh that fails all three, to fix. (Symbols as on the notation sheet of lesson 00.)

# %%
import inspect
import textwrap

import torch

import gradkit
from gradkit.widgets import ExercisePanel, Predict, Quiz
from gradkit.zoo import EntryLoopSinFn, ForgotTangentSinFn, NoNoneGuardSinFn, SinCosFn, SinFn

ALL_ON = {"check_batched_grad": True, "check_forward_ad": True, "check_undefined_grad": True}
x = torch.tensor([0.5, 1.5, -0.75], dtype=torch.float64, requires_grad=True)
print("SinFn, every check on:", gradkit.check(SinFn.apply, (x,), **ALL_ON).cause)

# %% [markdown]
# ## Check 1: vmap (`check_batched_grad`)
#
# `torch.func.jacrev`, `hessian` and per-sample gradients do not call backward once per
# grad_output: `vmap` runs it once on the whole stack, each operation on a batch. Here is
# `EntryLoopSinFn`'s backward, which fills a fresh buffer one entry at a time. gradcheck's
# Jacobian comparison passes it; with `check_batched_grad=True`, it fails.


# %%
def explain(report):
    print(f"passed: {report.passed}   cause: {report.cause}")
    print("why:", textwrap.fill(report.explanation, 96, subsequent_indent="     "))
    print("fix:", textwrap.fill(report.suggestion, 96, subsequent_indent="     "))


print(textwrap.dedent(inspect.getsource(EntryLoopSinFn.backward)))
print("Jacobian comparison passes:", gradkit.check(EntryLoopSinFn.apply, (x,)).passed)
explain(gradkit.check(EntryLoopSinFn.apply, (x,), check_batched_grad=True))

# %% [markdown]
# `grad = torch.empty_like(x)` holds one row of gradients, while under `vmap` each
# `grad_output[i]` is a whole batch of them: writing a batch into one slot is the error torch
# reports. `.item()`, `float(...)` and `out=` into a fresh buffer fail the same way. The fix
# is `SinFn`'s one expression, `grad_output * torch.cos(x)`, which works on any batch; SinFn
# also sets `generate_vmap_rule = True`, so that `vmap` batches it by running these same rules
# on batched tensors.
#
# **A second opinion.** `torch.func.jacrev` builds the analytic Jacobian from backward, under
# `vmap`: compare it with the nudges, and it fails where `check_batched_grad` fails.

# %%
nudged = gradkit.numeric_jacobian(SinFn.apply, (x,))[0][0]
by_jacrev = torch.func.jacrev(SinFn.apply)(x.detach())
print(f"SinFn: jacrev vs nudges, largest |difference| {(by_jacrev - nudged).abs().max():.1e}")
try:
    torch.func.jacrev(EntryLoopSinFn.apply)(x.detach())
except RuntimeError as error:
    print(textwrap.fill(f"EntryLoopSinFn under jacrev: {str(error).split('. ')[0]}", 96))

# %% [markdown]
# ## Check 2: forward mode (`check_forward_ad`)
#
# Backward turns a grad_output g into gᵀJ, a row at a time (g = e<sub>i</sub> gives row i).
# **Forward mode** works the other way round: it pushes a **tangent** p, a direction in which
# x moves, through the Function's `jvp` and gets J·p, a column at a time. (A third meaning of
# *forward*: neither a Function's `forward` nor lesson 1's forward difference, but
# differentiation that runs along with forward.) gradcheck tries p = each unit vector
# e<sub>j</sub> in turn, which gives J column by column, and compares it with the nudges.
# `ForgotTangentSinFn`'s jvp returns cos(x) whatever the tangent. For these 3 inputs, how many
# of the 9 entries of its forward-mode Jacobian are wrong?

# %%
print(textwrap.dedent(inspect.getsource(ForgotTangentSinFn.jvp)))
forward_jacobian = torch.func.jacfwd(ForgotTangentSinFn.apply)

# %%
jvp_predict = Predict(
    "10-jvp-entries",
    compute=lambda: int((forward_jacobian(x.detach()) != by_jacrev).sum()),
)
jvp_predict

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %%
print("jacfwd, through the jvp:\n", forward_jacobian(x.detach()))
print("jacrev, through backward:\n", by_jacrev)
explain(gradkit.check(ForgotTangentSinFn.apply, (x,), check_forward_ad=True))
print("\nSinFn's setup_context and jvp:")
for rule in (SinFn.setup_context, SinFn.jvp):
    print(textwrap.dedent(inspect.getsource(rule)))

# %% [markdown]
# Each column should be cos(x) times the tangent, zero off the diagonal; forgetting the
# tangent puts cos(x) in every column, so the diagonal happens to be right and the rest is
# wrong. The fix, printed last above as SinFn writes it: `return x_tangent * torch.cos(x)`,
# the same derivative backward uses. The jvp needs x, so SinFn saves it for forward mode too.
# Its `forward` takes no `ctx`; a separate `setup_context` saves what the rules need,
# `save_for_backward` for backward and `save_for_forward` for `jvp`, the form `torch.func`
# (`vmap`, `jacrev`, `jacfwd`) asks of a Function.
#
# Tensors go through `ctx.save_for_backward` (or `save_for_forward`), never onto `ctx` as
# attributes: autograd then raises an error when a saved tensor was changed in place (the
# zoo's `InplaceSavedExpFn` does that, and torch stops it), and saved-tensor hooks can move
# them off the GPU. Plain Python values (a dim, a flag, a shape) go straight onto `ctx`, as
# `ctx.dim = dim`. A Function whose backward is not written yet can test forward mode alone
# with `check_forward_ad=True, check_backward_ad=False`.
#
# ## Check 3: undefined gradients (`check_undefined_grad`)
#
# When a loss uses only some outputs of a Function, the others get no gradient. After
# `ctx.set_materialize_grads(False)`, backward receives None for those instead of a tensor of
# zeros (it skips work). `SinCosFn` returns two outputs, so its backward takes two gradients,
# guards each one and checks `ctx.needs_input_grad` before doing any work:

# %%
print(textwrap.dedent(inspect.getsource(SinCosFn.backward)))
sin_only = SinCosFn.apply(x)[0].sum()  # cos(x) unused: its gradient is None
print("gradient through sin only:", torch.autograd.grad(sin_only, x)[0])
print("NoNoneGuardSinFn's backward:")
print(textwrap.dedent(inspect.getsource(NoNoneGuardSinFn.backward)))
plain = {"check_undefined_grad": False}
print("Jacobian comparison passes:", gradkit.check(NoNoneGuardSinFn.apply, (x,), **plain).passed)
explain(gradkit.check(NoNoneGuardSinFn.apply, (x,)))

# %% [markdown]
# This check is on by default, so gradcheck finds the missing guard without being asked; its
# message is Python's own TypeError. The fix is the first line of `SinFn`'s backward,
# `if grad_output is None: return None`, one guard per output (`SinFn`'s `setup_context`
# turns the zeros off with `ctx.set_materialize_grads(False)`, so the guard is needed).
#
# Two more tools of the Function API. `ctx.mark_non_differentiable(indices)` tells autograd
# that an output (an argmax, a mask) has no gradient: nothing flows back through it, and
# backward receives zeros for it (None once gradients are not materialized). Integer outputs
# are marked for you. `@once_differentiable` on backward makes a second
# derivative through it raise a clear error, for a backward written with operations autograd
# cannot follow (numpy, `.item()`): without it, `gradgradcheck` (appendix) would catch only a
# wrong answer, silently.
#
# ## Exercise 4: a tanh that passes every check
#
# `MyTanh` computes tanh(x) with a `setup_context`, as SinFn does, and its backward's
# Jacobian is right: the slope is 1 − y², with the output y = tanh(x) saved for backward. Yet
# it fails all three checks of this lesson. The panel switches them on in `gradkit.check` and
# names the first that fails: fix that one, check again, and go on until all three pass.
# Which line breaks vmap, what does forward mode ask for that is missing, and what happens
# when grad_output is None?


# %%
class MyTanh(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.tanh(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.set_materialize_grads(False)  # an unused output's gradient arrives as None
        ctx.save_for_backward(output)  # y = tanh(x), whose slope is 1 - y**2

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return torch.mul(grad_output, 1 - y**2, out=torch.empty_like(y))  # no temporary


# %%
tanh_panel = ExercisePanel("tanh_all_checks")
tanh_panel

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("10-two-outputs")
quiz

# %% [markdown]
# ## Checklist: testing a custom backward
#
# 1. **float64 inputs** (complex128 for complex), each with `requires_grad=True`.
# 2. **Small inputs with unequal sizes**, e.g. 3 × 4 and not 4 × 4: a missing transpose then
#    fails loudly, and slow mode stays cheap (2n + 2 forward calls).
# 3. **Ordinary values**, more than eps away from kinks (0 for relu, abs).
# 4. **Slow mode** for the verdict; fast_mode only as a quick screen.
# 5. **Read the cause**: *precision* → float64; *bug* → the worst entry and its pattern;
#    *error* → torch's message; *batched_grad*, *forward_ad*, *undefined_grad* → this lesson.
# 6. **Every input**: one gradient per forward input, in order (None for a non-tensor),
#    each of its input's shape (sum over broadcast dimensions).
# 7. **The other checks**: `check_batched_grad=True` if anyone will `vmap` or `jacrev` it;
#    `check_forward_ad=True` if it has a `jvp`; a None guard per output.
# 8. **Randomness**: a deterministic forward; `nondet_tol` for a noisy backward (appendix).
# 9. **Twice differentiable?** `gradgradcheck` too (appendix).
# 10. **Low precision** is a separate test against a float64 reference (appendix).
