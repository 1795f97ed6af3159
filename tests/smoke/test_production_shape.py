"""The production shape, natively (what docker/compose.yaml runs, without Docker): uvicorn with
2 workers, a Celery worker and a separate Celery beat, on PostgreSQL and Redis, with the
production settings — DEBUG off, a real SECRET_KEY, WhiteNoise serving the output of
`collectstatic` (hashed, compressed), JSON logs. A whole game is played over HTTP and
WebSocket, static files and /healthz are checked, and the worker plays a timed-out turn.

Clients and people come from the end-to-end tests (tests/e2e); the worker from tests/tasks.
Redis database 11 (the helper holds it, and clears it, for the module).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import call_command

from games.models import Game, GameEntry
from tests.e2e.server import ALLOWED_HOSTS, LiveServer, current_database_url, live_server
from tests.e2e.test_live import ClientLoop, Person, Table, assert_seqs
from tests.tasks.test_celery_live import give_limit, timeouts, wait_for
from tests.tasks.worker import CeleryWorker, celery_worker, isolated_redis_url, worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
REDIS_DB = 11
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def production_env(static_root: Path) -> dict[str, str]:
    return {
        "DEBUG": "0",
        "SECRET_KEY": "smoke-" + secrets.token_urlsafe(32),
        "ALLOWED_HOSTS": ALLOWED_HOSTS,
        "STATIC_ROOT": str(static_root),
        "LOG_FORMAT": "json",
        # the game below is played far faster than people play: no move limit in the way
        "MOVE_THROTTLE_RATE": "100000/min",
        "DEADLINE_TICK_SECONDS": "1",
    }


class Beat:
    """`celery -A taxi_project beat`, its own process (as in compose.yaml), its own group."""

    def __init__(self, *, env: dict[str, str], workdir: Path):
        self.schedule = workdir / "celerybeat-schedule"
        self.log_path = workdir / "beat.log"
        command = [
            sys.executable, "-m", "celery", "-A", "taxi_project", "beat",
            "--loglevel", "info", "-s", str(self.schedule),
        ]  # fmt: skip
        with open(self.log_path, "wb") as log_file:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log_file,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"beat exited:\n{self.log()}"
            if any(self.schedule.parent.glob(self.schedule.name + "*")):
                return
            time.sleep(0.1)
        raise AssertionError(f"beat was not up within {timeout} s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


@dataclass
class Shape:
    server: LiveServer
    worker: CeleryWorker
    beat: Beat
    static_root: Path


@pytest.fixture(scope="module")
def shape(django_db_setup, tmp_path_factory) -> Iterator[Shape]:
    database_url = current_database_url()
    redis_url = isolated_redis_url(os.environ["REDIS_URL"], REDIS_DB)
    workdir = tmp_path_factory.mktemp("shape")
    static_root = workdir / "static"
    env = production_env(static_root)
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input"],
        cwd=ROOT,
        env=worker_env(database_url=database_url, redis_url=redis_url, extra=env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr
    # the worker helper holds database 11 and clears it first: start it before the others
    with celery_worker(
        database_url=database_url, redis_url=redis_url, concurrency=2, beat=False, env=env
    ) as worker:
        beat = Beat(env=worker.env, workdir=workdir)
        try:
            beat.wait_ready()
            with live_server(
                database_url=database_url, redis_url=redis_url, workers=2, env=env
            ) as server:
                yield Shape(server, worker, beat, static_root)
        finally:
            beat.stop()


@pytest.fixture
def clients(shape, committed_db):
    loop = ClientLoop()
    yield loop
    loop.close()
    assert shape.server.alive(), "the server died"


def fetch(url: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with _opener.open(request, timeout=15) as response:
            return (
                response.status,
                {k.lower(): v for k, v in response.headers.items()},
                (response.read()),
            )
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


# ---------------------------------------------------------------------------------- the game


def test_a_whole_game_over_http_and_websocket(shape, clients):
    server = shape.server
    alice, bob, watcher = Person.signup(server), Person.create(server), Person.create(server)
    table = Table(server, [alice, bob], movement="faster")
    sockets = {p.id: clients.socket(server, table.path, p) for p in (alice, bob, watcher)}
    for sock in sockets.values():
        assert sock.frame("hello")["status"] == "playing"
        sock.sync(-1)

    moves = 0
    while Game.objects.get(pk=table.id).status == Game.Status.PLAYING:
        assert moves < 3000, "the game does not end"
        mover = table.by_seat[Game.objects.get(pk=table.id).active_seat]
        if moves % 4 == 3:
            table.play(via=sockets[mover.id], ref=f"m{moves}")
        else:
            table.play()
        moves += 1

    game = Game.objects.get(pk=table.id)
    assert game.status == Game.Status.FINISHED and game.result["ranking"]
    log = table.log(alice)
    assert [e["seq"] for e in log] == list(range(game.version + 1))
    for sock in sockets.values():
        sock.wait_entry(game.version)
    time.sleep(0.3)  # room for a stray duplicate to show
    for sock in sockets.values():
        assert_seqs(sock, list(range(game.version + 1)))
        assert sock.kinds("error") == []
    status, detail = watcher.get(f"/api/v1/games/{table.id}")
    assert status == 200 and detail["status"] == "finished" and detail["seed"]
    out = call_command_output("verify_games", "--game", str(table.id))
    assert out == "1 game(s) verified, 0 differ from their log"
    print(f"{moves} moves, {game.version} log entries")


# ---------------------------------------------------------------------------------- the worker


def test_a_timed_out_turn_is_played_by_the_worker_and_pushed(shape, clients):
    server = shape.server
    alice, bob = Person.create(server), Person.create(server)
    table = Table(server, [alice, bob], clock="30s")
    sock = clients.socket(server, table.path, alice)
    sock.frame("hello")
    sock.sync(-1)
    seat = Game.objects.get(pk=table.id).active_seat
    give_limit([table.id])  # this turn is due in 2 s

    entry = wait_for(lambda: next(iter(timeouts(table.id)), None), timeout=15, what="a timeout")
    Game.objects.filter(pk=table.id).update(turn_seconds=None, next_deadline_at=None)  # quiet
    assert entry.actor is None and entry.action == {"type": "timeout", "seat": seat}
    # pushed from the worker's process through Redis to the web worker holding the socket
    sock.wait_entry(entry.seq)
    assert {f["seq"] for f in sock.entries()} >= set(range(entry.seq + 1))
    assert GameEntry.objects.filter(game_id=table.id, action__type="timeout").count() >= 1
    ticks = [line for line in json_lines(shape.beat.log()) if "sweep_deadlines" in line["message"]]
    assert ticks, "beat logged no tick as JSON"


# ---------------------------------------------------------------------------------- the rest


def test_static_files_health_and_json_logs(shape, committed_db):
    server = shape.server
    status, _, body = fetch(server.url("/healthz"))
    health = json.loads(body)
    assert (status, health["status"]) == (200, "ok")
    assert set(health["database_pool"]) == {"max", "open", "in_use", "waiting"}  # the process's

    manifest = json.loads((shape.static_root / "staticfiles.json").read_text())["paths"]
    hashed = manifest["web/api.js"]
    assert hashed != "web/api.js"  # a content hash in the name
    status, headers, body = fetch(server.url(f"/static/{hashed}"), {"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers.get("content-encoding") == "gzip"
    assert "immutable" in headers["cache-control"]  # hashed: cached for ever
    assert gzip.decompress(body) == (ROOT / "games/static/web/api.js").read_bytes()
    status, _, _ = fetch(server.url("/static/admin/css/base.css"))
    assert status == 200  # the admin's own files too
    status, _, _ = fetch(server.url("/static/web/no-such-file.js"))
    assert status == 404

    # pages link the hashed names (ManifestStaticFilesStorage with DEBUG off)
    status, _, page = fetch(server.url("/login"))
    assert status == 200
    assert f'href="/static/{manifest["web/site.css"]}"'.encode() in page

    # behind the TLS-terminating balancer (X-Forwarded-Proto): HSTS, and Secure cookies
    name, password = f"smoke-{secrets.token_hex(4)}", "Palm-" + secrets.token_hex(8)
    credentials = json.dumps({"username": name, "password": password}).encode()
    for path, expected in (("/api/v1/auth/signup", 201), ("/api/v1/auth/login", 200)):
        request = urllib.request.Request(
            server.url(path),
            data=credentials,
            headers={"Content-Type": "application/json", "X-Forwarded-Proto": "https"},
        )
        with _opener.open(request, timeout=15) as response:
            assert response.status == expected
            cookies = response.headers.get_all("Set-Cookie") or []
            assert response.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    session = [c for c in cookies if c.startswith("sessionid=")]
    assert session and "Secure" in session[0] and "HttpOnly" in session[0], cookies
    _, headers, _ = fetch(server.url("/healthz"))  # plain HTTP: no HSTS (browsers ignore it)
    assert "strict-transport-security" not in headers

    # DEBUG is off: no debug page
    status, _, body = fetch(server.url("/no-such-page"))
    assert status == 404 and b"Traceback" not in body and b"DEBUG = True" not in body

    lines = json_lines(server.log())
    assert any("Application startup complete" in line["message"] for line in lines)
    assert {"time", "level", "logger", "message", "process"} <= set(lines[0])
    errors = [line for line in lines if line["level"] in ("ERROR", "CRITICAL")]
    assert errors == [], errors


def call_command_output(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip()
