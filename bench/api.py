#!/usr/bin/env python3
"""HTTP API benchmark: simulated players playing complete games against a real ASGI server.

    python3 dev.py bench                         # installs aiohttp, py-spy, pyinstrument
    .venv/bin/python bench/api.py                # K=100 games, 3 workers, 30 s (+ ~1-3 min setup)
    .venv/bin/python bench/api.py --games 100,20 --json bench/out/api.json
    .venv/bin/python bench/api.py --quick        # smoke run (K=10, a few seconds)
    .venv/bin/python bench/api.py --py-spy /tmp/spy.txt   # + where the workers' CPU goes
    .venv/bin/python bench/api.py --wait-idle 600         # first wait for a quiet machine

Needs PostgreSQL (`--pg-url`, a role that may create databases) and Redis (`--redis-url`).
See also bench/profile_move.py (one move, profiled in-process).

What it does, all on this machine and only over 127.0.0.1:

1. Creates a fresh PostgreSQL database (`--db-name`, default `bench_api`; dropped first and at
   the end unless `--keep-db`) and runs `manage.py migrate` against it.
2. Starts uvicorn with N workers on `taxi_project.asgi:application` (through bench/_asgi.py,
   which only adds a log handler so that errors reach the server log) (DEBUG off,
   PostgreSQL, Redis for the cache and the channel layer; the `auth` throttle is raised to
   100000/min so the sign-ups of the setup are not refused) and waits for /healthz.
3. Signs up 2×K users (POST /api/v1/auth/signup), the only source of their tokens.
4. For each K: K concurrent loops, one per pair of players, each creating a two-player table
   (POST /api/v1/tables, POST /api/v1/tables/{id}/join) and playing it to the end with
   POST /api/v1/games/{id}/actions {action, version, idempotency_key}, then the next game,
   until the window closes. One request in flight per game (a player waits for the answer).
   The client picks moves from `view.legal_actions` of the last answer (or, when the turn has
   passed to the other player, from the legal actions derived from the public view), with a
   simple policy (bench/_client.py: choose). After a warm-up, it counts for `--duration`
   seconds: accepted moves (201) per second and their latency p50/p95/p99 as the client sees
   it; every other status is reported by code.
5. Then, same server, same K, same connections: the trivial authenticated GET
   (GET /api/v1/me with a token) for `--get-duration` seconds. Then the ratio's verdict:
   `--ratio-rounds` (4) rounds of a move window and a GET window, `--ratio-window` (5) seconds
   each, alternating, so that the machine's drift within the run falls on both sides alike
   (the ratio of steps 4 and 5 is shown too, as "seq").
6. Then (unless `--rate-fraction 0`) the same K pairs play new games as people do, thinking
   between moves: together they offer `--rate-fraction` (default 0.5) of the move rate
   measured just before the window (`--capacity-window` seconds of unpaced moves: the machine's
   speed drifts within a run), each pair's moves due at Poisson times, K / rate seconds apart on
   average, so that together they are the Poisson stream of many independent players. With
   players who never think, K requests are always in flight, so the mean latency is
   K / throughput (Little's law) whatever the server; the paced run measures the latency a
   player sees at a stated fraction of the measured capacity. The p99 goal is judged there
   (and counts only if the server kept up: ≥ 97 % of the offered rate, no errors).
   `--watchers N`: the paced window again with N sockets watching the games, on
   `--socket-workers` (2) workers of their own on a second port, as docker/haproxy.cfg sends
   /ws/ to each node's (0: on the workers that answer requests; `--compare-socket-workers`:
   both, twice, in one run), with each frame's lateness from the start of the turn it began
   (`--watched-capacity`: offering its fraction of the rate carried with the sockets open);
   `--sweep N`: the paced window again while a Celery worker sweeps N due games. Each paced
   window reports how late this process's own event loop woke: the client's share of a tail.
7. Prints the table with the goals (at K=100: moves/s ≥ 0.7 × GET/s; paced at half the move
   rate: p99 ≤ 100 ms), each beside the machine's speed measured before and after the run
   (fixed engine work, bench/_common.py: machine_speed), and where the CPU went (/proc: the
   server's processes, PostgreSQL, Redis, this client, other processes), with the CPU per
   accepted move and the rate the CPUs would allow at that cost; `--json PATH` writes every
   figure. Every goal is a ratio or a latency at a fraction of what this run measured: these
   shared machines vary 2.5x in speed from day to day, and no absolute rate is a goal.

The server, the database and the temporary files are removed at exit, also on error or
Ctrl-C. The load generator shares the machine's CPUs with the server and PostgreSQL (its own
CPU use is reported): figures are for this machine as a whole. Goals are printed as PASS/FAIL
and never change the exit status; it is non-zero only if the run itself failed.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import datetime
import itertools
import json
import os
import platform
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    drop_database,
    exit_on_signals,
    log,
    machine_cpu,
    machine_speed,
    machine_steal,
    proc_stats,
    recreate_database,
    server_environment,
    speed_line,
    wait_quiet,
)

try:
    import aiohttp
except ImportError:  # pragma: no cover - a hint, not a feature
    sys.exit("bench/api.py needs aiohttp: python3 dev.py bench installs it")
import psycopg  # noqa: E402  (a project dependency)

from bench import _breakdown, _client, _pyspy  # noqa: E402

#: Goals, defined for K = GOAL_GAMES concurrent games, as ratios within one run (these shared
#: machines differ 2.5x in speed from day to day): accepted moves/s at least GOAL_RATIO x the
#: trivial authenticated GET/s of the same server; players who think, together offering
#: GOAL_RATE_FRACTION of the measured move rate, see a p99 of at most GOAL_P99_MS with at least
#: GOAL_CARRIED of the moves their schedules made due in the window carried, and no error.
GOAL_GAMES = 100
GOAL_P99_MS = 100
GOAL_RATIO = 0.7
GOAL_RATE_FRACTION = 0.5
GOAL_CARRIED = 0.97

HOST = "127.0.0.1"


# ---------------------------------------------------------------------------------- CPU


def cpu_snapshot(server_pid: int) -> dict[str, float]:
    """Cumulative CPU seconds of the server's process tree, PostgreSQL and Redis.

    PostgreSQL runs a backend per connection; one that exits is reaped by the postmaster, whose
    "children" CPU then holds it, so (live backends + postmaster's reaped children) only grows:
    its difference over a window is what PostgreSQL used in it, short-lived backends included.
    Same for the server (a worker that exited)."""
    stats = proc_stats()
    children: dict[int, list[int]] = {}
    for pid, stat in stats.items():
        children.setdefault(stat.ppid, []).append(pid)
    server, todo = 0.0, [server_pid]
    while todo:
        pid = todo.pop()
        if pid in stats:
            stat = stats[pid]
            server += stat.own + (stat.reaped if pid == server_pid else 0.0)
            todo.extend(children.get(pid, []))
    postgres = redis = 0.0
    for stat in stats.values():
        if stat.comm == "postgres":
            postgres += stat.own
            parent = stats.get(stat.ppid)
            if parent is None or parent.comm != "postgres":  # the postmaster
                postgres += stat.reaped
        elif stat.comm.startswith("redis-server"):
            redis += stat.own
    return {"server": server, "postgres": postgres, "redis": redis}


def tree_pids(root: int) -> list[int]:
    stats = proc_stats()
    children: dict[int, list[int]] = {}
    for pid, stat in stats.items():
        children.setdefault(stat.ppid, []).append(pid)
    result, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            result.append(pid)
            todo.extend(children.get(pid, []))
    return sorted(result)


class CpuMeter:
    """CPU used between start() and stop(): the machine, this process, the server's tree,
    PostgreSQL, Redis, and the hypervisor's steal; what is left is other processes."""

    def __init__(self, server_pid: int):
        self.server_pid = server_pid

    def start(self) -> None:
        self.t0 = time.perf_counter()
        self.machine0 = machine_cpu()
        self.steal0 = machine_steal()
        self.client0 = time.process_time()
        self.snap0 = cpu_snapshot(self.server_pid)

    def stop(self) -> dict:
        wall = time.perf_counter() - self.t0
        busy1, total1 = machine_cpu()
        steal = machine_steal() - self.steal0
        client = time.process_time() - self.client0
        snap1 = cpu_snapshot(self.server_pid)
        used = {k: snap1[k] - self.snap0[k] for k in snap1}
        busy = busy1 - self.machine0[0]
        total = total1 - self.machine0[1]
        return {
            "wall_s": wall,
            "machine_busy_pct": 100 * busy / total if total else None,
            "machine_busy_cpu_s": busy,
            "server_cpu_s": used["server"],
            "client_cpu_s": client,
            "postgres_cpu_s": used["postgres"],
            "redis_cpu_s": used["redis"],
            "steal_cpu_s": steal,
            "other_cpu_s": max(busy - steal - client - sum(used.values()), 0.0),
            "cpus": os.cpu_count() or 1,
        }


# ---------------------------------------------------------------------------------- setup


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Run:
    """Owns what the benchmark creates: the database, the server, the temporary directory."""

    def __init__(self, args):
        self.args = args
        self.server: subprocess.Popen | None = None
        self.recorder: subprocess.Popen | None = None  # py-spy, while it records
        self.spied = False
        self.db_created = False
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-api-"))
        self.server_log = self.tmp / "uvicorn.log"
        self.failed = False
        self.server_log_lines = 0
        self.port = args.port or free_port()
        self.base = f"http://{HOST}:{self.port}"
        # where WebSockets go: workers of their own, as docker/haproxy.cfg routes /ws/
        # (`--socket-workers`; bench/api.py's options only), or the same workers
        separate = (
            getattr(args, "socket_workers", 0) > 0
            and getattr(args, "server", "uvicorn") == "serve"
            and not getattr(args, "server_cmd", None)
        )
        self.socket_port = free_port() if separate else self.port
        self.socket_base = f"http://{HOST}:{self.socket_port}"
        db_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PG"))},
            **server_environment(db_url, args.redis_url),
            "PYTHONUNBUFFERED": "1",
        }
        self.probe_dir: Path | None = None
        # the other benches (attack, scale) build their Run from their own options: no probe
        if not getattr(args, "no_probe", True):
            self.probe_dir = self.tmp / "probe"
            self.probe_dir.mkdir()
            self.env["BENCH_PROBE_DIR"] = str(self.probe_dir)
        for item in getattr(args, "server_env", ()):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise SystemExit(f"--server-env takes KEY=VALUE, not {item!r}")
            self.env[key] = value

    # -- database
    def create_database(self) -> None:
        self.db_created = True
        recreate_database(self.args.pg_url, self.args.db_name, self.env)

    def drop_database(self) -> None:
        if self.db_created and not self.args.keep_db:
            try:
                drop_database(self.args.pg_url, self.args.db_name)
            except Exception as error:  # noqa: BLE001 - cleanup must go on
                log(f"could not drop database {self.args.db_name}: {error}")
            self.db_created = False

    # -- server
    def server_command(self) -> list[str]:
        if self.args.server_cmd:
            return shlex.split(
                self.args.server_cmd.format(
                    python=sys.executable, host=HOST, port=self.port, workers=self.args.workers
                )
            )
        # --server serve: taxi_project/serve.py (a listening socket per worker); uvicorn:
        # `uvicorn --workers N` (one shared socket), as docker/ runs it and as the benches that
        # build a Run from their own options (attack, scale) do
        server = (
            ["taxi_project.serve"]
            if getattr(self.args, "server", "uvicorn") == "serve"
            else ["uvicorn"]
        )
        sockets = []
        if self.socket_port != self.port:  # serve only: its workers for WebSockets
            sockets = [
                "--socket-port", str(self.socket_port),
                "--socket-workers", str(self.args.socket_workers),
                "--socket-niceness", str(self.args.socket_niceness),
            ]  # fmt: skip
        return [
            sys.executable, "-m", *server, "bench._asgi:application",
            "--host", HOST, "--port", str(self.port),
            "--workers", str(self.args.workers), *sockets,
            "--log-level", "warning", "--no-access-log",
            # the client keeps its connections; don't let idle ones close under it
            "--timeout-keep-alive", "60",
        ]  # fmt: skip

    def start_server(self) -> None:
        command = self.server_command()
        log(f"server: {' '.join(command)}")
        self.server = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=open(self.server_log, "wb"),  # noqa: SIM115 - closed with the process
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped as one, by its id
        )
        deadline = time.monotonic() + 60
        waiting = [self.base] + ([self.socket_base] if self.socket_port != self.port else [])
        while time.monotonic() < deadline:  # both ports: the socket workers start on their own
            if self.server.poll() is not None:
                raise RuntimeError(f"the server exited ({self.server.returncode})")
            try:
                with urllib.request.urlopen(f"{waiting[0]}/healthz", timeout=2) as response:
                    if response.status == 200:
                        waiting.pop(0)
                        if not waiting:
                            log(f"server up on {self.base} (pid {self.server.pid})")
                            return
                        continue
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the server did not answer {waiting[0]}/healthz within 60 s")

    def worker_pids(self) -> list[int]:
        """The server's worker processes (not its parent, nor multiprocessing's helper)."""
        if self.server is None:
            return []
        pids = []
        for pid in tree_pids(self.server.pid):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if pid != self.server.pid and b"resource_tracker" not in cmdline:
                pids.append(pid)
        return pids

    def stop_server(self) -> None:
        server, self.server = self.server, None
        if server is None or server.poll() is not None:
            return
        pgid = server.pid  # start_new_session: the group id is the server's pid
        try:
            os.killpg(pgid, signal.SIGTERM)
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(pgid, signal.SIGKILL)
            server.wait(timeout=5)
        except ProcessLookupError:
            pass
        log("server stopped")

    def cleanup(self) -> None:
        recorder, self.recorder = self.recorder, None
        if recorder is not None and recorder.poll() is None:
            recorder.terminate()  # py-spy, started by us: by its own Popen handle
            try:
                recorder.wait(timeout=10)
            except subprocess.TimeoutExpired:
                recorder.kill()
        self.stop_server()
        self.drop_database()
        if self.tmp.exists():
            if self.server_log.exists():
                text = self.server_log.read_text(errors="replace")
                self.server_log_lines = len(text.splitlines())
                if text.strip():
                    print(
                        f"--- server log: {self.server_log_lines} lines; the last ---\n"
                        f"{text[-4000:]}\n--- end of server log ---",
                        file=sys.stderr,
                    )
            shutil.rmtree(self.tmp, ignore_errors=True)


