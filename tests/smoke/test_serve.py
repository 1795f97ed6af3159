"""taxi_project/serve.py, the production server command: two workers on one port (a listening
socket each), each holding a share of 30 kept-alive connections; SIGTERM stops them all. With
`--socket-port`, workers of their own for WebSockets there, nicer than the others. (At
this small scale `uvicorn --workers` spreads them too: the uneven spread it shows needs busy
workers and a burst of connections, bench/api.py's per-worker figures.)"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.server import current_database_url, free_port, server_env

ROOT = Path(__file__).resolve().parents[2]


def children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
            if ppid == pid and b"resource_tracker" not in cmdline:
                found.append(int(name))
    return sorted(found)


def sockets_of(pid: int) -> int:
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return count


def listening_sockets() -> list[tuple[int, str]]:
    """(port, inode) of every listening IPv4 TCP socket (/proc/net/tcp)."""
    found = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A":
            found.append((int(fields[1].rsplit(":", 1)[1], 16), fields[9]))
    return found


def listening(port: int) -> int:
    """Listening sockets on the port (each worker's own, with SO_REUSEPORT)."""
    return sum(1 for listened, _inode in listening_sockets() if listened == port)


def start_server(*args: str, extra: dict | None = None) -> subprocess.Popen:
    """`python -m taxi_project.serve` with `args`, in a session of its own (stop it: `stop`)."""
    env = server_env(database_url=current_database_url(), redis_url=None, extra=extra or {})
    return subprocess.Popen(
        [sys.executable, "-m", "taxi_project.serve", *args], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def stop(server: subprocess.Popen) -> None:
    """SIGTERM to the server, which its workers' graceful shutdown must end within a minute."""
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)


@pytest.mark.skipif(sys.platform != "linux", reason="SO_REUSEPORT spreads connections on Linux")
def test_kept_alive_connections_spread_over_the_workers(committed_db):
    port = free_port()
    server = start_server("--host", "127.0.0.1", "--port", str(port), "--workers", "2",
                          "--no-access-log", "--timeout-keep-alive", "60")  # fmt: skip
    connections = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                probe.request("GET", "/healthz")
                assert probe.getresponse().status in (200, 503)
                probe.close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        while listening(port) < 2:  # the other worker may still be loading the app
            assert time.monotonic() < deadline, "both workers did not listen"
            time.sleep(0.2)
        workers = children(server.pid)
        assert len(workers) == 2
        before = {pid: sockets_of(pid) for pid in workers}
        for _ in range(30):  # opened in a burst, all kept open
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.connect()
            connections.append(connection)
        for connection in connections:
            connection.request("GET", "/healthz")
            connection.getresponse().read()
        held = {pid: sockets_of(pid) - before[pid] for pid in workers}
        assert sum(held.values()) >= 30
        assert min(held.values()) >= 5, held  # each worker took its share, not one all
    finally:
        for connection in connections:
            connection.close()
        stop(server)
    assert server.returncode == 0
    assert all(not Path(f"/proc/{pid}").exists() for pid in workers)


def niceness(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2 :].split()[16])


def listeners(pid: int) -> set[int]:
    """The ports `pid` listens on (its sockets' inodes against /proc/net/tcp)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    return {port for port, inode in listening_sockets() if inode in inodes}


def status_of(port: int, path: str, headers: dict | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_socket_workers_listen_on_their_own_port_nicer_than_the_others(committed_db):
    port, socket_port = free_port(), free_port()
    server = start_server("--host", "127.0.0.1", "--port", str(port), "--workers", "1",
                          "--socket-port", str(socket_port), "--socket-workers", "1",
                          "--socket-niceness", "7", "--no-access-log")  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                statuses = {status_of(port, "/healthz"), status_of(socket_port, "/healthz")}
                assert statuses <= {200, 503}  # 503: up, but a service it checks is not
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        workers = children(server.pid)
        assert sorted((niceness(pid), listeners(pid)) for pid in workers) == [
            (0, {port}),
            (7, {socket_port}),
        ]
        # the socket port serves the whole application: a socket upgrade is routed there
        upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                   "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}  # fmt: skip
        assert status_of(socket_port, "/ws/games/999999/", upgrade) in (101, 403)
    finally:
        stop(server)
    assert server.returncode == 0
    assert all(not Path(f"/proc/{pid}").exists() for pid in workers)
