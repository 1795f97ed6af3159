#!/usr/bin/env python3
"""Where the server's time goes in one move: POST /api/v1/games/{id}/actions, profiled.

    .venv/bin/python bench/profile_move.py                  # warm and cold state cache
    .venv/bin/python bench/profile_move.py --cache cold --moves 250 --top 30
    .venv/bin/python bench/profile_move.py --pyinstrument   # a call tree as well (needs it)

In-process, through Django's test client (the whole stack a request crosses in the server but
the ASGI adapter: middleware, DRF, token authentication, moves.move_submit, the engine, the
rendering) against a fresh PostgreSQL database (`--db-name`, dropped at the end), with DEBUG
off and the production settings, so each request opens and closes its database connection as
a uvicorn worker does. Two players play one game each pass with bench/_client.py's policy.

`--cache warm`: the move lands on the process that made the previous move (state cache hit).
`--cache cold`: the per-process state cache is emptied before each move, as when the move lands
on another uvicorn worker than the previous one (the usual case with N workers): the state is
replayed from the log. Prints wall time per move (unprofiled), SQL queries per move, the time
spent in the main parts per move (cProfile, cumulative), and the top functions.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import secrets
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

#: (label, file suffix, function name): parts of a move, reported by cumulative time.
PARTS = [
    ("request, whole (test client)", "django/test/client.py", "request"),
    ("  DB connect (per request)", "django/db/backends/base/base.py", "connect"),
    ("  token authentication", "knox/auth.py", "authenticate"),
    ("  move rate limit (Redis)", "games/throttles.py", "allow_request"),
    ("  move body (move_data)", "games/serializers.py", "move_data"),
    ("  moves.move_submit", "games/services/moves.py", "move_submit"),
    ("    repository.load", "games/repository.py", "load"),
    ("      LOAD_SQL", "games/repository.py", "_load_sql"),
    ("    state.state_for", "games/state.py", "state_for"),
    ("      replay_from_log", "games/state.py", "replay_from_log"),
    ("      engine replay", "games/engine/replay.py", "replay"),
    ("      Game.clone", "games/engine/game.py", "clone"),
    ("    Game.apply", "games/engine/game.py", "apply"),
    ("    entries.entry_append", "games/services/entries.py", "entry_append"),
    ("      entry_response (player_view)", "games/selectors.py", "entry_response"),
    ("      APPEND_SQL", "games/repository.py", "_write_sql"),
    ("      push (group_send)", "games/events.py", "_send"),
    ("      push to devices (games/push.py)", "games/push.py", "entry_committed"),
    ("  JSON rendering", "rest_framework/renderers.py", "render"),
    ("  SQL execute (all)", "django/db/backends/utils.py", "execute"),
]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=200, help="moves per pass (default 200)")
    parser.add_argument("--cache", choices=["warm", "cold", "both"], default="both")
    parser.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--db-name", default="bench_profile")
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument(
        "--keep-connections",
        action="store_true",
        help="keep the DB connection between requests (as CONN_MAX_AGE > 0 would)",
    )
    parser.add_argument("--pyinstrument", action="store_true", help="also print a call tree")
    parser.add_argument(
        "--timer",
        choices=["wall", "cpu"],
        default="wall",
        help="cProfile clock: wall (includes waiting on PostgreSQL) or cpu (this process only,"
        " robust when other processes compete for the CPUs)",
    )
    parser.add_argument("--pstats", metavar="PATH", help="save the cProfile stats (cold pass)")
    return parser.parse_args()


def admin(pg_url: str, statement: str) -> None:
    with psycopg.connect(pg_url, dbname="postgres", autocommit=True) as conn:
        conn.execute(statement)


def setup_django(args) -> None:
    if not args.db_name.replace("_", "").isalnum():
        sys.exit("--db-name: letters, digits and _ only")
    admin(args.pg_url, f'DROP DATABASE IF EXISTS "{args.db_name}" WITH (FORCE)')
    admin(args.pg_url, f'CREATE DATABASE "{args.db_name}"')
    os.environ.update(
        DJANGO_SETTINGS_MODULE="taxi_project.settings",
        DATABASE_URL=f"{args.pg_url.rstrip('/')}/{args.db_name}",
        REDIS_URL=args.redis_url,
        DEBUG="false",
        SECRET_KEY="bench-" + secrets.token_urlsafe(32),
        ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
        MOVE_THROTTLE_RATE="100000/min",  # counted as in production, never refused
        TABLE_CREATE_THROTTLE_RATE="100000/hour",  # runs in a row share the cache's counts
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


class Players:
    def __init__(self):
        from rest_framework.test import APIClient

        from accounts.models import DeviceToken, User

        self.clients = {}
        for i in range(2):
            user = User(username=f"prof{secrets.token_hex(4)}{i}")
            user.set_unusable_password()
            user.save()
            client = APIClient()
            key = DeviceToken.objects.create(user=user, device="bench")[1]
            client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            self.clients[user.pk] = client
        self.ids = list(self.clients)

    def new_game(self) -> tuple[int, dict]:
        first, second = (self.clients[i] for i in self.ids)
        created = first.post("/api/v1/tables", {"players": 2}, format="json")
        assert created.status_code == 201, created.content
        game_id = created.json()["id"]
        joined = second.post(f"/api/v1/tables/{game_id}/join", {}, format="json").json()
        by_seat = {s["seat"]: self.clients[s["user"]["id"]] for s in joined["seats"]}
        return game_id, by_seat


def play(
    players: Players,
    moves: int,
    *,
    cold: bool,
    reconnect: bool = True,
    profiler=None,
    queries: list | None = None,
):
    """Play up to `moves` moves of new games; return (wall seconds per move, queries per move,
    CPU seconds of this process per move).

    `reconnect`: close the database connection before each move, as the end of every request
    does in the server (CONN_MAX_AGE=0; the test client keeps it open otherwise).
    `queries`: a list to receive the SQL of the first move."""
    from django.db import connection

    from bench._client import choose, legal_from_view
    from games import state

    times, counts, cpu = [], [], []
    game_id, by_seat = players.new_game()
    active = None
    detail = None
    done = 0
    while done < moves:
        if detail is None:
            summary = by_seat[0].get(f"/api/v1/games/{game_id}").json()
            active = summary["active_seat"]
            detail = by_seat[active].get(f"/api/v1/games/{game_id}").json()
            version, view = detail["version"], detail["view"]
        if view["status"] != "playing":
            game_id, by_seat = players.new_game()
            detail = None
            continue
        seat = view["active_seat"]
        legal = legal_from_view(view, seat)
        action = dict(choose(view, seat, legal))
        action.pop("seat", None)
        body = {"action": action, "version": version, "idempotency_key": uuid.uuid4().hex}
        if cold:
            state.forget_all()
        if reconnect:
            connection.close()
        url = f"/api/v1/games/{game_id}/actions"
        client = by_seat[seat]
        if queries is not None:
            seen = []

            def count(execute, sql, params, many, context, seen=seen):
                seen.append(sql)
                return execute(sql, params, many, context)

            with connection.execute_wrapper(count):
                response = client.post(url, body, format="json")
            counts.append(len(seen))
            if not queries:
                queries.extend(seen)
        elif profiler is not None:
            profiler.enable()
            response = client.post(url, body, format="json")
            profiler.disable()
        else:
            t0, c0 = time.perf_counter(), time.process_time()
            response = client.post(url, body, format="json")
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        assert response.status_code == 201, response.content
        answer = response.json()
        version, view = answer["version"], answer["view"]
        done += 1
    return times, counts, cpu


def part_times(stats: pstats.Stats, moves: int) -> list[tuple[str, float, int]]:
    rows = []
    for label, suffix, name in PARTS:
        cum, calls = 0.0, 0
        for (filename, _line, func), (_cc, nc, _tt, ct, _callers) in stats.stats.items():
            if func == name and filename.endswith(suffix):
                cum += ct
                calls += nc
        rows.append((label, 1000 * cum / moves, calls / moves))
    return rows


def main() -> int:
    args = parse_args()
    setup_django(args)
    try:
        import asyncio

        from asgiref.sync import sync_to_async

        # As in a uvicorn worker: the view runs in a sync_to_async thread under an event loop,
        # so async_to_sync (the channel-layer push after commit) runs on that loop and reuses
        # its Redis connections, instead of making a new loop per call.
        asyncio.run(sync_to_async(work, thread_sensitive=True)(args))
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            admin(args.pg_url, f'DROP DATABASE IF EXISTS "{args.db_name}" WITH (FORCE)')
    return 0


def work(args) -> None:
    """Every pass, in one thread (the profiler sees only the thread it runs in)."""
    from django.db import connection

    from games import state

    try:
        players = Players()
        modes = ["warm", "cold"] if args.cache == "both" else [args.cache]
        play(players, 20, cold=False)  # warm up imports, caches, the password validators …
        for mode in modes:
            cold = mode == "cold"
            state.forget_all()
            reconnect = not args.keep_connections
            times, _, cpu = play(players, args.moves, cold=cold, reconnect=reconnect)
            sql: list[str] = []
            _, counts, _ = play(
                players, min(args.moves, 50), cold=cold, reconnect=reconnect, queries=sql
            )
            timer = time.perf_counter if args.timer == "wall" else time.process_time
            profiler = cProfile.Profile(timer)
            play(players, args.moves, cold=cold, reconnect=reconnect, profiler=profiler)
            stats = pstats.Stats(profiler)
            total = sum(tt for (_cc, _nc, tt, _ct, _c) in stats.stats.values())
            ms = [1000 * t for t in times]
            print(f"\n=== {mode} state cache: {args.moves} moves ===")
            print(
                f"wall per move, unprofiled: mean {statistics.mean(ms):.2f} ms, median "
                f"{statistics.median(ms):.2f} ms, p95 {sorted(ms)[int(0.95 * len(ms))]:.2f} ms"
            )
            cpu_ms = [1000 * t for t in cpu]
            # the least of the means of 25 moves in a row: the figure least moved by other
            # processes taking turns on the same cores
            batches = [statistics.mean(cpu_ms[i : i + 25]) for i in range(0, len(cpu_ms), 25)]
            print(
                f"CPU of this process per move (the test client's too), unprofiled: mean "
                f"{statistics.mean(cpu_ms):.2f} ms, median {statistics.median(cpu_ms):.2f} ms, "
                f"least mean of 25 in a row {min(batches):.2f} ms"
            )
            print(
                f"SQL queries per move: mean {statistics.mean(counts):.1f}, "
                f"min {min(counts)}, max {max(counts)}"
            )
            for statement in sql:
                print(f"    {statement[:150]}")
            print(
                f"profiled {args.timer} time per move (cProfile, with its overhead): "
                f"{1000 * total / args.moves:.2f} ms"
            )
            print(f"\n{'part (cumulative, per move)':<38} {'ms':>7} {'calls':>6}")
            for label, value, calls in part_times(stats, args.moves):
                print(f"{label:<38} {value:>7.2f} {calls:>6.1f}")
            for key in ("tottime", "cumulative"):
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key).print_stats(
                    args.top
                )
                text = out.getvalue()
                print(f"\n--- top {args.top} by {key} ---")
                print(text[text.find("   ncalls") :].rstrip())
            if args.pstats and (cold or len(modes) == 1):
                profiler.dump_stats(args.pstats)
                print(f"\nwrote {args.pstats}")
            if args.pyinstrument:
                from pyinstrument import Profiler

                tree = Profiler(interval=0.0005)
                tree.start()
                play(players, args.moves, cold=cold, reconnect=reconnect)
                tree.stop()
                print(tree.output_text(unicode=True, color=False, show_all=False))
    finally:
        connection.close()


if __name__ == "__main__":
    sys.exit(main())
