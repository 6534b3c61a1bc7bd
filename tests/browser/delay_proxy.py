"""A TCP proxy on 127.0.0.1 that delays each direction by a fixed time, like a hosted hub.

Between chromium and a local Jupyter server it adds ``delay`` seconds to every chunk going either
way (HTTP and websocket frames alike), so a request-and-answer costs two delays: 40 ms each way is
an 80 ms round trip. Chunks keep their order and are not throttled: a chunk is forwarded
``delay`` seconds after it arrived, whatever came before it.

It is bounded and stops by itself: at most ``max_connections`` connections at a time (later ones
are closed at once), and it shuts down after ``lifetime`` seconds even if nobody calls
:meth:`DelayProxy.stop`. It runs its own asyncio loop in a daemon thread.

Example
-------
>>> with DelayProxy(target_port=8888, delay=0.040) as proxy:  # doctest: +SKIP
...     page.goto(f"http://127.0.0.1:{proxy.port}/tree?token=...")
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

__all__ = ["DelayProxy"]

_CHUNK = 64 * 1024


class DelayProxy:
    """Forward ``127.0.0.1:port`` to ``target_host:target_port``, ``delay`` seconds each way.

    Parameters
    ----------
    target_port : int
        The server's port.
    delay : float
        Seconds added to every chunk in each direction (0.040: an 80 ms round trip).
    target_host : str
        The server's address; loopback by default.
    max_connections : int
        Connections open at the same time; more are refused (closed at once).
    lifetime : float
        Seconds after :meth:`start` at which the proxy stops by itself.
    """

    def __init__(
        self,
        target_port: int,
        delay: float = 0.040,
        *,
        target_host: str = "127.0.0.1",
        max_connections: int = 64,
        lifetime: float = 900.0,
    ) -> None:
        if not 0 <= delay <= 5:
            raise ValueError(f"delay must be between 0 and 5 seconds, got {delay!r}")
        if max_connections < 1:
            raise ValueError(f"max_connections must be at least 1, got {max_connections!r}")
        if lifetime <= 0:
            raise ValueError(f"lifetime must be positive seconds, got {lifetime!r}")
        self.target_host, self.target_port = target_host, int(target_port)
        self.delay, self.max_connections, self.lifetime = float(delay), max_connections, lifetime
        self.port = 0
        self.connections = 0  # open right now
        self.total_connections = 0  # accepted since start
        self.refused = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    # ------------------------------------------------------------------ public
    def start(self, timeout: float = 10.0) -> DelayProxy:
        """Listen on a free port of 127.0.0.1 (``self.port``) and start forwarding."""
        if self._thread is not None:
            raise RuntimeError("this DelayProxy was already started; make a new one")
        self._thread = threading.Thread(target=self._run, name="delay-proxy", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the delay proxy did not start in {timeout} s")
        if self._error is not None:
            raise RuntimeError(f"the delay proxy could not start: {self._error}") from self._error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop listening, close every connection, and end the proxy's thread."""
        if self._loop is not None and self._stopping is not None and self.running:
            with contextlib.suppress(RuntimeError):  # loop already closed
                self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """Whether the proxy's thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> DelayProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- internals
    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except (OSError, RuntimeError) as error:  # reported to start() before ready
            self._error = error
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        tasks: set[asyncio.Task] = set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self.connections >= self.max_connections:
                self.refused += 1
                writer.close()
                return
            task = asyncio.current_task()
            tasks.add(task)
            self.connections += 1
            self.total_connections += 1
            try:
                await self._serve(reader, writer)
            except asyncio.CancelledError:
                # the proxy is stopping: end quietly (asyncio would log a cancelled
                # connection task as an error)
                writer.close()
            finally:
                self.connections -= 1
                tasks.discard(task)

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.lifetime)
        finally:
            server.close()
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await server.wait_closed()

    async def _serve(self, client_r, client_w) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            client_w.close()
            return
        pipes = [
            asyncio.create_task(self._pipe(client_r, server_w)),
            asyncio.create_task(self._pipe(server_r, client_w)),
        ]
        try:
            await asyncio.wait(pipes, return_when=asyncio.ALL_COMPLETED)
        finally:
            for task in pipes:
                task.cancel()
            await asyncio.gather(*pipes, return_exceptions=True)
            for writer in (client_w, server_w):
                writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy one direction: each chunk leaves ``delay`` s after it arrived, in order."""
        queue: asyncio.Queue = asyncio.Queue()

        async def send() -> None:
            while True:
                due, chunk = await queue.get()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if chunk is None:  # end of stream: pass the half-close on
                    if writer.can_write_eof():
                        with contextlib.suppress(OSError):
                            writer.write_eof()
                    return
                writer.write(chunk)
                await writer.drain()

        sender = asyncio.create_task(send())
        try:
            while True:
                chunk = await reader.read(_CHUNK)
                queue.put_nowait((time.monotonic() + self.delay, chunk or None))
                if not chunk:
                    break
            await sender
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            sender.cancel()
            await asyncio.gather(sender, return_exceptions=True)
