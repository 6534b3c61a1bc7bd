"""``gradkit check MODULE:ATTR``: gradcheck a Function or callable on random inputs, explained.

Every mistake in the command line (a malformed target, a shape too large to draw, a bad dtype,
eps, tolerance, engine, --seed or --arg) is a :class:`~gradkit.cli.errors.UsageError` (exit 2,
one line), found here before anything runs. The target then runs in a child process
(:mod:`~gradkit.cli.check_target`), so that its end cannot end the check: ``sys.exit``,
``os._exit(0)``, a signal or a crash is exit 1 with one line naming what happened, never a
pass; a closed ``sys.stdout`` changes nothing (the child answers in a file). Ctrl-C is 130.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import EXIT_FAIL, EXIT_PASS, UsageError

__all__ = [
    "MAX_INPUT_ENTRIES",
    "add_parser",
    "check_total_entries",
    "is_path",
    "parse_arg",
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
    if not is_path(module_name) and not _DOTTED.fullmatch(module_name):
        raise UsageError(
            f"MODULE {module_name!r} in {target!r} is neither a module name nor a .py file "
            f"({example})"
        )
    return module_name, attr


def is_path(module_name: str) -> bool:
    """Whether MODULE names a file (``mine.py``, ``dir/mine``) rather than an importable name."""
    return module_name.endswith(".py") or os.sep in module_name or "/" in module_name


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


#: What ``--seed`` may be: torch.Generator.manual_seed takes 0 … 2**64 - 1.
MAX_SEED = 2**64 - 1
#: The longest ``--arg`` value read (a literal such as 0.5, (1, 2) or "sum").
MAX_ARG_TEXT = 1000
#: How the child starts: Ctrl-C ends it quietly (no traceback), then it runs the job.
_BOOT = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); sys.path.append(sys.argv[3])"
    "; from gradkit.cli.check_target import child_main; child_main(sys.argv[1], sys.argv[2])"
)
_SIGNALS = {
    "SIGSEGV": "a segmentation fault: it crashed",
    "SIGBUS": "a bus error: it crashed",
    "SIGABRT": "an abort: it crashed",
    "SIGFPE": "a floating-point trap: it crashed",
    "SIGILL": "an illegal instruction: it crashed",
    "SIGKILL": "killed: out of memory, or someone stopped it",
    "SIGTERM": "terminated",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``gradkit check`` on the ``gradkit`` command's subparsers."""
    chk = sub.add_parser("check", help="gradcheck a Function or callable, explained")
    chk.add_argument("target", metavar="MODULE:ATTR", help="e.g. gradkit.zoo:WrongSquareFn")
    chk.add_argument(
        "--shape", action="append", help="input shape like 3,4; repeat once per input (default: 3)"
    )
    chk.add_argument("--dtype", default="float64", help="float64 (default), float32, float16 ...")
    chk.add_argument("--eps", type=float, default=1e-6, help="the nudge (default 1e-6)")
    chk.add_argument("--atol", type=float, default=1e-5, help="absolute tolerance (default 1e-5)")
    chk.add_argument("--rtol", type=float, default=1e-3, help="relative tolerance (default 1e-3)")
    chk.add_argument("--fast", action="store_true", help="use gradcheck's fast_mode")
    chk.add_argument(
        "--engine", choices=("torch", "batched"), default="torch", help="torch (default) or batched"
    )
    chk.add_argument("--seed", type=int, default=0, help="for the random inputs (0 … 2**64 - 1)")
    chk.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter that is no tensor, as a Python literal (e.g. --arg lambd=0.5)",
    )
    chk.add_argument(
        "--traceback", action="store_true", help="show the full traceback of an error in it"
    )


