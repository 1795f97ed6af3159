#!/usr/bin/env python3
"""WebSocket push benchmark: from a move to the frame on every watching socket, 1,000 sockets.

    python3 dev.py bench                             # installs aiohttp (HTTP moves)
    .venv/bin/python bench/ws.py --json bench/out/ws.json    # 100 games × 10 sockets; 5, 10,
                                                     # then 20 moves/s, 30 s each
    .venv/bin/python bench/ws.py --rate 10 --wait-idle 600   # one level, on a quiet machine
    .venv/bin/python bench/ws.py --quick             # smoke run: 10 games, a few seconds
    .venv/bin/python bench/ws.py --rate 10 --py-spy /tmp/spy.txt   # + where the server's CPU goes

What it does, all on this machine and only over 127.0.0.1:

1. Creates a fresh PostgreSQL database (`--db-name`, default `bench_ws`; dropped first and at
   the end unless `--keep-db`), migrates it, and puts 2 users per game with API tokens straight
   into it (no password hashing: sign-up speed is not what is measured here).
2. Starts `uvicorn taxi_project.asgi:application --workers 2` with tests/e2e/server.py (DEBUG
   off, PostgreSQL, Redis for the channel layer and the cache: `--redis-url`, by default
   database 12, which nothing else may use meanwhile: it must be empty at the start, and what
   the run left there is deleted at the end) and waits until every worker is up. Each pair
   of users opens a two-player public table over HTTP and the game starts.
3. Opens the sockets: per game, `--sockets-per-game` (10) on /ws/games/<id>/ — its 2 players
   (token, no Origin, as the mobile app), `--signed-in-spectators` (4) signed-in spectators
   (token; they are the players of the next games, so one user watches several tables) and the
   rest anonymous spectators (no token, an allowed Origin, as a browser). Every socket gets
   `hello`, sends `sync {after: -1}` and reads up to `synced` before any move: 100 × 10 =
   1,000 synced sockets by default, `--connect-concurrency` (50) handshakes at a time.
4. For each `--rate` level (moves/s over all games; several levels run one after the other on
   the same sockets): moves over HTTP at a steady rate — each game moves every games/rate
   seconds, at a random phase, one request in flight per game — by the player to move, chosen
   by the engine's autopilot on a local replica of the game (the seed is read from the database
   once; the replica applies only what the server accepted). `--warmup` seconds, then
   `--duration` seconds measured, then up to `--drain` seconds for the last frames.
5. For every entry frame of a measured move, on every socket of its game, three latencies:
   (i) the mover's request sent → frame received: an upper bound of commit → frame (it holds
   the whole HTTP request); (ii) the mover's HTTP response received → frame received: a lower
   bound (negative when the push beat the response: it leaves in the commit hook, before the
   response is written); (iii) the entry's `created_at` (the server's clock at the INSERT, a
   moment before COMMIT; read from the database after the level) → frame received (this
   machine's clock): commit → frame plus the few ms from INSERT to COMMIT, the figure the goal
   is judged on. Reports p50/p90/p99/max of each, (i) per second of the level to show a backlog
   building, the HTTP move latency, sockets established and synced and any the server closed,
   frames expected (accepted moves × sockets of their game, warm-up included) against received,
   duplicates and out-of-order frames over the whole run, frames the server had to re-read from
   the database because the channel layer lost them (live entries without a view), and where
   the CPU went. Goals: 1,000 synced sockets, no frame lost, commit → frame p99 ≤ 100 ms.

CPU figures: the server's process tree, this client, Redis, and every PostgreSQL process of the
machine (other databases included: on a shared machine that figure includes other jobs' use);
"other" is the rest of the machine's busy time.

The client is one asyncio process (uvloop when installed) holding every socket; it shares the
2 CPUs with the server, PostgreSQL and Redis, and its own event-loop delays are part of the
measured latency (so figures are upper bounds). Its CPU use is reported. `--wait-idle S` first
waits up to S seconds for the machine to be quiet (< 25 % busy) before setting anything up.

Sockets the server closes during the run are counted and their lost frames reported apart
(before 4e2204d, redis-py 8's 5 s read timeout dropped one idle socket per worker every 5 s).

The server, the database and the temporary files are removed at exit, also on error, Ctrl-C or
SIGTERM (TAXI_KEEP_SERVER_LOG=1 keeps the server's log and prints where). Goals print PASS/FAIL
and do not change the exit status; it is non-zero only when the run itself failed (a socket
could not connect or sync, a move was refused, …).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import itertools
import json
import os
import platform
import random
import resource
import secrets
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import _pyspy  # noqa: E402
from bench._common import (  # noqa: E402
    busy_fraction,
    drop_database,
    ident,
    log,
    machine_cpu,
    proc_stats,
    recreate_database,
)

try:
    import aiohttp
except ImportError:  # pragma: no cover - a hint, not a feature
    sys.exit("bench/ws.py needs aiohttp: python3 dev.py bench installs it")
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from tests.e2e.server import live_server  # noqa: E402

GOAL_P99_MS = 100
# perf_counter (every client timestamp) + WALL_OFFSET = Unix time, to compare with the server's
# clock (same machine); taken once, so the client's own latencies stay monotonic
WALL_OFFSET = time.time() - time.perf_counter()
GOAL_SOCKETS = 1000


# ---------------------------------------------------------------------------------- CPU


def cpu_snapshot(server_pid: int | None) -> dict[str, float]:
    stats = proc_stats()
    children: dict[int, list[int]] = defaultdict(list)
    for pid, stat in stats.items():
        children[stat.ppid].append(pid)
    server, todo = 0.0, [server_pid] if server_pid else []
    while todo:
        pid = todo.pop()
        if pid in stats:
            server += stats[pid].own + stats[pid].reaped
            todo.extend(children[pid])
    postgres = sum(s.own + s.reaped for s in stats.values() if s.comm == "postgres")
    redis = sum(s.own + s.reaped for s in stats.values() if s.comm.startswith("redis-server"))
    busy, total = machine_cpu()
    return {
        "server": server,
        "postgres": postgres,
        "redis": redis,
        "client": time.process_time(),
        "busy": busy,
        "total": total,
        "wall": time.perf_counter(),
    }


def cpu_used(before: dict, after: dict) -> dict:
    used = {k: after[k] - before[k] for k in before}
    wall, busy, total = used.pop("wall"), used.pop("busy"), used.pop("total")
    known = sum(used.values())
    return {
        "wall_s": round(wall, 2),
        "cpus": os.cpu_count() or 1,
        "machine_busy_pct": round(100 * busy / total, 1) if total else None,
        **{f"{k}_cpu_s": round(v, 2) for k, v in used.items()},
        "other_cpu_s": round(max(busy - known, 0.0), 2),
    }


def wait_idle(limit: float) -> float:
    """Wait (up to `limit` s) until the machine is below 25 % busy over 3 s; the last figure.
    Before anything is set up: idle sockets are not kept waiting (and our server is not up)."""
    deadline = time.monotonic() + limit
    for tick in itertools.count():
        fraction = busy_fraction(3)
        if fraction < 0.25 or time.monotonic() >= deadline:
            return fraction
        if tick % 10 == 0:
            log(f"machine {fraction:.0%} busy (other processes): waiting for it to settle")


# ---------------------------------------------------------------------------------- database


def redis_keys(url: str) -> int:
    import redis

    with redis.Redis.from_url(url) as client:
        return client.dbsize()


def redis_clean(url: str) -> int:
    """Delete what the run left in its (otherwise unused) Redis database: the channel layer's
    groups and channels, the server's cache entries (the shared game states among them)."""
    import redis

    with redis.Redis.from_url(url) as client:
        keys = [k for pattern in ("asgi*", "taxi-cache*") for k in client.scan_iter(pattern)]
        return client.delete(*keys) if keys else 0