# ---------------------------------------------------------------------------------- phases


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def _timeline(stats: _client.Stats, window: _client.Window) -> dict:
    """Accepted answers per second of the window, and the longest time with none: a stall
    (a pause of the server, the database or the machine) shows here, not in the mean."""
    seconds = max(int(window.end - window.start), 1)
    per_second = [0] * seconds
    for t in stats.answered_at:
        per_second[min(int(t - window.start), seconds - 1)] += 1
    times = [window.start, *sorted(stats.answered_at), window.end]
    gaps = [(b - a, a - window.start) for a, b in itertools.pairwise(times)]
    gap, at = max(gaps)
    worst = [0.0] * seconds  # each second's slowest answer (by when it came)
    for t, latency in zip(stats.answered_at, stats.latencies, strict=True):
        i = min(int(t - window.start), seconds - 1)
        worst[i] = max(worst[i], latency)
    return {
        "per_second": per_second,
        "slowest_answer_per_second_ms": [round(1000 * w, 1) for w in worst],
        "slowest_second": min(per_second),
        "slowest_second_at_s": per_second.index(min(per_second)),
        "longest_gap_ms": _ms(gap),
        "longest_gap_at_s": round(at, 2),
    }


def _summary(stats: _client.Stats, window: _client.Window) -> dict:
    duration = window.end - window.start
    lat = stats.latencies
    non_2xx = {str(k): v for k, v in stats.codes.items() if not (isinstance(k, int) and k < 300)}
    return {
        "accepted": len(lat),
        "per_s": len(lat) / duration,
        "answered_per_s": stats.answered_in_window / duration,
        "p50_ms": _ms(_client.percentile(lat, 50)),
        "p95_ms": _ms(_client.percentile(lat, 95)),
        "p99_ms": _ms(_client.percentile(lat, 99)),
        "max_ms": _ms(max(lat) if lat else None),
        "mean_ms": _ms(sum(lat) / len(lat) if lat else None),
        "status_codes": {str(k): v for k, v in sorted(stats.codes.items(), key=str)},
        "errors": sum(non_2xx.values()),
        "errors_by_code": non_2xx,
        "error_codes": {f"{s} {c}": n for (s, c), n in stats.error_bodies.items()},
        "first_errors": stats.first_errors,
        "timeline": _timeline(stats, window),
    }


