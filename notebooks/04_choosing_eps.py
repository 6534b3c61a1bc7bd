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
# # Lesson 4: choosing eps
#
# **After this lesson you will be able to** write the error of the central difference as a
# formula, compute the best eps for a dtype, and explain why gradcheck's default eps = 1e-6
# suits float64 and not float32.
#
# <style>.celltag_notebook-only, .jp-Cell:has(.celltag_notebook-only) { display: none; }
# body[data-voila] .gradkit-voila-only { display: block; }</style>

# %% [markdown] tags=["notebook-only"]
# > **Live widgets.** The widgets need a running Python kernel: run the cells in order from the
# > top (**Run ▸ Run All Cells** runs them all); each widget comes alive once its cell has run.

# %% [markdown]
# ## Error 1: truncation, which shrinks with eps
#
# Taylor's theorem writes f a small step ε to either side of x:
#
# $$
# \begin{aligned}
# f(x+\varepsilon) &= f(x) + \varepsilon f'(x) + \tfrac{\varepsilon^2}{2} f''(x)
#                     + \tfrac{\varepsilon^3}{6} f'''(x) + \dots \\
# f(x-\varepsilon) &= f(x) - \varepsilon f'(x) + \tfrac{\varepsilon^2}{2} f''(x)
#                     - \tfrac{\varepsilon^3}{6} f'''(x) + \dots
# \end{aligned}
# $$
#
# Subtract the second line from the first and divide by 2ε: f(x) and the f″ terms cancel,
#
# $$\frac{f(x+\varepsilon) - f(x-\varepsilon)}{2\varepsilon}
#   = f'(x) + \frac{\varepsilon^2}{6} f'''(x) + \dots$$
#
# so the central difference is off by the **truncation error** |f‴| ε²/6, which shrinks as
# ε shrinks. (ε is the same eps as before, written as a maths letter.)
#
# ## Error 2: rounding, which grows as eps shrinks
#
# A float operation returns the representable number nearest the exact result, so its
# relative error is at most the **unit roundoff** u: half the gap between 1 and the next
# number up. torch calls that gap `torch.finfo(dtype).eps` (*machine epsilon*): despite the
# name, it has nothing to do with gradcheck's nudge eps. (In these lessons the letter u means
# the unit roundoff, and nothing else: lesson 00's notation sheet gives each symbol one
# meaning.)

# %%
import torch

import gradkit
from gradkit.numerics import optimal_eps
from gradkit.widgets import EpsilonLab, Predict, Quiz

for name in ("float64", "float32"):
    gap = torch.finfo(gradkit.DTYPES[name]).eps  # machine epsilon, not a nudge
    print(f"{name}: finfo.eps {gap:.3g}, u = finfo.eps / 2 = {gradkit.unit_roundoff(name):.3g}")
ratio = gradkit.unit_roundoff("float32") / gradkit.unit_roundoff("float64")
print(f"float32's u is {ratio:.2g} times float64's")

# %% [markdown]
# So u = 2⁻⁵³ ≈ 1.11e-16 in float64 and u = 2⁻²⁴ ≈ 5.96e-08 in float32. Lesson 3 met the
# two roundings of a central difference. The **landing**: x ± ε rounds to a float number up
# to u·|x| away, and f moves by |f′| times that. **f's rounding**: each computed f(x ± ε) is
# off by up to u·|f|. Divided by 2ε, both ends together carry at most u·(|f| + |x f′|)/ε:
# that **bound** lets every rounding be at full size and push the same way. Real roundings
# are smaller and partly cancel; the textbook keeps f's term alone, u·|f|/ε, as the typical
# size of the rounding error. Added to the truncation error:
#
# $$E(\varepsilon) \approx \frac{|f'''|\,\varepsilon^2}{6} + \frac{u\,|f|}{\varepsilon}$$
#
# E(ε) estimates the error's **typical size**; it is not a bound. Its rounding term grows
# like 1/ε, as the bound's does, so both give the V the same shape.
#
# ## The best eps
#
# The first term wants ε small, the second wants it large. Set the derivative
# |f‴|ε/3 − u|f|/ε² to zero:
#
# $$\varepsilon^* = \left(\frac{3u\,|f|}{|f'''|}\right)^{1/3}$$
#
# For f = x³ at 0.5, |f| = 0.125, |x f′| = 0.375 and |f‴| = 6. In float64:

# %%
derivatives = (0.125, 0.75, 3.0, 6.0)  # f, f', f'', f''' of x³ at 0.5
print(f"float64: eps* = {optimal_eps(derivatives, 'float64', 'central'):.2g}")

# %% [markdown]
# ## Predict
#
# float32's u is 5.4e8 times float64's. Before it is computed below, work out float32's
# best eps from the formula, and lock in your guess.

# %%
predict = Predict("04-float32-eps", compute=lambda: optimal_eps(derivatives, "float32", "central"))
predict

# %% [markdown] jp-MarkdownHeadingCollapsed=true
# # After your guess

# %%
print(f"the cube root of {ratio:.2g} is {ratio ** (1 / 3):.2g}")
for name in ("float64", "float32"):
    u = gradkit.unit_roundoff(name)
    typical = 1e-6**2 + u * 0.125 / 1e-6  # E(1e-6) for x³ at 0.5, where |f'''| / 6 = 1
    bound = 1e-6**2 + u * (0.125 + 0.375) / 1e-6  # both roundings at full size
    measured = abs(gradkit.numeric_slope(lambda v: v**3, 0.5, 1e-6, dtype=name) - 0.75)
    best = optimal_eps(derivatives, name, "central")
    print(f"{name}: eps* = {best:.2g}; at eps=1e-6: E {typical:.2g}, bound {bound:.2g},")
    print(f"         measured {measured:.3g}")

