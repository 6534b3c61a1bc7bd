"""``gradkit notebook [DIR]``: Jupyter Notebook 7 on 127.0.0.1 with a random, never empty token.

Options after ``--`` go to Jupyter, except those that would switch authentication off or let
anything beyond this machine in (:func:`check_jupyter_options`): an empty or replaced token, an
empty password, another ip or a socket, remote access, cross-site requests, another identity
provider, a config file. Those are a usage error (exit 2), and no server starts.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import EXIT_PASS, UsageError
from .runner import KERNEL_SPECS_CLASS

__all__ = ["check_jupyter_options", "check_port", "notebook_command", "run_notebook"]

_LOCAL = {"127.0.0.1", "localhost", "::1", "[::1]"}
_YES = {"", "true", "1", "yes", "y", "on"}
#: Jupyter traits (any class: ServerApp, NotebookApp, IdentityProvider...) and when a value
#: after -- would open the server up: (refused(value), what it would do).
_GUARDED: dict[str, tuple] = {
    "token": (lambda v: True, "replace gradkit's token (use --token)"),
    "password": (lambda v: not v, "switch the password off"),
    "hashed_password": (lambda v: not v, "switch the password off"),
    "password_required": (lambda v: v.lower() not in _YES, "switch the password off"),
    "allow_unauthenticated_access": (lambda v: v.lower() in _YES, "switch authentication off"),
    "disable_check_xsrf": (lambda v: v.lower() in _YES, "let other web sites send requests"),
    "allow_origin": (bool, "let other web sites send requests"),
    "allow_origin_pat": (bool, "let other web sites send requests"),
    "allow_remote_access": (lambda v: v.lower() in _YES, "let other machines in"),
    "ip": (lambda v: v.lower() not in _LOCAL, "listen beyond 127.0.0.1"),
    "sock": (bool, "listen on a socket instead of 127.0.0.1"),
    "identity_provider_class": (lambda v: True, "replace Jupyter's authentication"),
    "login_handler_class": (lambda v: True, "replace Jupyter's authentication"),
    "authorizer_class": (lambda v: True, "replace Jupyter's authentication"),
    "config": (lambda v: True, "load a config file that could switch authentication off"),
    "config_file": (lambda v: True, "load a config file that could switch authentication off"),
}


def _options(extra: Sequence[str]) -> list[tuple[str, str, str]]:
    """(the option as written, its trait name, its value) for each ``--name[=value]``."""
    found = []
    for k, arg in enumerate(extra):
        if not arg.startswith("-") or arg == "-":
            continue
        name, has_value, value = arg.lstrip("-").partition("=")
        if not has_value and k + 1 < len(extra) and not extra[k + 1].startswith("-"):
            value = extra[k + 1]  # traitlets also reads "--ServerApp.ip 0.0.0.0"
        trait = name.rsplit(".", 1)[-1].replace("-", "_").lower()
        found.append((arg, trait, value.strip().strip("'\"")))
    return found


def check_jupyter_options(extra: Sequence[str]) -> None:
    """Refuse an option after ``--`` that switches authentication off or binds beyond this machine.

    Parameters
    ----------
    extra : sequence of str
        What followed ``--`` on the command line.

    Raises
    ------
    UsageError
        Naming the option and what it would do (one line).
    """
    for arg, trait, value in _options(extra):
        if trait in _GUARDED and _GUARDED[trait][0](value):
            raise UsageError(
                f"{arg!r} after -- would {_GUARDED[trait][1]}; gradkit notebook keeps Jupyter on "
                "127.0.0.1 behind a token (run jupyter notebook yourself to serve it otherwise). "
                "No server was started"
            )


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
    check_jupyter_options(extra)
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
        # every kernel is this interpreter's, never a python3 spec of another environment
        f"--ServerApp.kernel_spec_manager_class={KERNEL_SPECS_CLASS}",
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