async def unpaced_moves(run: Run, session, pairs, options, args, meter: CpuMeter) -> dict:
    """The K = len(pairs) games played by players who never think, one request in flight per
    game, for `args.warmup` + `args.duration` seconds: what the server can carry (`per_s`,
    the capacity the paced windows take their fraction of), with its latencies and CPU."""
    games = len(pairs)
    log(f"K={games}: setting up {games} games (tables, joins, first views)")
    stats = _client.Stats()
    started = time.perf_counter()
    firsts = await asyncio.gather(
        *(_client.open_game(session, run.base, pair, options, stats) for pair in pairs)
    )
    setup_s = time.perf_counter() - started
    log(f"K={games}: moves for {args.warmup:g} s warm-up + {args.duration:g} s")
    now = time.perf_counter()
    window = _client.Window(now + args.warmup, now + args.warmup + args.duration)
    cpu_task = asyncio.create_task(_meter_window(meter, window))
    probe_task = asyncio.create_task(_probe_window(run, window, stats, "move"))
    spy = _spy_once(run, args, "moves")
    spy_task = asyncio.create_task(_spy_window(run, window, spy))
    results = await asyncio.gather(
        *(
            _client.play_games(session, run.base, pair, options, window, stats, first)
            for pair, first in zip(pairs, firsts, strict=True)
        ),
        return_exceptions=True,
    )
    move_cpu = await cpu_task
    move_probe = await probe_task
    spy = await spy_task
    crashed = [r for r in results if isinstance(r, BaseException)]
    if crashed:
        raise RuntimeError(f"{len(crashed)} game loops failed; first: {crashed[0]!r}")
    moves = _summary(stats, window)
    moves.update(
        ongoing=results,  # each pair's game in play (run_level takes it out)
        games_started=stats.games_started,
        games_finished=stats.games_finished,
        legal_checked=stats.legal_checked,
        legal_mismatches=stats.legal_mismatches,
        resyncs=stats.resyncs,
        setup_s=setup_s,
        setup_requests_in_window=len(stats.setup_latencies),
        setup_errors={f"{s} {c}": n for (s, c), n in stats.setup_errors.items()},
        cpu=move_cpu,
        breakdown=_analysed(move_probe, window, stats),
    )
    if spy is not None:
        moves["py_spy"] = spy
    if moves["accepted"]:
        moves.update(cpu_per_op(move_cpu, moves["accepted"]))
        moves["server_cpu_ms_per_move"] = 1000 * move_cpu["server_cpu_s"] / moves["accepted"]
        moves["machine_cpu_ms_per_move"] = 1000 * move_cpu["machine_busy_cpu_s"] / moves["accepted"]
    return moves


async def _ongoing(run: Run, session, pairs, options, ongoing: list) -> None:
    """A game for every pair that has none in `ongoing` (set up before any window opens)."""
    fresh = await asyncio.gather(
        *(
            _client.open_game(session, run.base, pair, options, _client.Stats())
            for pair, game in zip(pairs, ongoing, strict=True)
            if game is None
        )  # fmt: skip
    )
    made = iter(fresh)
    ongoing[:] = [next(made) if game is None else game for game in ongoing]


async def _play_on(
    run: Run,
    session,
    pairs,
    options,
    ongoing: list,
    seconds: float,
    meter: CpuMeter | None = None,
    breakdown: dict | None = None,
) -> tuple[_client.Stats, _client.Window, dict | None]:
    """The K players who never think, on the games in play (`ongoing`: a new one set up first
    for a pair without one; left in play), for one second unmeasured and `seconds` measured:
    the window's stats, the window, and its CPU if `meter`. `breakdown`: if given, the
    workers' figures of the window are asked for (bench/_probe.py) and put in it, if the server
    was started with the probe."""
    await _ongoing(run, session, pairs, options, ongoing)
    now = time.perf_counter()
    window = _client.Window(now + 1.0, now + 1.0 + seconds)
    stats = _client.Stats()
    cpu_task = asyncio.create_task(_meter_window(meter, window)) if meter is not None else None
    probe_task = None
    if breakdown is not None:
        probe_task = asyncio.create_task(_probe_window(run, window, stats, "move"))
    ongoing[:] = await asyncio.gather(
        *(
            _client.play_games(session, run.base, pair, options, window, stats, first)
            for pair, first in zip(pairs, ongoing, strict=True)
        )
    )
    if breakdown is not None and probe_task is not None:
        breakdown.update(_analysed(await probe_task, window, stats) or {})
    return stats, window, (await cpu_task if cpu_task is not None else None)


async def alternating_ratio(
    run: Run, session, pairs, options, args, meter: CpuMeter, ongoing: list
) -> dict:
    """The ratio's verdict: `args.ratio_rounds` rounds, each a window of moves by the K
    players who never think, then one of the trivial authenticated GET by the same players,
    `args.ratio_window` seconds each after a second unmeasured. This machine's speed drifts
    within a run (by up to 2× between one minute and the next), so a ratio of a 30-second move
    window and a 10-second GET window after it measured the drift as much as the server (0.49,
    0.69 and 0.77 in three runs of the same code within an hour); in alternating windows the
    drift falls on both sides alike. Each round's figures are kept, so what drift remains shows.
    `ongoing`: each pair's game in play (or None), played on and left in play."""
    games = len(pairs)
    log(
        f"K={games}: moves and GET /api/v1/me in {args.ratio_rounds} alternating rounds of "
        f"1 s + {args.ratio_window:g} s each"
    )
    url = f"{run.base}/api/v1/me"

    def side(stats: _client.Stats, window: _client.Window, cpu: dict) -> dict:
        summary = _summary(stats, window)
        done = stats.answered_in_window
        return {
            "answered": done,
            "per_s": summary["answered_per_s"],
            "errors": summary["errors"],
            "p99_ms": summary["p99_ms"],
            **{
                f"{part}_cpu_ms_per_op": 1000 * cpu[f"{part}_cpu_s"] / done if done else None
                for part in ("server", "client", "other", "steal")
            },
            **(cpu_per_op(cpu, done) if done else {}),
            "machine_busy_pct": cpu["machine_busy_pct"],
            # new games set up in the window (their requests' CPU falls on the moves' side)
            "games_started": stats.games_started,
            "setup_requests_in_window": len(stats.setup_latencies),
        }

    rounds = []
    for _ in range(args.ratio_rounds):
        row: dict = {}
        probed: dict = {}
        stats, window, cpu = await _play_on(
            run, session, pairs, options, ongoing, args.ratio_window, meter, probed
        )
        assert cpu is not None
        row["moves"] = side(stats, window, cpu)
        # what a move did on the server this round: a drift between rounds shows here
        row["moves"]["sql_statements_mean"] = probed.get("sql_statements_mean")
        row["moves"]["server_cpu_per_request"] = probed.get("per_request")
        now = time.perf_counter()
        window = _client.Window(now + 1.0, now + 1.0 + args.ratio_window)
        stats = _client.Stats()
        cpu_task = asyncio.create_task(_meter_window(meter, window))
        await asyncio.gather(
            *(_client.get_loop(session, url, pair[0], window, stats) for pair in pairs)
        )
        row["get"] = side(stats, window, await cpu_task)
        row["ratio"] = row["moves"]["per_s"] / row["get"]["per_s"] if row["get"]["per_s"] else None
        rounds.append(row)
        log(
            f"  round {len(rounds)}: {row['moves']['per_s']:.1f} moves/s, "
            f"{row['get']['per_s']:.1f} GET/s, ratio {_f(row['ratio'], '.2f')}"
        )
    moves = sum(r["moves"]["answered"] for r in rounds)
    gets = sum(r["get"]["answered"] for r in rounds)
    return {
        "rounds": rounds,
        "window_s": args.ratio_window,
        "moves_per_s": moves / (len(rounds) * args.ratio_window),
        "get_per_s": gets / (len(rounds) * args.ratio_window),
        "ratio": moves / gets if gets else None,
        "errors": sum(r[side]["errors"] for r in rounds for side in ("moves", "get")),
    }


async def window_summary(stats: _client.Stats, window: _client.Window, cpu_task, probe_task):
    """A window's figures: latencies and codes, the CPU metered over it (`cpu_task`:
    `_meter_window`), the server's breakdown (`probe_task`: `_probe_window`) and, once anything
    was accepted, the CPU per operation (`server_cpu_ms_per_op`: the server's alone)."""
    summary = _summary(stats, window)
    summary["cpu"] = cpu = await cpu_task
    summary["breakdown"] = _analysed(await probe_task, window, stats)
    if summary["accepted"]:
        summary.update(cpu_per_op(cpu, summary["accepted"]))
        summary["server_cpu_ms_per_op"] = 1000 * cpu["server_cpu_s"] / summary["accepted"]
    return summary