def setup_django(db_url: str, redis_url: str) -> None:
    """This process reads the benchmark's database directly (users, seeds): Django on it."""
    os.environ.update(
        DJANGO_SETTINGS_MODULE="taxi_project.settings",
        DATABASE_URL=db_url,
        REDIS_URL=redis_url,
        DEBUG="false",
        SECRET_KEY="bench-ws-" + secrets.token_urlsafe(16),
        # the ORM is used only while setting up (users, seeds), never beside the measured
        # traffic, from the one thread of this process's event loop
        DJANGO_ALLOW_ASYNC_UNSAFE="true",
    )
    import django

    django.setup()


def create_users(count: int) -> list[tuple[int, str]]:
    """(user id, token) × count, straight into the database (unusable passwords)."""
    from accounts.models import DeviceToken, User

    tag = secrets.token_hex(3)
    users = User.objects.bulk_create(
        [User(username=f"bw{tag}-{i}", password="!" + secrets.token_hex(8)) for i in range(count)]
    )
    return [(u.pk, DeviceToken.objects.create(user=u, device="bench")[1]) for u in users]


# ---------------------------------------------------------------------------------- model


@dataclass
class Sock:
    game: int  # index
    role: str  # player / spectator / anonymous
    token: str | None
    ws: object = None
    after_sync: int | None = None  # the `synced` version
    frames: list[tuple[int, float]] = field(default_factory=list)  # (seq, received at)
    other: Counter = field(default_factory=Counter)  # frames that are not entries, by type
    refetched: int = 0  # live entries without a view: the server read them from the database
    # because the channel layer lost them (consumers.GameConsumer.deliver)
    closed: int | None = None  # close code if the server closed it