def parse_arg(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` of ``--arg`` as (name, the value's text), the value a Python literal."""
    name, has_value, value = text.partition("=")
    name = name.strip()
    if not has_value or not name.isidentifier():
        raise UsageError(f"--arg takes NAME=VALUE (e.g. --arg lambd=0.5), got {text!r}")
    if len(value) > MAX_ARG_TEXT:
        raise UsageError(f"--arg {name}=... is over {MAX_ARG_TEXT} characters; give a short value")
    try:
        ast.literal_eval(value.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise UsageError(
            f"--arg {name}={value!r} is not a Python literal; write a number (0.5), a string "
            "('sum'), True/False/None, or a tuple/list of those"
        ) from None
    return name, value.strip()


def _job(args: argparse.Namespace) -> dict:
    """The arguments checked, as the child reads them (every usage error found here)."""
    from .._args import DTYPES, check_eps, check_tolerance

    split_target(args.target)
    if args.dtype not in DTYPES:
        raise UsageError(f"--dtype must be one of {', '.join(DTYPES)}; got {args.dtype!r}")
    try:
        eps = check_eps(args.eps, argument="--eps")
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from error
    try:  # named as gradcheck names them, so that the message gives gradcheck's defaults
        atol, rtol = (check_tolerance(getattr(args, k), k) for k in ("atol", "rtol"))
    except (TypeError, ValueError) as error:
        raise UsageError(f"--{error}") from error
    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be a whole number from 0 to {MAX_SEED}, got {args.seed}")
    if args.engine == "batched" and args.fast:
        raise UsageError("--engine batched computes full Jacobians; drop --fast (or the engine)")
    shapes = [parse_shape(s) for s in (args.shape or [])]
    check_total_entries(shapes)  # the shapes given: a lower bound, before the target loads
    given = dict(parse_arg(a) for a in args.arg)
    if len(given) != len(args.arg):
        raise UsageError("each --arg NAME may be given once")
    return {
        "target": args.target,
        "shapes": [list(s) for s in shapes],
        "dtype": args.dtype,
        "eps": eps,
        "atol": atol,
        "rtol": rtol,
        "fast": bool(args.fast),
        "engine": args.engine,
        "seed": args.seed,
        "args": given,
    }


def run_check(args: argparse.Namespace) -> int:
    """``gradkit check``: print the explained report; exit 0 on pass, 1 on fail or a stop."""
    job = _job(args)
    answer, code = _run_child(job)
    status = answer.get("status")
    if status == "usage":
        raise UsageError(" ".join(str(answer["message"]).split()))
    if status == "report":
        print(answer["text"], flush=True)
        if answer.get("engine", "torch") != "torch":  # the report's text is the same for both
            print(f"  engine: {answer['engine']} (--engine)", flush=True)
        trace = answer.get("traceback") or ""
        if trace and args.traceback:
            print(trace.rstrip(), flush=True)
        elif trace:
            print("  (gradkit check --traceback shows where it raised)", flush=True)
        return EXIT_PASS if answer["passed"] else EXIT_FAIL
    if status in ("stopped", "error"):
        line = answer["message"]
    elif code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
        line = (
            f"{args.target} ended the process with {name} ({_SIGNALS.get(name, 'a signal')}) "
            "while it was being checked, so nothing was checked"
        )
    else:
        line = (
            f"{args.target} ended the process (exit status {code}: os._exit or a crash) while "
            "it was being checked, so nothing was checked; a function to check returns its output"
        )
    print(f"gradkit check: {' '.join(str(line).split())}", file=sys.stderr, flush=True)
    if status == "error" and args.traceback:
        print(answer["traceback"].rstrip(), file=sys.stderr, flush=True)
    return EXIT_FAIL


def _run_child(job: dict) -> tuple[dict, int | None]:
    """Run ``job`` in a child process: (its answer, or {} when it gave none; its exit code)."""
    root = str(Path(__file__).resolve().parents[2])  # where this gradkit is imported from
    with tempfile.TemporaryDirectory(prefix="gradkit-check-") as work:
        result = os.path.join(work, "answer.json")
        command = [sys.executable, "-c", _BOOT, result, json.dumps(job), root]
        child = subprocess.Popen(command)
        try:
            code = child.wait()
        except BaseException:  # Ctrl-C (KeyboardInterrupt): the child goes too
            child.kill()
            child.wait()
            raise
        if code == -signal.SIGINT:
            raise KeyboardInterrupt  # Ctrl-C reached the child alone
        try:
            with open(result, encoding="utf-8") as handle:
                answer = json.load(handle)
        except (OSError, ValueError):
            answer = {}
    return (answer if isinstance(answer, dict) else {}), code
