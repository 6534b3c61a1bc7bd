"""A correct solution of exercise "tanh_all_checks", shown only when the learner asks for it.

Only the class reaches the learner: :func:`gradkit.exercises.solution` reads it from here.
"""

import torch


class MyTanh(torch.autograd.Function):
    generate_vmap_rule = True  # torch.func.vmap and jacfwd over MyTanh.apply, as SinFn

    @staticmethod
    def forward(x):
        return torch.tanh(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.set_materialize_grads(False)  # an unused output's gradient arrives as None
        ctx.save_for_backward(output)  # y = tanh(x), whose slope is 1 - y**2
        ctx.save_for_forward(output)  # the jvp needs y too

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:  # no gradient flows in: none flows out
            return None
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y**2)  # one whole-tensor expression: vmap batches it

    @staticmethod
    def jvp(ctx, x_tangent):
        (y,) = ctx.saved_tensors
        return x_tangent * (1 - y**2)  # the same slope, times the tangent