@dataclass
class Move:
    game: int
    seq: int
    sent: float
    answered: float
    measured: bool


@dataclass
class GamePlay:
    index: int
    id: int
    replica: object  # engine.Game
    tokens_by_seat: dict[int, str]
    sockets: list[Sock] = field(default_factory=list)
    late_ticks: int = 0
    stopped: str | None = None


class Failed(RuntimeError):
    pass


# ---------------------------------------------------------------------------------- phases


async def open_tables(session, base: str, users, games: int) -> list[int]:
    """Each pair of users opens a two-player public table over HTTP; the game starts."""
    sem = asyncio.Semaphore(10)

    async def one(i: int) -> int:
        (_, first), (_, second) = users[2 * i], users[2 * i + 1]
        async with sem:
            async with session.post(
                f"{base}/api/v1/tables",
                json={"players": 2},
                headers={"Authorization": f"Token {first}"},
            ) as r:
                body = await r.json()
                if r.status != 201:
                    raise Failed(f"table create: {r.status} {body}")
            async with session.post(
                f"{base}/api/v1/tables/{body['id']}/join",
                json={},
                headers={"Authorization": f"Token {second}"},
            ) as r:
                joined = await r.json()
                if r.status != 200 or joined["status"] != "playing":
                    raise Failed(f"table join: {r.status} {joined}")
        return body["id"]

    return await asyncio.gather(*(one(i) for i in range(games)))


def replicas(game_ids: list[int], users) -> list[GamePlay]:
    from games import engine
    from games.models import Game, Seat

    token_of = dict(users)
    plays = []
    rows = {g.pk: g for g in Game.objects.filter(pk__in=game_ids)}
    seats = defaultdict(dict)
    for game_id, seat, user_id in Seat.objects.filter(game_id__in=game_ids).values_list(
        "game_id", "seat", "user_id"
    ):
        seats[game_id][seat] = token_of[user_id]
    for index, game_id in enumerate(game_ids):
        replica, _ = engine.start(rows[game_id].setup)
        plays.append(GamePlay(index, game_id, replica, seats[game_id]))
    return plays


def entry_times(plays: list[GamePlay], moves: list[Move]) -> dict[tuple[int, int], float]:
    """(game index, seq) → the entry's created_at (the server's clock at its INSERT, in the
    move's transaction, a moment before COMMIT), as a Unix time. Read after a level."""
    from django.db import connection

    from games.models import GameEntry

    index_of = {play.id: play.index for play in plays}
    wanted = {(m.game, m.seq) for m in moves}
    rows = GameEntry.objects.filter(
        game_id__in=[plays[g].id for g in {m.game for m in moves}],
        seq__gte=min((m.seq for m in moves), default=0),
    ).values_list("game_id", "seq", "created_at")
    found = {
        (index_of[game_id], seq): created.timestamp()
        for game_id, seq, created in rows
        if (index_of[game_id], seq) in wanted
    }
    connection.close()
    return found


