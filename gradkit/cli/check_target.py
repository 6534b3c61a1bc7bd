"""The child process of ``gradkit check``: load the target, build its inputs, run the check.

:func:`~gradkit.cli.check_run.run_check` runs :func:`child_main` in a process of its own, so
that nothing the target does (``os._exit(0)``, a signal, a segfault, closing ``sys.stdout``)
can end the check or read as a pass. The child answers in a JSON file (:func:`run_job`'s
dict), never on stdout: ``report`` (the report's text, whether it passed, the traceback of an
error in the target), ``usage`` (a mistake in the command line found once the target is
loaded: exit 2), ``stopped`` (the target called ``sys.exit``) or ``error``. No file at all
means the process ended before it could answer.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .check_run import check_total_entries, is_path, split_target
from .errors import UsageError

__all__ = ["child_main", "inputs_for", "load_target", "run_job"]

#: Annotations that say a parameter is no tensor: it needs ``--arg NAME=VALUE``.
_NOT_TENSOR = re.compile(
    r"(builtins\.)?(float|int|bool|str|complex)( \| None)?|Optional\[(float|int|bool|str)\]"
)


def load_target(target: str) -> object:
    """Import MODULE (a module name, or a ``.py`` file) and return its attribute ATTR.

    A file is loaded from the path given, whatever its name: ``random.py`` is the learner's
    file, never the standard library's ``random``. Any exit during the import (``sys.exit(0)``
    too) is a usage error: a module that stops while loading defines nothing to check.
    """
    module_name, attr = split_target(target)
    if is_path(module_name):
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

    return _imported(path.stem, load), path.stem


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


def _callable(obj: object, target: str) -> tuple[Callable, type | None]:
    """What to check (a Function's ``apply``, or the callable) and the Function class, if any."""
    import torch

    if isinstance(obj, type) and issubclass(obj, torch.autograd.Function):
        return obj.apply, obj
    if callable(obj):
        return obj, None
    raise UsageError(f"{target} is a {type(obj).__name__}, not a Function or a callable")


def _parameters(fn: Callable, function_class: type | None) -> list[inspect.Parameter] | None:
    """The positional parameters inputs fill (``forward``'s after ctx), or None: unknown."""
    try:
        params = list(
            inspect.signature(function_class.forward if function_class else fn).parameters.values()
        )
    except (TypeError, ValueError):
        return None
    params = params[1:] if function_class is not None else params
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in params if p.kind in positional]


def _annotation(p: inspect.Parameter) -> str:
    """A parameter's annotation as written (``"float"``, ``"Optional[int]"``); "" for none."""
    if p.annotation is p.empty:
        return ""
    if isinstance(p.annotation, str):  # from __future__ import annotations
        return p.annotation
    if isinstance(p.annotation, type):
        return p.annotation.__name__
    return str(p.annotation).removeprefix("typing.")  # Optional[int], float | None


def _slots(job: dict, params: list[inspect.Parameter] | None) -> list[tuple[str, Any]]:
    """Each positional argument: ("tensor", name) or ("value", its value), in order."""
    target, given = job["target"], {k: ast.literal_eval(v) for k, v in job["args"].items()}
    if params is None:
        if given:
            raise UsageError(
                f"the parameters of {target} cannot be read, so --arg cannot name one; "
                "wrap it in a def whose parameters are named"
            )
        return [("tensor", "input")]
    names = [p.name for p in params]
    unknown = [n for n in given if n not in names]
    if unknown:
        raise UsageError(
            f"--arg {unknown[0]}=...: {target} has no positional parameter {unknown[0]!r}; "
            f"its parameters are {', '.join(names) or 'none'}"
        )
    last = max((names.index(n) for n in given), default=-1)
    slots: list[tuple[str, Any]] = []
    for k, p in enumerate(params):
        if p.name in given:
            slots.append(("value", given[p.name]))
        elif p.default is not p.empty:
            if k > last:
                break
            slots.append(("value", p.default))  # a later --arg needs it passed positionally
        elif _NOT_TENSOR.fullmatch(_annotation(p).strip()):
            raise UsageError(
                f"{target}'s parameter {p.name!r} is a {_annotation(p)}, not a tensor, so "
                f"gradkit check cannot draw it; give its value with --arg {p.name}=VALUE "
                "(a Python literal such as 0.5)"
            )
        else:
            slots.append(("tensor", p.name))
    if not any(kind == "tensor" for kind, _ in slots):
        raise UsageError(f"every parameter of {target} has a value; one must be a tensor to check")
    return slots


