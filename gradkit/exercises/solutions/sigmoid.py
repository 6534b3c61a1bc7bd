"""A correct solution of exercise "sigmoid", shown only when the learner asks for it.

Only the class reaches the learner: :func:`gradkit.exercises.solution` reads it from here.
"""

import torch


class MySigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y * (1 - y)
