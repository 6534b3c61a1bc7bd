"""A correct solution of exercise "cube", shown only when the learner asks for it.

Only the class reaches the learner: :func:`gradkit.exercises.solution` reads it from here.
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
        return grad_output * 3 * x**2
