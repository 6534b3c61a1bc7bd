"""The zoo's Functions as ZooHunt shows them: "Specimen k", with nothing that gives the bug away.

:func:`hunt_names` picks the entries (every buggy one plus correct decoys), :func:`specimen_html`
writes one specimen's code without its decorators, docstring or telling class name.
"""

from __future__ import annotations

import ast
import functools
import html
import inspect
import textwrap
from collections.abc import Sequence

import torch

from ... import zoo

__all__ = ["hunt_names", "specimen_html", "specimen_source"]

#: Correct entries mixed into the hunt (at these positions), so "pass" is a real possibility.
HUNT_DECOYS = ((2, "CubeFn"), (7, "SigmoidFn"))


def _whole_class_source(function: type) -> str:
    """A Function's source as one class: a zoo twin's inherited forward is spliced back in."""
    source = inspect.getsource(function)
    base = function.__mro__[1]
    if base is torch.autograd.Function or "forward" in vars(function):
        return source
    forward = inspect.getsource(base.forward)  # indented, with its @staticmethod line
    backward_at = source.index("    @staticmethod\n    def backward")
    source = source[:backward_at] + forward + "\n" + source[backward_at:]
    return source.replace(f"({base.__name__}):", "(torch.autograd.Function):", 1)


def specimen_source(e: zoo.ZooEntry, label: str) -> str:
    """The Function's source without what gives it away: decorators (the zoo's metadata names
    the bug), the docstring, and the telling class name (replaced by ``label``)."""
    try:
        source = _whole_class_source(e.function)
    except (OSError, TypeError):
        return f"# the source of this Function is not available; it computes {e.formula}"
    lines = textwrap.dedent(source).splitlines()
    node = ast.parse("\n".join(lines)).body[0]
    if isinstance(node, ast.ClassDef) and node.decorator_list:  # e.g. @zoo_entry(bug=...)
        lines = lines[node.lineno - 1 :]
        node = ast.parse("\n".join(lines)).body[0]
    if isinstance(node, ast.ClassDef) and ast.get_docstring(node, clean=False) is not None:
        first = node.body[0]
        del lines[first.lineno - 1 : first.end_lineno]
        if first.lineno - 1 < len(lines) and not lines[first.lineno - 1].strip():
            del lines[first.lineno - 1]
    return "\n".join(lines).replace(e.name, label)


@functools.cache  # the zoo's source does not change while a kernel runs
def specimen_html(name: str, label: str) -> str:
    """What the hunt shows for one specimen: its formula, its input shapes and its code."""
    e = zoo.entry(name)
    shapes = ", ".join(str(tuple(t.shape)) for t in e.make_input())
    return (
        f"<div>{html.escape(label)} computes <b>{html.escape(e.formula)}</b> "
        f"(sample input shapes {html.escape(shapes)}, float64).</div>"
        f"<pre>{html.escape(specimen_source(e, label))}</pre>"
    )


def hunt_names(names: Sequence[str] | None) -> list[str]:
    """The zoo names to hunt through, checked; default every buggy entry plus the decoys."""
    if names is None:
        names = [n for n, e in zoo.CATALOGUE.items() if not e.correct]
        for position, decoy in HUNT_DECOYS:
            names.insert(min(position, len(names)), decoy)
    if isinstance(names, str):
        raise TypeError(f"names must be a list of zoo names, e.g. [{names!r}]")
    names = list(names)
    if not names:
        raise ValueError("names must list at least one zoo entry, e.g. ['WrongSquareFn']")
    for name in names:
        zoo.entry(name)  # a clear KeyError naming the choices
    return names
