"""Fault injection helpers for tests/reliability and bench/chaos.py: a Redis server of our own
(to kill and restart; the machine's Redis is never touched), clients that play games over HTTP
and retry each move with its idempotency key until it gets an answer, PostgreSQL connection
drops, and the check that every acknowledged move is in the log exactly once.

Players read what they may do over HTTP too (GET …/actions), so fault-time database errors
reach only the server, never the players' own bookkeeping.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import os
import random
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.server import HOST, LiveServer, free_port, request_json

RETRY_PAUSE = 0.1  # seconds between retries of one move
RETRYABLE = {502, 503, 504}


# ---------------------------------------------------------------------------------- Redis


class OwnRedis:
    """`redis-server` on a free port, in a temporary directory, without persistence (a restart
    loses everything, as a crashed cache would)."""

    def __init__(self):
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="taxi-redis-"))
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def url(self, db: int = 0) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    def start(self, timeout: float = 10) -> None:
        redis_server = shutil.which("redis-server")
        if redis_server is None:
            raise RuntimeError("redis-server is not installed")
        self.starts += 1
        log = open(self.dir / "redis.log", "ab")  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen(
            [redis_server, "--port", str(self.port), "--bind", HOST, "--dir", str(self.dir),
             "--save", "", "--appendonly", "no", "--protected-mode", "no"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {self.log_tail()}")
            time.sleep(0.05)

    def answers(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(host=HOST, port=self.port, socket_timeout=0.5).ping())
        except (redis.RedisError, OSError):
            return False

    def kill(self) -> None:
        """SIGKILL: a crash; nothing of its data survives."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def restart(self, down_for: float = 0) -> None:
        self.kill()
        time.sleep(down_for)
        self.start()

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.dir / "redis.log").read_text(errors="replace")[-2000:]
        return ""

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------- PostgreSQL


def drop_database_connections(database: str) -> int:
    """Terminate every other connection to `database` (the servers', the workers'), as a
    PostgreSQL restart or a failover would; returns how many."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        )
        return cursor.fetchone()[0]


# ---------------------------------------------------------------------------------- players


@dataclass(frozen=True)
class Ack:
    """A move the server acknowledged (201, or 200 for a retry it had already applied)."""

    game: int
    key: str
    seq: int


@dataclass
class Tally:
    acks: list[Ack] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)  # every HTTP answer, by status
    broken: int = 0  # requests that got no answer (connection refused or reset, timeout)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, status: int | None) -> None:
        with self.lock:
            if status is None:
                self.broken += 1
            else:
                self.statuses[status] += 1

    def server_errors(self) -> dict[int, int]:
        return {status: n for status, n in self.statuses.items() if status >= 500}


class Driver(threading.Thread):
    """Plays one game over HTTP (each seat with its own token) until stopped or the game ends:
    reads the mover's legal actions, picks one (no undo), submits it, and retries the very same
    request (same idempotency key) after a broken connection or a 502/503/504 until it gets a
    definite answer."""

    def __init__(self, server: LiveServer, game_id: int, tokens: dict[int, str], tally: Tally,
                 stop: threading.Event, *, seed: int, max_moves: int | None = None):  # fmt: skip
        super().__init__(name=f"driver-{game_id}", daemon=True)
        self.server = server
        self.game_id = game_id
        self.tokens = tokens  # seat → API token
        self.tally = tally
        self.stop = stop
        self.rng = random.Random(seed)
        self.max_moves = max_moves
        self.moves = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set() and self.moves < (self.max_moves or float("inf")):
                if not self.one_move():
                    return
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error

    def call(self, path: str, data=None, *, token: str):
        """(status, body), retrying what got no definite answer."""
        for _ in range(600):
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
                time.sleep(RETRY_PAUSE)
                continue
            return status, body
        raise AssertionError(f"game {self.game_id}: no answer to {path} after 600 attempts")

    def one_move(self) -> bool:
        any_token = next(iter(self.tokens.values()))
        status, game = self.call(f"/api/v1/games/{self.game_id}", token=any_token)
        if status is None:
            return False
        assert status == 200, game
        if game["status"] != "playing":
            return False
        token = self.tokens[game["active_seat"]]
        status, legal = self.call(f"/api/v1/games/{self.game_id}/actions", token=token)
        if status is None:
            return False
        assert status == 200, legal
        playable = [a for a in legal["actions"] if a["type"] != "resign"]  # K3: always offered
        if legal["version"] != game["version"] or not playable:
            return True  # the game moved on between the two reads: read again
        choices = [a for a in playable if a["type"] != "undo"] or playable
        action = {k: v for k, v in self.rng.choice(choices).items() if k != "seat"}
        move = {"action": action, "version": legal["version"], "idempotency_key": uuid.uuid4().hex}
        status, body = self.call(f"/api/v1/games/{self.game_id}/actions", move, token=token)
        assert status in (200, 201), (status, body, move)
        with self.tally.lock:
            self.tally.acks.append(Ack(self.game_id, move["idempotency_key"], body["seq"]))
        self.moves += 1
        return True


def run_drivers(drivers: list[Driver]) -> None:
    for driver in drivers:
        driver.start()


def stop_drivers(drivers: list[Driver], stop: threading.Event, timeout: float = 30) -> None:
    stop.set()
    for driver in drivers:
        driver.join(timeout)
        assert not driver.is_alive(), f"{driver.name} did not stop"
        if driver.error is not None:
            raise driver.error


# ---------------------------------------------------------------------------------- checks


def lost_or_duplicated(acks: list[Ack], game_ids: list[int]) -> dict:
    """Compare the acknowledged moves with the log. Empty when every acknowledged move is in
    its game's log exactly once, at the seq it was acknowledged with, the log has no gap, and
    the log holds no player move that nobody was told about."""
    from games.models import Game, GameEntry

    problems: dict = {}
    for game_id in game_ids:
        version = Game.objects.get(pk=game_id).version
        entries = list(
            GameEntry.objects.filter(game_id=game_id)
            .order_by("seq")
            .values_list("seq", "idempotency_key")
        )
        if [seq for seq, _ in entries] != list(range(version + 1)):
            problems[game_id] = "the log has gaps or runs past the version"
            continue
        keyed = Counter(key for _, key in entries if key)
        logged = {key: seq for seq, key in entries if key}
        acked = {ack.key: ack.seq for ack in acks if ack.game == game_id}
        lost = {key for key in acked if key not in logged}
        twice = {key for key, n in keyed.items() if n > 1}
        moved = {key for key in acked if key in logged and logged[key] != acked[key]}
        unacked = {key for key in logged if key not in acked}
        if lost or twice or moved or unacked:
            problems[game_id] = {"lost": lost, "twice": twice, "other_seq": moved,
                                 "never_acknowledged": unacked}  # fmt: skip
    return problems


def verify_games(game_ids: list[int]) -> tuple[int, str]:
    """`manage.py verify_games` on these games: (games that differ, its report)."""
    from django.core.management import CommandError, call_command

    out, err = io.StringIO(), io.StringIO()
    args = [arg for game_id in game_ids for arg in ("--game", str(game_id))]
    try:
        call_command("verify_games", *args, stdout=out, stderr=err)
    except CommandError as failed:
        return int(str(failed).split(", ")[1].split()[0]), err.getvalue()
    return 0, out.getvalue()
