#!/usr/bin/env python3
"""Archived logs: space per finished game before and after, and reading them back.

    .venv/bin/python bench/archive.py                  # 84 games on PostgreSQL (10-20 minutes)
    .venv/bin/python bench/archive.py --games 24       # quick

Plays finished games through the server's own services (the rows are exactly what a server
writes: entries with their actions, notifications and answers) for every player count from 2
to 5 and every option set they allow, into a PostgreSQL database of its own (`bench_archive`,
dropped at the end). Then, in one run:

1. bytes per finished game and per entry of the log as rows: `pg_total_relation_size` (heap,
   TOAST and the log's four indexes) of the live rows copied compactly (see `sizes`), divided
   by games and entries;
2. archives every game (games/archive.py) and measures the same for the log rows left plus
   `games_gamearchive`: the ratio is the goal (≥ 5× less space per finished game);
3. replay unchanged: each game's state from the archive equals its state from the rows, and
   `verify_games` passes; the time to read a game back (archive vs rows, state cache empty) as
   a ratio measured in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import drop_database, log, recreate_database  # noqa: E402

PG = "postgresql://postgres@127.0.0.1:5432/postgres"


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=84, help="finished games to play")
    parser.add_argument("--db-name", default="bench_archive")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    return parser.parse_args()


def valid(players: int, options) -> bool:
    from games import engine

    try:
        engine.options.check_players(options, players)
    except engine.EngineError:
        return False
    return True


def play_games(count: int) -> list[int]:
    from accounts.models import User
    from games import engine, state
    from games.engine import Options
    from games.models import Game
    from games.services import moves, tables

    users = [User.objects.create_user(username=f"bench{i}", password=None) for i in range(5)]
    every = [
        (players, Options(shift_change=shift, pickup_before_movement=before, movement=movement))
        for players, shift, before, movement in itertools.product(
            range(2, 6), (False, True), (False, True), ("normal", "fast", "faster")
        )
    ]
    combos = itertools.cycle(
        [(players, options) for players, options in every if valid(players, options)]
    )
    ids = []
    for _ in range(count):
        players, options = next(combos)
        game = tables.table_create(user=users[0], players=players, options=options)
        for user in users[1:players]:
            tables.table_join(game_id=game.pk, user=user)
        by_user = {u.pk: u for u in users}
        while True:
            game = Game.objects.get(pk=game.pk)
            if game.status != Game.Status.PLAYING:
                break
            seat = game.seats.get(seat=game.active_seat)
            action = engine.encode_action(engine.autopilot_action(state.state_for(game)))
            del action["seat"]
            moves.move_submit(
                game_id=game.pk,
                user=by_user[seat.user_id],
                action=action,
                version=game.version,
                idempotency_key=uuid.uuid4().hex,
            )
        ids.append(game.pk)
    return ids


def sizes() -> dict[str, int]:
    """Bytes of the log's rows and of the archive table, heap, TOAST and indexes, compacted.

    The rows archived games leave behind are dead tuples: VACUUM makes their space reusable
    (autovacuum does it in production, and new entries fill it), but VACUUM FULL hands it back
    to the file system only when no transaction anywhere on the server is older than the
    delete, which on a shared machine is rarely so. So the log's live rows are counted as what
    they occupy once copied compactly (a table of their own, indexed like the log)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL games_gamearchive")
        cursor.execute("DROP TABLE IF EXISTS bench_live_rows")
        cursor.execute(
            "CREATE TABLE bench_live_rows AS SELECT * FROM games_gameentry ORDER BY game_id, seq"
        )
        cursor.execute("CREATE UNIQUE INDEX ON bench_live_rows (game_id, seq)")
        cursor.execute("CREATE UNIQUE INDEX ON bench_live_rows (id)")
        cursor.execute("CREATE INDEX ON bench_live_rows (actor_id)")
        cursor.execute(
            "CREATE UNIQUE INDEX ON bench_live_rows (game_id, actor_id, idempotency_key)"
        )
        cursor.execute(
            "SELECT pg_total_relation_size('bench_live_rows'),"
            " pg_total_relation_size('games_gamearchive')"
        )
        rows, archives = cursor.fetchone()
        cursor.execute("DROP TABLE bench_live_rows")
    return {"rows": rows, "archives": archives}


def read_times(ids: list[int]) -> list[float]:
    """Seconds to build each game's state from its stored log, nothing cached."""
    from games import repository, state

    found = []
    for game_id in ids:
        state.forget_all()
        started = time.perf_counter()
        repository.load(game_id)
        found.append(time.perf_counter() - started)
    return found


def main() -> int:
    args = parse()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "taxi_project.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{args.db_name}",
        "DEBUG": "1",
        "DB_POOL_MAX_SIZE": "0",
    }
    env.pop("REDIS_URL", None)  # the in-memory layer: nobody listens to these games
    recreate_database(PG, args.db_name, env)
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from games import archive, engine, repository, state
    from games.models import GameEntry

    try:
        log(f"playing {args.games} finished games through the services")
        started = time.perf_counter()
        ids = play_games(args.games)
        entries = GameEntry.objects.count()
        log(f"{len(ids)} games, {entries} entries in {time.perf_counter() - started:.0f} s")

        before = sizes()
        views = {}
        for game_id in ids:
            state.forget_all()
            views[game_id] = engine.full_view(repository.load(game_id).state)
        rows_read = read_times(ids)

        started = time.perf_counter()
        done = [archive.archive_game(game_id) for game_id in ids]
        archiving = time.perf_counter() - started
        after = sizes()
        for game_id in ids:
            state.forget_all()
            if engine.full_view(repository.load(game_id).state) != views[game_id]:
                raise SystemExit(f"game {game_id} replays differently from its archive")
        archive_read = read_times(ids)
        call_command("verify_games", verbosity=0)  # CommandError if any game differs

        per_game_before = before["rows"] / len(ids)
        per_game_after = (after["rows"] + after["archives"]) / len(ids)
        json_bytes = sum(d.bytes_before for d in done)
        packed_bytes = sum(d.bytes_after for d in done)
        ratio = per_game_before / per_game_after
        read_ratio = statistics.median(archive_read) / statistics.median(rows_read)
        print()
        print(f"finished games {len(ids)}, entries {entries} ({entries / len(ids):.0f} per game)")
        print(
            f"log as rows:      {per_game_before / 1024:8.1f} KiB per game, "
            f"{before['rows'] / entries:6.0f} bytes per entry (heap, TOAST, indexes)"
        )
        print(
            f"log archived:     {per_game_after / 1024:8.1f} KiB per game "
            f"(rows left {after['rows']} bytes, archive table {after['archives']} bytes)"
        )
        print(
            f"space per game:   {ratio:.1f}x less  (goal >= 5x: {'PASS' if ratio >= 5 else 'FAIL'})"
        )
        packing = json_bytes / packed_bytes
        print(f"JSON -> zlib:     {packing:.1f}x ({json_bytes} -> {packed_bytes} bytes)")
        print(f"archiving:        {1000 * archiving / len(ids):.1f} ms per game")
        print(
            f"read a game back: median {1000 * statistics.median(archive_read):.2f} ms from the "
            f"archive vs {1000 * statistics.median(rows_read):.2f} ms from rows "
            f"(ratio {read_ratio:.2f}); every state equal, verify_games clean"
        )
    finally:
        connection.close()
        if not args.keep:
            drop_database(PG, args.db_name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
