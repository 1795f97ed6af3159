"""Every query of the paths that run against a growing history reads the log, game and seat
tables through an index: a move, the deadline sweep, a game's log, export and
replay, the lobby (page and API), "my games", the finished games and `verify_games`.

The database holds a few thousand games written as the server writes them (bench/_history.py:
engine-played games of every option set, COPYed; then copies of them made by PostgreSQL, with
other players and the first 40 entries of each log: enough for the planner's statistics, and
never replayed), is ANALYZEd, and each path runs for real under `CaptureQueriesContext`;
every statement it sent is then EXPLAINed and the test fails on a sequential scan of
games_game, games_seat or games_gameentry, or on a sort of hundreds of their rows (an index
read in the wrong order: every finished game sorted to show the newest twenty). The
statements are the code's own, never copied by hand.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Count
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from bench import _history
from games import engine, state
from games.models import Game, Seat
from games.services.clocks import deadlines_sweep
from tests.players import Player

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db]

WATCHED = {"games_game", "games_seat", "games_gameentry"}
DISTINCT = 20  # engine-played games of each kind
COPIES = 100  # each then copied (its log's first 40 entries): ~2,000 finished, ~2,000 running
PLAYERS = 8  # with tokens; seated among 400 others, each at ~1 % of the games
OTHERS = 400
SORTED_ROWS = 500  # a sort of this many rows or more reads a share of the whole history

REPLICATE = """
INSERT INTO games_game (id, created_at, started_at, finished_at, turn_started_at,
                        next_deadline_at, created_by_id, status, visibility, invite_code,
                        players, shift_change, pickup_before_movement, movement, clock,
                        turn_seconds, rules_version, seed, seed_commitment, version,
                        active_seat, result, turn_number, deadlines_reached, rated, kind,
                        game_options)
SELECT id + %(offset)s, created_at - %(shift)s, started_at - %(shift)s, finished_at - %(shift)s,
       turn_started_at + %(later)s, next_deadline_at + %(later)s, created_by_id, status,
       visibility, invite_code, players, shift_change, pickup_before_movement, movement, clock,
       turn_seconds, rules_version, seed, seed_commitment, version, active_seat, result,
       turn_number, deadlines_reached, rated, kind, game_options
  FROM games_game WHERE id = ANY(%(ids)s)
---
INSERT INTO games_seat (game_id, user_id, join_order, seat, joined_at, bot_level)
SELECT game_id + %(offset)s,
       (%(others)s::bigint[])[1 + (game_id + %(offset)s + join_order) %% %(n)s],
       join_order, seat, joined_at, bot_level
  FROM games_seat WHERE game_id = ANY(%(ids)s)
---
INSERT INTO games_gameentry (game_id, seq, actor_id, seat, action, notifications,
                             idempotency_key, response, created_at)
SELECT game_id + %(offset)s, seq, actor_id, seat, action, notifications,
       md5(idempotency_key || %(offset)s::text), response, created_at - %(shift)s
  FROM games_gameentry WHERE game_id = ANY(%(ids)s) AND seq <= 40