async def get_window(
    run: Run, session, players, meter: CpuMeter, duration: float, spy: Path | None = None
) -> dict:
    """`duration` seconds of the trivial authenticated GET (GET /api/v1/me with a token), each
    of `players` looping on its own connection, after a second unmeasured: the window's
    `window_summary`. The side every ratio of this directory is measured against. `spy`:
    sample the workers with py-spy during the window, raw stacks to this path."""
    now = time.perf_counter()
    window = _client.Window(now + 1.0, now + 1.0 + duration)
    stats = _client.Stats()
    cpu_task = asyncio.create_task(_meter_window(meter, window))
    probe_task = asyncio.create_task(_probe_window(run, window, stats, "me"))
    spy_task = asyncio.create_task(_spy_window(run, window, spy))
    url = f"{run.base}/api/v1/me"
    await asyncio.gather(*(_client.get_loop(session, url, p, window, stats) for p in players))
    summary = await window_summary(stats, window, cpu_task, probe_task)
    spied = await spy_task
    if spied is not None:
        summary["py_spy"] = spied
    return summary


async def run_level(run: Run, session, players, games: int, args) -> dict:
    """One K: the move phase, then the GET phase, on the same server and connections."""
    meter = CpuMeter(run.server.pid)
    options = {"movement": args.movement}
    pairs = [(players[2 * i], players[2 * i + 1]) for i in range(games)]
    moves = await unpaced_moves(run, session, pairs, options, args, meter)

    log(f"K={games}: GET /api/v1/me for 1 s warm-up + {args.get_duration:g} s")
    spy = _spy_once(run, args, "get")
    gets = await get_window(run, session, players[:games], meter, args.get_duration, spy)

    sequential = moves["per_s"] / gets["per_s"] if gets["per_s"] else None
    level = {
        "games": games,
        "workers": args.workers,
        "duration_s": args.duration,
        "get_duration_s": args.get_duration,
        "moves": moves,
        "get_me": gets,
        "ratio_sequential": sequential,
        "ratio_moves_per_get": sequential,
    }
    # the games in play that the alternating rounds and the capacity windows play on, from
    # where the move window left them: moves of every stage of a game, not only first ones
    ongoing: list = moves.pop("ongoing")
    if args.ratio_rounds > 0:
        level["alternating"] = await alternating_ratio(
            run, session, pairs, options, args, meter, ongoing
        )
        level["ratio_moves_per_get"] = level["alternating"]["ratio"]
    if args.rate or args.rate_fraction > 0:

        async def rate_now() -> tuple[float, float | None]:
            if args.rate:
                return args.rate, None
            capacity = await capacity_now(run, session, pairs, options, args, ongoing)
            return args.rate_fraction * capacity, capacity

        def paced(key: str, window: dict, capacity: float | None) -> None:
            window["capacity_per_s"] = capacity
            level[key] = window

        rate, capacity = await rate_now()
        paced("paced", await paced_moves(run, session, pairs, options, args, meter, rate), capacity)
        if args.watchers:
            keys = ["paced_watched"]
            if args.compare_socket_workers and run.socket_port != run.port:
                # the same sockets on the workers that answer requests, then on their own,
                # twice over, in one run: the machine's speed drifts between runs
                keys = ["paced_watched_shared", "paced_watched",
                        "paced_watched_shared_2", "paced_watched_2"]  # fmt: skip
            for key in keys:
                base = run.base if "shared" in key else run.socket_base
                rate, capacity = await rate_now()
                watched = await watched_paced(
                    run, session, players, pairs, options, args, meter, rate, base=base
                )
                paced(key, watched, watched["capacity_watched_per_s"] or capacity)
        if args.sweep:
            rate, capacity = await rate_now()
            swept = await sweep_paced(run, session, pairs, options, args, meter, rate)
            paced("paced_sweep", swept, capacity)
    level["goals"] = goals(level)
    return level


async def capacity_now(run: Run, session, pairs, options, args, ongoing: list) -> float:
    """The move rate the server carries now: the K players who never think, for one second
    unmeasured and `args.capacity_window` measured, on the games in play (`ongoing`, left in
    play). Each paced window offers its fraction of the capacity measured just before it, not
    of the first move window's: this machine's speed drifts by up to 2× within a run, and a
    window offered half of what the machine carried minutes earlier found it 65–80 % busy."""
    stats, _window, _cpu = await _play_on(
        run, session, pairs, options, ongoing, args.capacity_window
    )
    capacity = stats.answered_in_window / args.capacity_window
    log(f"K={len(pairs)}: {capacity:.1f} moves/s carried just now, unpaced")
    return capacity


