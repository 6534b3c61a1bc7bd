"""A correct solution of exercise "prod", shown only when the learner asks for it.

Only the class reaches the learner: :func:`gradkit.exercises.solution` reads it from here.
"""

import torch


class MyProd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.prod()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        flat = x.reshape(-1)  # any shape: 0-d, empty, transposed
        others = flat.expand(flat.numel(), -1).clone()  # row j: a copy of every entry
        others.fill_diagonal_(1.0)  # ... with entry j left out of the product
        return grad_output * others.prod(dim=1).reshape(x.shape)