"""  # three statements (parameters bound by the server: one statement per execute)


def _generated(first_id: int, players: list[int], others: list[int], *, running: bool) -> list[int]:
    now = datetime.now(UTC)
    batch, game_id = [], first_id
    while len(batch) < DISTINCT:
        seated = [players[game_id % PLAYERS], players[(game_id + 1) % PLAYERS]]
        seated += [others[(game_id * 7 + k) % OTHERS] for k in range(6)]
        rows = _history.generate(
            game_id,
            seated,
            started_at=now - timedelta(days=game_id % 300 + 1),
            step=timedelta(seconds=30),
            running_due_at=now + timedelta(hours=1 + game_id % 5) if running else None,
        )
        if rows is not None:
            batch.append(rows)
        game_id += 1
    with connection.cursor() as cursor:
        _history.copy_rows(cursor, batch)
    return [int(rows.game.split("\t", 1)[0]) for rows in batch]


@pytest.fixture
def history():
    """~4,000 games and their logs, analysed; the players with tokens, by user id."""
    players = {p.user.pk: p for p in (Player(f"scale{i}") for i in range(PLAYERS))}
    others = [u.pk for u in User.objects.bulk_create(User(username=f"o{i}") for i in range(OTHERS))]
    finished = _generated(1_000, sorted(players), others, running=False)
    running = _generated(2_000, sorted(players), others, running=True)
    with connection.cursor() as cursor:
        for ids, kind in ((finished, "finished"), (running, "running")):
            for copy in range(1, COPIES + 1):
                later = timedelta(minutes=copy) if kind == "running" else timedelta(0)
                params = {
                    "ids": ids, "offset": copy * 10_000 + (kind == "running") * 5_000,
                    "shift": timedelta(days=copy), "later": later, "others": others, "n": OTHERS,
                }  # fmt: skip
                for statement in REPLICATE.split("---"):
                    cursor.execute(statement, params)
        _history.reset_game_sequence(cursor)
        for table in sorted(WATCHED):
            cursor.execute(f"ANALYZE {table}")
    state.forget_all()
    return {"players": players, "finished": finished, "running": running}


def _relations(plan: dict) -> set[str]:
    found = {plan["Relation Name"]} if "Relation Name" in plan else set()
    for child in plan.get("Plans", []):
        found |= _relations(child)
    return found


def _whole_history_reads(plan: dict) -> list[str]:
    """What in a plan grows with the history: a sequential scan of a watched table, or a sort
    of at least SORTED_ROWS rows read from one (every finished game sorted to show twenty)."""
    found = []
    if plan.get("Node Type") == "Seq Scan" and plan.get("Relation Name") in WATCHED:
        found.append(f"Seq Scan on {plan['Relation Name']}")
    if plan.get("Node Type") == "Sort" and plan.get("Plan Rows", 0) >= SORTED_ROWS:
        if tables := _relations(plan) & WATCHED:
            found.append(f"Sort of {plan['Plan Rows']} rows of {', '.join(sorted(tables))}")
    for child in plan.get("Plans", []):
        found += _whole_history_reads(child)
    return found


def _explained(captured: CaptureQueriesContext) -> list[tuple[str, list[str]]]:
    """Each data statement the path sent, EXPLAINed: (statement, what it reads of the whole
    history)."""
    results = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            sql = query["sql"]
            verb = sql.lstrip().split(None, 1)[0].upper()
            if verb not in {"SELECT", "WITH", "UPDATE", "INSERT", "DELETE"}:
                continue  # savepoints, transaction control
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0]
            plan = json.loads(plan) if isinstance(plan, str) else plan
            results.append((sql, _whole_history_reads(plan[0]["Plan"])))
    return results


def _run(name: str, path, failures: list[str], counted: dict) -> None:
    with CaptureQueriesContext(connection) as captured:
        path()
    explained = _explained(captured)
    counted[name] = len(explained)
    for sql, scans in explained:
        if scans:
            failures.append(f"{name}: {'; '.join(scans)}:\n    {sql[:600]}")


def test_every_query_of_the_growing_paths_reads_through_an_index(history, client):
    players = history["players"]
    finished_id = history["finished"][0]
    running = next(  # a game (with its whole log) whose player to move has a token here
        game
        for game in Game.objects.filter(pk__in=history["running"]).order_by("pk")
        if game.seats.get(seat=game.active_seat).user_id in players
    )
    mover = players[running.seats.get(seat=running.active_seat).user_id]
    viewer = next(iter(players.values()))
    client.force_login(viewer.user)
    failures: list[str] = []
    counted: dict[str, int] = {}

    def move():
        action = engine.encode_action(engine.autopilot_action(state.state_for(running)))
        del action["seat"]
        answer = mover.move(running.pk, action, running.version)
        assert answer.status_code == 201, answer.json()

    def sweep():
        due = Game.objects.filter(pk__in=history["running"]).exclude(pk=running.pk)[:3]
        due = Game.objects.filter(pk__in=list(due.values_list("pk", flat=True)))
        due.update(
            next_deadline_at=timezone.now() - timedelta(seconds=1),
            turn_started_at=timezone.now() - timedelta(days=4),
        )
        assert deadlines_sweep() == 3

    def get(url, who=viewer):
        def path():
            answer = who.get(url)
            assert answer.status_code == 200, answer.content[:300]

        return path

    def page(url):
        def path():
            answer = client.get(url)
            assert answer.status_code == 200, answer.content[:300]

        return path

    # the player seated at the most games (one of the copies' players, signed in by session)
    busiest = Seat.objects.values("user").annotate(n=Count("id")).order_by("-n").first()
    regular = Client()
    regular.force_login(User.objects.get(pk=busiest["user"]))

    def deep(url: str, pages: int = 8, who=client) -> str:
        """The address of the page `pages` after the first (by cursor)."""
        for _ in range(pages):
            url = who.get(url).json()["next"]
            assert url, "the list is shorter than the pages asked"
        return url

    def regulars(url):
        def path():
            answer = regular.get(url)
            assert answer.status_code == 200, answer.content[:300]

        return path

    paths = {
        "move": move,
        "deadline sweep": sweep,
        "deadline sweep, nothing due": lambda: deadlines_sweep(),
        "game detail": get(f"/api/v1/games/{finished_id}"),
        "log": get(f"/api/v1/games/{finished_id}/log"),
        "log after a seq": get(f"/api/v1/games/{finished_id}/log?after=100"),
        "export": get(f"/api/v1/games/{finished_id}/export"),
        "lobby API": get("/api/v1/tables"),
        "my games API": get("/api/v1/me/games"),
        "my games API, running": get("/api/v1/me/games?status=playing"),
        "finished games API": get("/api/v1/games/finished"),
        "my games API, a deep page": regulars(deep("/api/v1/me/games?limit=5", who=regular)),
        "my games API, a deep page back": regulars(
            regular.get(deep("/api/v1/me/games?limit=5", who=regular)).json()["previous"]
        ),
        "finished games API, a deep page": get(deep("/api/v1/games/finished?limit=20")),
        "finished games API, counted": get("/api/v1/games/finished?count=true"),
        "lobby page": page("/"),
        "lobby lists": page("/lobby/lists"),
        "replay page": page(f"/games/{finished_id}/replay?seq=10"),
        "game page": page(f"/games/{running.pk}"),
        "verify_games": lambda: call_command("verify_games", games=[finished_id]),
    }
    for name, path in paths.items():
        _run(name, path, failures, counted)
    assert all(counted.values()), counted  # every path did read the database
    assert not failures, "\n".join(failures)