async def watched_paced(
    run: Run, session, players, pairs, options, args, meter: CpuMeter, rate: float,
    base: str | None = None,
) -> dict:  # fmt: skip
    """The paced window again, with `--watchers` sockets open on the games being played
    (each synced first, then reading every frame): the latency a mover sees while the server
    also pushes each entry to ten sockets."""
    stats = _client.Stats()
    firsts = list(
        await asyncio.gather(
            *(_client.open_game(session, run.base, pair, options, stats) for pair in pairs)
        )
    )
    k = len(pairs)
    semaphore = asyncio.Semaphore(50)
    frames = {"entry": 0, "other": 0}
    lateness: list[float] = []  # s from an entry's turn start to its frame, every socket

    async def watch(sockets_session, i: int):
        game_id = firsts[i % k][0].game_id
        player = players[(i + i // k) % len(players)]  # ≤ 32 sockets per account
        async with semaphore:
            return await _client.synced_socket(
                sockets_session, base or run.socket_base, game_id, player, f"watcher {i}"
            )

    async def drain(ws):
        turn_began = None
        async for message in ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            received = time.time()
            frame = json.loads(message.data)
            frames["entry" if frame["type"] == "entry" else "other"] += 1
            began = (frame.get("clock") or {}).get("turn_started_at")
            if began != turn_began and turn_began is not None and began is not None:
                # an entry that began a turn: its time (set as it was appended) → here
                appended = datetime.datetime.fromisoformat(began).timestamp()
                lateness.append(received - appended)
            turn_began = began

    log(f"K={k}: opening {args.watchers} sockets watching the games")
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as sockets_session:
        opened = time.perf_counter()
        sockets = await asyncio.gather(*(watch(sockets_session, i) for i in range(args.watchers)))
        log(f"  {len(sockets)} sockets synced in {time.perf_counter() - opened:.1f} s")
        readers = [asyncio.create_task(drain(ws)) for ws in sockets]
        watched_capacity = None
        if args.watched_capacity and not args.rate:
            # what the server carries while it also pushes each entry to the sockets, on the
            # watched games (a pair whose game ends plays its next one unwatched)
            watched_capacity = await capacity_now(run, session, pairs, options, args, firsts)
            rate = args.rate_fraction * watched_capacity
        spy = Path(args.py_spy) if args.py_spy and args.py_spy_window == "watched" else None
        paced = await paced_moves(
            run, session, pairs, options, args, meter, rate, stats=_client.Stats(), firsts=firsts,
            spy=spy,
        )  # fmt: skip
        closed_early = sum(1 for r in readers if r.done())
        for ws in sockets:
            await ws.close()
        await asyncio.gather(*readers, return_exceptions=True)
    paced.update(
        watchers=len(sockets),
        capacity_watched_per_s=watched_capacity,
        frames=frames,
        watchers_closed_early=closed_early,
        socket_workers=args.socket_workers if (base or run.socket_base) != run.base else 0,
        frame_ms={
            "count": len(lateness),
            **{f"p{q}": _ms(_client.percentile(lateness, q)) for q in (50, 99, 100)},
        },
    )
    return paced


async def sweep_paced(
    run: Run, session, pairs, options, args, meter: CpuMeter, rate: float
) -> dict:
    """The paced window again, while a real Celery worker with beat (tests/tasks/worker.py,
    `--concurrency 2`) sweeps `--sweep` games whose turn clocks all run out a few seconds into
    the window, on the same database: the latency a mover sees during a deadline sweep."""
    from tests.tasks.worker import celery_worker

    k = len(pairs)
    log(f"K={k}: {args.sweep} more games with a 1-hour clock, for the sweep")
    stats = _client.Stats()
    semaphore = asyncio.Semaphore(16)

    async def table(i: int) -> int:
        async with semaphore:
            created, _version, _view = await _client.open_game(
                session, run.base, pairs[i % k], {**options, "clock": "1h"}, stats
            )
        return created.game_id

    ids = sorted(await asyncio.gather(*(table(i) for i in range(args.sweep))))
    # each pair's game for the window, set up now: set up after the worker started, its burst
    # of tables and joins pushed the window's start past the moment the sweep fell due
    firsts = list(
        await asyncio.gather(
            *(_client.open_game(session, run.base, pair, options, stats) for pair in pairs)
        )
    )
    db_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
    extra = {k: v for k, v in run.env.items() if k in ("DEBUG", "SECRET_KEY")}
    extra["WORKER_POOL_NICENESS"] = str(args.worker_niceness)
    with celery_worker(
        database_url=db_url, redis_url=args.sweep_redis_url, concurrency=2, env=extra, lock_wait=60
    ):
        log("  worker and beat ready")
        due_after = args.warmup + 5.0

        async def make_due():
            await asyncio.sleep(due_after)
            with psycopg.connect(db_url, autocommit=True) as conn:
                conn.execute(
                    "UPDATE games_game SET next_deadline_at = now(), turn_started_at = now() - "
                    "turn_seconds * interval '1 second' WHERE id = ANY(%s) AND status = 'playing'",
                    [ids],
                )
            return time.perf_counter()

        due_task = asyncio.create_task(make_due())
        started = time.perf_counter()  # paced_moves opens its window args.warmup from now
        paced = await paced_moves(
            run, session, pairs, options, args, meter, rate, stats=_client.Stats(), firsts=firsts
        )
        due_at = await due_task
        with psycopg.connect(db_url) as conn:
            swept, last = conn.execute(
                "SELECT count(DISTINCT game_id), max(created_at) - min(created_at) FROM "
                "games_gameentry WHERE game_id = ANY(%s) AND action->>'type' = 'timeout'",
                [ids],
            ).fetchone()
    paced.update(
        sweep_games=len(ids),
        sweep_timed_out=swept,
        sweep_span_s=last.total_seconds() if last is not None else None,
        sweep_due_s_into_window=due_at - started - args.warmup,
    )
    return paced


async def paced_moves(
    run: Run,
    session,
    pairs,
    options,
    args,
    meter: CpuMeter,
    rate: float,
    stats=None,
    firsts=None,
    alongside=None,
    spy: Path | None = None,
) -> dict:
    """The same K games, with players who think: together they offer `rate` moves/s
    (each pair a move every K / rate seconds on average, at Poisson times). The latency a
    player sees at that load. `stats`: a fresh `_client.Stats` to keep the window's
    latencies in; `firsts`: each pair's game, set up beforehand (`_client.open_game`), so that
    no setup falls in the window, replaced in the list by the game each pair was playing when
    the window closed (None if none), for the next window (bench/scale.py pools several short
    windows back to back). `alongside(window)`: a coroutine run beside the players from the
    warm-up's start until it returns (other load, e.g. bench/bot_think.py's bot tables; it
    should return once the window has closed). `spy`: sample the workers with py-spy during
    the window, raw stacks to this path (the summary goes in the result's `py_spy`)."""
    interval = len(pairs) / rate
    log(
        f"K={len(pairs)}: paced moves, {rate:.1f}/s offered (a move every {interval:.3f} s "
        f"per game on average), {args.warmup:g} s warm-up + {args.duration:g} s"
    )
    stats = _client.Stats() if stats is None else stats
    if firsts is None:
        # Every pair's game is set up before the clock starts: 100 tables created and joined at
        # the same instant are a burst of several seconds of server CPU that no player sees in
        # play, and whose backlog reached into the window (its first three seconds' slowest
        # moves took 594, 534 and 377 ms; the p99 of that run was 523 ms).
        firsts = list(
            await asyncio.gather(
                *(
                    _client.open_game(session, run.base, pair, options, _client.Stats())
                    for pair in pairs
                )  # fmt: skip
            )
        )
    now = time.perf_counter()
    window = _client.Window(now + args.warmup, now + args.warmup + args.duration)
    cpu_task = asyncio.create_task(_meter_window(meter, window))
    probe_task = asyncio.create_task(_probe_window(run, window, stats, "move"))
    spy_task = asyncio.create_task(_spy_window(run, window, spy))
    lag_task = asyncio.create_task(_client_lag(window))
    results = await asyncio.gather(
        *(
            _client.play_games(
                session, run.base, pair, options, window, stats, first, interval=interval
            )
            for pair, first in zip(pairs, firsts, strict=True)
        ),
        *([alongside(window)] if alongside is not None else []),
        return_exceptions=True,
    )
    if alongside is not None:
        beside = results.pop()
        if isinstance(beside, BaseException):
            raise beside
    cpu = await cpu_task
    probed = await probe_task
    spied = await spy_task
    client_lag = await lag_task
    crashed = [r for r in results if isinstance(r, BaseException)]
    if crashed:
        raise RuntimeError(f"{len(crashed)} paced game loops failed; first: {crashed[0]!r}")
    firsts[:] = results
    paced = _summary(stats, window)
    paced.update(
        offered_per_s=rate, interval_s=interval, cpu=cpu, due_in_window=stats.due_in_window,
        carried=paced["accepted"] / stats.due_in_window if stats.due_in_window else None,
        breakdown=_analysed(probed, window, stats), client_loop_lag_ms=client_lag,
    )  # fmt: skip
    if spied is not None:
        paced["py_spy"] = spied
    return paced


def cpu_per_op(cpu: dict, count: int) -> dict:
    """CPU per operation of the serving side (server + PostgreSQL + Redis, not the client nor
    other processes), and the rate the machine's CPUs would allow at that cost: a ceiling that
    other processes' load does not lower, unlike the measured rate."""
    serving = cpu["server_cpu_s"] + cpu["postgres_cpu_s"] + cpu["redis_cpu_s"]
    per_op = serving / count
    return {
        "serving_cpu_ms_per_op": 1000 * per_op,
        "cpu_ceiling_per_s": cpu["cpus"] / per_op if per_op else None,
    }


async def _probe_window(
    run: Run, window: _client.Window, stats: _client.Stats, kind: str
) -> dict | None:
    """bench/_probe.py's figures from every worker at the window's start and end, analysed
    once the window's requests are all in (`stats`: the client's, filled meanwhile)."""
    if run.probe_dir is None:
        return None
    pids = run.worker_pids()
    await asyncio.sleep(max(window.start - time.perf_counter(), 0))
    before = await _breakdown.dump(run.probe_dir, pids, mark=True)
    await asyncio.sleep(max(window.end - time.perf_counter(), 0))
    after = await _breakdown.dump(run.probe_dir, pids)
    return {"before": before, "after": after, "kind": kind}


def _analysed(probed: dict | None, window: _client.Window, stats: _client.Stats) -> dict | None:
    if not probed:
        return None
    result = _breakdown.analyse(probed["before"], probed["after"], window, stats, probed["kind"])
    result["kind"] = probed["kind"]
    return result


async def _client_lag(window: _client.Window, tick: float = 0.005) -> dict:
    """How late this process's own event loop woke during the window (a sleep of `tick`,
    over and over): the part of a measured latency that is the load generator's, not the
    server's (every answer is read on this loop, beside any sockets the window reads)."""
    await asyncio.sleep(max(window.start - time.perf_counter(), 0))
    late: list[float] = []
    while (now := time.perf_counter()) < window.end:
        await asyncio.sleep(tick)
        late.append(time.perf_counter() - now - tick)
    return {
        "p50": _ms(_client.percentile(late, 50)),
        "p99": _ms(_client.percentile(late, 99)),
        "max": _ms(max(late) if late else None),
        "over_20ms": sum(1 for x in late if x >= 0.020),
    }


async def _meter_window(meter: CpuMeter, window: _client.Window) -> dict:
    await asyncio.sleep(max(window.start - time.perf_counter(), 0))
    meter.start()
    await asyncio.sleep(max(window.end - time.perf_counter(), 0))
    return meter.stop()


def _spy_once(run: Run, args, window: str) -> Path | None:
    """Where `--py-spy` writes the raw stacks of `window` (moves, get), if `--py-spy-window`
    names it and no window of the run has been sampled yet (the first K's only); else None."""
    if not args.py_spy or args.py_spy_window != window or run.spied:
        return None
    run.spied = True
    return Path(args.py_spy)


async def _spy_window(run: Run, window: _client.Window, path: Path | None) -> dict | None:
    """py-spy on every worker for `window`, raw stacks to `path`; the summary of what it
    sampled (None: no `path`, nothing sampled; or py-spy failed)."""
    if path is None:
        return None
    await asyncio.sleep(max(window.start - time.perf_counter(), 0))
    recorder = _pyspy.start(run.server.pid, window.end - window.start, path)
    run.recorder = recorder
    try:
        _, err = await asyncio.to_thread(
            recorder.communicate, timeout=window.end - window.start + 60
        )
    finally:
        run.recorder = None
    if recorder.returncode != 0 or not path.exists():
        log(f"py-spy failed ({recorder.returncode}): {err.decode(errors='replace')[-500:]}")
        return None
    summary = _pyspy.summarize(path)
    summary["raw"] = str(path)
    return summary


PACED_WINDOWS = [
    ("paced", "paced"),
    ("paced, sockets watching", "paced_watched"),
    ("paced, sockets on the same workers", "paced_watched_shared"),
    ("paced, sockets watching (2)", "paced_watched_2"),
    ("paced, sockets on the same workers (2)", "paced_watched_shared_2"),
    ("paced, during a sweep", "paced_sweep"),
]


def _kept_up(paced: dict) -> bool:
    """The window carried GOAL_CARRIED of the moves the players' schedules made due in it (or,
    where a window does not count them, of its offered rate × its duration)."""
    if paced.get("carried") is not None:
        return paced["carried"] >= GOAL_CARRIED
    return paced["per_s"] >= GOAL_CARRIED * paced["offered_per_s"]


def _paced_ok(paced: dict) -> bool:
    kept_up = _kept_up(paced)
    return (
        kept_up and paced["errors"] == 0 and paced["p99_ms"] is not None
        and paced["p99_ms"] <= GOAL_P99_MS
    )  # fmt: skip


def goals(level: dict) -> dict:
    """The ratio from the players who never think (what the server can do); p99 from the
    paced players (the latency at a fraction of that rate, which the server must also keep
    up with: a server that fell behind has no p99 "at" that rate)."""
    moves, ratio = level["moves"], level["ratio_moves_per_get"]
    paced = level.get("paced")
    p99 = None
    if paced is not None and paced["offered_per_s"]:
        p99 = paced["p99_ms"] if _kept_up(paced) and paced["errors"] == 0 else None
    return {
        "applies": level["games"] == GOAL_GAMES,
        "p99": p99 is not None and p99 <= GOAL_P99_MS,
        "ratio": ratio is not None and ratio >= GOAL_RATIO,
        "no_errors": (
            moves["errors"] == 0
            and level["get_me"]["errors"] == 0
            and level.get("alternating", {}).get("errors", 0) == 0
        ),
        **{f"p99_{key}": _paced_ok(level[key]) for _, key in PACED_WINDOWS[1:] if level.get(key)},
    }


# ---------------------------------------------------------------------------------- report


def _f(value, spec=".1f", none="-") -> str:
    return none if value is None else format(value, spec)


#: Steal (a share of the VM's CPU time) from which a report says the machine was not all there.
STEAL_WARNING = 0.10


def _stolen_share(level: dict) -> float:
    """The share of the VM's CPU time the hypervisor took during the level's move phase."""
    c = level["moves"]["cpu"]
    capacity = c["wall_s"] * c["cpus"]
    return c.get("steal_cpu_s", 0.0) / capacity if capacity else 0.0


def _verdict(ok: bool, applies: bool) -> str:
    return ("PASS" if ok else "FAIL") if applies else ("(ok)" if ok else "(no)")


def report(levels: list[dict], args, speed: dict) -> None:
    head = (
        f"{'K':>4} {'wrk':>3} {'dur':>4} | {'moves/s':>8} {'p50':>6} {'p95':>6} {'p99':>6} "
        f"{'err':>4} | {'GET/s':>7} {'p50':>5} {'p99':>6} {'err':>4} | {'seq':>5}"
    )
    print()
    print(
        "HTTP API benchmark (latencies in ms, as the client sees them; machine speed "
        f"{speed['before']}/{speed['after']} ms before/after)"
    )
    print(head)
    print("-" * len(head))
    for lv in levels:
        m, g = lv["moves"], lv["get_me"]
        print(
            f"{lv['games']:>4} {lv['workers']:>3} {lv['duration_s']:>4g} | "
            f"{m['per_s']:>8.1f} {_f(m['p50_ms']):>6} {_f(m['p95_ms']):>6} "
            f"{_f(m['p99_ms']):>6} {m['errors']:>4} | "
            f"{g['per_s']:>7.1f} {_f(g['p50_ms']):>5} {_f(g['p99_ms']):>6} {g['errors']:>4} | "
            f"{_f(lv['ratio_sequential'], '.2f'):>5}"
        )
    print(
        "(seq: the move window's rate ÷ the GET window's after it; the ratio's verdict is "
        "judged in alternating windows, below)"
    )
    alternating = [lv for lv in levels if lv.get("alternating")]
    if alternating:
        print()
        print("Moves and GETs in alternating windows (the ratio's verdict)")
        for lv in alternating:
            a = lv["alternating"]
            rounds = " | ".join(
                f"{r['moves']['per_s']:.0f}/{r['get']['per_s']:.0f} = {_f(r['ratio'], '.2f')}"
                for r in a["rounds"]
            )
            print(
                f"  K={lv['games']:<4} {len(a['rounds'])} rounds of {a['window_s']:g} s each side, "
                f"moves/s / GET/s: {rounds}"
            )
            cpu = [
                (r["moves"].get("serving_cpu_ms_per_op"), r["get"].get("serving_cpu_ms_per_op"))
                for r in a["rounds"]
            ]
            print(
                f"  K={lv['games']:<4} in all {a['moves_per_s']:.1f} moves/s, "
                f"{a['get_per_s']:.1f} GET/s: ratio {_f(a['ratio'], '.2f')}; serving CPU ms per "
                "move / per GET by round: " + ", ".join(f"{_f(m)} / {_f(g)}" for m, g in cpu)
            )
            client = [
                (r["moves"].get("client_cpu_ms_per_op"), r["get"].get("client_cpu_ms_per_op"))
                for r in a["rounds"]
            ]
            if any(m is not None for m, _ in client):
                # the load generator shares the CPUs: what it spends more on a move than on a
                # GET is taken from the server's capacity in the move window, not in the other
                print(
                    f"  K={lv['games']:<4} this client's CPU ms per move / per GET by round: "
                    + ", ".join(f"{_f(m, '.2f')} / {_f(g, '.2f')}" for m, g in client)
                )
            statements = [r["moves"].get("sql_statements_mean") for r in a["rounds"]]
            if any(n is not None for n in statements):
                print(
                    f"  K={lv['games']:<4} SQL statements per move by round: "
                    + ", ".join(_f(n, ".2f") for n in statements)
                )
    paced_levels = [lv for lv in levels if lv.get("paced")]
    if paced_levels:
        print()
        print(
            "Paced players (they think between moves; latencies in ms; each window offers "
            f"{args.rate_fraction:g} × the capacity measured unpaced just before it)"
        )
        print(
            f"{'K':>4} {'window':<22} | {'capacity':>8} {'offered/s':>9} {'moves/s':>8} "
            f"{'carried':>7} {'p50':>6} {'p95':>6} "
            f"{'p99':>6} {'max':>6} {'err':>4} | p99 ≤ {GOAL_P99_MS} ms"
        )
        for lv in paced_levels:
            for name, key in PACED_WINDOWS:
                p = lv.get(key)
                if not p:
                    continue
                print(
                    f"{lv['games']:>4} {name:<22} | {_f(p.get('capacity_per_s')):>8} "
                    f"{p['offered_per_s']:>9.1f} {p['per_s']:>8.1f} "
                    f"{_f(p.get('carried'), '.1%'):>7} {_f(p['p50_ms']):>6} "
                    f"{_f(p['p95_ms']):>6} {_f(p['p99_ms']):>6} "
                    f"{_f(p['max_ms'], '.0f'):>6} {p['errors']:>4} | "
                    f"{_verdict(_paced_ok(p), lv['games'] == GOAL_GAMES)}"
                )
                if lag := p.get("client_loop_lag_ms"):
                    print(
                        f"{'':>4} {'':<22}   the load generator's own loop late "
                        f"p50/p99/max {lag['p50']}/{lag['p99']}/{lag['max']} ms, "
                        f"{lag['over_20ms']} times ≥ 20 ms"
                    )
                if key.startswith("paced_watched"):
                    where = (
                        f"on {p['socket_workers']} workers of their own"
                        if p.get("socket_workers")
                        else "on the same workers"
                    )
                    late = p.get("frame_ms", {})
                    print(
                        f"{'':>4} {'':<22}   {p['watchers']} sockets {where}, frames received "
                        f"{p['frames']}, closed early {p['watchers_closed_early']}; a turn's "
                        f"start → its frame p50/p99/max {late.get('p50')}/{late.get('p99')}/"
                        f"{late.get('p100')} ms"
                    )
                if key == "paced_sweep":
                    print(
                        f"{'':>4} {'':<22}   {p['sweep_timed_out']}/{p['sweep_games']} games "
                        f"timed out, due {p['sweep_due_s_into_window']:.1f} s into the window, "
                        f"swept in {_f(p['sweep_span_s'], '.2f')} s"
                    )
    print()
    print("Accepted answers per second of each window (fewest / median / most), longest pause")
    for lv in levels:
        phases = [("moves", lv["moves"]), ("GET", lv["get_me"])]
        if lv.get("paced"):
            phases.append(("paced", lv["paced"]))
        for name, phase in phases:
            tl = phase["timeline"]
            counts = sorted(tl["per_second"])
            print(
                f"  K={lv['games']:<4} {name:<5} {counts[0]} / {counts[len(counts) // 2]} / "
                f"{counts[-1]} per s (fewest in second {tl['slowest_second_at_s']}); no answer "
                f"for {tl['longest_gap_ms']:.0f} ms (from {tl['longest_gap_at_s']:.1f} s into the "
                "window); seconds with an answer ≥ 100 ms: "
                f"{[i for i, w in enumerate(tl['slowest_answer_per_second_ms']) if w >= 100]}"
            )
    print()
    print(
        f"Goals (at K={GOAL_GAMES}; other K shown in parentheses): moves/s ≥ {GOAL_RATIO} × "
        f"GET/s; paced players offering {GOAL_RATE_FRACTION:g} × the measured move rate: "
        f"p99 ≤ {GOAL_P99_MS} ms, ≥ {GOAL_CARRIED:.0%} carried; no errors"
    )
    for lv in levels:
        gl, m = lv["goals"], lv["moves"]
        a = gl["applies"]
        p99 = lv["paced"]["p99_ms"] if lv.get("paced") else m["p99_ms"]
        at = f" at {lv['paced']['offered_per_s']:.1f}/s offered" if lv.get("paced") else ""
        print(
            f"  K={lv['games']:<4} moves/s {m['per_s']:.1f}"
            f" | p99{at} {_f(p99)} ms: {_verdict(gl['p99'], a)}"
            f" | ratio {_f(lv['ratio_moves_per_get'], '.2f')}: {_verdict(gl['ratio'], a)}"
            f" | errors {m['errors'] + lv['get_me']['errors']}: {_verdict(gl['no_errors'], a)}"
        )
        stolen = _stolen_share(lv)
        if stolen >= STEAL_WARNING:
            print(
                f"  K={lv['games']:<4} WARNING: the hypervisor took {100 * stolen:.0f} % of this "
                "VM's CPU time during the moves (steal): these are the figures of a smaller machine"
            )
    print()
    print(
        f"Where the CPU went (CPU seconds per wall second; this machine has {os.cpu_count()} CPUs)"
    )
    for lv in levels:
        phases = [("moves", lv["moves"]), ("GET  ", lv["get_me"])]
        phases += [(key.replace("_", " "), lv[key]) for _, key in PACED_WINDOWS if lv.get(key)]
        for name, phase in phases:
            c = phase["cpu"]
            w = c["wall_s"]
            print(
                f"  K={lv['games']:<4} {name}: machine {c['machine_busy_pct']:.0f}% busy | "
                f"server {c['server_cpu_s'] / w:.2f} | PostgreSQL {c['postgres_cpu_s'] / w:.2f} | "
                f"Redis {c['redis_cpu_s'] / w:.2f} | client {c['client_cpu_s'] / w:.2f} | "
                f"other processes {c['other_cpu_s'] / w:.2f} | "
                f"stolen by the hypervisor {c.get('steal_cpu_s', 0.0) / w:.2f}"
            )
        m, g = lv["moves"], lv["get_me"]
        if m.get("server_cpu_ms_per_move"):
            print(
                f"  K={lv['games']:<4} CPU per accepted move: server "
                f"{m['server_cpu_ms_per_move']:.1f} ms, server+PostgreSQL+Redis "
                f"{m['serving_cpu_ms_per_op']:.1f} ms -> CPU ceiling "
                f"{_f(m['cpu_ceiling_per_s'], '.0f')} moves/s; per GET: server "
                f"{_f(g.get('server_cpu_ms_per_op'), '.1f')} ms, serving "
                f"{_f(g.get('serving_cpu_ms_per_op'), '.1f')} ms -> "
                f"{_f(g.get('cpu_ceiling_per_s'), '.0f')} GET/s"
            )
    if any(lv["moves"].get("breakdown") for lv in levels):
        print()
        print("Where the server's time went (bench/_probe.py in each worker)")
        for lv in levels:
            phases = [("moves", lv["moves"]), ("GET", lv["get_me"])]
            phases += [(name, lv[key]) for name, key in PACED_WINDOWS if lv.get(key)]
            for name, phase in phases:
                if phase.get("breakdown"):
                    for line in _breakdown.text(f"K={lv['games']} {name}", phase["breakdown"]):
                        print(line)
    for lv in levels:
        for name, key in [("moves", "moves"), ("GET", "get_me"), *PACED_WINDOWS]:
            if (lv.get(key) or {}).get("py_spy"):
                print()
                print(f"K={lv['games']} {name}, server side: " + _pyspy.report(lv[key]["py_spy"]))
    print()
    for lv in levels:
        m = lv["moves"]
        print(
            f"  K={lv['games']:<4} set-up of the first {lv['games']} games {m['setup_s']:.1f} s "
            f"(before the window); games started {m['games_started']}, finished "
            f"{m['games_finished']}; status codes {m['status_codes']}; legal-action checks "
            f"{m['legal_checked']} ({m['legal_mismatches']} mismatches); resyncs {m['resyncs']}"
        )
        if m["setup_errors"]:
            print(f"    failed table set-ups (create/join/view): {m['setup_errors']}")
        for line in m["first_errors"] + lv["get_me"]["first_errors"]:
            print(f"    error: {line}")


def environment(args, run: Run) -> dict:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    with psycopg.connect(args.pg_url, dbname="postgres") as conn:
        pg_version = conn.execute("SHOW server_version").fetchone()[0]
        max_connections = conn.execute("SHOW max_connections").fetchone()[0]
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "postgresql": pg_version,
        "pg_max_connections": int(max_connections),
        "aiohttp": aiohttp.__version__,
        "server": " ".join(run.server_command()[1:]),
    }


# ---------------------------------------------------------------------------------- main


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument(
        "--games", default=str(GOAL_GAMES),
        help="K, concurrent games; a comma-separated list runs each in turn (default 100)",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=int, default=3,
        help="uvicorn workers (default 3)",
    )  # fmt: skip
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds of moves")
    parser.add_argument("--warmup", type=float, default=5.0, help="unmeasured seconds first")
    parser.add_argument(
        "--get-duration", type=float, default=10.0, help="measured seconds of GET /api/v1/me"
    )
    parser.add_argument(
        "--ratio-rounds",
        type=int,
        default=4,
        help="rounds of alternating move and GET windows that the ratio is judged on (0: the "
        "ratio of the move window and the GET window after it)",
    )
    parser.add_argument(
        "--ratio-window", type=float, default=5.0, help="measured seconds of each side of a round"
    )
    parser.add_argument(
        "--capacity-window",
        type=float,
        default=5.0,
        help="measured seconds of the unpaced moves before each paced window, whose rate the "
        "window offers its fraction of",
    )
    parser.add_argument(
        "--rate-fraction", type=float, default=GOAL_RATE_FRACTION,
        help="then the same K games with players who think, offering together this fraction "
        f"of the move rate just measured: the p99 goal's run (default {GOAL_RATE_FRACTION}; "
        "0: skip)",
    )  # fmt: skip
    parser.add_argument(
        "--rate", type=float, default=0.0,
        help="offer this many moves/s instead of --rate-fraction (0: use the fraction)",
    )  # fmt: skip
    parser.add_argument(
        "--movement", default="normal", choices=["normal", "fast", "faster"],
        help="the tables' movement option (default normal)",
    )  # fmt: skip
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument(
        "--pg-url", default="postgres://postgres@127.0.0.1:5432",
        help="PostgreSQL server, without database (default postgres://postgres@127.0.0.1:5432)",
    )  # fmt: skip
    parser.add_argument("--db-name", default="bench_api", help="database to (re)create")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database after")
    parser.add_argument(
        "--redis-url", default="redis://127.0.0.1:6379/14",
        help="Redis for the server's cache and channel layer (default db 14)",
    )  # fmt: skip
    parser.add_argument(
        "--signup-concurrency", type=int, default=8, help="sign-ups in flight (CPU-bound)"
    )
    parser.add_argument(
        "--wait-idle", type=float, default=0.0, metavar="S",
        help="wait up to S seconds for the machine to be quiet before starting (default 0)",
    )  # fmt: skip
    parser.add_argument(
        "--py-spy", metavar="PATH",
        help="sample the workers with py-spy during one window (--py-spy-window); raw stacks to "
        "PATH",
    )  # fmt: skip
    parser.add_argument(
        "--py-spy-window", choices=["moves", "get", "watched"], default="moves",
        help="the window --py-spy samples: moves, the first move window (default); get, the GET "
        "window after it (to set a move's samples against a GET's); watched, the paced window "
        "with --watchers sockets open",
    )  # fmt: skip
    parser.add_argument(
        "--server-env", action="append", default=[], metavar="KEY=VALUE",
        help="extra environment for migrate and the server (repeatable), e.g. to try other "
        "settings: --server-env DJANGO_SETTINGS_MODULE=mysettings --server-env PYTHONPATH=/dir",
    )  # fmt: skip
    parser.add_argument(
        "--server-cmd", metavar="TEMPLATE",
        help="another server command, to compare (placeholders {python} {host} {port} "
        "{workers}), e.g. '{python} -m uvicorn taxi_project.wsgi:application --interface wsgi "
        "--host {host} --port {port} --workers {workers}'; default: uvicorn on bench._asgi",
    )  # fmt: skip
    parser.add_argument(
        "--server", choices=["serve", "uvicorn"], default="serve",
        help="serve: python -m taxi_project.serve (a listening socket per worker); uvicorn: "
        "uvicorn --workers N (one shared socket, as docker/ runs it) (default serve)",
    )  # fmt: skip
    parser.add_argument(
        "--watchers", type=int, default=0, metavar="N",
        help="then the paced window again with N sockets watching the games (e.g. 1000)",
    )  # fmt: skip
    parser.add_argument(
        "--watched-capacity",
        action="store_true",
        help="with --watchers: the watched window offers its fraction of the move rate carried "
        "with the sockets open, measured just before it with them (default: of the rate carried "
        "without them, as the plain window)",
    )
    parser.add_argument(
        "--socket-workers", type=int, default=2, metavar="N",
        help="--server serve: the watchers' sockets go to N workers of their own on a second "
        "port (taxi_project/serve.py --socket-port, as docker/ routes /ws/); 0: to the same "
        "workers (default 2)",
    )  # fmt: skip
    parser.add_argument(
        "--compare-socket-workers", action="store_true",
        help="with --watchers and --socket-workers: four watched windows, the sockets on the "
        "workers that answer requests, then on their own, twice",
    )  # fmt: skip
    parser.add_argument(
        "--socket-niceness", type=int, default=5, metavar="N",
        help="how much nicer the socket workers run (serve's --socket-niceness; default 5)",
    )  # fmt: skip
    parser.add_argument(
        "--sweep", type=int, default=0, metavar="N",
        help="then the paced window again while a Celery worker sweeps N games whose clocks "
        "run out at once, 5 s into it (e.g. 1000)",
    )  # fmt: skip
    parser.add_argument(
        "--worker-niceness", type=int, default=10, metavar="N",
        help="WORKER_POOL_NICENESS of the sweep's worker (default 10, the product's)",
    )  # fmt: skip
    parser.add_argument(
        "--sweep-redis-url", default="redis://127.0.0.1:6379/10",
        help="Redis for the sweep's worker and beat; this database is cleared (default db 10)",
    )  # fmt: skip
    parser.add_argument(
        "--no-probe", action="store_true",
        help="serve without bench/_probe.py (the breakdown of where the server's time went)",
    )  # fmt: skip
    parser.add_argument(
        "--connection-per-player", action="store_true",
        help="each player sends its moves over a kept-alive connection of its own, as two "
        "people's apps do; default: the moves share one pool, where a game's next move mostly "
        "takes the connection its last one freed, so a game's moves stay on one server process",
    )  # fmt: skip
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="smoke run: K=10, short windows")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.duration, args.warmup, args.get_duration = "10", 3.0, 1.0, 2.0
        args.ratio_rounds, args.ratio_window, args.capacity_window = 2, 1.0, 1.0
    try:
        args.levels = [int(k) for k in str(args.games).split(",") if k.strip()]
    except ValueError:
        parser.error("--games takes whole numbers, e.g. 100 or 20,100")
    if not args.levels or min(args.levels) < 1:
        parser.error("--games must be at least 1")
    if args.ratio_rounds < 0 or args.ratio_window <= 0 or args.capacity_window <= 0:
        parser.error("--ratio-rounds must be at least 0, --ratio-window and --capacity-window "
                     "positive")  # fmt: skip
    if args.workers < 1 or args.duration <= 0 or args.get_duration <= 0 or args.warmup < 0:
        parser.error("--workers, --duration and --get-duration must be positive")
    return args


