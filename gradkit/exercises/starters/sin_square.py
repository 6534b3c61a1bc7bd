"""The starting code of exercise "sin_square": it runs, and its backward forgets the chain rule's
inner derivative.

Only the class reaches the learner, as ``EXERCISES["sin_square"].starter``.
"""

import torch


class MySinSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x**2)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.cos(x**2)  # the outer derivative; and the inner one?
