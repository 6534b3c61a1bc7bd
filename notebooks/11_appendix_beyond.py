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
# # Appendix (optional): beyond the basics
#
# **After this appendix you will be able to** tell a kink from a bug, handle random
# forwards and noisy backwards, check complex inputs and second derivatives, and say what
# half precision and TF32 do to the numbers you compare. Each topic stands alone: read the
# ones you need.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %%
# %matplotlib inline
import textwrap

import matplotlib.pyplot as plt
import torch
from torch.autograd import gradcheck, gradgradcheck

import gradkit
from gradkit import zoo
from gradkit.widgets import Quiz, SlopeExplorer

plt.style.use(gradkit.FIGURE_STYLE)  # see-through, grey text: reads on light and dark pages

# %% [markdown]
# ## 1. Kinks: relu and abs at 0
#
# At a **kink** the slope from the left differs from the slope from the right. The central
# difference straddles it and measures their average.

# %%
for x0 in (0.0, 5e-7, 1e-5):
    for fn in (zoo.ReluFn, zoo.AbsFn):
        x = torch.tensor([x0], dtype=torch.float64, requires_grad=True)
        r = gradkit.check(fn.apply, (x,))
        print(
            f"{fn.__name__} at {x0:g}: {r.cause:4}  numeric {r.worst.numeric:.4g}"
            f"  analytic {r.worst.analytic:.4g}"
        )

# %% [markdown]
# relu at 0: numeric 0.5 (the average of 0 and 1) against the rule's 0, so it fails. abs at
# 0 passes by symmetry: numeric 0 (the average of −1 and 1), and the rule's sign(0) = 0. At
# 5e-07, closer to 0 than eps = 1e-6, both fail; at 1e-05 both pass. The rules are fine:
# keep test inputs more than eps away from kinks.
#
# **Try:** press x's + button once: it moves x by far more than eps.
# **Notice:** at 0 the secant through x ± eps straddles the kink with slope 0.5, while the
# tangent is flat; one notch up both read 1.

# %%
explorer = SlopeExplorer(f="relu(x)", x=0.0, eps=1e-3, panels=["curve"])
explorer

# %% [markdown]
# ## 2. Random forwards and noisy backwards
#
# **Dropout** zeroes random entries during training. A dropout-like forward draws a new
# random mask (which entries to zero) on every call, so the nudged outputs
# change by far more than the nudge. Two runs on the same input:

# %%
torch.manual_seed(0)
entry = zoo.CATALOGUE["RandomForwardFn"]
(x,) = entry.inputs()
first, second = entry.apply(x).detach(), entry.apply(x).detach()
print(textwrap.fill(gradkit.check(entry.apply, entry.inputs()).explanation, 96))

# %%
gap = (first - second).abs()
print(f"the two runs plotted differ by up to {gap.max():g} at output entry {int(gap.argmax())}")
fig, ax = plt.subplots(figsize=(6.5, 2.2), layout="constrained")
ax.plot(first, "o", label="run 1")
ax.plot(second, "x", label="run 2")
ax.set(xlabel="output entry", ylabel="value", title="One input, two forward runs")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)  # beside the data
plt.show()

# %% [markdown]
# gradkit's sentence and the plot's line state one fact in one wording: two runs on one input
# differ, by up to the largest gap, at the output entry named (counted as on lesson 00's
# notation sheet). The check draws masks of its own, so on another draw the entry that moves
# most can change; every pair of runs differs somewhere. Fix the randomness for the check (a
# generator started from a fixed state inside forward, or dropout off).
#
# A backward can be noisy too. On a GPU many threads often add into one number with
# **`atomicAdd`**, an addition that one thread at a time completes; the order of the additions
# changes from run to run, and with it the last bits of the sum. Such a backward answers
# slightly differently for the same input; gradcheck asks backward twice and compares.
# `nondet_tol` accepts that much noise:

# %%
entry = zoo.CATALOGUE["NoisyBackwardTanhFn"]
print("noisy backward passes:", gradkit.check(entry.apply, entry.inputs()).passed)
tolerant = gradkit.check(entry.apply, entry.inputs(), nondet_tol=1e-8)
print("with nondet_tol=1e-8:", tolerant.passed)

# %% [markdown]
# ## 3. Complex inputs: the missing conj
#
# **conj(z)**, the complex conjugate, flips the sign of the imaginary part: 3 + 4i becomes
# 3 − 4i. torch differentiates complex functions with **Wirtinger calculus**, which treats z
# and conj(z) as two separate variables. For a function such as z², its convention wants
# backward to return `grad_output * conj(df/dz)`; here df/dz = 2z. gradcheck checks the real
# and imaginary parts of the outputs separately. Forgetting `.conj()` fails on the imaginary
# part:

# %%
z = zoo.CATALOGUE["ComplexSquareFn"].inputs()
print("with conj:   ", gradcheck(zoo.ComplexSquareFn.apply, z, raise_exception=False))
report = gradkit.check(zoo.MissingConjComplexSquareFn.apply, z)
print("without conj:", report.passed)
print(report.torch_message.splitlines()[0])

# %% [markdown]
# The picture: without `conj`, each returned gradient is the mirror image of the right one
# across the real axis.

# %%
wrong = (2 * z[0]).detach()
right = wrong.conj().resolve_conj()
fig, ax = plt.subplots(figsize=(5.5, 3), layout="constrained")
ax.scatter(right.real.tolist(), right.imag.tolist(), marker="o", label="conj(2z): right")
ax.scatter(wrong.real.tolist(), wrong.imag.tolist(), marker="x", label="2z: missing conj")
ax.axhline(0, color="grey", linewidth=0.8)
ax.set(xlabel="real part", ylabel="imaginary part", title="Gradients for z²")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
plt.show()


# %% [markdown]
# ## 4. Second derivatives: gradgradcheck
#
# `gradgradcheck` checks the backward of your backward. A backward that passes gradcheck
# can still cut the graph, and then its own gradient is 0: `DetachedSquareFn` is `SquareFn`
# with a backward of `grad_output * 2 * x.detach()`.


# %%
class DetachedSquareFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x.detach()


# %%
x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print("gradcheck:    ", gradcheck(DetachedSquareFn.apply, (x,)))
print("gradgradcheck:", gradgradcheck(DetachedSquareFn.apply, (x,), raise_exception=False))
print("SquareFn gradgradcheck:", gradgradcheck(zoo.SquareFn.apply, (x,)))

# %% [markdown]
# The picture: the second derivative of x² is 2 everywhere; through the detached backward,
# autograd sees 0.

# %%
grid = torch.linspace(-1, 1, 21, dtype=torch.float64, requires_grad=True)
fig, ax = plt.subplots(figsize=(6.5, 2.2), layout="constrained")
for fn, style in ((zoo.SquareFn, "-"), (DetachedSquareFn, "--")):
    (slope,) = torch.autograd.grad(fn.apply(grid).sum(), grid, create_graph=True)
    if slope.requires_grad:
        (curve,) = torch.autograd.grad(slope.sum(), grid)
    else:  # the detached backward left no graph behind: autograd sees a derivative of 0
        curve = torch.zeros_like(grid)
    ax.plot(grid.detach(), curve.detach(), style, label=fn.__name__)
ax.set(xlabel="x", ylabel="second derivative", title="d²/dx² of x², through backward")
ax.set_xticks([-1, -0.5, 0, 0.5, 1])  # five ticks: room between their labels
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
plt.show()


# %% [markdown]
# ## 5. Low precision: float16, bfloat16 and TF32
#
# float16 and bfloat16 are common in training large models. They keep far fewer significant
# bits (mantissa bits, lesson 3) than float32, so their u (the unit roundoff) is far larger,
# and so is their best eps. x³ at 0.5 again, measured on EpsilonLab's eps steps (lesson 4), as
# its *show float16 and bfloat16* button shows them:

# %%
steps = [m * 10.0**k for k in range(-12, 0) for m in (1, 2, 5)]  # the lab's eps steps
result = gradkit.sweep(lambda v: v**3, 0.5, eps=steps, dtypes=("float16", "bfloat16"))
exact = gradkit.analytic_slope(lambda v: v**3, 0.5)
print(f"gradcheck allows: {result.tolerance:.2g}; the exact slope is {exact:g}")
for name, curve in result.dtypes.items():
    bits = int(1 / torch.finfo(gradkit.DTYPES[name]).eps).bit_length()
    slope = gradkit.numeric_slope(lambda v: v**3, 0.5, 1e-6, dtype=name)
    print(f"{name}: {bits} significant bits, eps* {curve.optimal_eps:.2g}")
    print(f"  measured best eps {curve.best_eps:.2g}, error there {curve.best_error:.2g}")
    print(f"  at eps=1e-6 the slope reads {slope:g}")

# %% [markdown]
# Even at its best eps float16's error, 0.00049, is close to the 0.00076 that gradcheck
# allows, and bfloat16's, 0.012, is far above it. At eps = 1e-6, x ± eps rounds back to x:
# the measured slope is 0, an error of 0.75, the whole slope. Check a rule in float64, then
# test a low-precision kernel against a float64 reference with a tolerance that fits its
# dtype.
#
# On NVIDIA GPUs from the Ampere generation on, float32 matrix products may run in **TF32**,
# which keeps only the first 10 bits of float32's mantissa
# (`torch.backends.cuda.matmul.allow_tf32`). The CPU can imitate that rounding:


# %%
def to_tf32(t):  # round float32 to 10 mantissa bits, as TF32 does
    return ((t.view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)


gen = torch.Generator().manual_seed(0)
a, b = torch.randn(2, 256, 256, generator=gen)
exact = a.double() @ b.double()
errors = {}
for name, product in (("float32", a @ b), ("TF32-like", to_tf32(a) @ to_tf32(b))):
    errors[name] = ((product.double() - exact).norm() / exact.norm()).item()
    print(f"{name:9} relative error {errors[name]:.1e}")

# %%
fig, ax = plt.subplots(figsize=(4, 2.4), layout="constrained")
bars = ax.bar(list(errors), list(errors.values()))
low, high = min(errors.values()), max(errors.values())
# a log axis from a decade below the smallest bar, so every bar stands above the axis's foot
ax.set(yscale="log", ylim=(low / 10, high * 10), ylabel="relative error")
ax.set_title("256 × 256 matmul against float64")
ax.bar_label(bars, labels=[f"{e:.1e}" for e in errors.values()], padding=2)
plt.show()

# %% [markdown]
# About a thousand times more error: compare TF32 results against float64 with a tolerance
# near 1e-3, not 1e-5. gradcheck itself runs in float64, which TF32 never touches. On a GPU
# the measurement below uses the real thing; without one it says so and skips.

# %%
if torch.cuda.is_available():
    print("GPU:", torch.cuda.get_device_name())
    a_gpu, b_gpu, saved = a.cuda(), b.cuda(), torch.backends.cuda.matmul.allow_tf32
    for allow in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = allow
        product = (a_gpu @ b_gpu).double().cpu()
        error = (product - exact).norm() / exact.norm()
        print(f"GPU float32 matmul, allow_tf32={allow}: relative error {error:.1e}")
    torch.backends.cuda.matmul.allow_tf32 = saved
else:
    print("No CUDA device here: the GPU TF32 comparison is skipped (needs an NVIDIA GPU).")

# %% [markdown]
# ## Check yourself

# %%
quiz = Quiz("11-leaky-kink")
quiz
