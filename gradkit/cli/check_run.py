"""``gradkit check MODULE:ATTR``: gradcheck a Function or callable on random inputs, explained.

Every mistake in the command line (a malformed target, a module that fails to import, a shape
too large to draw, a bad dtype or eps) is a :class:`~gradkit.cli.errors.UsageError`, found before
any input is allocated.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import inspect
import math
import os
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path

from .errors import EXIT_FAIL, EXIT_PASS, UsageError

__all__ = [
    "MAX_INPUT_ENTRIES",
    "check_total_entries",
    "load_target",
    "parse_shape",
    "run_check",
    "split_target",
]


#: A module name or attribute path: dotted Python identifiers.
_DOTTED = re.compile(r"[^\W\d]\w*(\.[^\W\d]\w*)*")
#: The most input entries ``gradkit check`` draws, all inputs together: 2**20 float64 numbers
#: are 8 MiB, and slow-mode gradcheck makes two forward calls per entry.
MAX_INPUT_ENTRIES = 2**20


def split_target(target: str) -> tuple[str, str]:
    """``MODULE:ATTR`` (or ``path/to/file.py:ATTR``) split in two, or a usage error."""
    example = "e.g. gradkit.zoo:WrongSquareFn or mymodule.py:MyFn"
    if ":" not in target:
        raise UsageError(f"expected MODULE:ATTR ({example}), got {target!r}")
    module_name, _, attr = target.rpartition(":")  # rpartition: a Windows path has a colon
    if not module_name:
        raise UsageError(
            f"MODULE is missing before the colon in {target!r}; write MODULE:ATTR ({example})"
        )
    if not _DOTTED.fullmatch(attr):
        raise UsageError(
            f"ATTR {attr!r} in {target!r} is not a Python name; write the name of a Function "
            f"class or callable after the colon ({example})"
        )
    if not _is_path(module_name) and not _DOTTED.fullmatch(module_name):
        raise UsageError(
            f"MODULE {module_name!r} in {target!r} is neither a module name nor a .py file "
            f"({example})"
        )
    return module_name, attr


def _is_path(module_name: str) -> bool:
    """Whether MODULE names a file (``mine.py``, ``dir/mine``) rather than an importable name."""
    return module_name.endswith(".py") or os.sep in module_name or "/" in module_name


def load_target(target: str) -> object:
    """Import MODULE (a module name, or a ``.py`` file) and return its attribute ATTR.

    A file is loaded from the path given, whatever its name: ``random.py`` is the learner's
    file, never the standard library's ``random``. Any exit during the import (``sys.exit(0)``
    too) is a usage error: a module that stops while loading defines nothing to check.
    """
    module_name, attr = split_target(target)
    if _is_path(module_name):
        module, module_name = _load_file(module_name)
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        module = _imported(module_name, lambda: importlib.import_module(module_name))
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _load_file(text: str) -> tuple[types.ModuleType, str]:
    """(module, its name) for the ``.py`` file at ``text``, under a name nothing else uses."""
    path = Path(text).resolve()
    if not path.is_file():
        raise UsageError(f"no such file: {text}")
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))  # so that the file can import its neighbours
    private = f"_gradkit_check_{path.stem}"  # never the name of a real module
    spec = importlib.util.spec_from_file_location(private, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"{text} is not a Python file; name a .py file (e.g. mymodule.py:MyFn)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[private] = module  # dataclasses and pickle look their module up there

    def load() -> types.ModuleType:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        return module

    try:
        return _imported(path.stem, load), path.stem
    except UsageError:
        sys.modules.pop(private, None)
        raise


def _imported(name: str, load: Callable[[], types.ModuleType]) -> types.ModuleType:
    """``load()``, with every way an import can fail turned into a usage error."""
    try:
        return load()
    except ImportError as error:
        raise UsageError(f"cannot import module {name!r}: {error}") from error
    except SystemExit as error:  # sys.exit(0) at import would otherwise read as a pass
        raise UsageError(
            f"importing module {name!r} called sys.exit({error.code!r}), so it stopped before "
            "defining anything to check; move the script part of the file under "
            "`if __name__ == '__main__':`"
        ) from None
    except Exception as error:  # the learner's module failed while importing: a message
        raise UsageError(
            f"importing module {name!r} raised {type(error).__name__}: {error}; fix the "
            "module, then run gradkit check again"
        ) from error


def parse_shape(text: str) -> tuple[int, ...]:
    """The sizes in ``--shape`` text such as ``3,4`` or ``3x4``, each a positive whole number."""
    if not re.fullmatch(r"\s*[0-9]+(\s*[,x]\s*[0-9]+)*\s*", text):
        raise UsageError(f"--shape takes sizes like 3,4; got {text!r}")
    sizes = [p.strip().lstrip("0") or "0" for p in re.split(r"[,x]", text)]
    if any(len(s) > 18 for s in sizes):  # int() of thousands of digits is slow, then refused
        raise UsageError(f"--shape {text!r} is far too large; use small sizes like 3,4")
    shape = tuple(int(s) for s in sizes)
    if any(s <= 0 for s in shape):
        raise UsageError(f"--shape needs positive sizes like 3,4; got {text!r}")
    return shape


def check_total_entries(shapes: list[tuple[int, ...]]) -> None:
    """Refuse inputs too large to draw, from their sizes alone (before any memory is used)."""
    total = sum(math.prod(shape) for shape in shapes)  # entries of all inputs together
    if total > MAX_INPUT_ENTRIES:
        given = " ".join("--shape " + ",".join(map(str, shape)) for shape in shapes)
        raise UsageError(
            f"{given} asks for {total:,} input entries, more than the {MAX_INPUT_ENTRIES:,} "
            "gradkit check draws; gradcheck nudges every entry, so check small shapes such as "
            "3,4"
        )


def _arity(fn, function_class) -> int:
    target = function_class.forward if function_class is not None else fn
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return 1
    if function_class is not None:
        params = params[1:]  # ctx
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return max(1, len(positional))


def run_check(args: argparse.Namespace) -> int:
    """``gradkit check``: print the explained report; exit 0 on pass, 1 on fail."""
    from .._args import DTYPES, check_eps
    from ..diagnosis import check

    if args.dtype not in DTYPES:
        raise UsageError(f"--dtype must be one of {', '.join(DTYPES)}; got {args.dtype!r}")
    try:
        eps = check_eps(args.eps, argument="--eps")
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from error
    fn, function_class = _callable(load_target(args.target), args.target)
    inputs = _inputs(args, fn, function_class, DTYPES[args.dtype])
    try:
        report = check(fn, inputs, eps=eps, fast_mode=args.fast)
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from error
    except SystemExit as error:  # sys.exit(0) inside the target must never read as a pass
        print(
            f"gradkit check: {args.target} stopped the process (sys.exit({error.code!r})) while "
            "it was being checked, so nothing was checked; a function to check returns its "
            "output and never exits",
            file=sys.stderr,
        )
        return EXIT_FAIL
    print(report)
    return EXIT_PASS if report.passed else EXIT_FAIL


def _callable(obj: object, target: str) -> tuple[Callable, type | None]:
    """What to check (a Function's ``apply``, or the callable) and the Function class, if any."""
    import torch

    if isinstance(obj, type) and issubclass(obj, torch.autograd.Function):
        return obj.apply, obj
    if callable(obj):
        return obj, None
    raise UsageError(f"{target} is a {type(obj).__name__}, not a Function or a callable")


def _inputs(args: argparse.Namespace, fn: Callable, function_class: type | None, dtype) -> tuple:
    """The zoo's sample inputs for a zoo Function without --shape; else random ones in [0.5, 1.5).

    Every shape is checked (sizes, count, total entries) before anything is allocated.
    """
    import torch

    from .. import zoo

    if not args.shape and function_class is not None:
        with contextlib.suppress(KeyError):  # not a zoo Function: random inputs below
            entry = zoo.entry(function_class)
            try:
                return entry.inputs(dtype)
            except ValueError as error:  # complex inputs in a dtype with no complex counterpart
                raise UsageError(f"{args.target}: {error}") from None
    shapes = [parse_shape(s) for s in (args.shape or ["3"])]
    n = _arity(fn, function_class)
    if len(shapes) == 1:
        shapes = shapes * n
    if len(shapes) != n:
        raise UsageError(f"{args.target} takes {n} input(s) but {len(shapes)} --shape given")
    check_total_entries(shapes)
    generator = torch.Generator().manual_seed(args.seed)
    return tuple(
        (torch.rand(s, generator=generator, dtype=torch.float64) + 0.5)
        .to(dtype)
        .requires_grad_(True)
        for s in shapes
    )
