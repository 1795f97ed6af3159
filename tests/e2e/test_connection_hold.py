"""What stays open holds no database connection (docs/reliability.md, "Limits": connections):
a live uvicorn on PostgreSQL with a small connection pool, more streams
(`GET /api/v1/games/{id}/stream`) and sockets open than the pool has connections, /healthz
answering 200 throughout, and the pool (`database_pool` of /healthz: the answering process's)
and the server's PostgreSQL connections (`pg_stat_activity` by `application_name`) as before
once they are closed, also when a client went away in the middle of a read. A request that
finds every connection lent waits `DB_POOL_TIMEOUT`, no less, no more, and the pool never leaks.
"""

from __future__ import annotations

import concurrent.futures
import time
import urllib.error
import uuid

import psycopg
import pytest
from django.db import connection

from accounts.models import DeviceToken
from games.models import Game
from tests.e2e.server import current_database_url, live_server, request_json
from tests.e2e.test_live import ClientLoop
from tests.e2e.test_stream import Follower
from tests.players import Player, autopilot_choice, seat_players, start_game
from tests.reliability.multinode import busy, named

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

POOL = 4
APP = f"taxi-hold-{uuid.uuid4().hex[:6]}"


def _server(**env):
    settings = {
        "DB_POOL_MAX_SIZE": str(POOL),
        "STREAM_KEEPALIVE_SECONDS": "0.2",  # every open stream reads the log 5 times a second
        "MAX_STREAMS_PER_ACCOUNT": "100",  # the caps are not what this file tests
        "MAX_SOCKETS_PER_ACCOUNT": "100",
        **env,
    }
    return live_server(database_url=named(current_database_url(), APP), env=settings)


def _health(live, timeout: float = 30) -> tuple[int, dict, float]:
    started = time.monotonic()
    status, body = request_json(live.url("/healthz"), timeout=timeout)
    return status, body, time.monotonic() - started


def _assert_idle_pool(live) -> None:
    """Nothing holds a connection but the health check itself, nobody waits for one, and the
    server has no more PostgreSQL connections than its pool may open. (Within 3 s: a
    connection the pool is still opening counts as lent until it is ready.)"""
    deadline = time.monotonic() + 3
    while True:
        status, body, took = _health(live)
        assert status == 200 and took < 2, (status, body, took)
        pool = body["database_pool"]
        if (pool["in_use"], pool["waiting"]) == (1, 0) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert (pool["in_use"], pool["waiting"]) == (1, 0), body  # the check's own
    assert _server_connections() <= POOL


def _server_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APP])
        return cursor.fetchone()[0]


def _move(live, game_id: int, by_seat) -> int:
    game = Game.objects.get(pk=game_id)
    status, body = request_json(
        live.url(f"/api/v1/games/{game_id}/actions"),
        {
            "action": autopilot_choice(game_id),
            "version": game.version,
            "idempotency_key": uuid.uuid4().hex,
        },
        token=by_seat[game.active_seat].token,
    )
    assert status == 201, body
    return body["seq"]


def _table():
    people = [Player(), Player()]
    game_id = start_game(people)
    return game_id, seat_players(game_id, people)


