"""The starting code of exercise "sigmoid": it runs, and its backward holds one common mistake.

Only the class reaches the learner, as ``EXERCISES["sigmoid"].starter``.
"""

import torch


class MySigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x) * (1 - x)  # sigma'(x) = ?