def plan_sockets(plays: list[GamePlay], users, per_game: int, signed_in: int) -> list[Sock]:
    games = len(plays)
    sockets = []
    for play in plays:
        tokens = [play.tokens_by_seat[0], play.tokens_by_seat[1]]
        roles = ["player", "player"]
        for k in range(signed_in):  # the players of the next games watch this one
            other = (play.index + 1 + k // 2) % games
            tokens.append(users[2 * other + k % 2][1])
            roles.append("spectator")
        while len(tokens) < per_game:
            tokens.append(None)
            roles.append("anonymous")
        for role, token in zip(roles[:per_game], tokens[:per_game], strict=True):
            sock = Sock(play.index, role, token)
            play.sockets.append(sock)
            sockets.append(sock)
    return sockets


async def open_socket(server, play: GamePlay, sock: Sock, deflate: bool) -> None:
    headers = [("Authorization", f"Token {sock.token}")] if sock.token else []
    sock.ws = await connect(
        server.ws_url(f"/ws/games/{play.id}/"),
        origin=None if sock.token else server.origin,  # a native app with a token; a browser
        additional_headers=headers,
        proxy=None,
        open_timeout=60,
        compression="deflate" if deflate else None,
    )
    hello = json.loads(await asyncio.wait_for(sock.ws.recv(), 30))
    if hello["type"] != "hello":
        raise Failed(f"game {play.id}: expected hello, got {hello}")
    await sock.ws.send(json.dumps({"type": "sync", "after": -1}))
    while True:
        frame = json.loads(await asyncio.wait_for(sock.ws.recv(), 30))
        if frame["type"] == "synced":
            sock.after_sync = frame["version"]
            return
        if frame["type"] != "entry":
            raise Failed(f"game {play.id}: unexpected frame while syncing: {frame}")
        sock.frames.append((frame["seq"], time.perf_counter()))


async def read(sock: Sock) -> None:
    """Record every entry frame's seq and arrival time until the socket closes."""
    perf = time.perf_counter
    loads = json.loads
    try:
        async for message in sock.ws:
            received = perf()
            frame = loads(message)
            if frame["type"] == "entry":
                sock.frames.append((frame["seq"], received))
                if frame["view"] is None:
                    sock.refetched += 1
            else:
                sock.other[frame["type"]] += 1
    except ConnectionClosed:
        pass
    finally:
        sock.closed = sock.ws.close_code


async def play_game(
    session, base: str, play: GamePlay, period: float, window, moves: list[Move], errors: Counter
) -> None:
    """Every `period` s one move by the player to move, until the window closes."""
    from games import engine

    warm_end, end = window
    loop = asyncio.get_running_loop()
    tick = loop.time() + random.uniform(0, period)
    while True:
        delay = tick - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        elif delay < -period:
            play.late_ticks += 1
            tick = loop.time()
        now = time.perf_counter()
        if now >= end:
            return
        if play.replica.over:
            play.stopped = "game over"
            return
        action = engine.autopilot_action(play.replica)
        data = engine.encode_action(action)
        seat = data.pop("seat")
        body = {
            "action": data,
            "version": len(play.replica.history),
            "idempotency_key": uuid.uuid4().hex,
        }
        headers = {"Authorization": f"Token {play.tokens_by_seat[seat]}"}
        sent = time.perf_counter()
        async with session.post(
            f"{base}/api/v1/games/{play.id}/actions", json=body, headers=headers
        ) as response:
            answer = await response.json()
            answered = time.perf_counter()
        if response.status != 201:
            errors[f"{response.status} {answer.get('code')}"] += 1
            play.stopped = f"move refused: {response.status} {answer}"
            return
        play.replica.apply(action)
        if answer["seq"] != len(play.replica.history):
            play.stopped = f"seq {answer['seq']} but the replica has {len(play.replica.history)}"
            errors["replica_mismatch"] += 1
            return
        moves.append(Move(play.index, answer["seq"], sent, answered, sent >= warm_end))
        tick += period


def percentiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def pick(p: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 2)

    return {
        "n": len(ordered),
        "p50_ms": pick(50),
        "p90_ms": pick(90),
        "p99_ms": pick(99),
        "max_ms": round(1000 * ordered[-1], 2),
        "mean_ms": round(1000 * sum(ordered) / len(ordered), 2),
        "min_ms": round(1000 * ordered[0], 2),
    }


def delivered(plays: list[GamePlay], moves: list[Move]) -> bool:
    last = {}
    for move in moves:
        last[move.game] = max(last.get(move.game, 0), move.seq)
    return all(
        (sock.frames and sock.frames[-1][0] >= last[play.index]) or sock.closed is not None
        for play in plays
        if play.index in last
        for sock in play.sockets
    )


def order_check(plays: list[GamePlay]) -> dict:
    """Over every frame of every socket: each seq once, in order, none skipped."""
    duplicates = out_of_order = 0
    for play in plays:
        for sock in play.sockets:
            seqs = [seq for seq, _ in sock.frames]
            duplicates += len(seqs) - len(set(seqs))
            out_of_order += sum(1 for a, b in zip(seqs, seqs[1:], strict=False) if b != a + 1)
    return {"duplicates": duplicates, "out_of_order": out_of_order}


def analyse(
    plays: list[GamePlay], moves: list[Move], start: float, created: dict[tuple[int, int], float]
) -> dict:
    """Frames of `moves` (one rate level): expected, received, latencies."""
    by_key = {(m.game, m.seq): m for m in moves}
    by_second: dict[int, list[float]] = defaultdict(list)
    expected = received = lost_dropped = 0
    from_sent, from_answer, from_insert = [], [], []
    missing_examples = []
    for play in plays:
        made = {m.seq for m in moves if m.game == play.index}
        for sock in play.sockets:
            expected += len(made)
            first_seen: dict[int, float] = {}
            for seq, at in sock.frames:
                if seq in made and seq not in first_seen:
                    first_seen[seq] = at
            received += len(first_seen)
            missing = sorted(made - first_seen.keys())
            if missing and sock.closed is not None:  # closed by the server: nothing here does
                lost_dropped += len(missing)
            if missing and len(missing_examples) < 20:
                missing_examples.append(
                    {
                        "game": play.id,
                        "role": sock.role,
                        "missing": missing[:10],
                        "last_seq": sock.frames[-1][0] if sock.frames else None,
                        "closed": sock.closed,
                    }
                )
            for seq, at in first_seen.items():
                move = by_key[(play.index, seq)]
                by_second[int(move.sent - start)].append(at - move.sent)
                if move.measured:
                    from_sent.append(at - move.sent)
                    from_answer.append(at - move.answered)
                    inserted = created.get((play.index, seq))
                    if inserted is not None:
                        from_insert.append(at + WALL_OFFSET - inserted)
    return {
        "frames_expected": expected,
        "frames_received": received,
        "frames_lost": expected - received,
        "frames_lost_on_sockets_the_server_dropped": lost_dropped,
        "frames_lost_on_open_sockets": expected - received - lost_dropped,
        "missing_examples": missing_examples,
        "request_sent_to_frame": percentiles(from_sent),
        "response_to_frame": percentiles(from_answer),
        "entry_insert_to_frame": percentiles(from_insert),
        "frames_before_response_pct": round(
            100 * sum(1 for x in from_answer if x < 0) / len(from_answer), 1
        )
        if from_answer
        else None,
        "request_sent_to_frame_by_second": {
            second: {"n": len(v), **{k: x for k, x in percentiles(v).items() if k != "n"}}
            for second, v in sorted(by_second.items())
        },
    }


# ---------------------------------------------------------------------------------- run


async def run(args, db_url: str, tmp: Path) -> dict:
    setup_django(db_url, args.redis_url)
    users = create_users(2 * args.games)
    log(f"{len(users)} users with tokens")
    result: dict = {}
    with live_server(
        database_url=db_url,
        redis_url=args.redis_url,
        workers=args.workers,
        log_dir=None if os.environ.get("TAXI_KEEP_SERVER_LOG") else tmp,
        startup_timeout=120,
        # a thousand clients, all from this machine's one address: the per-address caps
        # would count them as one client (docs/reliability.md, "Limits")
        env={"MAX_SOCKETS_PER_ADDRESS": "0", "MAX_HANDSHAKES_PER_ADDRESS": "0"},
    ) as server:
        log(f"server up on {server.base}: {args.workers} workers {server.worker_pids()}")
        connector = aiohttp.TCPConnector(limit=0, force_close=False)
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            game_ids = await open_tables(session, server.base, users, args.games)
            plays = replicas(game_ids, users)
            sockets = plan_sockets(plays, users, args.sockets_per_game, args.signed_in_spectators)
            from django.db import connection

            connection.close()  # this process needs the database no more
            log(f"{len(game_ids)} games started; opening {len(sockets)} sockets")

            t0 = time.perf_counter()
            cpu0 = cpu_snapshot(server.pid)
            sem = asyncio.Semaphore(args.connect_concurrency)
            failures: list[str] = []

            async def open_one(play, sock):
                async with sem:
                    try:
                        await open_socket(server, play, sock, args.deflate)
                    except Exception as error:  # noqa: BLE001 - counted, reported
                        failures.append(f"{type(error).__name__}: {error}")

            await asyncio.gather(*(open_one(p, s) for p in plays for s in p.sockets))
            connect_s = time.perf_counter() - t0
            connect_cpu = cpu_used(cpu0, cpu_snapshot(server.pid))
            established = sum(1 for s in sockets if s.ws is not None)
            synced = sum(1 for s in sockets if s.after_sync is not None)
            log(
                f"{established} sockets established, {synced} synced in {connect_s:.1f} s"
                + (f"; {len(failures)} failed, first: {failures[0]}" if failures else "")
            )
            readers = [asyncio.create_task(read(s)) for s in sockets if s.ws is not None]
            result["connections"] = {
                "planned": len(sockets),
                "established": established,
                "synced": synced,
                "seconds_to_connect_and_sync": round(connect_s, 2),
                "cpu_while_connecting": connect_cpu,
                "per_game": {
                    "players": 2,
                    "signed_in_spectators": args.signed_in_spectators,
                    "anonymous_spectators": args.sockets_per_game - 2 - args.signed_in_spectators,
                },
            }
            try:
                if failures:
                    raise Failed(f"{len(failures)} sockets failed to connect/sync: {failures[0]}")
                result["levels"] = []
                for rate in args.rate:
                    level = await run_level(args, server, session, plays, rate)
                    result["levels"].append(level)
                    if level["moves"]["errors"]:
                        break
                await asyncio.sleep(0.5)  # duplicates, if any, would show up now
                result["order"] = order_check(plays)
                closed = Counter(int(s.closed) for s in sockets if s.closed is not None)
                result["connections"].update(
                    closed_by_server=dict(closed),
                    other_frames=dict(sum((s.other for s in sockets), Counter())),
                    frames_refetched_after_a_loss=sum(s.refetched for s in sockets),
                )
            finally:
                await close_all(sockets)
                for task in readers:
                    task.cancel()
                await asyncio.gather(*readers, return_exceptions=True)
        text = server.log()
        result["server_log_errors"] = text.count("Traceback")
        first = text.find("ERROR")
        result["server_log_first_error"] = text[first : first + 4000] if first >= 0 else None
    return result


async def run_level(args, server, session, plays: list[GamePlay], rate: float) -> dict:
    """Moves at `rate`/s for warm-up + duration, then wait for their frames; the figures."""
    sockets = [s for p in plays for s in p.sockets]
    busy = await asyncio.to_thread(busy_fraction, 1)
    open_now = sum(1 for s in sockets if s.ws is not None and s.closed is None)
    period = args.games / rate
    log(
        f"rate {rate:g} moves/s over {args.games} games (one every {period:.2f} s per game), "
        f"{args.warmup:g} s warm-up + {args.duration:g} s measured; {open_now} sockets open; "
        f"machine {busy:.0%} busy before (our idle server included)"
    )
    for play in plays:
        play.late_ticks, play.stopped = 0, None
    moves: list[Move] = []
    errors: Counter = Counter()
    start = time.perf_counter()
    window = (start + args.warmup, start + args.warmup + args.duration)

    async def meter():
        await asyncio.sleep(max(window[0] - time.perf_counter(), 0))
        before = cpu_snapshot(server.pid)
        await asyncio.sleep(max(window[1] - time.perf_counter(), 0))
        return cpu_used(before, cpu_snapshot(server.pid))

    async def spy(path: Path):
        """py-spy on the server's workers for the measured window: where their CPU goes."""
        await asyncio.sleep(max(window[0] - time.perf_counter(), 0))
        recorder = _pyspy.start(server.pid, args.duration, path)
        try:
            _, err = await asyncio.to_thread(recorder.communicate, timeout=args.duration + 60)
        finally:
            if recorder.poll() is None:
                recorder.terminate()
        if recorder.returncode != 0 or not path.exists():
            log(f"py-spy failed ({recorder.returncode}): {err.decode(errors='replace')[-500:]}")
            return None
        return _pyspy.summarize(path)

    meter_task = asyncio.create_task(meter())
    spy_task = None
    if args.py_spy and not getattr(args, "spied", False):
        args.spied = True
        spy_task = asyncio.create_task(spy(Path(args.py_spy)))
    await asyncio.gather(
        *(play_game(session, server.base, p, period, window, moves, errors) for p in plays)
    )
    cpu = await meter_task
    spied = await spy_task if spy_task is not None else None
    drain_until = time.perf_counter() + args.drain
    while not delivered(plays, moves) and time.perf_counter() < drain_until:
        await asyncio.sleep(0.05)
    drain_s = time.perf_counter() - window[1]
    measured = [m for m in moves if m.measured]
    level = {
        "rate_target_per_s": rate,
        "sockets_open_at_start": open_now,
        "machine_busy_before": round(busy, 3),
        "moves": {
            "accepted_total": len(moves),
            "accepted_measured": len(measured),
            "rate_measured_per_s": round(len(measured) / args.duration, 1),
            "http_latency": percentiles([m.answered - m.sent for m in measured]),
            "errors": dict(errors),
            "games_stopped": dict(Counter(p.stopped for p in plays if p.stopped)),
            "late_ticks": sum(p.late_ticks for p in plays),
        },
        "frames": analyse(plays, moves, start, entry_times(plays, moves)),
        "drain_s": round(drain_s, 2),
        "cpu_measured_window": cpu,
    }
    if spied is not None:
        level["py_spy"] = spied
    f = level["frames"]
    log(
        f"rate {rate:g}: {f['frames_received']}/{f['frames_expected']} frames; p99 (i) "
        f"{f['request_sent_to_frame'].get('p99_ms')} ms, (ii) "
        f"{f['response_to_frame'].get('p99_ms')} ms, (iii) "
        f"{f['entry_insert_to_frame'].get('p99_ms')} ms"
    )
    return level


async def close_all(sockets: list[Sock]) -> None:
    sem = asyncio.Semaphore(100)

    async def close(sock):
        if sock.ws is None:
            return
        async with sem:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sock.ws.close(), 5)

    await asyncio.gather(*(close(s) for s in sockets))


