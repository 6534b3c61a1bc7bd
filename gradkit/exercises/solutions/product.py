"""A correct solution of exercise "product", shown only when the learner asks for it.

Only the class reaches the learner: :func:`gradkit.exercises.solution` reads it from here.
"""

import torch


class MyProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * b, grad_output * a
