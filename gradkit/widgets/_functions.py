"""The function menu of the one-variable widgets: the zoo's scalar functions, the learner's f."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..zoo import scalar_functions

__all__ = ["FunctionChoice", "function_options", "is_custom_function"]


def function_options(f: Callable | str | None, default: str) -> tuple[dict[str, Callable], str]:
    """The function menu: the built-in scalar functions, plus the learner's own f first.

    An ``autograd.Function`` subclass is used through its ``apply`` (its backward is the slope).
    """
    options = dict(scalar_functions())
    if f is None:
        return options, default
    if isinstance(f, str):
        if f not in options:
            raise ValueError(f"f={f!r} is not one of {list(options)}; or pass a function of x")
        return options, f
    if isinstance(f, type) and issubclass(f, torch.autograd.Function):
        return {f"your {f.__name__}": f.apply, **options}, f"your {f.__name__}"
    if not callable(f):
        raise TypeError(
            f"f must be a function of a tensor (e.g. torch.sin), got {type(f).__name__}"
        )
    owner = getattr(f, "__self__", None)
    if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
        return {f"your {owner.__name__}": f, **options}, f"your {owner.__name__}"
    name = getattr(f, "__name__", "") or ""
    label = "your f" if not name or name == "<lambda>" else f"your {name}"
    return {label: f, **options}, label


def is_custom_function(f: Callable) -> bool:
    """Whether ``f`` is an ``autograd.Function``'s ``apply`` (its backward gives the slope)."""
    owner = getattr(f, "__self__", None)
    return isinstance(owner, type) and issubclass(owner, torch.autograd.Function)


class FunctionChoice:
    """What a one-variable widget's function menu and dtype buttons hold (a mixin).

    The widget keeps :func:`function_options`' menu in ``_functions`` and makes
    ``function_dropdown`` and ``dtype_buttons``.
    """

    _functions: dict[str, Callable]

    @property
    def f(self) -> Callable:
        """The function currently selected."""
        return self._functions[self.function_dropdown.value]

    @property
    def dtype(self) -> torch.dtype:
        """The dtype currently selected (EpsilonLab: the highlighted one)."""
        return self.dtype_buttons.value
