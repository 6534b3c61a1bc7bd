"""The bench's delay proxy: bytes pass unchanged both ways, each way is delayed, it is bounded,
and it stops by itself. (No browser: a local echo server stands in for Jupyter.)"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator

import pytest
from delay_proxy import DelayProxy


class _Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        while data := self.request.recv(65536):
            self.request.sendall(data)


@pytest.fixture
def echo_port() -> Iterator[int]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Echo)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _round_trip(port: int, payload: bytes) -> tuple[bytes, float]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        start = time.monotonic()
        sock.sendall(payload)
        received = b""
        while len(received) < len(payload):
            chunk = sock.recv(65536)
            assert chunk, f"connection closed after {len(received)} of {len(payload)} bytes"
            received += chunk
        return received, time.monotonic() - start


def test_bytes_pass_unchanged_and_each_way_is_delayed(echo_port: int) -> None:
    payload = bytes(range(256)) * 1024  # 256 kB: several chunks, order must hold
    with DelayProxy(echo_port, delay=0.05) as proxy:
        received, seconds = _round_trip(proxy.port, payload)
        assert received == payload, "the proxy changed or reordered the bytes"
        # A lower bound that holds by construction (each chunk sleeps 50 ms each way), not a
        # speed claim: without the delay this echo takes well under a millisecond.
        assert seconds >= 0.1, f"round trip {seconds * 1000:.1f} ms, expected >= 100 ms"
        assert proxy.total_connections == 1
    assert not proxy.running


def test_connections_beyond_the_bound_are_refused(echo_port: int) -> None:
    with DelayProxy(echo_port, delay=0.0, max_connections=1) as proxy:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as first:
            first.sendall(b"x")
            assert first.recv(1) == b"x"
            with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as second:
                second.settimeout(10)
                assert second.recv(1) == b"", "a second connection was served past the bound"
        assert proxy.refused == 1, f"refused {proxy.refused} connections, expected 1"


def test_it_stops_by_itself_after_its_lifetime(echo_port: int) -> None:
    proxy = DelayProxy(echo_port, delay=0.0, lifetime=0.3).start()
    try:
        proxy._thread.join(10)
        assert not proxy.running, "the proxy outlived its lifetime"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", proxy.port), timeout=2).close()
    finally:
        proxy.stop()


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"delay": -1}, "delay"),
        ({"max_connections": 0}, "max_connections"),
        ({"lifetime": 0}, "lifetime"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs: dict, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        DelayProxy(1, **kwargs)


def test_stopping_with_a_connection_open_is_quiet(echo_port: int, caplog) -> None:
    proxy = DelayProxy(echo_port, delay=0.0).start()
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(b"x")
        assert sock.recv(1) == b"x"
        proxy.stop()
        assert not proxy.running
        sock.settimeout(10)
        assert sock.recv(1) == b"", "the connection stayed open after stop()"
    assert not [r for r in caplog.records if r.name == "asyncio"], caplog.text
