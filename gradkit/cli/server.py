"""``gradkit notebook [DIR]``: Jupyter Notebook 7 on 127.0.0.1 with a random, never empty token."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import EXIT_PASS, UsageError

__all__ = ["notebook_command", "run_notebook"]


def notebook_command(root: Path, port: int, token: str, extra: Sequence[str] = ()) -> list[str]:
    """The exact command line ``gradkit notebook`` (and so ``make notebook``) runs."""
    if not token:
        raise UsageError("--token must not be empty: an empty token switches authentication off")
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


def run_notebook(args: argparse.Namespace) -> int:
    root = Path(args.dir).resolve()
    if not root.is_dir():
        raise UsageError(f"DIR {root} is not a folder")
    token = args.token if args.token is not None else secrets.token_hex(24)
    command = notebook_command(root, args.port, token, args.extra)
    print(f"gradkit: Jupyter Notebook 7 on http://127.0.0.1:{args.port}/tree?token={token}")
    print("gradkit: open that address in your browser; stop the server with Ctrl+C.", flush=True)
    os.execv(command[0], command)
    return EXIT_PASS  # pragma: no cover - execv does not return
