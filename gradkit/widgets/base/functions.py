"""What ``f`` may be in a one-variable widget: a function of a tensor, an ``autograd.Function``
subclass or its ``apply`` (the slope drawn is what its backward claims), or the name of a
built-in scalar function of the zoo; :func:`function_menu` makes the menu the widget shows.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ...zoo import scalar_functions

__all__ = ["function_menu", "is_custom_function"]


def _function_owner(f: object) -> type | None:
    """The ``autograd.Function`` subclass behind ``f`` (the class or its ``apply``), if any."""
    if isinstance(f, type) and issubclass(f, torch.autograd.Function):
        return f
    owner = getattr(f, "__self__", None)
    if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
        return owner
    return None


def is_custom_function(f: Callable) -> bool:
    """Whether ``f`` is an ``autograd.Function`` (its backward gives the slope)."""
    return _function_owner(f) is not None


def function_menu(f: object, default: str) -> tuple[dict[str, Callable], str]:
    """The menu (label -> callable) and the label selected first.

    Raises
    ------
    ValueError
        For a name that is not a built-in function.
    TypeError
        For anything that is neither callable nor a name.
    """
    menu = dict(scalar_functions())
    if f is None:
        return menu, default
    if isinstance(f, str):
        if f not in menu:
            raise ValueError(f"f={f!r} is not one of {list(menu)}; or pass a function of x")
        return menu, f
    owner = _function_owner(f)
    if owner is not None:
        label = f"your {owner.__name__}"
        return {label: owner.apply, **menu}, label
    if not callable(f):
        raise TypeError(
            f"f must be a function of a tensor (e.g. torch.sin) or one of {list(menu)}, "
            f"got {type(f).__name__}"
        )
    name = getattr(f, "__name__", "") or ""
    label = "your f" if not name or name == "<lambda>" else f"your {name}"
    return {label: f, **menu}, label
