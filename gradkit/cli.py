"""The ``gradkit`` command: copy the lessons out, check a Function, open the lessons.

- ``gradkit lessons DIR [--force]``: copy the lesson notebooks shipped with gradkit to DIR. A
  file that exists is never overwritten, unless ``--force``, which first saves it as ``.bak``.
- ``gradkit check MODULE:ATTR [--shape 3,4] [--dtype float32] [--eps 1e-6] [--fast]``: run
  :func:`gradkit.check` on a Function (its ``apply``) or a plain callable with random inputs.
  Exit status 0 pass, 1 fail, 2 usage error.
- ``gradkit notebook [DIR] [--port 8888] [-- JUPYTER_OPTIONS]``: Jupyter Notebook 7 on DIR, bound to
  127.0.0.1 with a random token (never an empty one).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import re
import secrets
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["lesson_files", "main"]

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _UsageError(Exception):
    """A mistake in the command line: printed, exit status 2."""


def lessons_dir() -> Path:
    """Where the lesson notebooks live: inside the wheel, or ``notebooks/`` in a checkout."""
    packaged = Path(__file__).resolve().parent / "lessons"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "notebooks"


def lesson_files() -> list[Path]:
    """The shipped lesson notebooks, in lesson order."""
    return sorted(lessons_dir().glob("*.ipynb"))


# ------------------------------------------------------------------------------------ lessons


def _copy_lessons(target: Path, force: bool) -> int:
    files = lesson_files()
    if not files:
        raise _UsageError(f"no lesson notebooks found in {lessons_dir()}; reinstall gradkit")
    if target.exists() and not target.is_dir():
        raise _UsageError(f"DIR {target} is a file; give a folder to copy the lessons into")
    target.mkdir(parents=True, exist_ok=True)
    copied, skipped, backed_up = [], [], []
    for source in files:
        dest = target / source.name
        if dest.exists():
            if not force:
                skipped.append(dest.name)
                continue
            backup = _free_backup_name(dest)
            shutil.copy2(dest, backup)
            backed_up.append(f"{dest.name} -> {backup.name}")
        shutil.copyfile(source, dest)
        copied.append(dest.name)
    for name in copied:
        print(f"copied   {target / name}")
    for entry in backed_up:
        print(f"saved    {entry} (your previous version)")
    if skipped:
        print(f"skipped  {len(skipped)} existing file(s), left untouched: {', '.join(skipped)}")
        print("         (use --force to overwrite them; each is saved as .bak first)")
    print(f"{len(copied)} lesson(s) in {target}. Open 00_start_here.ipynb first.")
    return EXIT_PASS


def _free_backup_name(path: Path) -> Path:
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak{n}")
        n += 1
    return candidate


# -------------------------------------------------------------------------------------- check


def _load(target: str):
    if ":" not in target:
        raise _UsageError(f"expected MODULE:ATTR such as gradkit.zoo:WrongSquareFn, got {target!r}")
    module_name, _, attr = target.partition(":")
    if module_name.endswith(".py") or os.sep in module_name:
        path = Path(module_name).resolve()
        if not path.is_file():
            raise _UsageError(f"no such file: {module_name}")
        sys.path.insert(0, str(path.parent))
        module_name = path.stem
    elif os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise _UsageError(f"cannot import module {module_name!r}: {error}") from error
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise _UsageError(f"module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _parse_shape(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\s*\d+(\s*[,x]\s*\d+)*\s*", text):
        raise _UsageError(f"--shape takes sizes like 3,4; got {text!r}")
    shape = tuple(int(p) for p in re.split(r"[,x]", text))
    if any(s <= 0 for s in shape):
        raise _UsageError(f"--shape needs positive sizes like 3,4; got {text!r}")
    return shape


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


def _run_check(args: argparse.Namespace) -> int:
    import torch

    from . import zoo
    from .check import check
    from .numerics import DTYPES

    obj = _load(args.target)
    function_class = None
    if isinstance(obj, type) and issubclass(obj, torch.autograd.Function):
        function_class, fn = obj, obj.apply
    elif callable(obj):
        fn = obj
    else:
        raise _UsageError(f"{args.target} is a {type(obj).__name__}, not a Function or a callable")
    if args.dtype not in DTYPES:
        raise _UsageError(f"--dtype must be one of {', '.join(DTYPES)}; got {args.dtype!r}")
    dtype = DTYPES[args.dtype]
    generator = torch.Generator().manual_seed(args.seed)
    if not args.shape and function_class is not None:
        try:
            inputs = zoo.entry(function_class).inputs(dtype)
        except KeyError:
            inputs = None
    else:
        inputs = None
    if inputs is None:
        shapes = [_parse_shape(s) for s in (args.shape or ["3"])]
        n = _arity(fn, function_class)
        if len(shapes) == 1:
            shapes = shapes * n
        if len(shapes) != n:
            raise _UsageError(f"{args.target} takes {n} input(s) but {len(shapes)} --shape given")
        inputs = tuple(
            (torch.rand(s, generator=generator, dtype=torch.float64) + 0.5)
            .to(dtype)
            .requires_grad_(True)
            for s in shapes
        )
    try:
        report = check(fn, inputs, eps=args.eps, fast_mode=args.fast)
    except (TypeError, ValueError) as error:
        raise _UsageError(str(error)) from error
    print(report)
    return EXIT_PASS if report.passed else EXIT_FAIL


# ----------------------------------------------------------------------------------- notebook


def notebook_command(root: Path, port: int, token: str, extra: Sequence[str] = ()) -> list[str]:
    """The exact command line ``gradkit notebook`` (and so ``make notebook``) runs."""
    if not token:
        raise _UsageError("--token must not be empty: an empty token switches authentication off")
    command = [
        sys.executable,
        "-m",
        "notebook",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # Jupyter refuses root otherwise (containers, CI)
    return [*command, *extra]


def _run_notebook(args: argparse.Namespace) -> int:
    root = Path(args.dir).resolve()
    if not root.is_dir():
        raise _UsageError(f"DIR {root} is not a folder")
    token = args.token if args.token is not None else secrets.token_hex(24)
    command = notebook_command(root, args.port, token, args.extra)
    print(f"gradkit: Jupyter Notebook 7 on http://127.0.0.1:{args.port}/tree?token={token}")
    print("gradkit: open that address in your browser; stop the server with Ctrl+C.", flush=True)
    os.execv(command[0], command)
    return EXIT_PASS  # pragma: no cover - execv does not return


# --------------------------------------------------------------------------------------- main


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradkit", description="Learn how torch.autograd.gradcheck works, and why it fails."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    lessons = sub.add_parser("lessons", help="copy the lesson notebooks to DIR")
    lessons.add_argument("dir", metavar="DIR", help="folder to copy the lessons into")
    lessons.add_argument(
        "--force", action="store_true", help="overwrite existing files, saving each as .bak first"
    )

    chk = sub.add_parser("check", help="gradcheck a Function or callable, explained")
    chk.add_argument("target", metavar="MODULE:ATTR", help="e.g. gradkit.zoo:WrongSquareFn")
    chk.add_argument(
        "--shape", action="append", help="input shape like 3,4; repeat once per input (default: 3)"
    )
    chk.add_argument("--dtype", default="float64", help="float64 (default), float32, float16 ...")
    chk.add_argument("--eps", type=float, default=1e-6, help="the nudge (default 1e-6)")
    chk.add_argument("--fast", action="store_true", help="use gradcheck's fast_mode")
    chk.add_argument("--seed", type=int, default=0, help="seed for the random inputs")

    nb = sub.add_parser("notebook", help="open the lessons in Jupyter Notebook 7 (127.0.0.1)")
    nb.add_argument("dir", metavar="DIR", nargs="?", default=".", help="folder to serve")
    nb.add_argument("--port", type=int, default=8888)
    nb.add_argument("--token", default=None, help="access token (default: a random one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gradkit`` command; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:  # everything after -- goes to Jupyter untouched
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    args = _parser().parse_args(argv)
    args.extra = extra
    if extra and args.command != "notebook":
        print(
            f"gradkit {args.command}: error: options after -- are only for 'gradkit notebook'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        if args.command == "lessons":
            return _copy_lessons(Path(args.dir), args.force)
        if args.command == "check":
            return _run_check(args)
        return _run_notebook(args)
    except _UsageError as error:
        print(f"gradkit {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