def inputs_for(job: dict, fn: Callable, function_class: type | None) -> tuple:
    """The inputs: the zoo's sample ones for a zoo Function given no --shape and no --arg; else
    random tensors in [0.5, 1.5) for the tensor parameters and the --arg values for the others.
    Every shape is checked (count, total entries) before anything is allocated."""
    import torch

    from .. import zoo
    from .._args import DTYPES

    dtype, target = DTYPES[job["dtype"]], job["target"]
    if not job["shapes"] and not job["args"] and function_class is not None:
        try:
            entry = zoo.entry(function_class)
        except KeyError:
            entry = None  # not a zoo Function: random inputs below
        if entry is not None:
            try:
                return entry.inputs(dtype)
            except ValueError as error:  # complex inputs in a dtype with no complex counterpart
                raise UsageError(f"{target}: {error}") from None
    slots = _slots(job, _parameters(fn, function_class))
    n = sum(kind == "tensor" for kind, _ in slots)
    shapes = [tuple(s) for s in (job["shapes"] or [[3]])]
    if len(shapes) == 1:
        shapes = shapes * n
    if len(shapes) != n:
        raise UsageError(f"{target} takes {n} input tensor(s) but {len(shapes)} --shape given")
    check_total_entries(shapes)
    generator = torch.Generator().manual_seed(job["seed"])
    drawn = iter(
        (torch.rand(s, generator=generator, dtype=torch.float64) + 0.5)
        .to(dtype)
        .requires_grad_(True)
        for s in shapes
    )
    return tuple(next(drawn) if kind == "tensor" else value for kind, value in slots)


def run_job(job: dict) -> dict:
    """Check the target as ``job`` says (the parent's checked arguments); the answer as a dict."""
    from ..diagnosis import check

    target = job["target"]
    try:
        fn, function_class = _callable(load_target(target), target)
        inputs = inputs_for(job, fn, function_class)
        settings = {k: job[k] for k in ("eps", "atol", "rtol", "engine")}
        try:
            report = check(fn, inputs, fast_mode=job["fast"], **settings)
        except (TypeError, ValueError) as error:  # the settings, refused by check()
            raise UsageError(str(error)) from error
    except UsageError as error:
        return {"status": "usage", "message": str(error)}
    except SystemExit as error:  # sys.exit(0) inside the target must never read as a pass
        return {
            "status": "stopped",
            "message": f"{target} stopped the process (sys.exit({error.code!r})) while it was "
            "being checked, so nothing was checked; a function to check returns its output and "
            "never exits",
        }
    except Exception as error:  # noqa: BLE001 - the target raised outside the check itself
        return {
            "status": "error",
            "message": f"{target} raised {type(error).__name__}: {error}",
            "traceback": "".join(traceback.format_exception(error)),
        }
    return {
        "status": "report",
        "passed": bool(report.passed),
        "text": str(report),
        "traceback": report.traceback,
        "engine": report.engine,
    }


def child_main(result: str, job_text: str) -> None:
    """The child's whole life: run the job, write its answer to ``result`` (whole or not at
    all: a temp file renamed), whatever the target did to stdout, stderr or the working
    folder."""
    answer = run_job(json.loads(job_text))
    temp = f"{result}.tmp"
    with open(temp, "w", encoding="utf-8") as handle:
        json.dump(answer, handle)
    os.replace(temp, result)
