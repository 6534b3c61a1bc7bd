"""Python state a function can reach, fingerprinted to tell whether a call changed it.

The batched engine calls a function far fewer times than torch's gradcheck (which makes one call
per nudge), and in another order. A function whose output depends on Python state it changes
(a call counter, a cache refreshed on a schedule, an attribute it updates) answers the two
sequences of calls differently, so the batched engine hands such a function to torch. Depends
on torch only.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable

import torch

__all__ = ["python_state"]


_PLAIN = (bool, int, float, complex, str, bytes, type(None))
#: How deep the fingerprint follows references from ``fn`` (closures, globals, attributes).
_DEPTH = 4


def python_state(fn: Callable) -> list:
    """A fingerprint of the Python state ``fn`` can reach, to tell whether a call changed it.

    Followed from ``fn``: a bound method's object and function, a partial's arguments, a
    function's closure cells, the globals its code names and its attributes, a class's
    attributes (an ``autograd.Function``'s ``apply`` reaches its class), an object's
    ``__dict__`` and the entries of small containers. Numbers and strings count by value,
    containers by length, tensors by their version counter (in-place writes), everything else
    by identity; torch's own modules and objects are not entered.
    """
    state: list = []
    seen: set[int] = set()

    def visit(label: str, obj: object, depth: int) -> None:
        state.append((label, _shallow(obj)))
        if depth >= _DEPTH or id(obj) in seen or isinstance(obj, _PLAIN):
            return
        seen.add(id(obj))
        try:
            children = _references(obj)
        except Exception:  # noqa: BLE001 - an object that refuses to be read counts by identity
            children = []
        for name, child in children:
            visit(f"{label}.{name}", child, depth + 1)

    visit("fn", fn, 0)
    return state


def _shallow(obj: object) -> object:
    if isinstance(obj, (float, complex)):
        return repr(obj)  # NaN equals itself here
    if isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, torch.Tensor):
        return ("tensor", id(obj), obj._version)
    if isinstance(obj, (list, tuple, dict, set)):
        return (type(obj).__name__, id(obj), len(obj))
    return (type(obj).__name__, id(obj))


def _torch_owned(obj: object) -> bool:
    """torch's own functions, classes and objects (user subclasses of nn.Module are not)."""
    if isinstance(obj, (types.FunctionType, type)):
        module = getattr(obj, "__module__", "") or ""
    else:
        module = getattr(type(obj), "__module__", "") or ""
    return module.startswith("torch")


def _references(obj: object) -> list[tuple[str, object]]:
    """(name, object) pairs that ``obj`` reaches, for :func:`python_state`."""
    if isinstance(obj, types.ModuleType):
        return []
    if isinstance(obj, (list, tuple, set, dict)):
        return _entries(obj)
    if isinstance(obj, types.MethodType):
        return [("__self__", obj.__self__), ("__func__", obj.__func__)]
    if isinstance(obj, (staticmethod, classmethod)):
        return [("__func__", obj.__func__)]
    if isinstance(obj, functools.partial):
        return [("func", obj.func), ("args", obj.args), ("keywords", obj.keywords)]
    if _torch_owned(obj):
        return []
    if isinstance(obj, types.FunctionType):
        return _function_references(obj)
    if isinstance(obj, type):
        return [(k, v) for k, v in vars(obj).items() if not k.startswith("__")]
    if not hasattr(obj, "__dict__"):
        return []
    return [("__class__", type(obj)), *vars(obj).items()]


def _entries(container) -> list[tuple[str, object]]:
    """A small container's entries (a large one counts by its length only)."""
    if len(container) > 64:
        return []
    if isinstance(container, dict):
        return [(str(k), v) for k, v in container.items()]
    return [(str(k), v) for k, v in enumerate(container)]


def _function_references(fn: types.FunctionType) -> list[tuple[str, object]]:
    """A function's closure cells, the globals its code names, and its attributes."""
    code = fn.__code__
    cells = []
    for name, cell in zip(code.co_freevars, fn.__closure__ or (), strict=False):
        try:
            cells.append((name, cell.cell_contents))
        except ValueError:  # a cell not filled yet
            continue
    named = [(n, fn.__globals__[n]) for n in code.co_names if n in fn.__globals__]
    return [*cells, *named, *vars(fn).items()]
