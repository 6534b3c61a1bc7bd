"""What ``f`` may be in a one-variable widget: a function of a tensor, an ``autograd.Function``
subclass or its ``apply`` (the slope drawn is what its backward claims), or the name of a
built-in scalar function of the zoo; :func:`function_menu` makes the menu the widget shows, and
:func:`evaluate` runs f in a dtype (what a picture needs besides the slopes of
:mod:`gradkit.numerics`, rounded as ``numeric_slopes`` rounds).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ...zoo import scalar_functions

__all__ = ["evaluate", "function_menu", "function_owner"]


def function_owner(f: object) -> type | None:
    """The ``autograd.Function`` subclass behind ``f`` (the class or its ``apply``), if any."""
    if isinstance(f, type) and issubclass(f, torch.autograd.Function):
        return f
    owner = getattr(f, "__self__", None)
    if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
        return owner
    return None


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
    owner = function_owner(f)
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


def evaluate(f: Callable, points: torch.Tensor) -> torch.Tensor:
    """``f`` on every entry of ``points``, in their dtype (one call; entry by entry as fallback).

    Raises
    ------
    ValueError
        When f returns more than one number for one input number.
    """
    with torch.no_grad():
        try:
            out = f(points)
            if isinstance(out, torch.Tensor) and out.shape == points.shape:
                return out.to(points.dtype)
        except Exception:  # noqa: BLE001 - a non-broadcasting f is evaluated entry by entry
            pass
        values = []
        for p in points.reshape(-1):
            v = f(p)
            v = v if isinstance(v, torch.Tensor) else torch.tensor(float(v))
            if v.numel() != 1:
                raise ValueError(
                    f"f must return one number for one input number, got shape {tuple(v.shape)}"
                )
            values.append(v.reshape(()).to(points.dtype))
        return torch.stack(values).reshape(points.shape)