async def bench(run: Run, args) -> list[dict]:
    need = 2 * max(args.levels)
    connector = aiohttp.TCPConnector(limit=max(args.levels) + 8, limit_per_host=0)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        log(f"signing up {need} users (password hashing: a few per second per core)")
        started = time.perf_counter()
        step = max(need // 10, 1)

        def progress(done, total):
            if done % step == 0 or done == total:
                log(f"  {done}/{total} users")

        prefix = f"b{secrets.token_hex(3)}u"
        players = await _client.signup_many(
            session, run.base, prefix, need, args.signup_concurrency, progress
        )
        log(f"signed up {need} users in {time.perf_counter() - started:.1f} s")
        if args.connection_per_player:
            for player in players:
                player.session = aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=1), timeout=timeout
                )
        levels = []
        try:
            for games in args.levels:
                levels.append(await run_level(run, session, players, games, args))
        finally:
            await asyncio.gather(*(p.session.close() for p in players if p.session))
    return levels


def main(argv=None) -> int:
    args = parse_args(argv)
    run = Run(args)
    atexit.register(run.cleanup)
    exit_on_signals()
    try:
        busy = wait_quiet(args.wait_idle)
        speed_before = machine_speed()
        run.create_database()
        run.start_server()
        env_info = environment(args, run)
        env_info["machine_busy_before_pct"] = round(100 * busy, 1)
        env_info["worker_pids"] = run.worker_pids()
        try:
            import uvloop  # a leaner client: it shares the CPUs with the server

            loop_factory = uvloop.new_event_loop
            env_info["client_loop"] = "uvloop"
        except ImportError:
            loop_factory = None
            env_info["client_loop"] = "asyncio"
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            levels = runner.run(bench(run, args))
        env_info["machine_speed_ms"] = {"before": speed_before, "after": machine_speed()}
    except BaseException:
        run.failed = True
        raise
    finally:
        run.cleanup()
    speed = env_info["machine_speed_ms"]
    print(f"\n{speed_line(speed)}")
    report(levels, args, speed)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        figures = {
            "benchmark": "api",
            "environment": env_info,
            "config": {
                "games": args.levels,
                "workers": args.workers,
                "duration_s": args.duration,
                "warmup_s": args.warmup,
                "get_duration_s": args.get_duration,
                "movement": args.movement,
                "players_per_game": 2,
                "server_env": args.server_env,
                "connection_per_player": args.connection_per_player,
                "server_cmd": run.server_command(),
            },
            "goals": {
                "games": GOAL_GAMES,
                "rate_fraction": GOAL_RATE_FRACTION,
                "carried": GOAL_CARRIED,
                "p99_ms": GOAL_P99_MS,
                "ratio": GOAL_RATIO,
            },
            "levels": levels,
            "server_log_lines": run.server_log_lines,
        }
        path.write_text(json.dumps(figures, indent=2, default=str) + "\n")
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
