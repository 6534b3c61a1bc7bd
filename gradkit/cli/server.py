"""``gradkit notebook [DIR]``: Jupyter Notebook 7 on 127.0.0.1 with a random, never empty token."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import EXIT_PASS, UsageError

__all__ = ["check_port", "notebook_command", "run_notebook"]


def check_port(port: int) -> int:
    """A TCP port a server can listen on, 1 to 65535, or a usage error that names --port."""
    if not 1 <= port <= 65535:
        raise UsageError(
            f"--port must be a whole number from 1 to 65535 (e.g. 8888), got {port}; "
            "no server was started"
        )
    return port


def notebook_command(root: Path, port: int, token: str, extra: Sequence[str] = ()) -> list[str]:
    """The exact command line ``gradkit notebook`` (and so ``make notebook``) runs."""
    check_port(port)
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
    """``gradkit notebook``: check DIR, --port and --token, then become the Jupyter server."""
    check_port(args.port)
    root = Path(args.dir).resolve()
    if not root.is_dir():
        raise UsageError(f"DIR {root} is not a folder")
    token = args.token if args.token is not None else secrets.token_hex(24)
    command = notebook_command(root, args.port, token, args.extra)
    print(f"gradkit: Jupyter Notebook 7 on http://127.0.0.1:{args.port}/tree?token={token}")
    print("gradkit: open that address in your browser; stop the server with Ctrl+C.", flush=True)
    os.execv(command[0], command)
    return EXIT_PASS  # pragma: no cover - execv does not return
