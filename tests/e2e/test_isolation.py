"""With real processes: two deployments on one Redis server never see each other's pushes,
and an entry whose push died with its process reaches open sockets anyway."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from games.models import Game
from tests.e2e.server import (
    current_database_url,
    entered_together,
    live_server,
    request_json,
    server_env,
)
from tests.e2e.test_live import SETTLE, WAIT, ClientLoop, Person, Table

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
GAME_ID = 700_000 + os.getpid() % 10_000  # the same game id in both deployments


@pytest.fixture
def other_database(django_db_setup):
    """A second, migrated database on the same PostgreSQL server: another deployment's."""
    name = f"{connection.settings_dict['NAME']}_other"
    admin = _server()
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{name}"')
        pg.execute(f'CREATE DATABASE "{name}"')
    url = current_database_url({**connection.settings_dict, "NAME": name, "OPTIONS": {}})
    env = server_env(database_url=url, redis_url=os.environ["REDIS_URL"])
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    yield url, name
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as pg:
        pg.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _server() -> dict:
    """How to reach the test database's PostgreSQL server."""
    found = connection.settings_dict
    params = {"host": found["HOST"], "port": found["PORT"], "user": found["USER"]}
    if found.get("PASSWORD"):
        params["password"] = found["PASSWORD"]
    return {k: v for k, v in params.items() if v}


def _next_game_id(database: str, value: int) -> None:
    with psycopg.connect(dbname=database, autocommit=True, **_server()) as pg:
        pg.execute("SELECT setval(pg_get_serial_sequence('games_game', 'id'), %s, false)", [value])


def _api_table(server) -> tuple[int, list]:
    """A started public two-player table on `server`, through its API alone."""
    people = []
    for _ in range(2):
        status, body = request_json(
            server.url("/api/v1/auth/signup"),
            {"username": f"iso{time.monotonic_ns()}", "password": "Palm-tree-4-isolation"},
        )
        assert status == 201, body
        people.append(Person(server, body["user"]["id"], body["token"]))
    status, body = people[0].post("/api/v1/tables", {"players": 2})
    assert status == 201, body
    status, _ = people[1].post(f"/api/v1/tables/{body['id']}/join")
    assert status == 200
    return body["id"], people


def _api_move(people, game_id: int) -> int:
    for person in people:
        status, legal = person.get(f"/api/v1/games/{game_id}/actions")
        if legal["actions"]:
            action = {k: v for k, v in legal["actions"][0].items() if k != "seat"}
            key = f"k{time.monotonic_ns()}"
            move = {"action": action, "version": legal["version"], "idempotency_key": key}
            status, body = person.post(f"/api/v1/games/{game_id}/actions", move)
            assert status == 201, body
            return body["seq"]
    raise AssertionError("nobody may move")


@pytest.mark.parametrize("prefix", ["derived from each database", "one prefix for both"])
def test_two_deployments_on_one_redis_never_see_each_others_pushes(
    committed_db, other_database, prefix
):
    """Item 12. With the default prefix (derived from the database) a push never reaches
    the other deployment; with one prefix forced on both, the other deployment's sockets
    still drop the foreign entry (another seed commitment) and keep their own order."""
    other_url, other_name = other_database
    redis_url = os.environ["REDIS_URL"]
    shared = {"REDIS_PREFIX": "shared-by-mistake"} if prefix.startswith("one") else {
        "REDIS_PREFIX": ""
    }  # fmt: skip
    _next_game_id(connection.settings_dict["NAME"], GAME_ID)
    _next_game_id(other_name, GAME_ID)
    loop = ClientLoop()
    try:
        with entered_together(
            live_server(database_url=current_database_url(), redis_url=redis_url, env=shared),
            live_server(database_url=other_url, redis_url=redis_url, env=shared),
        ) as (a, b):
            ours = Table(a, [Person.create(a), Person.create(a)])
            theirs, people = _api_table(b)
            assert ours.id == theirs == GAME_ID
            watch_a = loop.socket(a, ours.path, ours.by_seat[0])
            watch_b = loop.socket(b, f"/ws/games/{theirs}/", people[0])
            watch_a.sync(-1)
            watch_b.sync(-1)
            seq = ours.play()
            watch_a.wait_entry(seq)
            time.sleep(SETTLE + 1)
            assert [e["seq"] for e in watch_b.entries()] == [0]
            their_seq = _api_move(people, theirs)
            watch_b.wait_entry(their_seq)
            assert [e["seq"] for e in watch_b.entries()] == [0, their_seq]
            dropped = "dropped a foreign entry" in b.log()
            assert dropped == prefix.startswith("one")
    finally:
        loop.close()


KILLED_WRITER = textwrap.dedent(
    """
    import os, django
    django.setup()
    from games import events
    from games.services import moves
    from accounts.models import User
    from tests.players import autopilot_choice

    def die(*args, **kwargs):  # the process dies between the commit and the publish
        os._exit(137)

    events._send = die
    game_id, user_id, version = (int(v) for v in os.environ["MOVE"].split(","))
    moves.move_submit(game_id=game_id, user=User.objects.get(pk=user_id),
                      action=autopilot_choice(game_id), version=version, idempotency_key="k9")
    """
)


def test_an_entry_whose_push_died_with_its_process_reaches_open_sockets(committed_db):
    """Item 13: a process commits a move and is killed before it publishes the push; the
    sockets open on the live server get the entry from the heartbeat, within 30 s (here
    SOCKET_HEARTBEAT_SECONDS=1)."""
    redis_url = os.environ["REDIS_URL"]
    loop = ClientLoop()
    try:
        with live_server(
            database_url=current_database_url(), redis_url=redis_url,
            env={"SOCKET_HEARTBEAT_SECONDS": "1"},
        ) as server:  # fmt: skip
            table = Table(server, [Person.create(server), Person.create(server)])
            game = Game.objects.get(pk=table.id)
            mover = table.by_seat[game.active_seat]
            watching = loop.socket(server, table.path, table.by_seat[1 - game.active_seat])
            watching.sync(-1)
            env = server_env(database_url=current_database_url(), redis_url=redis_url)
            env["MOVE"] = f"{table.id},{mover.id},{game.version}"
            env["PYTHONPATH"] = str(ROOT)
            killed = subprocess.run([sys.executable, "-c", KILLED_WRITER], cwd=ROOT, env=env)
            assert killed.returncode == 137
            assert Game.objects.get(pk=table.id).version == game.version + 1  # committed
            started = time.monotonic()
            watching.wait_entry(game.version + 1)
            assert time.monotonic() - started < min(WAIT, 30)
            assert [e["seq"] for e in watching.entries()][-1] == game.version + 1
    finally:
        loop.close()