def raise_open_files(needed: int) -> dict:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        new = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        soft = new
    if soft < needed:
        raise SystemExit(f"open-file limit {soft} < {needed} needed (hard limit {hard})")
    return {"soft": soft, "hard": hard}


def verdict(p99_ms: float | None) -> str:
    return "n/a" if p99_ms is None else "PASS" if p99_ms <= GOAL_P99_MS else "FAIL"


def report(result: dict, args) -> list[str]:
    c, order = result["connections"], result["order"]
    lines = [
        f"sockets: {c['established']}/{c['planned']} established, {c['synced']} synced in "
        f"{c['seconds_to_connect_and_sync']} s ({args.games} games × {args.sockets_per_game}: "
        f"{c['per_game']}); closed by the server during the run: {c['closed_by_server'] or 0}",
        f"cpu while connecting: {c['cpu_while_connecting']}",
        f"over the whole run: duplicates {order['duplicates']}, out of order "
        f"{order['out_of_order']}, frames the server re-read after the channel layer lost them "
        f"{c['frames_refetched_after_a_loss']}",
        f"goal {GOAL_SOCKETS} synced sockets: {'PASS' if c['synced'] >= GOAL_SOCKETS else 'FAIL'}",
    ]
    for level in result["levels"]:
        m, f = level["moves"], level["frames"]
        i, ii = f["request_sent_to_frame"], f["response_to_frame"]
        iii = f["entry_insert_to_frame"]
        http = m["http_latency"]
        lost_ok = f["frames_lost"] == 0 and not order["duplicates"] and not order["out_of_order"]
        p99_i, p99_ii, p99_iii = i.get("p99_ms"), ii.get("p99_ms"), iii.get("p99_ms")
        lines += [
            "",
            f"== rate {level['rate_target_per_s']:g} moves/s ({m['rate_measured_per_s']}/s "
            f"measured, {m['accepted_measured']} moves; {level['sockets_open_at_start']} sockets "
            f"open; machine {level['machine_busy_before']:.0%} busy before)",
            f"HTTP move: p50 {http.get('p50_ms')} ms, p99 {http.get('p99_ms')} ms; errors "
            f"{m['errors'] or 0}; late ticks {m['late_ticks']}",
            f"frames: expected {f['frames_expected']}, received {f['frames_received']}, lost "
            f"{f['frames_lost']} ({f['frames_lost_on_open_sockets']} on open sockets, "
            f"{f['frames_lost_on_sockets_the_server_dropped']} on sockets the server closed)",
            f"(i)  request sent → frame: p50 {i.get('p50_ms')} ms, p90 {i.get('p90_ms')}, "
            f"p99 {p99_i}, max {i.get('max_ms')} (n={i['n']})",
            f"(ii) response → frame:     p50 {ii.get('p50_ms')} ms, p90 {ii.get('p90_ms')}, "
            f"p99 {p99_ii}, max {ii.get('max_ms')} ({f['frames_before_response_pct']} % "
            "before the mover's response)",
            f"(iii) entry insert → frame: p50 {iii.get('p50_ms')} ms, p90 {iii.get('p90_ms')}, "
            f"p99 {p99_iii}, max {iii.get('max_ms')} (n={iii['n']})",
            "(i) p50/p99 ms per second of the level (warm-up first): "
            + " ".join(
                f"{v.get('p50_ms')}/{v.get('p99_ms')}"
                for v in f["request_sent_to_frame_by_second"].values()
            ),
            f"cpu in the measured window: {level['cpu_measured_window']}",
            f"goal no frame lost: {'PASS' if lost_ok else 'FAIL'}; goal commit → frame p99 ≤ "
            f"{GOAL_P99_MS} ms: {verdict(p99_iii)} on (iii); (i), an upper bound (it holds the "
            f"whole HTTP request): {verdict(p99_i)}; (ii), a lower bound: {verdict(p99_ii)}",
        ]
        if level.get("py_spy"):
            lines.append("server side: " + _pyspy.report(level["py_spy"]))
    return lines


