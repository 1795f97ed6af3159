"""A bot worker killed in the middle of a bot's think window, against the real processes: the
uvicorn server, Celery workers on the bots queue, PostgreSQL and Redis. Another bot worker
plays the turn within seconds (the beat's wake_bots; tests/tasks/worker.py starts them), each
move once, and the autopilot plays nothing."""

from __future__ import annotations

import os
import signal
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import redis

from accounts.models import User
from accounts.services import token_issue
from games.models import Game, GameEntry
from games.services import bot_workers
from tests.e2e.server import current_database_url, live_server, request_json
from tests.tasks.worker import CeleryWorker, celery_worker, isolated_redis_url

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

THINK = 3.0  # seconds: the window in which the first worker holds the bot's task, then dies
LOST_AFTER = 3.0
ENV = {"BOT_THINK_SECONDS": str(THINK), "BOT_LOST_AFTER_SECONDS": str(LOST_AFTER)}


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return value


def _bot_worker_alive(redis_url: str) -> bool:
    """Whether the workers' cache holds games/services/bot_workers.py's key."""
    client = redis.Redis.from_url(redis_url)
    try:
        return any(client.scan_iter(match=f"*:{bot_workers.KEY}"))
    finally:
        client.close()


def test_a_bot_turn_whose_worker_died_mid_think_is_played_by_another_within_seconds(
    committed_db,
):
    redis_url = isolated_redis_url(os.environ["REDIS_URL"])
    database_url = current_database_url()
    # the first worker: no beat, so nothing but its death and the second worker's beat matter
    with (
        celery_worker(database_url=database_url, redis_url=redis_url, env=ENV, beat=False) as first,
        live_server(database_url=database_url, redis_url=redis_url, env=ENV) as server,
    ):
        second = CeleryWorker(
            database_url=database_url, redis_url=redis_url, env=ENV,
            workdir=Path(tempfile.mkdtemp(prefix="taxi-celery-2-")),
        )  # fmt: skip
        try:
            user = User.objects.create_user(username="redeliver", password="pw-redeliver-1")
            token = token_issue(user=user, device="tests")[1]
            status, table = request_json(
                server.url("/api/v1/tables"),
                {"players": 2, "movement": "faster", "bots": ["easy"]},
                token=token,
            )
            assert status == 201, table
            game_id, game = table["id"], f"/api/v1/games/{table['id']}"
            mine = next(s["seat"] for s in table["seats"] if s["user"]["id"] == user.pk)
            detail = request_json(server.url(game), token=token)[1]
            if detail["active_seat"] != mine:  # the bot began: let the first worker play it
                detail = _wait(
                    lambda: (
                        (d := request_json(server.url(game), token=token)[1])["active_seat"] == mine
                        and d
                    ),
                    THINK + 20,
                    "the bot's first turn",
                )
            while detail["active_seat"] == mine:  # my turn, over HTTP, one action at a time
                legal = request_json(server.url(f"{game}/actions"), token=token)[1]
                action = next(
                    (a for a in legal["actions"] if a["type"] == "stop"), legal["actions"][0]
                )
                key = uuid.uuid4().hex
                body = {"action": action, "version": legal["version"], "idempotency_key": key}
                status, moved = request_json(server.url(f"{game}/actions"), body, token=token)
                assert status == 201, moved
                detail = request_json(server.url(game), token=token)[1]
            began = time.monotonic()
            version = detail["version"]
            time.sleep(1.0)  # the first worker has fetched the task and waits out the think time
            assert _bot_worker_alive(redis_url)  # the first worker says it lives
            first.kill(signal.SIGKILL)
            killed = time.monotonic()
            assert killed - began < THINK, "the kill came after the think window"
            assert Game.objects.get(pk=game_id).version == version  # the bot had not moved
            # its heartbeat lapses within three beats: the clock would now let the autopilot play
            _wait(lambda: not _bot_worker_alive(redis_url), 5, "the dead worker's key to lapse")
            second.start()  # another bot worker (with the beat)
            ready = time.monotonic()
            _wait(lambda: _bot_worker_alive(redis_url), 5, "the second worker's heartbeat")
            _wait(
                lambda: Game.objects.get(pk=game_id).version > version,
                THINK + LOST_AFTER + 30,
                "the bot's move",
            )
            moved_at = time.monotonic()
            # the turn was lost at THINK + LOST_AFTER; the beat looks every 2 s
            assert moved_at - max(ready, began + THINK + LOST_AFTER) < 6, (
                f"began→ready {ready - began:.1f} s, began→moved {moved_at - began:.1f} s"
            )
            _wait(
                lambda: (
                    Game.objects.get(pk=game_id).active_seat == mine
                    or Game.objects.get(pk=game_id).status != "playing"
                ),
                20,
                "the bot's whole turn",
            )
            entries = list(GameEntry.objects.filter(game_id=game_id, seq__gt=version))
            keys = [e.idempotency_key for e in entries]
            assert entries and len(keys) == len(set(keys))  # each move once
            assert all(e.seat != mine and e.actor_id is not None for e in entries)
            assert not any(n["type"] == "turn_timed_out" for e in entries for n in e.notifications)
            assert second.errors() == []
            print(
                f"bot turn began→worker killed {killed - began:.2f} s, second worker ready "
                f"{ready - began:.2f} s, bot moved {moved_at - began:.2f} s after its turn began"
            )
        finally:
            second.close()
