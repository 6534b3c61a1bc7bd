"""`make notebook`'s server: token required for the API, reachable on 127.0.0.1 only, and stopped
together with its kernels."""

from __future__ import annotations

import ipaddress
import json
import socket
import urllib.request

import psutil
import pytest

import harness as jp

pytestmark = pytest.mark.browser


def _other_addresses() -> list[str]:
    """This machine's addresses other than loopback (IPv4 and IPv6, link-local left out)."""
    found = []
    for entries in psutil.net_if_addrs().values():
        for entry in entries:
            if entry.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            address = ipaddress.ip_address(entry.address.split("%")[0])
            if not (address.is_loopback or address.is_link_local):
                found.append(str(address))
    return found


def _listening(pid: int, port: int) -> set[str]:
    return {
        c.laddr.ip
        for c in psutil.Process(pid).net_connections("inet")
        if c.status == psutil.CONN_LISTEN and c.laddr.port == port
    }


def _refused(address: str, port: int) -> bool:
    try:
        with socket.create_connection((address, port), timeout=2):
            return False
    except OSError:
        return True


def test_make_notebook_server_demands_token_and_binds_loopback(tmp_path) -> None:
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    # Exactly what `make notebook` runs: gradkit notebook DIR --port PORT, no token given, the
    # caller's environment untouched. The token is read from what it prints, as a learner would.
    server = jp.start_notebook(lessons, tmp_path / "server", isolated=False)
    family: list[psutil.Process] = []
    try:
        assert len(server.token) >= 32, f"weak token {server.token!r}"
        assert f"http://127.0.0.1:{server.port}/tree?token={server.token}" in server.stdout

        for path in ("api/contents", "api/kernels", "api/sessions"):
            status = jp.http_status(server.url(path, token=False))
            assert status == 403, f"/{path} without the token answered {status}"
        wrong = server.url("api/contents", token=False) + "?token=" + "0" * 48
        assert jp.http_status(wrong) == 403
        assert jp.http_status(server.url("api/contents")) == 200, "the printed token must work"

        assert _listening(server.process.pid, server.port) == {"127.0.0.1"}
        assert not _refused("127.0.0.1", server.port)
        for address in _other_addresses():
            assert _refused(address, server.port), f"the server answers on {address}"

        # A kernel started through the API (with the token) must die with the server.
        request = urllib.request.Request(
            server.url("api/kernels", token=False),
            data=json.dumps({"name": "python3"}).encode(),
            method="POST",
            headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"},
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=60) as response:
            assert response.status == 201
        family = psutil.Process(server.process.pid).children(recursive=True)
        assert family, "the kernel process did not start"
    finally:
        server.stop()
    alive = [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"still running after stop: {[p.cmdline() for p in alive]}"
    assert server.process.returncode is not None
