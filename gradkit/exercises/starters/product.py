"""The starting code of exercise "product": it runs, and its backward holds one common mistake.

Only the class reaches the learner, as ``EXERCISES["product"].starter``.
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
        return grad_output * a, grad_output * b  # one gradient per input, in order
