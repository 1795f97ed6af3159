#!/usr/bin/env python3
"""Deadline benchmark: a real Celery worker and beat firing turn timeouts on PostgreSQL.

    .venv/bin/python bench/deadlines.py                       # A: 1,000 games, B: 10,000 games
    .venv/bin/python bench/deadlines.py --json bench/out/deadlines.json
    .venv/bin/python bench/deadlines.py --quick               # smoke run (small numbers)

What it does, all on this machine:

1. Creates a fresh PostgreSQL database (`--db-name`, default `bench_deadlines`; dropped first
   and at the end unless `--keep-db`) and runs `manage.py migrate` against it.
2. Creates the two-player games in this process through the services (`table_create` and
   `table_join`: seeded, set up and logged as any game), with a 1-hour clock, so nothing is due
   yet. Not measured.
3. Starts `celery -A taxi_project worker -B --concurrency N` (tests/tasks/worker.py) on that
   database, with Redis (`--redis-url`, default db 13, cleared) as broker; beat ticks every
   DEADLINE_TICK_SECONDS (default 1 s) and each tick runs `clocks.deadlines_sweep`.
4. Scenario A: the turn deadlines of 1,000 games are spread evenly over one minute (the clock
   columns are rewritten in one UPDATE, consistently: `turn_started_at + turn_seconds =
   next_deadline_at`). It waits until every game has its timeout entry. Lateness of a game =
   `created_at` of its timeout entry − its deadline; p50, p99, max. Goal: p99 ≤ 1.5 s.
5. Scenario B: 10,000 games all due at the same moment (the start). It waits until every game
   has its timeout entry: cleared = last entry's `created_at` − start; timeouts/s = games /
   cleared. Goal: ≥ 200 timeouts/s. CPU used meanwhile by the worker, PostgreSQL and Redis.
6. With `--profile` (or when the rate goal fails, unless `--no-profile`), the worker is stopped
   and `clocks.deadlines_sweep` runs in this process under cProfile on a fresh batch of due
   games (`--profile-games`, default 1,000), counting SQL queries: where the time per timeout
   goes. The .pstats file is kept with `--profile-out PATH`.

After a timeout the next turn is an hour away, so every game is timed out exactly once; the
benchmark checks that (and reports early or repeated timeouts as errors). Goals are printed as
PASS/FAIL and never change the exit status; it is non-zero only if the run itself failed or
timed out. The worker, the database, the Redis database and temporary files are cleaned up at
exit, also on error or Ctrl-C.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import cProfile
import datetime
import io
import json
import os
import platform
import pstats
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402  (a project dependency)

from bench._common import (  # noqa: E402
    drop_database,
    log,
    machine_cpu,
    proc_stat,
    proc_stats,
    recreate_database,
    wait_quiet,
)

GOAL_P99_S = 1.5
GOAL_RATE = 200.0
CLOCK = "1h"  # the games' clock: after its timeout a game is not due again during the run


# ---------------------------------------------------------------------------------- CPU


def cpu_snapshot(worker_pgid: int | None) -> dict[str, float]:
    """Cumulative CPU seconds: the worker's process group (worker, pool, beat), PostgreSQL
    (live backends + what the postmaster reaped), Redis, the machine."""
    stats = proc_stats()
    worker = postgres = redis = 0.0
    for pid, (ppid, pgid, comm, own, reaped) in stats.items():
        if worker_pgid is not None and pgid == worker_pgid:
            worker += own + (reaped if pid == worker_pgid else 0.0)
        elif comm == "postgres":
            postgres += own
            parent = stats.get(ppid)
            if parent is None or parent.comm != "postgres":  # the postmaster
                postgres += reaped
        elif comm.startswith("redis-server"):
            redis += own
    busy, total = machine_cpu()
    return {
        "worker": worker,
        "postgres": postgres,
        "redis": redis,
        "machine_busy": busy,
        "machine_total": total,
        "bench": time.process_time(),
    }


def cpu_used(before: dict, after: dict) -> dict:
    used = {k: after[k] - before[k] for k in before}
    total = used.pop("machine_total")
    busy = used.pop("machine_busy")
    named = used["worker"] + used["postgres"] + used["redis"] + used["bench"]
    return {
        "worker_cpu_s": round(used["worker"], 2),
        "postgres_cpu_s": round(used["postgres"], 2),
        "redis_cpu_s": round(used["redis"], 2),
        "bench_cpu_s": round(used["bench"], 2),
        "other_cpu_s": round(max(busy - named, 0.0), 2),
        "machine_busy_pct": round(100 * busy / total, 1) if total else None,
    }


# ---------------------------------------------------------------------------------- the run


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(int(-(-p * len(ordered) // 100)), 1)  # ceil(p/100 * n), at least 1
    return ordered[min(rank, len(ordered)) - 1]


class Run:
    """Owns what the benchmark creates: the database and the worker (whose helper owns its
    temporary directory and Redis database)."""

    def __init__(self, args):
        self.args = args
        self.db_created = False
        self.db_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
        self.worker_cm = None
        self.worker = None
        self.env = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("DJANGO_", "PG", "CELERY_"))
                and k not in ("DATABASE_URL", "REDIS_URL", "DEADLINE_TICK_SECONDS")
            },
            "DJANGO_SETTINGS_MODULE": "taxi_project.settings",
            "DATABASE_URL": self.db_url,
            "REDIS_URL": args.redis_url,
            "PYTHONUNBUFFERED": "1",
            # as in production: DEBUG off (no query log kept in memory)
            "DEBUG": "false",
            "SECRET_KEY": "bench-" + secrets.token_urlsafe(32),
        }
        if args.tick:
            self.env["DEADLINE_TICK_SECONDS"] = str(args.tick)

    # -- database
    def create_database(self) -> None:
        self.db_created = True
        recreate_database(self.args.pg_url, self.args.db_name, self.env)

    def drop_database(self) -> None:
        if not self.db_created or self.args.keep_db:
            return
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        try:
            drop_database(self.args.pg_url, self.args.db_name)
        except Exception as error:  # noqa: BLE001 - cleanup must go on
            log(f"could not drop database {self.args.db_name}: {error}")
        self.db_created = False

    # -- Django in this process (after the environment is set)
    def setup_django(self) -> None:
        for key in list(os.environ):
            if key.startswith(("DJANGO_", "CELERY_")) or key in ("DEADLINE_TICK_SECONDS",):
                del os.environ[key]
        os.environ.update(
            DJANGO_SETTINGS_MODULE="taxi_project.settings",
            DATABASE_URL=self.db_url,
            REDIS_URL=self.args.redis_url,
            DEBUG=self.env["DEBUG"],
            SECRET_KEY=self.env["SECRET_KEY"],
        )
        import django

        django.setup()

    # -- the worker
    def start_worker(self) -> None:
        from tests.tasks.worker import celery_worker

        extra = {
            "DEBUG": self.env["DEBUG"],
            "SECRET_KEY": self.env["SECRET_KEY"],
            "WORKER_POOL_NICENESS": str(self.args.worker_niceness),
        }
        if self.args.tick:
            extra["DEADLINE_TICK_SECONDS"] = str(self.args.tick)
        log(f"celery worker -B --concurrency {self.args.concurrency} (Redis {self.args.redis_url})")
        self.worker_cm = celery_worker(
            database_url=self.db_url,
            redis_url=self.args.redis_url,
            concurrency=self.args.concurrency,
            env=extra,
            lock_wait=60,
        )
        self.worker = self.worker_cm.__enter__()
        log(f"worker ready (pid {self.worker.pid})")

    def stop_worker(self) -> None:
        cm, self.worker_cm = self.worker_cm, None
        if cm is not None:
            errors = self.worker.errors() if self.worker else []
            cm.__exit__(None, None, None)
            log("worker stopped")
            self.worker_errors = errors

    def cleanup(self) -> None:
        with contextlib.suppress(Exception):
            self.stop_worker()
        self.drop_database()


# ---------------------------------------------------------------------------------- set-up


def create_users(count: int) -> list:
    from accounts.models import User

    prefix = f"bd{secrets.token_hex(3)}"
    users = []
    for i in range(count):
        user = User(username=f"{prefix}{i}")
        user.set_unusable_password()  # hashing a password costs ~0.1 s; nobody signs in
        users.append(user)
    User.objects.bulk_create(users)
    return list(User.objects.filter(username__startswith=prefix).order_by("pk"))


def _create_slice(job: tuple[int, int, list[int], str]) -> list[int]:
    """In a forked set-up process: games [start, stop) of the run, alternating user pairs."""
    from django.db import connections
    from django.test.utils import override_settings

    from accounts.models import User
    from games import engine
    from games.services import tables

    start, stop, user_ids, label = job
    connections.close_all()  # never share the parent's connection
    users = {u.pk: u for u in User.objects.filter(pk__in=user_ids)}
    users = [users[pk] for pk in user_ids]
    pairs = len(users) // 2
    ids = []
    t0 = time.perf_counter()
    # Nobody listens during the set-up: push to an in-memory layer rather than Redis.
    with override_settings(CHANNEL_LAYERS=IN_MEMORY_LAYER):
        for i in range(start, stop):
            first, second = users[2 * (i % pairs)], users[2 * (i % pairs) + 1]
            game = tables.table_create(user=first, players=2, options=engine.Options(), clock=CLOCK)
            tables.table_join(game_id=game.pk, user=second)
            ids.append(game.pk)
            done = i + 1 - start
            if done % 500 == 0:
                log(f"  {label}: {done}/{stop - start} ({done / (time.perf_counter() - t0):.0f}/s)")
    connections.close_all()
    return ids


def _child_signals() -> None:
    """Set-up processes die on SIGTERM (the parent's handler raises SystemExit instead)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C: the parent cleans up


IN_MEMORY_LAYER = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def create_games(count: int, users: list, label: str, processes: int) -> list[int]:
    """Two-player games through the services (seeded, set up, seq 0 logged) with a 1-hour
    clock, by `processes` forked processes. Not measured."""
    import multiprocessing

    from django.db import connections

    if count == 0:
        return []
    user_ids = [u.pk for u in users]
    processes = max(1, min(processes, count // 50 or 1))
    bounds = [count * k // processes for k in range(processes + 1)]
    jobs = [(bounds[k], bounds[k + 1], user_ids, f"{label}#{k}") for k in range(processes)]
    started = time.perf_counter()
    connections.close_all()  # before forking; and the pools, whose sockets a child would share
    for conn in connections.all():
        if getattr(conn, "pool", None) is not None:
            conn.close_pool()
    if processes == 1:
        ids = _create_slice(jobs[0])
    else:
        # close + join (not the context manager's terminate(), which can leave a worker
        # blocked on the pool's queue lock for ever)
        pool = multiprocessing.get_context("fork").Pool(processes, initializer=_child_signals)
        try:
            ids = [pk for part in pool.map(_create_slice, jobs) for pk in part]
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    wall = time.perf_counter() - started
    log(f"{label}: {count} games created in {wall:.0f} s ({count / wall:.0f}/s)")
    return sorted(ids)


def make_due(ids: list[int], first_at: datetime.datetime, spread_s: float) -> dict[int, object]:
    """One UPDATE: the i-th game (by id) is due at first_at + i·spread/n, consistently
    (turn_started_at = deadline − turn_seconds). Returns {game id: deadline}."""
    from django.db import connection, transaction

    step = spread_s / len(ids) if spread_s else 0.0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            """
            WITH ranked AS (
                SELECT id, row_number() OVER (ORDER BY id) - 1 AS i
                FROM games_game WHERE id = ANY(%s)
            ), due AS (
                SELECT id, %s::timestamptz + i * %s * interval '1 second' AS at FROM ranked
            )
            UPDATE games_game g
            SET next_deadline_at = due.at,
                turn_started_at = due.at - g.turn_seconds * interval '1 second'
            FROM due WHERE g.id = due.id AND g.status = 'playing'
            RETURNING g.id, g.next_deadline_at
            """,
            [ids, first_at, step],
        )
        deadlines = dict(cursor.fetchall())
    if len(deadlines) != len(ids):
        raise RuntimeError(f"{len(ids) - len(deadlines)} games were not playing")
    return deadlines


def timed_out_count(ids_range: tuple[int, int]) -> int:
    from games.models import Game

    low, high = ids_range
    return Game.objects.filter(pk__gte=low, pk__lte=high, version__gte=1).count()


def timeout_entries(ids_range: tuple[int, int]) -> dict[int, list]:
    """game id -> created_at of each of its timeout entries."""
    from games.models import GameEntry

    low, high = ids_range
    found: dict[int, list] = {}
    rows = (
        GameEntry.objects.filter(game_id__gte=low, game_id__lte=high, action__type="timeout")
        .order_by("game_id", "seq")
        .values_list("game_id", "created_at")
    )
    for game_id, created_at in rows.iterator(chunk_size=5000):
        found.setdefault(game_id, []).append(created_at)
    return found


def explain_claim() -> dict:
    """EXPLAIN (ANALYZE, BUFFERS) of a sweep's first claim (repository.claim_due with no lower
    bound: it walks over the index entries of every game fired since the last vacuum; the
    claims after it begin at the deadline claimed last), in a transaction rolled back at once
    (the row it locks is skipped meanwhile)."""
    from django.db import connection, transaction
    from django.utils import timezone

    from games.repository import claim_query
    from games.services.clocks import CLAIM_BATCH

    query = claim_query(timezone.now(), count=CLAIM_BATCH)
    plan = []
    with contextlib.suppress(_Rollback), transaction.atomic():
        sql, params = query.query.sql_with_params()  # FOR UPDATE compiles only in a transaction
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            plan = [row[0] for row in cursor.fetchall()]
        raise _Rollback
    nodes = [line.strip().lstrip("-> ").split("  (")[0] for line in plan if "(cost=" in line]
    executed = next((line for line in plan if line.startswith("Execution Time")), "")
    return {"nodes": nodes, "execution": executed.split(": ", 1)[-1], "plan": plan}


class _Rollback(Exception):
    pass


def wait_all(
    ids_range, total: int, timeout: float, label: str, on_half=None
) -> list[tuple[float, int]]:
    """Poll until every game has its timeout; returns the (seconds, games done) samples.
    `on_half()` is called once, when half the games are done."""
    started = time.monotonic()
    samples, last_log = [], 0.0
    while True:
        done = timed_out_count(ids_range)
        if on_half is not None and done >= total // 2:
            on_half()
            on_half = None
        elapsed = time.monotonic() - started
        samples.append((round(elapsed, 2), done))
        if done >= total:
            return samples
        if elapsed > timeout:
            raise TimeoutError(f"{label}: {done}/{total} timed out after {timeout:g} s")
        if elapsed - last_log >= 10:
            log(f"  {label}: {done}/{total} timed out after {elapsed:.0f} s")
            last_log = elapsed
        time.sleep(0.25)


# ---------------------------------------------------------------------------------- scenarios


def scenario_a(run: Run, ids: list[int]) -> dict:
    from django.utils import timezone

    args = run.args
    n = len(ids)
    first_at = timezone.now() + datetime.timedelta(seconds=args.lead)
    deadlines = make_due(ids, first_at, args.spread)
    log(f"A: {n} deadlines from {first_at:%H:%M:%S} over {args.spread:g} s")
    cpu0 = cpu_snapshot(run.worker.pid)
    halfway = {}
    samples = wait_all(
        (min(ids), max(ids)), n, args.lead + args.spread + args.timeout_a, "A",
        on_half=lambda: halfway.update(explain_claim()),
    )  # fmt: skip
    cpu = cpu_used(cpu0, cpu_snapshot(run.worker.pid))
    entries = timeout_entries((min(ids), max(ids)))
    lateness = [(entries[g][0] - deadlines[g]).total_seconds() for g in ids if g in entries]
    repeated = sum(1 for g in ids if len(entries.get(g, [])) > 1)
    early = sum(1 for late in lateness if late < 0)
    # the backlog (deadlines passed, not yet fired), second by second: a worker that keeps up
    # has about one tick's worth (n / spread); one that falls behind piles them up
    fired = sorted(entries[g][0] for g in ids if g in entries)
    due_at = sorted(deadlines.values())
    backlog = []
    moment = due_at[0]
    while moment <= fired[-1]:
        due = sum(1 for at in due_at if at <= moment)
        done = sum(1 for at in fired if at <= moment)
        backlog.append(due - done)
        moment += datetime.timedelta(seconds=1)
    return {
        "games": n,
        "spread_s": args.spread,
        "max_backlog": max(backlog),
        "claim_plan_halfway": halfway,
        "backlog_per_s": backlog,
        "timed_out": len(lateness),
        "lateness_p50_s": round(percentile(lateness, 50), 3),
        "lateness_p90_s": round(percentile(lateness, 90), 3),
        "lateness_p99_s": round(percentile(lateness, 99), 3),
        "lateness_max_s": round(max(lateness), 3),
        "lateness_mean_s": round(statistics.fmean(lateness), 3),
        "early": early,
        "repeated": repeated,
        "cpu": cpu,
        "samples": samples[:: max(len(samples) // 100, 1)],
    }


def scenario_b(run: Run, ids: list[int]) -> dict:
    from django.utils import timezone

    args = run.args
    n = len(ids)
    cpu0 = cpu_snapshot(run.worker.pid)
    start = timezone.now()
    make_due(ids, start, 0)  # all due at `start`
    log(f"B: {n} games due at once at {start:%H:%M:%S}")
    halfway = {}
    samples = wait_all(
        (min(ids), max(ids)),
        n,
        args.timeout_b,
        "B",
        on_half=lambda: halfway.update(explain_claim()),
    )
    cpu = cpu_used(cpu0, cpu_snapshot(run.worker.pid))
    entries = timeout_entries((min(ids), max(ids)))
    firsts = sorted(entries[g][0] for g in ids if g in entries)
    cleared = (firsts[-1] - start).total_seconds()
    sweeping = (firsts[-1] - firsts[0]).total_seconds()
    repeated = sum(1 for g in ids if len(entries.get(g, [])) > 1)
    early = sum(1 for when in firsts if when < start)
    return {
        "games": n,
        "timed_out": len(firsts),
        "cleared_s": round(cleared, 2),
        "first_timeout_after_s": round((firsts[0] - start).total_seconds(), 3),
        "rate_per_s": round(n / cleared, 1),
        "sweep_rate_per_s": round((n - 1) / sweeping, 1) if sweeping > 0 else None,
        "worker_cpu_ms_per_timeout": round(1000 * cpu["worker_cpu_s"] / n, 2),
        "postgres_cpu_ms_per_timeout": round(1000 * cpu["postgres_cpu_s"] / n, 2),
        "early": early,
        "repeated": repeated,
        "cpu": cpu,
        "claim_plan_halfway": halfway,
        "samples": samples[:: max(len(samples) // 100, 1)],
    }


# ---------------------------------------------------------------------------------- profile

PROFILE_GROUPS = [
    # (label, (file fragment, function name)) — cumulative time, so groups overlap
    ("the whole sweep (deadlines_sweep)", ("games/services/clocks.py", "deadlines_sweep")),
    ("claim a batch (claim_due)", ("games/repository.py", "claim_due")),
    ("load one game (load)", ("games/repository.py", "load")),
    ("fire one game (fire_due)", ("games/services/clocks.py", "fire_due")),
    ("  state_for (cache miss: replay the log)", ("games/state.py", "state_for")),
    ("  engine: apply timeout (autopilot turn)", ("games/engine/game.py", "apply")),
    ("  append (summary, entry, response, save)", ("games/services/entries.py", "entry_append")),
    ("    entry_response (player_view)", ("games/selectors.py", "entry_response")),
    ("    the conditional append (APPEND_SQL)", ("games/repository.py", "_write_sql")),
    ("    _tell_on_commit: push message", ("games/services/entries.py", "_tell_on_commit")),
    ("      events.entry_message (public view)", ("games/events.py", "entry_message")),
    ("after commit (push, e-mail)", ("games/services/entries.py", "committed")),
    ("  events.entry_committed (channel layer)", ("games/events.py", "entry_committed")),
    ("all SQL (psycopg execute)", ("psycopg/cursor.py", "execute")),
    ("transaction commits", ("django/db/backends/base/base.py", "commit")),
    ("Redis (channel layer: PUBLISH)", ("games/events.py", "_send")),
]


def profile_sweep(run: Run, ids: list[int]) -> dict:
    """Run clocks.deadlines_sweep in this process under cProfile on `ids` made due now."""
    from django.db import connection
    from django.utils import timezone

    from games import state
    from games.services import clocks

    state.forget_all()  # as in a worker that has not seen these games
    make_due(ids, timezone.now(), 0)
    claim_plan = explain_claim()
    queries = {"count": 0, "time": 0.0}
    kinds: dict[str, list] = {}

    def count_queries(execute, sql, params, many, context):
        t = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            spent = time.perf_counter() - t
            queries["count"] += 1
            queries["time"] += spent
            kind = kinds.setdefault(_query_kind(sql), [0, 0.0])
            kind[0] += 1
            kind[1] += spent

    # CPU time, not wall time: where this process spends its CPU, whatever the machine's load
    # (waits for PostgreSQL and Redis count only for the CPU they cost here).
    profiler = cProfile.Profile(time.process_time)
    with connection.execute_wrapper(count_queries):
        wall0 = time.perf_counter()
        profiler.enable()
        handled = clocks.deadlines_sweep(limit=len(ids))
        profiler.disable()
        wall = time.perf_counter() - wall0
    stats = pstats.Stats(profiler)
    if run.args.profile_out:
        stats.dump_stats(run.args.profile_out)
    groups = []
    for label, (file_part, func) in PROFILE_GROUPS:
        cum = calls = 0
        for (file, _line, name), (_cc, nc, _tt, ct, _callers) in stats.stats.items():
            if name == func and file_part in file:
                cum += ct
                calls += nc
        groups.append({"what": label, "ms_per_timeout": round(1000 * cum / max(handled, 1), 3),
                       "calls_per_timeout": round(calls / max(handled, 1), 2)})  # fmt: skip
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
    own = io.StringIO()
    pstats.Stats(profiler, stream=own).sort_stats("tottime").print_stats(20)
    return {
        "games": handled,
        "wall_s": round(wall, 3),
        "ms_per_timeout": round(1000 * wall / max(handled, 1), 3),
        "rate_one_process_per_s": round(handled / wall, 1) if wall else None,
        "queries_per_timeout": round(queries["count"] / max(handled, 1), 2),
        "sql_ms_per_timeout": round(1000 * queries["time"] / max(handled, 1), 3),
        "groups": groups,
        "claim_plan": claim_plan,
        "queries": [
            {
                "query": kind,
                "per_timeout": round(n / max(handled, 1), 2),
                "ms_per_timeout": round(1000 * spent / max(handled, 1), 3),
            }
            for kind, (n, spent) in sorted(kinds.items(), key=lambda kv: -kv[1][1])
        ],  # fmt: skip
        "top_cumulative": _trim(text.getvalue()),
        "top_own_time": _trim(own.getvalue()),
        "timer": "CPU time of this process (time.process_time); SQL times are wall time",
        "note": "cProfile inflates Python-heavy code; compare groups, not absolute ms",
    }


def _query_kind(sql: str) -> str:
    """'SELECT games_game … FOR UPDATE SKIP LOCKED', 'INSERT games_gameentry', 'SAVEPOINT' …"""
    import re

    words = sql.split(None, 1)
    verb = words[0].upper() if words else "?"
    if verb in ("SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "COMMIT"):
        return verb
    table = re.search(r'(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', sql, re.IGNORECASE)
    kind = f"{verb} {table.group(1) if table else '?'}"
    if "SKIP LOCKED" in sql:
        kind += " … FOR UPDATE SKIP LOCKED"
    elif "FOR UPDATE" in sql:
        kind += " … FOR UPDATE"
    return kind


def _trim(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(line.replace(str(ROOT) + "/", "") for line in lines[start:] if line.strip())


def _backend_cpu(pid: int) -> float:
    """CPU seconds of one PostgreSQL backend (it runs on this machine)."""
    stat = proc_stat(pid)
    return stat.own if stat is not None else float("nan")


def plain_profile_rate(ids: list[int]) -> dict:
    """The same sweep without the profiler: wall and CPU per timeout of this process and of
    the PostgreSQL backend serving it (so other users of the server do not count)."""
    from django.db import connection
    from django.utils import timezone

    from games import state
    from games.services import clocks

    state.forget_all()
    make_due(ids, timezone.now(), 0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    t, cpu, pg = time.perf_counter(), time.process_time(), _backend_cpu(backend)
    handled = clocks.deadlines_sweep(limit=len(ids))
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    pg = _backend_cpu(backend) - pg
    per = 1000 / max(handled, 1)
    return {"games": handled, "wall_s": round(wall, 3),
            "ms_per_timeout": round(per * wall, 3),
            "cpu_ms_per_timeout": round(per * cpu, 3),
            "postgres_backend_cpu_ms_per_timeout": round(per * pg, 3),
            "rate_per_s": round(handled / wall, 1) if wall else None}  # fmt: skip


# ---------------------------------------------------------------------------------- report


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def goals(result: dict) -> dict:
    out = {}
    if "a" in result:
        out["lateness_p99"] = result["a"]["lateness_p99_s"] <= GOAL_P99_S
    if "b" in result:
        out["rate"] = result["b"]["rate_per_s"] >= GOAL_RATE
    return out


def report(result: dict, args) -> None:
    g = goals(result)
    rows = [("scenario", "figure", "value", "goal", "")]
    if "a" in result:
        a = result["a"]
        rows += [
            ("A", f"games, deadlines spread over {a['spread_s']:g} s", f"{a['games']}", "", ""),
            ("A", "lateness p50", f"{a['lateness_p50_s']:.3f} s", "", ""),
            ("A", "lateness p90", f"{a['lateness_p90_s']:.3f} s", "", ""),
            ("A", "lateness p99", f"{a['lateness_p99_s']:.3f} s", f"≤ {GOAL_P99_S:g} s",
             _verdict(g["lateness_p99"])),
            ("A", "lateness max", f"{a['lateness_max_s']:.3f} s", "", ""),
            ("A", "max backlog (due, not fired)", f"{a['max_backlog']} games", "", ""),
            ("A", "early / repeated timeouts", f"{a['early']} / {a['repeated']}", "0 / 0",
             _verdict(a["early"] == 0 and a["repeated"] == 0)),
        ]  # fmt: skip
    if "b" in result:
        b = result["b"]
        rows += [
            ("B", "games due at once", f"{b['games']}", "", ""),
            ("B", "start → all cleared", f"{b['cleared_s']:.1f} s", "", ""),
            ("B", "first timeout after start", f"{b['first_timeout_after_s']:.2f} s", "", ""),
            ("B", "timeouts/s (games / cleared)", f"{b['rate_per_s']:.1f}", f"≥ {GOAL_RATE:g}",
             _verdict(g["rate"])),
            ("B", "timeouts/s (first → last entry)", f"{b['sweep_rate_per_s']}", "", ""),
            ("B", "worker CPU per timeout", f"{b['worker_cpu_ms_per_timeout']:.1f} ms", "", ""),
            ("B", "PostgreSQL CPU per timeout*", f"{b['postgres_cpu_ms_per_timeout']:.1f} ms",
             "", ""),
            ("B", "early / repeated timeouts", f"{b['early']} / {b['repeated']}", "0 / 0",
             _verdict(b["early"] == 0 and b["repeated"] == 0)),
        ]  # fmt: skip
    widths = [max(len(str(r[i])) for r in rows) for i in range(5)]
    print()
    env = result["environment"]
    print(
        f"Deadline benchmark — worker -B --concurrency {args.concurrency}, "
        f"tick {env['tick_s']} s, {env['cpus']} CPUs, machine {env['machine_busy_before_pct']}% "
        "busy before the run"
    )
    for i, row in enumerate(rows):
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
        if i == 0:
            print("  " + "  ".join("-" * w for w in widths))
    print("  * all of PostgreSQL's CPU, whatever the database (other users' work included)")
    for key in ("a", "b"):
        if key in result and result[key].get("claim_plan_halfway"):
            plan = result[key]["claim_plan_halfway"]
            print(
                f"  a sweep's first claim halfway through {key.upper()}: "
                f"{' > '.join(plan['nodes'])}; executed in {plan['execution']}"
            )
    for key in ("a", "b"):
        if key in result:
            c = result[key]["cpu"]
            print(
                f"  CPU during {key.upper()}: worker {c['worker_cpu_s']} s, PostgreSQL "
                f"{c['postgres_cpu_s']} s, Redis {c['redis_cpu_s']} s, this process "
                f"{c['bench_cpu_s']} s, other processes {c['other_cpu_s']} s; machine "
                f"{c['machine_busy_pct']}% busy"
            )
    if result.get("worker_errors"):
        print(f"  worker logged {len(result['worker_errors'])} error line(s), first:")
        for line in result["worker_errors"][:5]:
            print(f"    {line}")
    if "profile" in result:
        p = result["profile"]
        print()
        plain = result["profile_plain"]
        print(
            f"Profile: clocks.deadlines_sweep in this process (one process, no Celery), "
            f"{plain['games']} due games: {plain['ms_per_timeout']:.2f} ms wall and "
            f"{plain['cpu_ms_per_timeout']:.2f} ms CPU of this process and "
            f"{plain['postgres_backend_cpu_ms_per_timeout']:.2f} ms CPU of its PostgreSQL "
            f"backend per timeout ({plain['rate_per_s']}/s); "
            f"{p['queries_per_timeout']} SQL statements per timeout "
            f"({p['sql_ms_per_timeout']:.2f} ms wall in them). CPU per timeout under cProfile "
            "(inclusive; groups overlap):"
        )
        for group in p["groups"]:
            print(
                f"  {group['what']:<48} {group['ms_per_timeout']:8.3f} ms"
                f"   ({group['calls_per_timeout']} calls)"
            )
        plan = p["claim_plan"]
        print(f"\n  claim query plan: {' > '.join(plan['nodes'])}; executed in {plan['execution']}")
        print("\n  SQL per timeout (statement, count, ms):")
        for q in p["queries"]:
            print(f"    {q['query']:<60} {q['per_timeout']:5.2f}  {q['ms_per_timeout']:7.3f} ms")
        print("\n  top by own time (cProfile):")
        for line in p["top_own_time"].splitlines()[:21]:
            print("   " + line)


def environment(args) -> dict:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                cwd=ROOT, capture_output=True, text=True, timeout=10,
            ).stdout.strip()
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "", None
    with psycopg.connect(args.pg_url, dbname="postgres") as conn:
        pg_version = conn.execute("SHOW server_version").fetchone()[0]
    import celery

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "worktree_dirty": dirty,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "postgresql": pg_version,
        "celery": celery.__version__,
        "worker": f"celery -A taxi_project worker -B --concurrency {args.concurrency}",
        "tick_s": args.tick or 1.0,
    }


# ---------------------------------------------------------------------------------- main


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--scenarios", default="A,B", help="A, B or A,B (default)")
    parser.add_argument("--games-a", type=int, default=1000, help="scenario A games (1000)")
    parser.add_argument("--spread", type=float, default=60.0, help="A: seconds (60)")
    parser.add_argument("--lead", type=float, default=3.0, help="A: first deadline in S s (3)")
    parser.add_argument("--games-b", type=int, default=10000, help="scenario B games (10000)")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes (2)")
    parser.add_argument(
        "--worker-niceness", type=int, default=10, metavar="N",
        help="WORKER_POOL_NICENESS of the worker (default 10, the product's)",
    )  # fmt: skip
    parser.add_argument(
        "--tick", type=float, default=None,
        help="DEADLINE_TICK_SECONDS for beat (default: the settings' default, 1 s)",
    )  # fmt: skip
    parser.add_argument("--timeout-a", type=float, default=60.0, help="A: extra wait bound (s)")
    parser.add_argument("--timeout-b", type=float, default=1800.0, help="B: wait bound (s)")
    parser.add_argument(
        "--pg-url", default="postgres://postgres@127.0.0.1:5432",
        help="PostgreSQL server, without database (default postgres://postgres@127.0.0.1:5432)",
    )  # fmt: skip
    parser.add_argument("--db-name", default="bench_deadlines", help="database to (re)create")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database after")
    parser.add_argument(
        "--redis-url", default="redis://127.0.0.1:6379/13",
        help="Redis for the broker; this database is cleared (default db 13)",
    )  # fmt: skip
    parser.add_argument(
        "--users", type=int, default=1000,
        help="users the games are shared by (1000: 22 tables each, under the unfinished-tables "
        "cap of an account, MAX_UNFINISHED_TABLES_PER_ACCOUNT)",
    )  # fmt: skip
    parser.add_argument(
        "--setup-processes", type=int, default=3, help="processes creating the games (3)"
    )
    profile = parser.add_mutually_exclusive_group()
    profile.add_argument("--profile", action="store_true", help="always profile the sweep")
    profile.add_argument("--no-profile", action="store_true", help="never profile the sweep")
    parser.add_argument("--profile-games", type=int, default=1000, help="games profiled (1000)")
    parser.add_argument("--profile-out", metavar="PATH", help="keep the cProfile .pstats file")
    parser.add_argument(
        "--wait-idle", type=float, default=0.0, metavar="S",
        help="wait up to S seconds for the machine to be quiet before starting (default 0)",
    )  # fmt: skip
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="smoke run: 100 / 10 s, 500")
    args = parser.parse_args(argv)
    if args.quick:
        args.games_a, args.spread, args.games_b, args.profile_games = 100, 10.0, 500, 200
    args.scenarios = {s.strip().upper() for s in args.scenarios.split(",") if s.strip()}
    if not args.scenarios or args.scenarios - {"A", "B"}:
        parser.error("--scenarios takes A, B or A,B")
    if min(args.games_a, args.games_b, args.concurrency, args.users) < 1 or args.users < 2:
        parser.error("--games-a, --games-b, --concurrency must be ≥ 1 and --users ≥ 2")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    run = Run(args)
    atexit.register(run.cleanup)

    def on_signal(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    result: dict = {"environment": environment(args)}
    try:
        busy = wait_quiet(args.wait_idle)
        result["environment"]["machine_busy_before_pct"] = round(100 * busy, 1)
        run.create_database()
        run.setup_django()
        users = create_users(args.users)
        need_b = args.games_b if "B" in args.scenarios else 0
        need_profile = args.profile_games if not args.no_profile else 0
        ids_a = create_games(
            args.games_a if "A" in args.scenarios else 0, users, "A", args.setup_processes
        )
        ids_b = create_games(max(need_b, need_profile), users, "B", args.setup_processes)
        run.start_worker()
        if ids_a:
            result["a"] = scenario_a(run, ids_a)
            log(
                f"A: lateness p50 {result['a']['lateness_p50_s']} s, "
                f"p99 {result['a']['lateness_p99_s']} s"
            )
        if need_b:
            result["b"] = scenario_b(run, ids_b[:need_b])
            log(f"B: {need_b} cleared in {result['b']['cleared_s']} s")
        run.stop_worker()
        result["worker_errors"] = getattr(run, "worker_errors", [])
        rate_failed = "b" in result and result["b"]["rate_per_s"] < GOAL_RATE
        if args.profile or (rate_failed and not args.no_profile):
            batch = ids_b[: args.profile_games]
            log(f"profile: clocks.deadlines_sweep in-process on {len(batch)} games")
            result["profile_plain"] = plain_profile_rate(batch)
            result["profile"] = profile_sweep(run, batch)
        result["goals"] = goals(result)
        report(result, args)
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(result, indent=2, default=str) + "\n")
            log(f"figures written to {args.json}")
        return 0
    except (Exception, KeyboardInterrupt) as error:  # noqa: BLE001 - reported, then cleaned up
        log(f"FAILED: {type(error).__name__}: {error}")
        if run.worker is not None:
            print(f"--- worker log (tail) ---\n{run.worker.log_tail()}", file=sys.stderr)
        return 1
    finally:
        run.cleanup()


if __name__ == "__main__":
    sys.exit(main())
