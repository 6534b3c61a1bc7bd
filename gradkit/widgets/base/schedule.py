"""Work after the first picture: run a function once the current notebook cell has finished.

In a Jupyter kernel the function is queued on the kernel's event loop (it runs before the next
cell of a Run All); anywhere else it runs at once. :func:`deferring` turns deferral on or off
for a block (benchmarks measure the first picture alone; tests see the busy mark).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Iterator

__all__ = ["deferring", "pending", "run_later", "run_pending"]

_QUEUE: list[Callable[[], None]] = []
_MODE: list[bool | None] = [None]  # None: defer only inside a running event loop


def _loop() -> asyncio.AbstractEventLoop | None:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if getattr(shell, "kernel", None) is None:
        return None
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def run_later(fn: Callable[[], None]) -> None:
    """Run ``fn`` after the current cell (at once outside a kernel's event loop)."""
    mode = _MODE[-1]
    loop = _loop() if mode is None else None
    if mode is False or (mode is None and loop is None):
        fn()
        return
    _QUEUE.append(fn)
    if loop is not None and len(_QUEUE) == 1:
        loop.call_soon(run_pending)


def pending() -> int:
    """How many deferred functions wait."""
    return len(_QUEUE)


def run_pending() -> None:
    """Run every deferred function now, oldest first."""
    while _QUEUE:
        _QUEUE.pop(0)()


@contextlib.contextmanager
def deferring(defer: bool = True) -> Iterator[None]:
    """Within the block, defer (``True``: until :func:`run_pending`) or run at once."""
    _MODE.append(defer)
    try:
        yield
    finally:
        _MODE.pop()
