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

Each SELECT is also judged by the plan PostgreSQL keeps for it once prepared: the server
prepares a statement run twice on a connection (taxi_project/settings.py), and after five runs
PostgreSQL may plan it once for any parameters (a generic plan), which knows no value's
frequency. The statement is PREPAREd, run six times with its own parameters and EXPLAINed as
the server would then execute it; the same rules apply, and a scan of a whole primary key in
order that filters the rows it passes (the open tables' generic plan read every game, newest
first, to find the few open ones: 40 ms at 110,000 games) fails too.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import psycopg
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
OPEN_TABLES = 5  # public tables waiting for players, opened before the history
OPEN_COPIES = 8  # each then copied
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
    """~4,000 games and their logs, a few open tables, analysed; the players with tokens, by
    user id."""
    players = {p.user.pk: p for p in (Player(f"scale{i}") for i in range(PLAYERS))}
    others = [u.pk for u in User.objects.bulk_create(User(username=f"o{i}") for i in range(OTHERS))]
    opened = [  # the oldest ids: a list of the newest first finds them last
        player.post("/api/v1/tables", {"players": 4}).json()["id"]
        for player in list(players.values())[:OPEN_TABLES]
    ]
    # every id written here is counted from the first open table's: the id sequence is not
    # rolled back with earlier tests of this database, and where it stands depends on which
    # tests ran before (the copies of the open tables once met a finished game's copy)
    base = min(opened)
    finished = _generated(base + 1_000, sorted(players), others, running=False)
    running = _generated(base + 2_000, sorted(players), others, running=True)
    with connection.cursor() as cursor:
        for copy in range(1, OPEN_COPIES + 1):  # ~1 % of the games: a frequent status
            params = {"ids": opened, "offset": 500_000 + copy * 100, "shift": timedelta(0),
                      "later": timedelta(0), "others": others, "n": OTHERS}  # fmt: skip
            for statement in REPLICATE.split("---"):
                cursor.execute(statement, params)
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


def _whole_history_reads(plan: dict, under: str = "") -> list[str]:
    """What in a plan grows with the history: a sequential scan of a watched table, a sort
    of at least SORTED_ROWS rows read from one (every finished game sorted to show twenty), or
    a page read by walking a whole primary key in order and filtering (`under`: the parent
    node's type)."""
    found = []
    if plan.get("Node Type") == "Seq Scan" and plan.get("Relation Name") in WATCHED:
        found.append(f"Seq Scan on {plan['Relation Name']}")
    if (
        under == "Limit"
        and plan.get("Node Type") in ("Index Scan", "Index Only Scan")
        and plan.get("Relation Name") in WATCHED
        and plan.get("Index Name", "").endswith("_pkey")
        and "Index Cond" not in plan
        and "Filter" in plan
    ):
        found.append(f"{plan['Node Type']} of all {plan['Index Name']}, filtered")
    if plan.get("Node Type") == "Sort" and plan.get("Plan Rows", 0) >= SORTED_ROWS:
        if tables := _relations(plan) & WATCHED:
            found.append(f"Sort of {plan['Plan Rows']} rows of {', '.join(sorted(tables))}")
    for child in plan.get("Plans", []):
        found += _whole_history_reads(child, plan.get("Node Type", ""))
    return found


def _plan(cursor, sql: str) -> dict:
    cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
    plan = cursor.fetchone()[0]
    return (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]


def _kept_plan(cursor, sql: str, params) -> dict:
    """The plan PostgreSQL executes a SELECT by once it is prepared and has run six times
    with these parameters (a generic plan, if it judged one good enough)."""
    numbered = iter(range(1, 1000))
    prepared = re.sub(r"%s|%%", lambda m: "%" if m[0] == "%%" else f"${next(numbered)}", sql)
    literals = ", ".join(
        psycopg.ClientCursor(cursor.connection).mogrify("%s", [value]) for value in params or ()
    )
    execute = f"EXECUTE kept_plan({literals})" if literals else "EXECUTE kept_plan"
    cursor.execute(f"PREPARE kept_plan AS {prepared}")
    try:
        for _ in range(6):
            cursor.execute(execute)
        return _plan(cursor, execute)
    finally:
        cursor.execute("DEALLOCATE kept_plan")


def _outline(plan: dict, depth: int = 0) -> str:
    """A plan, one line a node: what it is, on what, by which condition."""
    line = "  " * depth + " ".join(
        str(plan[key])
        for key in ("Node Type", "Scan Direction", "Index Name", "Relation Name", "Plan Rows",
                    "Index Cond", "Filter")
        if key in plan
    )  # fmt: skip
    return "\n".join([line, *(_outline(child, depth + 1) for child in plan.get("Plans", []))])


def _explained(
    captured: CaptureQueriesContext, sent: list[tuple[str, tuple]]
) -> list[tuple[str, list[str], str]]:
    """Each data statement the path sent, EXPLAINed, and each SELECT's prepared plan too:
    (statement, what it reads of the whole history, its plan)."""
    results = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            sql = query["sql"]
            verb = sql.lstrip().split(None, 1)[0].upper()
            if verb not in {"SELECT", "WITH", "UPDATE", "INSERT", "DELETE"}:
                continue  # savepoints, transaction control
            plan = _plan(cursor, sql)
            results.append((sql, _whole_history_reads(plan), _outline(plan)))
        raw = cursor.connection
        for sql, params in sent:
            if sql.lstrip().split(None, 1)[0].upper() != "SELECT" or isinstance(params, dict):
                continue  # writes are by key; run six times they would write six times
            plan = _kept_plan(raw.cursor(), sql, params)
            results.append((f"(prepared) {sql}", _whole_history_reads(plan), _outline(plan)))
    return results


def _run(name: str, path, failures: list[str], counted: dict) -> None:
    sent: list[tuple[str, tuple]] = []

    def record(execute, sql, params, many, context):
        if not many:
            sent.append((sql, params))
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as captured, connection.execute_wrapper(record):
        path()
    explained = _explained(captured, sent)
    counted[name] = len(explained)
    for sql, scans, outline in explained:
        if scans:
            failures.append(f"{name}: {'; '.join(scans)}:\n    {sql[:600]}\n{outline}")


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
