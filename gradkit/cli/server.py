"""``gradkit notebook [DIR]``: Jupyter Notebook 7 on 127.0.0.1 with a random, never empty token.

Options after ``--`` go to Jupyter only when they are on an allow-list (:data:`PASSED`: the log
level, message rate limits, kernel culling, idle shutdown, terminals, trash) with a value of
the kind each takes (:func:`check_jupyter_options`). Anything else, above all what could change
authentication, origins, headers, the bind address or tornado's settings
(``--ServerApp.tornado_settings={...}``, an ip, a token, a config file), is a usage error (exit 2,
one line) and no server starts; so is an option gradkit sets itself (``--ServerApp.ip``,
``--ServerApp.port``, the token, the folder, the kernels), with a line saying how to set it.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .errors import EXIT_PASS, UsageError
from .runner import KERNEL_SPECS_CLASS

__all__ = ["PASSED", "check_jupyter_options", "check_port", "notebook_command", "run_notebook"]

_NUMBER = re.compile(r"[0-9]{1,15}(\.[0-9]{1,15})?([eE][+-]?[0-9]{1,3})?")
_LEVELS = {"DEBUG", "INFO", "WARN", "WARNING", "ERROR", "CRITICAL", "0", "10", "20", "30", "40"}
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no"}


def _number(value: str) -> bool:
    return bool(_NUMBER.fullmatch(value))


def _whole(value: str) -> bool:
    return value.isascii() and value.isdigit() and len(value) <= 12


def _boolean(value: str) -> bool:
    return value.lower() in _TRUE | _FALSE


def _false(value: str) -> bool:
    return value.lower() in _FALSE


def _level(value: str) -> bool:
    return value.upper() in _LEVELS


#: What takes a value, and what it must be: (test, words for the message).
_KINDS: dict[str, tuple[Callable[[str], bool], str]] = {
    "level": (_level, "a log level (DEBUG, INFO, WARN, ERROR, CRITICAL)"),
    "number": (_number, "a number (e.g. 1000000)"),
    "whole": (_whole, "a whole number of at most 12 digits (e.g. 3600)"),
    "bool": (_boolean, "True or False"),
    "false": (_false, "False (only the safe value is passed on)"),
}
_RATES = ("iopub_data_rate_limit", "iopub_msg_rate_limit", "rate_limit_window")
#: The options ``gradkit notebook`` passes on to Jupyter after ``--``: option -> value kind
#: (None: a flag without a value). Nothing else is passed on.
PASSED: dict[str, str | None] = {
    "--debug": None,
    "--log-level": "level",
    **{f"--{app}.log_level": "level" for app in ("Application", "ServerApp", "JupyterNotebookApp")},
    **{
        f"--{c}.{r}": "number"
        for c in ("ServerApp", "ZMQChannelsWebsocketConnection")
        for r in _RATES
    },
    "--MappingKernelManager.cull_idle_timeout": "whole",
    "--MappingKernelManager.cull_interval": "whole",
    "--MappingKernelManager.cull_connected": "bool",
    "--MappingKernelManager.cull_busy": "bool",
    "--ServerApp.shutdown_no_activity_timeout": "whole",
    "--ServerApp.terminals_enabled": "bool",
    "--FileContentsManager.delete_to_trash": "bool",
    "--ServerApp.disable_check_xsrf": "false",
    # window.jupyterapp for the page's own scripts, which can already reach the server as the
    # logged-in page can (browser tests and benchmarks drive Notebook 7 through it); it changes
    # no authentication, origin, header, address or tornado setting
    "--JupyterNotebookApp.expose_app_in_browser": "bool",
    "--ServerApp.allow_remote_access": "false",
}
#: What gradkit sets itself (a trait or alias, lower case) -> how to change it, if at all.
_SET_BY_GRADKIT = {
    "ip": "127.0.0.1 (run jupyter notebook yourself to listen elsewhere)",
    "port": "the port: use gradkit notebook --port PORT",
    "port_retries": "no port retries (the address printed is the one served)",
    "token": "the token: use gradkit notebook --token TOKEN",
    "root_dir": "the folder: give it as gradkit notebook DIR",
    "notebook_dir": "the folder: give it as gradkit notebook DIR",
    "kernel_spec_manager_class": "the kernels: this interpreter's",
    "open_browser": "no browser (open the address printed)",
    "no_browser": "no browser (open the address printed)",
    "browser": "no browser (open the address printed)",
    "allow_root": "--allow-root when it runs as root",
}


def _refused(arg: str, why: str) -> UsageError:
    return UsageError(f"{arg!r} after -- {why}. No server was started")


def check_jupyter_options(extra: Sequence[str]) -> list[str]:
    """The options after ``--`` that may reach Jupyter: only :data:`PASSED`, each with a value of
    its kind (``--name=value`` or ``--name value``).

    Parameters
    ----------
    extra : sequence of str
        What followed ``--`` on the command line.

    Returns
    -------
    list of str
        ``extra`` as given, every entry checked.

    Raises
    ------
    UsageError
        One line naming the first option refused and why: one gradkit sets itself, one not on
        the allow-list (which could change authentication, origins, headers, the bind address
        or tornado's settings), a value of the wrong kind, a word that is no option.
    """
    passed = sorted(PASSED)
    k = 0
    while k < len(extra):
        arg = extra[k]
        name, has_value, value = arg.partition("=")
        trait = name.lstrip("-").rsplit(".", 1)[-1].replace("-", "_").lower()
        if not arg.startswith("--") or arg == "--":
            raise _refused(arg, "is not an option (--name=value); no word is passed on")
        if trait in _SET_BY_GRADKIT and name not in PASSED:
            raise _refused(
                arg, f"sets what gradkit notebook already sets: {_SET_BY_GRADKIT[trait]}"
            )
        if name not in PASSED:
            raise _refused(
                arg,
                "is not passed on: gradkit notebook passes on only "
                f"{', '.join(passed)}, never an option that could change authentication, "
                "origins, headers, the bind address or tornado's settings (run jupyter notebook "
                "yourself to serve it otherwise)",
            )
        kind = PASSED[name]
        if kind is None:
            if has_value:
                raise _refused(arg, f"takes no value: write {name}")
            k += 1
            continue
        if not has_value:
            if k + 1 >= len(extra) or extra[k + 1].startswith("-"):
                raise _refused(arg, f"needs a value: {name}=VALUE, VALUE {_KINDS[kind][1]}")
            value, k = extra[k + 1], k + 1
        test, words = _KINDS[kind]
        if not test(value.strip()):
            raise _refused(arg, f"takes {words}, got {value!r}")
        k += 1
    return list(extra)


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