def _interrupt(*_args) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--sockets-per-game", type=int, default=10)
    parser.add_argument("--signed-in-spectators", type=int, default=4)
    parser.add_argument(
        "--rate",
        type=lambda text: [float(x) for x in text.split(",")],
        default=[5.0, 10.0, 20.0],
        help="moves/s over all games; a comma-separated list runs one level after another on "
        "the same sockets (default 5,10,20)",
    )
    parser.add_argument("--duration", type=float, default=30, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--drain", type=float, default=15, help="max s to wait for late frames")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connect-concurrency", type=int, default=50)
    parser.add_argument(
        "--py-spy", metavar="PATH",
        help="sample the server's workers with py-spy during the first level's measured "
        "window; raw stacks to PATH",
    )  # fmt: skip
    parser.add_argument(
        "--deflate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="permessage-deflate, as browsers negotiate it (default on)",
    )
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--db-name", default="bench_ws")
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/12",
        help="a Redis database no other process uses meanwhile (default db 12; bench/api.py "
        "uses 14, bench/deadlines.py clears 13): channel-layer groups are named by game id, so "
        "another server there would push into our sockets, and a FLUSHDB drops our groups",
    )
    parser.add_argument(
        "--redis-shared",
        action="store_true",
        help="run even if the Redis database already holds keys (someone may be using it)",
    )
    parser.add_argument("--wait-idle", type=float, default=0, metavar="S")
    parser.add_argument("--seed", type=int, default=1, help="phases of the move schedule")
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--quick", action="store_true", help="10 games, 3 s: a smoke run")
    args = parser.parse_args()
    if args.quick:
        args.games, args.duration, args.warmup, args.rate = 10, 3, 1, [10.0]
    if args.sockets_per_game < 2 + args.signed_in_spectators:
        parser.error("--sockets-per-game must hold 2 players and the signed-in spectators")
    if args.workers < 1 or args.games < 2 or min(args.rate) <= 0:
        parser.error("need ≥ 1 worker, ≥ 2 games and a positive rate")
    random.seed(args.seed)

    sockets = args.games * args.sockets_per_game
    limits = raise_open_files(sockets + 2 * args.games + 512)  # the server inherits it too
    db_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
    ident(args.db_name)  # refuse a bad name before anything starts
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` takes the same clean path as Ctrl-C
    started_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    db_created = False
    status = 0
    found = redis_keys(args.redis_url)
    if found and not args.redis_shared:
        raise SystemExit(
            f"Redis {args.redis_url} holds {found} keys: another process may be using it "
            "(its pushes would reach our sockets, a FLUSHDB would drop our groups). Pick another "
            "--redis-url database, or pass --redis-shared."
        )
    idle_before = None
    if args.wait_idle:
        idle_before = wait_idle(args.wait_idle)
        log(f"machine {idle_before:.0%} busy before the set-up")
    with tempfile.TemporaryDirectory(prefix="bench-ws-") as tmp:
        try:
            db_created = True
            env = {
                **os.environ,
                "DATABASE_URL": db_url,
                "DJANGO_SETTINGS_MODULE": "taxi_project.settings",
                # DEBUG is off unless set, and then the settings want a key
                "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-" + secrets.token_urlsafe(32),
            }
            recreate_database(args.pg_url, args.db_name, env)
            runner_factory = None
            with contextlib.suppress(ImportError):
                import uvloop

                runner_factory = uvloop.new_event_loop
            with asyncio.Runner(loop_factory=runner_factory) as runner:
                result = runner.run(run(args, db_url, Path(tmp)))
        except KeyboardInterrupt:
            log("interrupted")
            return 130
        except Exception as error:  # noqa: BLE001 - reported, then cleaned up
            log(f"run failed: {type(error).__name__}: {error}")
            status = 1
            result = None
        finally:
            if "django" in sys.modules:
                with contextlib.suppress(Exception):
                    from django.db import connections

                    connections.close_all()
            if not found:
                with contextlib.suppress(Exception):
                    redis_clean(args.redis_url)
            if db_created and not args.keep_db:
                try:
                    drop_database(args.pg_url, args.db_name)
                except Exception as error:  # noqa: BLE001 - cleanup goes on
                    log(f"could not drop database {args.db_name}: {error}")
    if result is None:
        return status or 1
    for line in report(result, args):
        print(line)
    document = {
        "benchmark": "bench/ws.py",
        "started_at": started_at,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "open_files": limits,
        },
        "args": vars(args),
        "machine_busy_before_setup": idle_before,
        "goals": {"p99_ms": GOAL_P99_MS, "sockets": GOAL_SOCKETS},
        **result,
    }
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n")
        log(f"wrote {args.json}")
    c = result["connections"]
    if c["synced"] < c["planned"] or any(level["moves"]["errors"] for level in result["levels"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