# %% [markdown]
# **The payoff.** eps* grows like the cube root of u: a u 5.4e8 times larger moves it only
# 810 times, from 1.9e-06 to 0.0016. gradcheck's default eps = 1e-6 sits right next to
# float64's best; float32's best is near 1e-3. At 1e-6 float32's measured error, 0.00996,
# lies above E's typical size, 0.0075, and below the bound, 0.03: more than ten times what
# gradcheck allows for a slope of 0.75 (0.00076, printed below).
#
# ## See the V
#
# `EpsilonLab` measures the error at many values of eps, here for float64 and float32. The
# red line is gradcheck's tolerance; the stars mark each dtype's eps*.
#
# **Try:** set eps to 1e-6, then 1e-3 and 1e-1. **Notice:** each curve is a V. Its left arm
# is rounding (it grows like 1/ε), its right arm truncation (|f‴|ε²/6); float32's V bottoms
# near 1e-3. Left of about 1e-8, float32's curve lies flat at 0.75, the whole slope (the plot
# labels this shelf *x ± eps round to x: slope 0*): there x + ε and x − ε both round back to
# 0.5 (half a spacing is 1.49e-08 below 0.5 and 2.98e-08 above), so f(x + ε) − f(x − ε) = 0,
# the numeric slope is 0, and a smaller ε can do no worse. (The lab's *show float16 and
# bfloat16* button adds two more dtypes; the appendix explains them.)

# %%
half = torch.tensor(0.5)  # float32
half_below = (half - torch.nextafter(half, torch.tensor(0.0))).item() / 2
half_above = (torch.nextafter(half, torch.tensor(1.0)) - half).item() / 2
print(f"float32 at 0.5: half a spacing is {half_below:.3g} below, {half_above:.3g} above")
eps_lab = EpsilonLab(f="x³", x=0.5, dtypes=("float64", "float32"), panels=["curves", "theory"])
eps_lab

# %% [markdown]
# ## Two best eps: the formula's and the measured one
#
# The lab's *best eps* readout names the eps with the smallest error **measured** on its eps
# steps (1, 2 and 5 in every decade), next to the formula's eps*. They differ. The same
# measurement, on the same steps, held against E(ε) and the bound:

# %%
steps = [m * 10.0**k for k in range(-12, 0) for m in (1, 2, 5)]  # the lab's eps steps
result = gradkit.sweep(lambda v: v**3, 0.5, eps=steps, dtypes=("float64", "float32"))
print(f"gradcheck allows: {result.tolerance:.2g}")
for name, curve in result.dtypes.items():
    u, star, measured = gradkit.unit_roundoff(name), curve.optimal_eps, curve.error.tolist()
    pairs = list(zip(steps, measured, strict=True))
    above = sum(m > e**2 + u * 0.125 / e for e, m in pairs)  # above E(eps)
    over = sum(m > e**2 + u * 0.5 / e for e, m in pairs)  # above the bound
    print(f"{name}: eps* {star:.2g}, E there {curve.optimal_error:.2g}")
    print(f"  measured best eps {curve.best_eps:.2g}; above E at {above} of {len(steps)} steps,")
    print(f"  above the bound at {over}")
    near = [f"{e:g}: {m:.2g}" for e, m in pairs if 0.2 < e / star < 5]
    print("  measured errors near eps*: " + ", ".join(near))

# %% [markdown]
# E(ε) is a typical size, not a bound: the measured error lies above it at some steps and
# below it at the others, and never above the bound. Near the bottom, which step comes out
# smallest is partly luck: float32's 3.6e-07 at 0.002 is a lucky landing, and in float64
# three steps tie at 6.2e-12 (the lab names the first). The bottom of the V is a wide, noisy
# valley with eps* in its middle: any eps within a few times of eps* does about as well. That
# is why the lab's measured best eps and the formula's eps* differ, and why either will do.
#
# ## An eps for float32 in gradcheck
#
# Back to `SquareFn` at 0.5 in float32 (lesson 3 showed torch's warning about it, so it is
# silenced here):

# %%
import textwrap
import warnings

from torch.autograd import gradcheck

from gradkit.zoo import SquareFn

warnings.filterwarnings("ignore", message="Input #0 requires gradient")
x32 = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
for eps in (1e-6, 1e-5, 1e-4, 1e-3):
    ok = gradcheck(SquareFn.apply, (x32,), eps=eps, raise_exception=False)
    print(f"eps={eps:g}: passes {ok}")

# %% [markdown]
# eps = 1e-4 and 1e-3 pass. Then why does gradcheck still want float64? Because rounding
# grows with the size of the numbers, u·(|f| + |x f′|)/ε: at x = 1000 (f = 1e6) the same
# eps = 1e-3 fails in float32, measuring 1937.5 for a slope of 2000, while float64 at the
# default eps passes.

# %%
big32 = torch.tensor([1000.0], dtype=torch.float32, requires_grad=True)
why = gradkit.check(SquareFn.apply, (big32,), eps=1e-3).explanation
print(textwrap.fill(f"float32, eps=1e-3: {why}", 96))
big64 = big32.detach().double().requires_grad_()
print("float64, eps=1e-6:", gradcheck(SquareFn.apply, (big64,)))

# %% [markdown]
# In float64 the default eps has room to spare; in float32 no single eps is safe for every
# input. Check backward rules in float64.
#
# ## Check yourself

# %%
quiz = Quiz("04-bfloat16-eps")
quiz
