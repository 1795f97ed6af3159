"""Faults under load: a web worker SIGKILLed mid-request, Redis killed and restarted, every
PostgreSQL connection dropped — while clients play over HTTP, retrying each move with its
idempotency key until it gets an answer. Afterwards: no acknowledged move lost or duplicated
(each is in the log exactly once, at the seq it was acknowledged with), every game replays to
its row (`verify_games`), and turn deadlines are enforced again by the Celery worker.

The stack: uvicorn with 2 workers and a Celery worker with its beat, on the committed test
database and on a redis-server of our own (tests/reliability/faults.py), which may be killed.
A worker SIGKILLed mid-sweep is tests/tasks/test_celery_live.py (d); bench/chaos.py runs all
of these for longer.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game
from tests.e2e.server import current_database_url, live_server, request_json
from tests.e2e.test_live import ClientLoop, Person, Table
from tests.reliability.faults import (
    Driver,
    OwnRedis,
    Tally,
    drop_database_connections,
    lost_or_duplicated,
    run_drivers,
    stop_drivers,
    verify_games,
)
from tests.tasks.test_celery_live import give_limit, timeouts, wait_for
from tests.tasks.worker import celery_worker

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

GAMES = 3


@pytest.fixture(scope="module")
def stack(django_db_setup):
    redis = OwnRedis()
    redis.start()
    try:
        with (
            celery_worker(
                database_url=current_database_url(), redis_url=redis.url(0), concurrency=1
            ) as worker,
            live_server(
                database_url=current_database_url(), redis_url=redis.url(0), workers=2
            ) as server,
        ):
            yield server, worker, redis
    finally:
        redis.close()


@pytest.fixture
def tables(stack, committed_db):
    """GAMES games to play, and one with a turn clock for the deadline check."""
    server, worker, _ = stack
    if not worker.alive():
        worker.start()
    people = [Person.create(server) for _ in range(2 * GAMES + 2)]
    games = [Table(server, people[2 * i : 2 * i + 2], movement="faster") for i in range(GAMES)]
    clocked = Table(server, people[-2:], clock="30s")
    log_from = len(server.log())
    yield games, clocked
    new = [line for line in server.log()[log_from:].splitlines() if not line.startswith("INFO:")]
    if new:  # shown when the test fails
        print("--- server log during the test ---", *new[-3000:], sep="\n")


def drivers_for(server, games, tally, stop, **kwargs) -> list[Driver]:
    return [
        Driver(server, table.id, {seat: p.token for seat, p in table.by_seat.items()}, tally,
               stop, seed=table.id, **kwargs)
        for table in games
    ]  # fmt: skip


def wait_moves(tally: Tally, count: int, timeout: float = 30) -> None:
    wait_for(lambda: len(tally.acks) >= count, timeout=timeout, what=f"{count} moves")


def assert_deadline_enforced(clocked: Table) -> float:
    """A turn due 2 s from now is timed out by the worker; returns its lateness in seconds."""
    before = len(timeouts(clocked.id))
    deadline = give_limit([clocked.id])
    entry = wait_for(
        lambda: timeouts(clocked.id)[before] if len(timeouts(clocked.id)) > before else None,
        timeout=20,
        what="the timeout after recovery",
    )
    Game.objects.filter(pk=clocked.id).update(turn_seconds=None, next_deadline_at=None)
    late = (entry.created_at - deadline).total_seconds()
    assert -0.1 <= late <= 5, f"timed out {late:+.2f} s after its deadline"
    return late


def assert_nothing_lost(tally: Tally, games, clocked) -> None:
    ids = [table.id for table in games]
    assert lost_or_duplicated(tally.acks, ids) == {}
    differ, report = verify_games([*ids, clocked.id])
    assert differ == 0, report


def report(name: str, tally: Tally, **extra) -> None:
    figures = {
        "moves_acknowledged": len(tally.acks),
        "requests_without_answer": tally.broken,
        "answers_5xx": tally.server_errors(),
        **extra,
    }
    print(f"\n{name}: {json.dumps(figures)}")


# ---------------------------------------------------------------------------------- web worker


def test_a_web_worker_sigkilled_mid_request_loses_no_move(stack, tables):
    server, _, _ = stack
    games, clocked = tables
    tally, stop = Tally(), threading.Event()
    drivers = drivers_for(server, games, tally, stop)
    run_drivers(drivers)
    kills = 0
    try:
        wait_moves(tally, 20)
        # Three players keep both workers busy: a kill nearly always lands mid-request. Kill
        # (after uvicorn has replaced the last one) until some request was cut off.
        while kills < 5 and (kills == 0 or tally.broken == 0):
            victim = server.worker_pids()[kills % 2]
            os.kill(victim, signal.SIGKILL)
            kills += 1
            wait_for(
                lambda v=victim: len(server.worker_pids()) == 2 and v not in server.worker_pids(),
                timeout=30,
                what="uvicorn to replace the killed worker",
            )
            wait_moves(tally, len(tally.acks) + 10)
    finally:
        stop_drivers(drivers, stop)
    assert tally.broken > 0, "no request was in flight at a kill: nothing was tested"
    assert tally.server_errors() == {}, tally.statuses
    assert_nothing_lost(tally, games, clocked)
    late = assert_deadline_enforced(clocked)
    report("web worker SIGKILL", tally, kills=kills, deadline_late_s=round(late, 3))


# ---------------------------------------------------------------------------------- Redis


def test_redis_killed_and_restarted(stack, tables):
    server, worker, redis = stack
    games, clocked = tables
    loop = ClientLoop()
    watched = games[0]
    first = loop.socket(server, watched.path, watched.by_seat[0])
    first.frame("hello")
    first.sync(-1)
    tally, stop = Tally(), threading.Event()
    drivers = drivers_for(server, games, tally, stop)
    run_drivers(drivers)
    try:
        wait_moves(tally, 15)
        redis.kill()
        down_at = len(tally.acks)
        # Moves need only PostgreSQL: they go on while Redis is down (pushes are lost, the
        # move limit fails open), and /healthz says what is missing.
        wait_moves(tally, down_at + 10)
        status, body = request_json(server.url("/healthz"))
        assert (status, body["code"]) == (503, "redis_unavailable")
        while_down = len(tally.acks) - down_at
        redis.start()
        wait_for(lambda: request_json(server.url("/healthz"))[0] == 200, timeout=20,
                 what="/healthz to recover")  # fmt: skip
        wait_moves(tally, len(tally.acks) + 10)
    finally:
        stop_drivers(drivers, stop)
        seen = [f["seq"] for f in first.entries()]
        loop.close()

    # A client whose socket went down with Redis reconnects and syncs from what it had: it
    # gets every entry after that, once each, in order.
    loop = ClientLoop()
    try:
        second = loop.socket(server, watched.path, watched.by_seat[0])
        second.frame("hello")
        last = seen[-1] if seen else -1
        synced = second.sync(last)
        version = Game.objects.get(pk=watched.id).version
        assert synced["version"] == version
        assert [f["seq"] for f in second.entries()] == list(range(last + 1, version + 1))
    finally:
        loop.close()
    assert seen == list(range(len(seen))), "the first socket saw entries out of order"
    assert tally.server_errors() == {}, tally.statuses
    assert_nothing_lost(tally, games, clocked)
    late = assert_deadline_enforced(clocked)  # the worker and beat reconnected to the broker
    report("Redis kill and restart", tally, moves_while_down=while_down,
           deadline_late_s=round(late, 3), socket_saw_before_outage=len(seen))  # fmt: skip


# ---------------------------------------------------------------------------------- PostgreSQL


def test_postgresql_connections_dropped(stack, tables):
    server, _, _ = stack
    games, clocked = tables
    database = connection.settings_dict["NAME"]
    tally, stop = Tally(), threading.Event()
    drivers = drivers_for(server, games, tally, stop)
    run_drivers(drivers)
    dropped = rounds = 0
    try:
        wait_moves(tally, 15)
        until = time.monotonic() + 4
        while time.monotonic() < until:  # a flapping database: every connection, 10 times
            dropped += drop_database_connections(database)
            rounds += 1
            time.sleep(0.4)
        wait_moves(tally, len(tally.acks) + 15)
    finally:
        stop_drivers(drivers, stop)
    assert dropped > 0
    # A request whose connection was cut answers 503 `service_unavailable` (retry), never 500.
    assert set(tally.server_errors()) <= {503}, tally.statuses
    assert_nothing_lost(tally, games, clocked)
    late = assert_deadline_enforced(clocked)
    report("PostgreSQL connections dropped", tally, rounds=rounds, connections_dropped=dropped,
           deadline_late_s=round(late, 3), at=timezone.now().isoformat())  # fmt: skip
