"""The production shape on one machine, for tests/reliability/test_multinode.py: two web nodes
(uvicorn, each a process of its own on a fixed port, so it can be SIGKILLed and started again
where the proxy expects it) and Debian's HAProxy in front of them running docker/haproxy.cfg
itself (the workers and the beat are tests/tasks/worker.py's and
tests/smoke/test_production_shape.py's); clients that alternate
between the nodes and the proxy, and game sockets that reconnect and catch up.

The WebSocket check, precisely. A *watcher* is one client watching one game: a sequence of
socket *sessions*. Its first session sends `sync {after: -1}`; when a session ends (its node
died, the proxy closed it) the watcher opens the next one, on its next target, and sends `sync
{after: L}` with L the last seq it received. The watcher receives each entry exactly once when
the seqs of the entry frames of all its sessions, in arrival order, are exactly 0, 1, …, the
game's final version. Nothing is deduplicated on the client side: a frame for a seq it already
had counts as a duplicate, a seq it never got as lost, any other order as out of order.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import csv
import http.client
import io
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from tests.e2e.server import HOST, ROOT, free_port, live_server, request_json
from tests.reliability.faults import RETRY_PAUSE, RETRYABLE, Driver

PROXY_CONFIG = ROOT / "docker" / "haproxy.cfg"
HEALTH_HOST = "localhost"  # one of tests/e2e/server.py's ALLOWED_HOSTS


def wait_until(predicate, *, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def named(database_url: str, name: str) -> str:
    """The database URL with an `application_name`: the process's connections are then told
    apart in pg_stat_activity."""
    parts = urllib.parse.urlsplit(database_url)
    query = [*urllib.parse.parse_qsl(parts.query), ("application_name", name)]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def busy(name: str) -> int:
    """How many connections of the processes called `name` are busy now: a statement running or
    a transaction open (each statement is a transaction of its own in autocommit)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
            "AND xact_start IS NOT NULL AND state <> 'idle'",
            [name],
        )
        return cursor.fetchone()[0]


def start_together(parts) -> None:
    """`start()` each part (nodes, workers) at once, each from a thread of its own: their
    processes start side by side rather than one after another, and each `start()` still
    returns only once its part is up. Raises the first failure after every start has returned;
    the caller stops the parts, started or not."""
    with concurrent.futures.ThreadPoolExecutor(len(parts)) as pool:
        starts = [pool.submit(part.start) for part in parts]
    for start in starts:
        start.result()


# ---------------------------------------------------------------------------------- web nodes


class Node:
    """One web node: `uvicorn` with one worker on a port that stays its own across restarts."""

    def __init__(self, name: str, *, database_url: str, redis_url: str, env: Mapping[str, str]):
        self.name = name
        self.application_name = f"taxi-node-{name.lower()}"
        self.port = free_port()
        self.database_url = named(database_url, self.application_name)
        self.redis_url = redis_url
        self.env = dict(env)
        self.server = None
        self.kills = 0
        self.logs: list[str] = []  # the output of each run that has ended
        self._stack: contextlib.ExitStack | None = None

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    def url(self, path: str) -> str:
        return f"http://{self.address}{path}"

    def ws_url(self, path: str) -> str:
        return f"ws://{self.address}{path}"

    def start(self) -> None:
        self._stack = contextlib.ExitStack()
        self.server = self._stack.enter_context(
            live_server(
                database_url=self.database_url, redis_url=self.redis_url, workers=1,
                port=self.port, env=self.env,
            )
        )  # fmt: skip

    def kill(self) -> None:
        """SIGKILL: the node dies with its requests and sockets, as a crashed host would."""
        os.killpg(self.server.pid, signal.SIGKILL)
        self.server.process.wait(timeout=10)
        self.kills += 1
        self.stop()

    def stop(self) -> None:
        if self._stack is not None:
            self.logs.append(self.server.log())
            self._stack.close()
            self._stack = None

    def alive(self) -> bool:
        return self._stack is not None and self.server.alive()


# ---------------------------------------------------------------------------------- the proxy


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy",) if os.access(p, os.X_OK)), None
    )


