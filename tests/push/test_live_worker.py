"""Push with the real thing: a Celery worker with its embedded beat (tests/tasks/worker.py) over
Redis and PostgreSQL times a turn out, and the "your turn" that follows reaches the next
player's device through the broker, the worker's `push_notify` and `push_deliver`, and the
real Web Push sender, at the local push endpoint that checks the VAPID signature and decrypts
(tests/push/endpoint.py). Nothing runs eagerly and nothing is pushed from this process."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import PushSubscription
from games.models import Game
from tests.e2e.server import current_database_url
from tests.players import Player, seat_players, start_game
from tests.push.conftest import subscribe
from tests.push.endpoint import PushEndpoint
from tests.tasks.worker import celery_worker, isolated_redis_url

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def worker(committed_db):
    with celery_worker(
        database_url=current_database_url(),
        redis_url=isolated_redis_url(os.environ["REDIS_URL"]),
        concurrency=2,
        env={"PUSH_TRUSTED_NETWORKS": "127.0.0.1/32"},  # the local endpoint (conftest.py)
    ) as running:
        yield running
        errors = running.errors()
        assert not errors, "the worker logged errors:\n" + "\n".join(errors)


def test_a_turn_the_worker_times_out_pushes_your_turn_to_the_next_player(worker):
    players = [Player(), Player()]
    game_id = start_game(players, clock="30s")
    by_seat = seat_players(game_id, players)
    timed_out = Game.objects.get(pk=game_id).active_seat
    next_player = by_seat[1 - timed_out]
    with PushEndpoint() as device, PushEndpoint(status=410) as expired:
        subscribe(next_player, device)
        subscribe(by_seat[timed_out], expired)  # gets "your turn" after the next player's
        now = timezone.now()
        Game.objects.filter(pk=game_id).update(  # the running turn is due now
            turn_seconds=2,
            turn_started_at=now - timedelta(seconds=2),
            next_deadline_at=now,
        )
        [received] = device.wait_for(1, timeout=30)
        assert received.problem is None, received.problem
        push = received.payload
        game = Game.objects.get(pk=game_id)
        assert push["type"] == "your_turn" and push["game"] == game_id
        assert game.active_seat == 1 - timed_out and push["version"] <= game.version
        # the other player's turn comes when the next one times out too: its endpoint says
        # 410, and the worker deletes the subscription
        assert expired.wait_for(1, timeout=30)[0].answered == 410
        for _ in range(300):
            if not PushSubscription.objects.filter(user=by_seat[timed_out].user).exists():
                break
            time.sleep(0.1)
        assert not PushSubscription.objects.filter(user=by_seat[timed_out].user).exists()
        assert PushSubscription.objects.filter(user=next_player.user).exists()
        Game.objects.filter(pk=game_id).update(turn_seconds=None, next_deadline_at=None)