def test_open_streams_hold_no_connection_and_give_everything_back(committed_db):
    """Three times as many streams as the pool has connections, reading the log five times a
    second each: /healthz stays 200 (on a pool they held, it answered 503 after 10 s and kept
    answering 503 once they were closed), moves are accepted and reach every stream; closed
    during a read or while waiting, they leave the pool and PostgreSQL as before."""
    game_id, by_seat = _table()
    watchers = [Player() for _ in range(3)]
    url = f"/api/v1/games/{game_id}/stream"
    with _server() as live:
        for _round in range(2):  # and again, on the same process: nothing was lost
            version = Game.objects.get(pk=game_id).version
            followers = [
                Follower(
                    live.url(f"{url}?after={version - 1}" if version else url),
                    watchers[i % 3].token,
                )
                for i in range(3 * POOL)
            ]
            for follower in followers:
                assert follower.next_entry()[1]["seq"] == version
            pools = []
            for _ in range(5):
                status, body, took = _health(live)
                assert status == 200 and took < 2, (status, body, took)
                pools.append(body["database_pool"])
                time.sleep(0.3)
            # Streams that held their connections would leave 2 × POOL of them waiting in
            # every sample; 60 short reads a second may catch one waiting now and then.
            assert min(pool["waiting"] for pool in pools) == 0, pools
            seq = _move(live, game_id, by_seat)
            for follower in followers:
                assert follower.next_entry()[1]["seq"] == seq
            # half of them go away while the others read the next entry, half while they wait
            seq = _move(live, game_id, by_seat)
            for follower in followers[: len(followers) // 2]:
                follower.close()
            time.sleep(1)
            for follower in followers[len(followers) // 2 :]:
                assert follower.next_entry()[1]["seq"] == seq
                follower.close()
            time.sleep(1)  # the server notices each close at its next keep-alive
            _assert_idle_pool(live)


def test_open_sockets_hold_no_connection_and_give_everything_back(committed_db):
    """Game sockets and user sockets, three times as many of each as the pool has
    connections, all synced, a move reaching every one: the pool lends none while they wait,
    and once they are closed the pool and PostgreSQL are as before."""
    game_id, by_seat = _table()
    watchers = [Player() for _ in range(3)]
    clients = ClientLoop()
    try:
        with _server() as live:
            _assert_idle_pool(live)
            games = [
                clients.socket(live, f"/ws/games/{game_id}/", watchers[i % 3])
                for i in range(3 * POOL)
            ]
            mine = [clients.socket(live, "/ws/me/", watchers[i % 3]) for i in range(3 * POOL)]
            for sock in games:
                sock.frame("hello")
                sock.sync(-1)
            for sock in mine:
                sock.frame("hello")
            _assert_idle_pool(live)
            seq = _move(live, game_id, by_seat)
            for sock in games:
                sock.wait_entry(seq)
            _assert_idle_pool(live)
            for sock in games + mine:
                sock.close()
            time.sleep(0.5)
            _assert_idle_pool(live)
    finally:
        clients.close()


def test_many_stream_requests_at_once_on_a_small_pool_are_all_answered_at_once(committed_db):
    """Fifteen times as many stream requests at once as the pool has connections, most of
    them over the account's cap: each is answered (200 or 429) within seconds, none waits
    out the pool's timeout. (Stream reads once waited for a connection on the threads Django
    also needs to finish a refused request, whose connection they waited for: every request
    then answered 503 after 10 s.)"""
    game_id, _by_seat = _table()
    person = Player()
    url = f"/api/v1/games/{game_id}/stream"
    # all of them authenticated and counted (none refused for being opened at once)
    with _server(MAX_STREAMS_PER_ACCOUNT="10", MAX_HANDSHAKES_PER_ADDRESS="1000") as live:

        def open_one(_):
            started = time.monotonic()
            try:
                follower = Follower(live.url(url), person.token)
            except urllib.error.HTTPError as error:
                return error.code, time.monotonic() - started, None
            follower.next_entry()
            return 200, time.monotonic() - started, follower

        with concurrent.futures.ThreadPoolExecutor(15 * POOL) as pool:
            answers = list(pool.map(open_one, range(15 * POOL)))
        statuses = sorted(status for status, _took, _f in answers)
        assert statuses == [200] * 10 + [429] * (15 * POOL - 10), statuses
        assert max(took for _s, took, _f in answers) < 8, answers
        for _status, _took, follower in answers:
            if follower is not None:
                follower.close()
        _assert_idle_pool(live)


class TokenTableLock:
    """A lock on the table of API tokens from a PostgreSQL connection of its own: a request
    with a token then holds its pooled connection, waiting, until the lock goes."""

    def __init__(self):
        db = connection.settings_dict
        self.held = psycopg.connect(
            host=db["HOST"], port=db["PORT"] or None, user=db["USER"], password=db["PASSWORD"],
            dbname=db["NAME"],
        )  # fmt: skip
        self.held.execute(f"LOCK TABLE {DeviceToken._meta.db_table} IN ACCESS EXCLUSIVE MODE")

    def release(self) -> None:
        if not self.held.closed:
            self.held.rollback()
            self.held.close()


def test_a_request_waits_for_a_connection_as_long_as_db_pool_timeout(committed_db):
    """One connection in the pool, lent to a request that waits on a lock: a second request
    waits for it as long as `DB_POOL_TIMEOUT` (here 3 s, not the former fixed 10 s) and then
    answers 503; one that gets it within that time is served. Afterwards nothing is lent."""
    person = Player()
    with _server(DB_POOL_MAX_SIZE="1", DB_POOL_TIMEOUT="3") as live:
        lock = TokenTableLock()
        try:
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                held = pool.submit(request_json, live.url("/api/v1/me"), token=person.token)
                deadline = time.monotonic() + 10
                while busy(APP) < 1 and time.monotonic() < deadline:
                    time.sleep(0.05)
                status, body, took = _health(live)
                assert status == 503 and body["code"] == "database_unavailable", body
                assert 2.5 <= took < 6, took
                waiting = pool.submit(_health, live)
                time.sleep(1.5)  # within the 3 s it waits
                lock.release()
                status, body, took = waiting.result()
                assert status == 200 and 1.2 <= took < 3, (status, body, took)
                assert held.result()[0] == 200
        finally:
            lock.release()
        _assert_health_pool_idle_for_one(live)


def _assert_health_pool_idle_for_one(live) -> None:
    deadline = time.monotonic() + 3
    while True:
        status, body, took = _health(live)
        assert status == 200 and took < 2, (status, body, took)
        if body["database_pool"]["in_use"] == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert body["database_pool"] == {"max": 1, "open": 1, "in_use": 1, "waiting": 0}, body


def test_sign_ups_at_once_on_a_small_pool_all_wait_their_turn(committed_db):
    """Twice as many sign-ups at once as the pool has connections (each holds one while its
    password is hashed): every one is served, none answers 503, nothing stays lent."""
    with _server(DB_POOL_MAX_SIZE="2", DB_POOL_TIMEOUT="30") as live:

        def sign_up(_):
            name = f"pool{uuid.uuid4().hex[:10]}"
            return request_json(
                live.url("/api/v1/auth/signup"),
                {"username": name, "password": f"Palm-{uuid.uuid4().hex}"},
                timeout=60,
            )[0]

        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            assert list(pool.map(sign_up, range(6))) == [201] * 6
        _assert_idle_pool(live)
