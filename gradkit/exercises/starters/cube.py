"""The starting code of exercise "cube": it runs, and its backward holds one common mistake.

Only the class reaches the learner, as ``EXERCISES["cube"].starter``.
"""

import torch


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x  # is this the derivative of x**3?