class Proxy:
    """Debian's haproxy on docker/haproxy.cfg, unchanged: the environment gives it its address,
    the nodes', the Host of its health checks, the path of its stats socket and its limit of
    new connections per client address."""

    name = "proxy"

    def __init__(self, nodes: list[Node]):
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="taxi-haproxy-"))
        self.stats_path = self.dir / "stats.sock"
        self.log_path = self.dir / "haproxy.log"
        self.env = {
            **os.environ,
            "TAXI_PROXY_BIND": f"{HOST}:{self.port}",
            "TAXI_NODE_A": nodes[0].address,
            "TAXI_NODE_B": nodes[1].address,
            "TAXI_SOCKETS_A": nodes[0].address,  # a node serves its sockets on its one port
            "TAXI_SOCKETS_B": nodes[1].address,
            "TAXI_HEALTH_HOST": HEALTH_HOST,
            "TAXI_PROXY_STATS": str(self.stats_path),
            # every request of the tests' clients is a new connection from 127.0.0.1 (urllib
            # keeps none alive): far past the limit per client address meant for floods
            "TAXI_PROXY_CONN_RATE": "100000",
        }
        self.process: subprocess.Popen | None = None

    def url(self, path: str) -> str:
        return f"http://{HOST}:{self.port}{path}"

    def ws_url(self, path: str) -> str:
        return f"ws://{HOST}:{self.port}{path}"

    def start(self) -> None:
        binary = haproxy_binary()
        check = subprocess.run(
            [binary, "-c", "-f", str(PROXY_CONFIG)], env=self.env, capture_output=True, text=True
        )
        assert check.returncode == 0, f"docker/haproxy.cfg: {check.stdout}{check.stderr}"
        with open(self.log_path, "ab") as log:
            # -db: stay in the foreground, a child of this process
            self.process = subprocess.Popen(
                [binary, "-db", "-f", str(PROXY_CONFIG)], env=self.env, cwd=self.dir,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        both_up = {"node_a": "UP", "node_b": "UP"}
        wait_until(lambda: self.servers() == both_up == self.servers("sockets"), timeout=20,
                   what=f"haproxy with both nodes up: {self.log_tail()}")  # fmt: skip

    def _stats(self) -> list[dict[str, str]]:
        """The rows of `show stat` ([] if the proxy does not answer)."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stats:
                stats.settimeout(2)
                stats.connect(str(self.stats_path))
                stats.sendall(b"show stat\n")
                raw = b"".join(iter(lambda: stats.recv(65536), b""))
        except OSError:
            return []
        return list(csv.DictReader(io.StringIO(raw.decode().lstrip("# "))))

    def servers(self, backend: str = "web") -> dict[str, str]:
        """Each node's state in `backend` as the proxy's health checks see it: UP, DOWN, …
        ({} if the proxy does not answer)."""
        return {
            row["svname"]: row["status"].split()[0]
            for row in self._stats()
            if row["pxname"] == backend and row["svname"] not in ("BACKEND", "FRONTEND")
        }

    def sessions(self) -> dict[str, int]:
        """Connections each backend has been given so far (health checks not counted)."""
        return {
            row["pxname"]: int(row["stot"]) for row in self._stats() if row["svname"] == "BACKEND"
        }

    def log_tail(self, chars: int = 4000) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")[-chars:]
        return ""

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        if os.environ.get("TAXI_KEEP_SERVER_LOG"):  # as tests/e2e/server.py: keep, say where
            print(f"haproxy log kept: {self.log_path}", file=sys.stderr)
            return
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------- HTTP players


class Rotation:
    """Where a client's next request goes: node A, node B, the proxy, A, … — a retry too, so
    a request that a dead node did not answer is sent again (same idempotency key) elsewhere."""

    def __init__(self, targets: list, start: int = 0):
        self.targets = targets
        self._next = itertools.count(start)
        self.last = None  # the target of the latest request

    def url(self, path: str) -> str:
        self.last = self.targets[next(self._next) % len(self.targets)]
        return self.last.url(path)


@dataclass
class Answer:
    """A move and the first definite answer it got."""

    game: int
    token: str
    move: dict
    status: int
    body: dict
    attempts: int  # 1, or more when earlier attempts got no answer or a 502/503/504


class AlternatingDriver(Driver):
    """tests/reliability/faults.py's player, its requests spread over the targets by a
    Rotation, and every move's request and first answer kept for the replay check."""

    def __init__(self, rotation: Rotation, *args, **kwargs):
        super().__init__(rotation, *args, **kwargs)
        self.answers: list[Answer] = []
        self.unavailable: Counter = Counter()  # (target, method, status, code): 502/503/504

    def call(self, path: str, data=None, *, token: str):
        for attempt in range(1, 601):
            if self.stop.is_set() and data is None:
                return None, None
            try:
                status, body = request_json(
                    self.server.url(path), data, token=token, timeout=10,
                    method="POST" if data is not None else "GET",
                )  # fmt: skip
            except (OSError, http.client.HTTPException):
                self.tally.count(None)
                time.sleep(RETRY_PAUSE)
                continue
            self.tally.count(status)
            if status in RETRYABLE:
                code = body.get("code") if isinstance(body, dict) else "(not JSON)"
                method = "POST" if data is not None else "GET"
                self.unavailable[(self.server.last.name, method, status, code)] += 1
                time.sleep(RETRY_PAUSE)
                continue
            if data is not None and status in (200, 201):
                self.answers.append(Answer(self.game_id, token, data, status, body, attempt))
            return status, body
        raise AssertionError(f"game {self.game_id}: no answer to {path} after 600 attempts")


def replay_differences(answers: list[Answer], targets: list) -> list[str]:
    """Send every answered move again, unchanged, to each target: each must answer 200 with
    the very body of the first answer."""
    problems = []
    for answer in answers:
        path = f"/api/v1/games/{answer.game}/actions"
        for target in targets:
            status, body = request_json(target.url(path), answer.move, token=answer.token)
            if status != 200 or body != answer.body:
                problems.append(
                    f"{target.url(path)} key {answer.move['idempotency_key']}: {status} {body} "
                    f"!= first answer {answer.status} {answer.body}"
                )
    return problems


# ---------------------------------------------------------------------------------- sockets


@dataclass
class Session:
    target: str  # "A", "B" or "proxy"
    after: int  # the seq its sync asked to start after
    seqs: list[int] = field(default_factory=list)  # its entry frames' seqs, in order
    ended: str = ""  # why it ended: "closed 1006", "refused", …


class Watcher:
    """One client watching one game across sessions (see the module's docstring)."""

    def __init__(self, game: int, token: str, targets: list[tuple[str, object]], start: int = 0):
        self.game = game
        self.token = token
        self.targets = targets  # (name, node or proxy)
        self.turn = start
        self.seqs: list[int] = []  # every entry frame's seq, over all sessions
        self.sessions: list[Session] = []
        self.failed_opens = 0
        self.errors: list[dict] = []  # error frames (none expected)
        self.stopping = False

    @property
    def last(self) -> int:
        return self.seqs[-1] if self.seqs else -1

    async def run(self) -> None:
        while not self.stopping:
            name, target = self.targets[self.turn % len(self.targets)]
            self.turn += 1
            try:
                ws = await connect(
                    target.ws_url(f"/ws/games/{self.game}/"), open_timeout=5, proxy=None,
                    additional_headers=[("Authorization", f"Token {self.token}")],
                )  # fmt: skip
            except (OSError, InvalidHandshake, TimeoutError):
                self.failed_opens += 1
                await asyncio.sleep(0.2)
                continue
            session = Session(name, self.last)
            self.sessions.append(session)
            try:
                await ws.send(json.dumps({"type": "sync", "after": self.last}))
                async for message in ws:
                    frame = json.loads(message)
                    if frame["type"] == "entry":
                        session.seqs.append(frame["seq"])
                        self.seqs.append(frame["seq"])
                    elif frame["type"] == "error":
                        self.errors.append(frame)
            except ConnectionClosed:
                pass
            finally:
                session.ended = f"closed {ws.close_code}"
                await ws.close()
            await asyncio.sleep(0.05)

    def problems(self, version: int) -> dict:
        """{} when every entry 0..version arrived exactly once, in order."""
        counts = Counter(self.seqs)
        lost = sorted(set(range(version + 1)) - set(counts))
        twice = sorted(seq for seq, n in counts.items() if n > 1)
        if not lost and not twice and self.seqs == list(range(version + 1)):
            return {}
        return {"lost": lost, "duplicated": twice, "seqs": self.seqs,
                "sessions": [(s.target, s.after, s.ended) for s in self.sessions]}  # fmt: skip


class Watchers:
    """The watchers' event loop, in a thread of its own."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="watchers", daemon=True)
        self.thread.start()
        self.all: list[Watcher] = []
        self.tasks = []

    def add(self, watcher: Watcher) -> Watcher:
        self.all.append(watcher)
        self.tasks.append(asyncio.run_coroutine_threadsafe(watcher.run(), self.loop))
        return watcher

    def caught_up(self, versions: Mapping[int, int]) -> bool:
        return all(w.last >= versions[w.game] for w in self.all)

    def close(self) -> None:
        for watcher in self.all:
            watcher.stopping = True

        async def cancel():
            running = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(cancel(), self.loop).result(15)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
