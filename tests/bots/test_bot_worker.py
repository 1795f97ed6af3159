"""A bot table played to its end with the real processes: the uvicorn server queues
each bot's turn after the commit that began it, a Celery worker consuming the bots queue plays
it, and the person plays over HTTP. Needs PostgreSQL and Redis (tests/tasks/worker.py)."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from accounts.models import User
from accounts.services import token_issue
from games.models import GameEntry
from tests.e2e.server import current_database_url, live_server, request_json
from tests.tasks.worker import celery_worker, isolated_redis_url

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

# both processes: bots move at once (the think time is a setting, 2 s by default)
ENV = {"BOT_THINK_SECONDS": "0"}


@pytest.fixture(scope="module")
def live(django_db_setup):
    redis_url = isolated_redis_url(os.environ["REDIS_URL"])
    database_url = current_database_url()
    with celery_worker(database_url=database_url, redis_url=redis_url, env=ENV) as worker:
        with live_server(database_url=database_url, redis_url=redis_url, env=ENV) as server:
            yield server, worker


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)
    return value


def test_a_person_and_two_bots_play_a_game_to_its_end(live, committed_db):
    server, worker = live
    since = worker.log_size()
    user = User.objects.create_user(username="solo", password="pw-solo-solo")
    token = token_issue(user=user, device="tests")[1]
    status, table = request_json(
        server.url("/api/v1/tables"),
        {"players": 3, "movement": "faster", "bots": ["easy", "strong"]},
        token=token,
    )
    assert status == 201, table
    game = f"/api/v1/games/{table['id']}"
    mine = next(s["seat"] for s in table["seats"] if s["user"]["id"] == user.pk)

    def my_turn_or_end():
        _status, detail = request_json(server.url(game), token=token)
        over = detail["status"] != "playing"
        return (over or detail["active_seat"] == mine) and detail

    for _ in range(400):
        detail = _wait(my_turn_or_end, 30, "the bots to play")
        if detail["status"] != "playing":
            break
        _status, legal = request_json(server.url(f"{game}/actions"), token=token)
        action = next((a for a in legal["actions"] if a["type"] == "stop"), legal["actions"][0])
        status, moved = request_json(
            server.url(f"{game}/actions"),
            {"action": action, "version": legal["version"], "idempotency_key": uuid.uuid4().hex},
            token=token,
        )
        assert status in (201, 409), moved  # 409: a clock or a bot came first
    assert detail["status"] == "finished", detail["status"]
    bots = GameEntry.objects.filter(game_id=table["id"], actor__username__startswith="bot:")
    assert bots.values("seat").distinct().count() == 2
    assert worker.errors(since) == []
