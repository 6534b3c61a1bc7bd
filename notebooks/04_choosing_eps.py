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
# # Lesson 4: choosing eps
#
# **After this lesson you will be able to** write the error of the central difference as a
# formula, compute the best eps for a dtype, and explain why gradcheck's default eps = 1e-6
# suits float64 and not float32.

# %% [markdown]
# > **Live widgets.** The widgets need a running Python kernel: they come alive once the cells
# > above them have run, in order from the top. A pink box under a cell is a warning, not an
# > error: the cell still ran.

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
# ε shrinks.

# %% [markdown]
# ## Error 2: rounding, which grows as eps shrinks
#
# A float operation returns the representable number nearest the exact result, so its
# relative error is at most the **unit roundoff** u: half of `torch.finfo(dtype).eps`, the
# gap between 1 and the next number up.

# %%
import torch

import gradkit
from gradkit.numerics import optimal_eps
from gradkit.widgets import EpsilonLab, Quiz

for name in ("float64", "float32"):
    gap = torch.finfo(gradkit.DTYPES[name]).eps
    print(f"{name}: finfo.eps {gap:.3g}, u = finfo.eps / 2 = {gradkit.unit_roundoff(name):.3g}")

# %% [markdown]
# So u = 2⁻⁵³ ≈ 1.11e-16 in float64 and u = 2⁻²⁴ ≈ 5.96e-08 in float32. Each computed
# f(x ± ε) may be off by u·|f|; their difference by twice that; dividing by 2ε leaves a
# **rounding error** of about u·|f|/ε. Added together:
#
# $$E(\varepsilon) \approx \frac{|f'''|\,\varepsilon^2}{6} + \frac{u\,|f|}{\varepsilon}$$

# %% [markdown]
# ## The best eps
#
# The first term wants ε small, the second wants it large. Set the derivative
# |f‴|ε/3 − u|f|/ε² to zero:
#
# $$\varepsilon^* = \left(\frac{3u\,|f|}{|f'''|}\right)^{1/3}$$
#
# For f = x³ at 0.5, |f| = 0.125 and |f‴| = 6:

# %%
derivatives = (0.125, 0.75, 3.0, 6.0)  # f, f', f'', f''' of x³ at 0.5
for name in ("float64", "float32"):
    best = optimal_eps(derivatives, name, "central")
    u = gradkit.unit_roundoff(name)
    at_default = 6 * 1e-6**2 / 6 + u * 0.125 / 1e-6  # E(eps) at eps = 1e-6
    print(f"{name}: eps* = {best:.2g}, predicted error at eps=1e-6: {at_default:.2g}")

# %% [markdown]
# **The payoff.** gradcheck's default eps = 1e-6 sits right next to float64's best,
# 1.9e-06. float32's best, 0.0016, is nearly a thousand times larger, near 1e-3. At 1e-6 the
# formula predicts a float32 error of 0.0075, ten times what gradcheck allows for a slope
# of 0.75 (0.00076, printed below).
#
# ## See the V
#
# `EpsilonLab` measures the error at many values of eps, here for float64 and float32. The
# red line is gradcheck's tolerance; the stars mark each dtype's eps*.
#
# **Try:** set eps to 1e-6, then 1e-3 and 1e-1. **Notice:** each curve is a V. Its left arm
# is rounding (u·|f|/ε), its right arm truncation (|f‴|ε²/6); float32's V bottoms near 1e-3.

# %%
eps_lab = EpsilonLab(f="x³", x=0.5, dtypes=("float64", "float32"))
eps_lab

# %% [markdown]
# Does the measured bottom of each V match the formula? `gradkit.sweep` measures the same
# curves; `show` prints, for each dtype, the formula's eps*, the measured best eps and the
# error there.


# %%
def cube(v):
    return v**3


def show(result):
    for name, curve in result.dtypes.items():
        print(
            f"{name:8}  eps* {curve.optimal_eps:.2g}   measured best eps {curve.best_eps:.2g}"
            f"   error there {curve.best_error:.2g}"
        )


# %%
result = gradkit.sweep(cube, 0.5, dtypes=("float64", "float32"))
print(f"gradcheck allows: {result.tolerance:.2g}")
show(result)

# %% [markdown]
# The measured best eps (1.6e-06 and 0.0025) lies close to eps* (1.9e-06 and 0.0016).
#
# ## The half precisions
#
# float16 and bfloat16 are common in training large models. Their u is far larger, and so
# is their best eps.
#
# **Try:** run the next cell: it measures them and adds them to the lab (the lab's *show
# float16 and bfloat16* button does the same). Then set eps to 1e-6.
# **Notice:** where the two new curves bottom out, and how high that bottom is.

# %%
show(gradkit.sweep(cube, 0.5, dtypes=("float16", "bfloat16")))
for name in ("float16", "bfloat16"):
    slope = gradkit.numeric_slope(cube, 0.5, 1e-6, dtype=name)
    print(f"{name}, eps=1e-6: measured slope {slope:g}")
eps_lab.reveal("float16", "bfloat16")
eps_lab

# %% [markdown]
# Even at their best eps (0.0063 and 0.063) the error, 0.00049 and 0.0039, is near or above
# the 0.00076 that gradcheck allows. At eps = 1e-6, x ± eps rounds back to x: the measured
# slope is 0, an error of 0.75, the whole slope.

# %% [markdown]
# ## An eps for float32 in gradcheck
#
# Back to `SquareFn` at 0.5 in float32 (torch's warning has made its point, so it is
# silenced from here on):

# %%
import warnings

from torch.autograd import gradcheck

from gradkit.zoo import SquareFn

warnings.filterwarnings("ignore", message="Input #0 requires gradient")
x32 = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
for eps in (1e-6, 1e-5, 1e-4, 1e-3):
    ok = gradcheck(SquareFn.apply, (x32,), eps=eps, raise_exception=False)
    print(f"eps={eps:g}: passes {ok}")

# %% [markdown]
# eps = 1e-4 and 1e-3 pass. Then why does gradcheck still want float64? Because the
# rounding term u·|f|/ε grows with |f|: at x = 1000 (f = 1e6) the same eps = 1e-3 fails in
# float32, measuring 1937.5 for a slope of 2000, while float64 at the default eps passes.

# %%
big32 = torch.tensor([1000.0], dtype=torch.float32, requires_grad=True)
print("float32, eps=1e-3:", gradkit.check(SquareFn.apply, (big32,), eps=1e-3).explanation)
big64 = big32.detach().double().requires_grad_()
print("float64, eps=1e-6:", gradcheck(SquareFn.apply, (big64,)))

# %% [markdown]
# In float64 the default eps has room to spare; in float32 no single eps is safe for every
# input. Check backward rules in float64.
#
# ## Check yourself

# %%
quiz = Quiz("04-best-eps")
quiz
