#!/usr/bin/env python3
"""Chaos, the long version of tests/reliability: players play over HTTP against the production
shape while faults are injected at random, then every acknowledged move is looked for in the
log and every game is replayed.

    .venv/bin/python bench/chaos.py                         # 120 s, 6 games, a fault every 6 s
    .venv/bin/python bench/chaos.py --seconds 600 --games 12 --every 4 --seed 3
    .venv/bin/python bench/chaos.py --seconds 30 --faults redis,postgres

The stack: uvicorn (`--web-workers`, 2) and a Celery worker with its embedded beat, DEBUG off,
on a fresh PostgreSQL database (`--db-name`, dropped at the end) and a redis-server of its own
on a free port (the machine's Redis is never touched). Faults (`--faults`, all by default):

  web       SIGKILL one uvicorn worker (uvicorn starts another)
  worker    SIGKILL the Celery worker's process group (worker, pool, beat) mid-tick; restart it
  redis     SIGKILL redis-server, restart it after `--redis-down` seconds (empty: no persistence)
  postgres  terminate every connection to the database (pg_terminate_backend)

Players retry each move with its idempotency key until they get an answer (tests/reliability/
faults.py). One extra game has a 2-second turn clock throughout, so the worker times turns out
across the faults. At the end it prints (and with `--json`, writes) the figures recorded in
docs/reliability.md: faults injected, moves acknowledged, moves lost or duplicated, games
failing verification, answers by status, and the lateness of the last deadlines. Exit status 1
if any move was lost or duplicated, any game fails verification, or any answer was a 5xx other
than 503 (a dropped database connection).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


from bench._common import drop_database, ident, log, pg_admin  # noqa: E402

FAULTS = ("web", "worker", "redis", "postgres")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120, help="how long to play (120)")
    parser.add_argument("--games", type=int, default=6, help="games played at once (6)")
    parser.add_argument("--every", type=float, default=6, help="seconds between faults (6)")
    parser.add_argument("--faults", default=",".join(FAULTS), help="which, comma-separated")
    parser.add_argument("--redis-down", type=float, default=2, help="seconds Redis stays down")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--db-name", default=f"taxi_chaos_{os.getpid()}")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here")
    args = parser.parse_args(argv)
    args.faults = [f for f in args.faults.split(",") if f]
    unknown = set(args.faults) - set(FAULTS)
    if unknown:
        parser.error(f"unknown faults: {sorted(unknown)}")
    if not args.db_name.replace("_", "").isalnum():
        parser.error("--db-name: letters, digits and _ only")
    return args


def setup_django(args, redis_url: str) -> str:
    database_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
    drop_database(args.pg_url, args.db_name, quiet=True)
    pg_admin(args.pg_url, f"CREATE DATABASE {ident(args.db_name)}")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="taxi_project.settings",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        DEBUG="false",
        SECRET_KEY="chaos-" + secrets.token_urlsafe(32),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        MOVE_THROTTLE_RATE="1000000/min",  # the players are far faster than people
        AUTH_THROTTLE_RATE="1000000/min",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return database_url


def make_table(server, *, clock: str = "none"):
    from tests.e2e.test_live import Person, Table

    return Table(server, [Person.create(server), Person.create(server)], movement="faster",
                 clock=clock)  # fmt: skip


def keep_clock_running(clocked_id: int) -> None:
    """A 2-second turn limit on the clocked game, from now on (every turn keeps it)."""
    from django.utils import timezone

    from games.models import Game

    now = timezone.now()
    Game.objects.filter(pk=clocked_id).update(
        turn_seconds=2, turn_started_at=now, next_deadline_at=now + timedelta(seconds=2)
    )


def run(args) -> dict:
    from tests.e2e.server import live_server
    from tests.reliability.faults import (
        Driver,
        OwnRedis,
        Tally,
        lost_or_duplicated,
        run_drivers,
        stop_drivers,
        verify_games,
    )
    from tests.tasks.worker import celery_worker

    rng = random.Random(args.seed)
    redis = OwnRedis()
    redis.start()
    database_url = setup_django(args, redis.url(0))
    injected: dict[str, int] = {name: 0 for name in args.faults}
    try:
        with (
            celery_worker(database_url=database_url, redis_url=redis.url(0), concurrency=2,
                          env={"DEBUG": "false", "SECRET_KEY": os.environ["SECRET_KEY"]})
            as worker,
            live_server(database_url=database_url, redis_url=redis.url(0),
                        workers=args.web_workers) as server,
        ):  # fmt: skip
            tables = [make_table(server) for _ in range(args.games)]
            all_tables = list(tables)
            clocked = make_table(server, clock="30s")
            keep_clock_running(clocked.id)
            tally, stop = Tally(), threading.Event()
            drivers = [
                Driver(server, t.id, {s: p.token for s, p in t.by_seat.items()}, tally, stop,
                       seed=args.seed * 1000 + t.id)
                for t in tables
            ]  # fmt: skip
            run_drivers(drivers)
            started = time.monotonic()
            try:
                while time.monotonic() - started < args.seconds:
                    time.sleep(args.every)
                    fault = rng.choice(args.faults)
                    log(f"{fault} (moves so far: {len(tally.acks)})")
                    inject(fault, server=server, worker=worker, redis=redis, args=args, rng=rng)
                    injected[fault] += 1
                    # games that ended are replaced, so the load stays the same
                    for i, driver in enumerate(drivers):
                        if not driver.is_alive() and driver.error is None:
                            tables[i] = make_table(server)
                            drivers[i] = Driver(
                                server, tables[i].id,
                                {s: p.token for s, p in tables[i].by_seat.items()}, tally, stop,
                                seed=args.seed * 1000 + tables[i].id,
                            )  # fmt: skip
                            drivers[i].start()
                            all_tables.append(tables[i])
            finally:
                stop_drivers(drivers, stop)
            if not worker.alive():
                worker.start()
            from games.models import Game

            log("after the faults: a fresh turn clock must still be enforced")
            late = deadline_lateness(server)
            log("checking the log and replaying every game")
            ids = sorted({t.id for t in all_tables})
            problems = lost_or_duplicated(tally.acks, ids)
            differ, report = verify_games([*ids, clocked.id])
            clocked_game = Game.objects.get(pk=clocked.id)
            return {
                "seconds": args.seconds,
                "games": len(ids),
                "faults_injected": injected,
                "moves_acknowledged": len(tally.acks),
                "requests_without_answer": tally.broken,
                "answers_by_status": dict(sorted(tally.statuses.items())),
                "moves_lost_or_duplicated": sum(
                    len(v["lost"]) + len(v["twice"]) + len(v["other_seq"])
                    if isinstance(v, dict)
                    else 1
                    for v in problems.values()
                ),  # fmt: skip
                "problems": {str(k): str(v) for k, v in problems.items()},
                "games_failing_verification": differ,
                "verification_report": report.strip()[-2000:],
                "deadline_after_faults_late_s": late,
                "clocked_game_timeouts": sum(
                    1 for _ in clocked_game.entries.filter(action__type="timeout")
                ),
            }
    finally:
        redis.close()
        from django.db import connections

        connections.close_all()
        drop_database(args.pg_url, args.db_name)


def deadline_lateness(server, timeout: float = 30) -> float:
    """Seconds between a fresh 2-second turn deadline and the worker's timeout entry."""
    from games.models import GameEntry

    table = make_table(server, clock="30s")
    keep_clock_running(table.id)
    from games.models import Game

    due = Game.objects.get(pk=table.id).next_deadline_at
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        entry = GameEntry.objects.filter(game_id=table.id, action__type="timeout").first()
        if entry is not None:
            return round((entry.created_at - due).total_seconds(), 3)
        time.sleep(0.1)
    raise SystemExit(f"no timeout within {timeout} s of a due deadline: deadlines are lost")


def inject(fault: str, *, server, worker, redis, args, rng) -> None:
    from django.db import connection

    from tests.reliability.faults import drop_database_connections

    if fault == "web":
        pids = server.worker_pids()
        if pids:
            os.kill(rng.choice(pids), signal.SIGKILL)
    elif fault == "worker":
        worker.kill(signal.SIGKILL)
        worker.start()
    elif fault == "redis":
        redis.restart(down_for=args.redis_down)
    elif fault == "postgres":
        drop_database_connections(connection.settings_dict["NAME"])


def main(argv=None) -> int:
    args = parse_args(argv)
    figures = run(args)
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    bad_5xx = {s: n for s, n in figures["answers_by_status"].items() if s >= 500 and s != 503}
    failed = figures["moves_lost_or_duplicated"] or figures["games_failing_verification"]
    return 1 if failed or bad_5xx else 0


if __name__ == "__main__":
    sys.exit(main())
