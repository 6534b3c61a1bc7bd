"""What every ``gradkit`` subcommand shares: exit statuses and the usage error."""

from __future__ import annotations

__all__ = ["EXIT_FAIL", "EXIT_INTERRUPTED", "EXIT_PASS", "EXIT_USAGE", "UsageError"]

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
#: Ctrl-C: 128 + SIGINT, as a shell reports a process SIGINT stopped.
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A mistake in the command line or a folder that cannot be used: printed, exit status 2."""
