#!/usr/bin/env python3
"""Attack benchmark: one account tries to hold 300 streams and 1,000 sockets while 20 others play.

    python3 dev.py bench attack --json bench/out/attack.json   # installs aiohttp first
    .venv/bin/python bench/attack.py --retry 5          # an attacker that keeps trying
    .venv/bin/python bench/attack.py --quick            # smoke run: short windows, a few seconds
    .venv/bin/python bench/attack.py --proxy            # through docker/haproxy.cfg, as deployed

Needs PostgreSQL (`--pg-url`, a role that may create databases) and Redis (`--redis-url`, by
default database 13, which nothing else may use meanwhile).

What it does, all on this machine and only over 127.0.0.1:

1. Creates a fresh database (`--db-name`, default `bench_attack`; dropped first and at the end
   unless `--keep-db`), starts uvicorn with `--workers` (2) processes as bench/api.py does
   (`api.Run`: DEBUG off, PostgreSQL with the production pool of `--pool` (8) connections per
   process, Redis for the cache, the channel layer and the connection counts), the database
   URL naming an `application_name`, so the server's PostgreSQL connections can be counted.
2. Signs up 2 × `--pairs` (10) players and one attacker. Each player holds its `/ws/me/`
   socket for the whole run (its "your turn" frames are counted, and any close). The pairs
   play two-player games over HTTP as people do, thinking: each pair's moves are due at
   Poisson times `--interval` (0.5) s apart on average (bench/_client.py: play_games).
3. Three windows of `--seconds` (45) each after `--warmup` (5) s, on the same server and games:
   *quiet*, *attack*, *after*. In the attack window the attacker, from one client address of
   its own (`X-Forwarded-For` through the trusted local proxy address, as a reverse proxy
   sends it), opens `--streams` (300) `GET /api/v1/games/{id}/stream` and `--sockets` (1,000)
   sockets (half `/ws/me/`, half `/ws/games/<id>/` with a `sync`) on the players' games, all at
   the window's start, from a process of its own; it holds and reads what it gets (with
   `--retry S`, it tries each refused one again every S s until the window ends); then it
   closes everything. Also in
   that window, every 2 s one of the players opens a stream and a game socket of its own and
   closes them again: what others may still open.
4. Throughout, /healthz every 0.25 s (its status, its time, the answering process's pool), and
   every 0.5 s the attacker's counts in Redis (streams and sockets, per account and per
   address: `taxi_project.connection_limits.held`).
5. Recovery, from the moment the attacker has closed everything: the time until its counts are
   all zero, 2 × workers consecutive /healthz answers show a pool with nothing lent but the
   check's own and nobody waiting, and the server has no more PostgreSQL connections than its
   pools may open.

Goals, within this one run (these shared machines vary 2.5x in speed): the others' move p99
under attack at most 1.5 × the quiet window's; /healthz 200 throughout; recovery within 5 s;
and the attacker never holding more than its caps. The *after* window shows the server is as
it was. Goals print PASS/FAIL and never change the exit status; it is non-zero only if the run
itself failed. The server, the database and the temporary files are removed at exit.

With --proxy, Debian's haproxy runs docker/haproxy.cfg in front of the server (both of its
nodes the one server), as production does; the players connect from 127.0.0.1 and the
attacker from 127.0.0.66, so the proxy's limits per client address apply to the attacker only.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import dataclasses
import json
import multiprocessing
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import log, machine_speed, wait_quiet  # noqa: E402

try:
    import aiohttp
except ImportError:  # pragma: no cover - a hint, not a feature
    sys.exit("bench/attack.py needs aiohttp: python3 dev.py bench (installs it)")
import psycopg  # noqa: E402  (a project dependency)

from bench import _client, api  # noqa: E402
from bench.ws import raise_open_files, setup_django  # noqa: E402

GOAL_P99_RATIO = 1.5
GOAL_RECOVERY_S = 5.0
ATTACKER_ADDRESS = "10.66.6.6"  # one client, behind the trusted proxy (127.0.0.1)
# --proxy: the attacker's own source address, which HAProxy sees (the players stay on 127.0.0.1)
PROXY_ATTACKER_ADDRESS = "127.0.0.66"
VIA_PROXY = False


def configure(args) -> None:
    """Where the attacker comes from: behind a trusted proxy (its `X-Forwarded-For`), or with
    --proxy from an address of its own, through docker/haproxy.cfg. Called in each process."""
    global ATTACKER_ADDRESS, VIA_PROXY
    if args.proxy:
        ATTACKER_ADDRESS, VIA_PROXY = PROXY_ATTACKER_ADDRESS, True


def attacker_headers(attacker) -> dict:
    if VIA_PROXY:  # HAProxy adds the X-Forwarded-For
        return dict(attacker.headers)
    return {**attacker.headers, "X-Forwarded-For": ATTACKER_ADDRESS}


APPLICATION_NAME = "bench-attack"


# ---------------------------------------------------------------------------------- records


@dataclass
class Probe:
    """/healthz answers: when, status, how long, the answering process's pool."""

    answers: list[tuple[float, int | str, float, dict | None]] = field(default_factory=list)

    def between(self, start: float, end: float) -> list:
        return [a for a in self.answers if start <= a[0] <= end]


@dataclass
class Attack:
    stream_tries: int = 0
    socket_tries: int = 0
    streams_accepted: int = 0
    sockets_accepted: int = 0
    stream_refusals: Counter = field(default_factory=Counter)  # (status, code)
    socket_refusals: Counter = field(default_factory=Counter)  # (close code, error code)
    failures: Counter = field(default_factory=Counter)  # what went wrong otherwise
    streams_ended: int = 0  # the game ended, so did its stream


@dataclass
class Others:
    tried: int = 0
    opened: int = 0
    failures: list[str] = field(default_factory=list)


@dataclass
class PlayerSockets:
    frames: int = 0
    closed: int = 0
    sockets: list = field(default_factory=list)
    readers: list = field(default_factory=list)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def summary(stats: _client.Stats, window: _client.Window) -> dict:
    lat = stats.latencies
    slowest: dict[int, float] = {}  # second of the window → its slowest move (where it hurts)
    for took, at in zip(lat, stats.answered_at, strict=True):
        second = int(at - window.start)
        slowest[second] = max(slowest.get(second, 0.0), took)
    return {
        "slowest_ms_by_second": [
            _ms(slowest.get(s, 0.0)) for s in range(max(slowest, default=-1) + 1)
        ],
        "accepted": len(lat),
        "per_s": round(len(lat) / (window.end - window.start), 2),
        "p50_ms": _ms(_client.percentile(lat, 50)),
        "p95_ms": _ms(_client.percentile(lat, 95)),
        "p99_ms": _ms(_client.percentile(lat, 99)),
        "max_ms": _ms(max(lat) if lat else None),
        "errors": {f"{s} {c}": n for (s, c), n in stats.error_bodies.items()},
    }


def health_summary(answers: list) -> dict:
    times = [took for _at, _status, took, _pool in answers]
    pools = [pool for *_rest, pool in answers if pool]
    return {
        "answers": len(answers),
        "not_200": sum(status != 200 for _at, status, _took, _pool in answers),
        "statuses": dict(Counter(str(status) for _at, status, _took, _pool in answers)),
        "p99_ms": _ms(_client.percentile(times, 99)),
        "max_ms": _ms(max(times) if times else None),
        "pool_in_use_max": max((p["in_use"] for p in pools), default=None),
        "pool_waiting_max": max((p["waiting"] for p in pools), default=None),
    }


# ---------------------------------------------------------------------------------- probes


async def probe_health(session, base: str, probe: Probe, stop: asyncio.Event) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            status, body = await _client.request(session, "GET", f"{base}/healthz")
        except (aiohttp.ClientError, TimeoutError) as error:
            status, body = f"exc:{type(error).__name__}", None
        pool = body.get("database_pool") if isinstance(body, dict) else None
        probe.answers.append((t0, status, time.perf_counter() - t0, pool))
        await asyncio.sleep(0.25)


def held_counts(attacker: _client.Player) -> dict[str, int]:
    from taxi_project import connection_limits as limits

    return {
        f"{kind} {per}": limits.held(kind, **{key: value})
        for kind in (limits.STREAM, limits.SOCKET)
        for per, key, value in (
            ("account", "user_id", attacker.user_id),
            ("address", "address", ATTACKER_ADDRESS),
        )
    }


async def watch_counts(attacker, held_max: dict, stop: asyncio.Event) -> None:
    """The most the attacker held at once, of each count (key: "stream account", …)."""
    while not stop.is_set():
        counts = await asyncio.to_thread(held_counts, attacker)
        for key, value in counts.items():
            held_max[key] = max(held_max.get(key, 0), value)
        await asyncio.sleep(0.5)


def pg_connections(pg_url: str) -> int:
    with psycopg.connect(pg_url, dbname="postgres") as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            [APPLICATION_NAME],
        ).fetchone()[0]


# ---------------------------------------------------------------------------------- clients


def ws_base(base: str) -> str:
    return "ws" + base[len("http") :]


async def hold_players_sockets(session, base: str, players, record: PlayerSockets) -> None:
    async def read(ws):
        async for message in ws:
            if message.type == aiohttp.WSMsgType.TEXT:
                record.frames += 1
        record.closed += 1

    for player in players:
        ws = await session.ws_connect(f"{ws_base(base)}/ws/me/", headers=player.headers)
        record.sockets.append(ws)
        record.readers.append(asyncio.create_task(read(ws)))


async def attack_stream(session, base, attacker, game_id, until, retry, attack) -> None:
    url = f"{base}/api/v1/games/{game_id}/stream"
    headers = attacker_headers(attacker)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=None)
    while time.perf_counter() < until:
        attack.stream_tries += 1
        try:
            async with session.get(url, headers=headers, timeout=timeout) as response:
                if response.status == 200:
                    attack.streams_accepted += 1
                    try:
                        await asyncio.wait_for(_drain(response), until - time.perf_counter())
                        attack.streams_ended += 1
                        return
                    except TimeoutError:
                        return  # the attack is over: closed by leaving the block
                body = await response.json(content_type=None)
                attack.stream_refusals[(response.status, _code(body))] += 1
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            attack.failures[f"stream {type(error).__name__}"] += 1
        if retry <= 0:
            return
        pause = retry * random.uniform(0.5, 1.5)  # retries spread out, as clients' do
        await asyncio.sleep(max(min(pause, until - time.perf_counter()), 0))


async def _drain(response) -> None:
    async for _line in response.content:
        pass


def _code(body) -> str | None:
    return body.get("code") if isinstance(body, dict) else None


async def attack_socket(session, base, attacker, path, until, retry, attack) -> None:
    headers = attacker_headers(attacker)
    while time.perf_counter() < until:
        attack.socket_tries += 1
        try:
            async with session.ws_connect(f"{ws_base(base)}{path}", headers=headers) as ws:
                first = await ws.receive_json(timeout=30)
                if first.get("type") == "hello":
                    attack.sockets_accepted += 1
                    try:
                        if path.startswith("/ws/games/"):
                            await ws.send_json({"type": "sync", "after": -1})
                        await asyncio.wait_for(_drain_ws(ws), until - time.perf_counter())
                        attack.failures["socket closed by the server"] += 1
                    except TimeoutError:
                        return
                    return
                await ws.receive(timeout=30)  # the close that follows the refusal
                attack.socket_refusals[(ws.close_code, _code(first))] += 1
        except aiohttp.WSServerHandshakeError as error:  # refused at the handshake (429)
            attack.socket_refusals[(f"handshake {error.status}", None)] += 1
        except (aiohttp.ClientError, TimeoutError, ValueError, TypeError) as error:
            attack.failures[f"socket {type(error).__name__}"] += 1
        if retry <= 0:
            return
        pause = retry * random.uniform(0.5, 1.5)  # retries spread out, as clients' do
        await asyncio.sleep(max(min(pause, until - time.perf_counter()), 0))


async def _drain_ws(ws) -> None:
    async for _message in ws:
        pass


async def others_open(session, base, players, game_ids, until, others: Others) -> None:
    """Every 2 s, a player opens a stream and a game socket of its own, then closes them."""
    n = 0
    while time.perf_counter() < until - 2:
        await asyncio.sleep(2)
        player, game_id = players[n % len(players)], game_ids[n % len(game_ids)]
        n += 1
        others.tried += 2
        try:
            async with session.get(
                f"{base}/api/v1/games/{game_id}/stream", headers=player.headers
            ) as response:
                if response.status == 200:
                    await asyncio.wait_for(response.content.readline(), 10)
                    others.opened += 1
                else:
                    others.failures.append(f"stream {response.status}")
            async with session.ws_connect(
                f"{ws_base(base)}/ws/games/{game_id}/", headers=player.headers
            ) as ws:
                first = await ws.receive_json(timeout=10)
                if first.get("type") == "hello":
                    others.opened += 1
                else:
                    others.failures.append(f"socket {first}")
        except (aiohttp.ClientError, TimeoutError, ValueError) as error:
            others.failures.append(f"{type(error).__name__}: {error}")


# ---------------------------------------------------------------------------------- phases


async def play_window(run, session, pairs, firsts, args, meter, name, attack_of=None) -> dict:
    """One measured window of paced play; with `attack_of` (attacker, the dict the attack's
    figures go to, Others, game ids) the attack runs in it. Returns the figures; `firsts` is
    updated to the games in play."""
    stats = _client.Stats()
    options = {"movement": args.movement}
    now = time.perf_counter()
    window = _client.Window(now + args.warmup, now + args.warmup + args.seconds)
    log(f"{name}: {args.warmup:g} s warm-up + {args.seconds:g} s of play")
    cpu = asyncio.create_task(api._meter_window(meter, window))
    extra = []
    if attack_of is not None:
        attacker, attack, others, game_ids = attack_of
        extra.append(asyncio.create_task(_attack(run, session, attacker, attack, others,
                                                 game_ids, window, args)))  # fmt: skip
    results = await asyncio.gather(
        *(
            _client.play_games(
                session, run.base, pair, options, window, stats, first, interval=args.interval
            )
            for pair, first in zip(pairs, firsts, strict=True)
        ),
        return_exceptions=True,
    )
    crashed = [r for r in results if isinstance(r, BaseException)]
    if crashed:
        raise RuntimeError(f"{len(crashed)} game loops failed; first: {crashed[0]!r}")
    firsts[:] = results
    for task in extra:
        await task
    figures = summary(stats, window)
    figures["cpu"] = await cpu
    figures["window"] = (window.start, window.end)
    return figures


async def _attack(run, session, attacker, result: dict, others, game_ids, window, args) -> None:
    """The attacker runs in a process of its own: its 1,300 connections are not handled on
    the event loop that times the players' moves (it shares the machine's CPUs all the same;
    its CPU time is reported)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    wall = time.time() - time.perf_counter()
    child = context.Process(
        target=attacker_main,
        args=(run.base, attacker, game_ids, window.start + wall, window.end + wall, args, queue),
        name="attacker",
    )
    child.start()
    players = [p for pair in args.pairs_list for p in pair]
    await asyncio.sleep(max(window.start - time.perf_counter(), 0))
    log(f"attack: {args.streams} streams and {args.sockets} sockets from one account")
    await others_open(session, run.base, players, game_ids, window.end, others)
    result.update(
        await asyncio.to_thread(queue.get, timeout=window.end - time.perf_counter() + 120)
    )
    await asyncio.to_thread(child.join, 30)
    log(
        f"attack over: {result['streams_accepted']} streams and {result['sockets_accepted']} "
        f"sockets were accepted, {sum(result['stream_refusals'].values())} and "
        f"{sum(result['socket_refusals'].values())} tries refused"
    )


def attacker_main(base, attacker, game_ids, start_at, end_at, args, queue) -> None:
    """The attacker's process: every stream and socket it tries, from `start_at` to `end_at`
    (Unix time), then what it got."""
    configure(args)
    attack = Attack()
    started = time.process_time()
    asyncio.run(_attack_all(base, attacker, game_ids, start_at, end_at, args, attack))
    figures = {f.name: getattr(attack, f.name) for f in dataclasses.fields(attack)}
    queue.put({**figures, "cpu_s": round(time.process_time() - started, 2)})


async def _attack_all(base, attacker, game_ids, start_at, end_at, args, attack) -> None:
    await asyncio.sleep(max(start_at - time.time(), 0))
    until = time.perf_counter() + (end_at - time.time())
    local = (ATTACKER_ADDRESS, 0) if VIA_PROXY else None
    connector = aiohttp.TCPConnector(limit=0, local_addr=local)
    async with aiohttp.ClientSession(connector=connector) as session:
        streams = [
            attack_stream(session, base, attacker, game_ids[i % len(game_ids)], until,
                          args.retry, attack)
            for i in range(args.streams)
        ]  # fmt: skip
        sockets = [
            attack_socket(session, base, attacker,
                          "/ws/me/" if i % 2 else f"/ws/games/{game_ids[i % len(game_ids)]}/",
                          until, args.retry, attack)
            for i in range(args.sockets)
        ]  # fmt: skip
        tries = [*streams, *sockets]
        random.Random(0).shuffle(tries)  # streams and sockets mixed, as they arrive
        await asyncio.gather(*tries)


async def recovery(run, args, attacker, probe: Probe, since: float) -> dict:
    """Seconds from `since` until the attacker's counts are zero, the pool is idle in 2 ×
    workers consecutive /healthz answers and PostgreSQL has no more of the server's
    connections than its pools may open (None: not within 30 s)."""
    pools_cap = args.workers * args.pool
    while time.perf_counter() - since < 30:
        counts = await asyncio.to_thread(held_counts, attacker)
        recent = probe.answers[-2 * args.workers :]
        idle = len(recent) == 2 * args.workers and all(
            at > since and status == 200 and pool and pool["in_use"] <= 1 and not pool["waiting"]
            for at, status, _took, pool in recent
        )
        connections = await asyncio.to_thread(pg_connections, args.pg_url)
        if not any(counts.values()) and idle and connections <= pools_cap:
            return {
                "seconds": round(time.perf_counter() - since, 2),
                "pg_connections": connections,
                "pool": recent[-1][3],
            }
        await asyncio.sleep(0.1)
    return {"seconds": None, "counts": counts, "pg_connections": connections}


async def bench(run, args) -> dict:
    connector = aiohttp.TCPConnector(limit=0)  # the attacker's connections are many
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        log(f"signing up {2 * args.pairs} players and the attacker")
        prefix = f"a{secrets.token_hex(3)}u"
        people = await _client.signup_many(session, run.base, prefix, 2 * args.pairs + 1, 8)
        attacker, players = people[-1], people[:-1]
        pairs = [(players[2 * i], players[2 * i + 1]) for i in range(args.pairs)]
        args.pairs_list = pairs
        own = PlayerSockets()
        await hold_players_sockets(session, run.base, players, own)
        options = {"movement": args.movement}
        stats = _client.Stats()
        firsts = list(
            await asyncio.gather(
                *(_client.open_game(session, run.base, pair, options, stats) for pair in pairs)
            )
        )
        meter = api.CpuMeter(run.server.pid)
        probe, attack, others, held_max = Probe(), {}, Others(), {}
        stop = asyncio.Event()
        watchers = [
            asyncio.create_task(probe_health(session, run.base, probe, stop)),
            asyncio.create_task(watch_counts(attacker, held_max, stop)),
        ]
        windows = {"quiet": await play_window(run, session, pairs, firsts, args, meter, "quiet")}
        game_ids = [first[0].game_id for first in firsts if first is not None]
        windows["attack"] = await play_window(
            run, session, pairs, firsts, args, meter, "attack",
            attack_of=(attacker, attack, others, game_ids),
        )  # fmt: skip
        attack_end = windows["attack"]["window"][1]
        recovered = await recovery(run, args, attacker, probe, attack_end)
        log(f"recovered in {recovered['seconds']} s")
        if not args.no_after:
            windows["after"] = await play_window(run, session, pairs, firsts, args, meter, "after")
        stop.set()
        for task in watchers:
            await task
        closed_early = own.closed
        for ws in own.sockets:
            await ws.close()
        for reader in own.readers:
            await reader
    start, end = windows["quiet"]["window"][0], time.perf_counter()
    health = {name: health_summary(probe.between(*w["window"])) for name, w in windows.items()}
    health["whole_run"] = health_summary(probe.between(start, end))
    return {
        "windows": windows,
        "health": health,
        "attack": {
            **attack,
            "stream_refusals": {f"{s} {c}": n for (s, c), n in attack["stream_refusals"].items()},
            "socket_refusals": {f"{s} {c}": n for (s, c), n in attack["socket_refusals"].items()},
            "failures": dict(attack["failures"]),
            "held_max": held_max,
        },
        "others_opened": {
            "tried": others.tried,
            "opened": others.opened,
            "failures": others.failures[:5],
        },  # fmt: skip
        "players_sockets": {
            "open": len(own.sockets),
            "frames": own.frames,
            "closed_early": closed_early,
        },
        "recovery": recovered,
        "caps": caps_of(run.env),
    }


def caps_of(env: dict) -> dict[str, int]:
    defaults = {"MAX_STREAMS_PER_ACCOUNT": 10, "MAX_STREAMS_PER_ADDRESS": 50,
                "MAX_SOCKETS_PER_ACCOUNT": 32, "MAX_SOCKETS_PER_ADDRESS": 200}  # fmt: skip
    return {name: int(env.get(name, default)) for name, default in defaults.items()}


class Proxy:
    """Debian's haproxy on docker/haproxy.cfg, unchanged, both of its nodes the one server."""

    def __init__(self, run):
        self.port = api.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.dir = Path(tempfile.mkdtemp(prefix="bench-attack-haproxy-"))
        node = f"127.0.0.1:{run.port}"
        self.env = {
            **os.environ,
            "TAXI_PROXY_BIND": f"127.0.0.1:{self.port}",
            "TAXI_NODE_A": node,
            "TAXI_NODE_B": node,
            "TAXI_SOCKETS_A": node,
            "TAXI_SOCKETS_B": node,
            "TAXI_HEALTH_HOST": "127.0.0.1",
            "TAXI_PROXY_STATS": str(self.dir / "stats.sock"),
        }
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        config = str(ROOT / "docker" / "haproxy.cfg")
        subprocess.run([binary, "-c", "-q", "-f", config], env=self.env, check=True)
        self.process = subprocess.Popen(
            [binary, "-db", "-f", config], env=self.env, cwd=self.dir,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2) as response:
                    if response.status == 200:
                        log(f"haproxy on {self.base} (pid {self.process.pid})")
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        raise RuntimeError("haproxy did not pass /healthz on within 20 s")

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------- report


def goals(result: dict) -> dict:
    quiet, attacked = result["windows"]["quiet"]["p99_ms"], result["windows"]["attack"]["p99_ms"]
    ratio = attacked / quiet if quiet and attacked else None
    caps = result["caps"]
    held = result["attack"]["held_max"]
    within_caps = (
        held.get("stream account", 0) <= caps["MAX_STREAMS_PER_ACCOUNT"]
        and held.get("socket account", 0) <= caps["MAX_SOCKETS_PER_ACCOUNT"]
        and held.get("stream address", 0) <= caps["MAX_STREAMS_PER_ADDRESS"]
        and held.get("socket address", 0) <= caps["MAX_SOCKETS_PER_ADDRESS"]
    )
    seconds = result["recovery"]["seconds"]
    return {
        "p99_ratio": ratio,
        "p99_ratio_ok": ratio is not None and ratio <= GOAL_P99_RATIO,
        "healthz_ok": result["health"]["whole_run"]["not_200"] == 0,
        "recovery_ok": seconds is not None and seconds <= GOAL_RECOVERY_S,
        "within_caps": within_caps,
        "others_ok": result["others_opened"]["opened"] == result["others_opened"]["tried"],
    }


def report(result: dict, args) -> None:
    w, h, a = result["windows"], result["health"], result["attack"]
    names = list(w)
    print(f"\nAttack on what stays open: {args.pairs} pairs playing (a move every "
          f"{args.interval:g} s per pair), {args.workers} workers, pool {args.pool}, "
          f"windows of {args.seconds:g} s")  # fmt: skip
    print(f"{'':34}" + "".join(f"{n:>12}" for n in names))
    rows = [
        ("moves accepted", lambda n: w[n]["accepted"]),
        ("moves/s", lambda n: w[n]["per_s"]),
        ("move p50 ms", lambda n: w[n]["p50_ms"]),
        ("move p95 ms", lambda n: w[n]["p95_ms"]),
        ("move p99 ms", lambda n: w[n]["p99_ms"]),
        ("move max ms", lambda n: w[n]["max_ms"]),
        ("move errors", lambda n: sum(w[n]["errors"].values())),
        ("server CPU s", lambda n: round(w[n]["cpu"]["server_cpu_s"], 1)),
        ("machine busy %", lambda n: round(w[n]["cpu"]["machine_busy_pct"] or 0)),
        ("/healthz answers", lambda n: h[n]["answers"]),
        ("/healthz not 200", lambda n: h[n]["not_200"]),
        ("/healthz p99 ms", lambda n: h[n]["p99_ms"]),
        ("pool in use (max)", lambda n: h[n]["pool_in_use_max"]),
        ("pool waiting (max)", lambda n: h[n]["pool_waiting_max"]),
    ]
    for label, value in rows:
        print(f"{label:34}" + "".join(f"{value(n)!s:>12}" for n in names))
    for n in names:
        print(f"slowest move of each second, {n} (ms): {w[n]['slowest_ms_by_second']}")
    caps = result["caps"]
    print(f"\nattacker: {a['stream_tries']} stream tries, {a['streams_accepted']} accepted "
          f"(cap {caps['MAX_STREAMS_PER_ACCOUNT']}), refused {a['stream_refusals']}")  # fmt: skip
    print(f"          {a['socket_tries']} socket tries, {a['sockets_accepted']} accepted "
          f"(cap {caps['MAX_SOCKETS_PER_ACCOUNT']}), refused {a['socket_refusals']}")  # fmt: skip
    print(f"          most held at once (Redis): {a['held_max']}; other failures: "
          f"{a['failures'] or 'none'}; the attacker's own CPU: {a['cpu_s']} s")  # fmt: skip
    o = result["others_opened"]
    print(f"others opening streams and sockets during the attack: {o['opened']}/{o['tried']}"
          + (f" (failures: {o['failures']})" if o["failures"] else ""))  # fmt: skip
    p = result["players_sockets"]
    print(f"players' /ws/me/ sockets: {p['open']} opened, {p['closed_early']} closed by the "
          f"server, {p['frames']} frames")  # fmt: skip
    r = result["recovery"]
    print(f"recovery after the attack: {r['seconds']} s (PostgreSQL connections of the server: "
          f"{r.get('pg_connections')}, pool {r.get('pool')})")  # fmt: skip
    g = result["goals"]
    verdict = {True: "PASS", False: "FAIL"}
    ratio = g["p99_ratio"]
    print(f"\nGoal: move p99 under attack ≤ {GOAL_P99_RATIO} × quiet: "
          f"{ratio and round(ratio, 2)} {verdict[g['p99_ratio_ok']]}")  # fmt: skip
    print(f"Goal: /healthz 200 throughout: {verdict[g['healthz_ok']]}")
    print(f"Goal: recovery within {GOAL_RECOVERY_S:g} s: {verdict[g['recovery_ok']]}")
    print(f"Goal: the attacker held no more than its caps: {verdict[g['within_caps']]}")
    print(f"Goal: others could still open theirs: {verdict[g['others_ok']]}")


# ---------------------------------------------------------------------------------- main


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=10, help="pairs of players (default 10)")
    parser.add_argument(
        "--interval", type=float, default=0.5,
        help="mean seconds between a pair's moves (Poisson; default 0.5)",
    )  # fmt: skip
    parser.add_argument("--seconds", type=float, default=45.0, help="each measured window")
    parser.add_argument("--warmup", type=float, default=5.0, help="unmeasured seconds first")
    parser.add_argument("--streams", type=int, default=300, help="streams the attacker tries")
    parser.add_argument("--sockets", type=int, default=1000, help="sockets the attacker tries")
    parser.add_argument(
        "--retry", type=float, default=0.0,
        help="seconds before a refused slot tries again, until the window ends (default 0: "
        "one try each)",
    )  # fmt: skip
    parser.add_argument("--no-after", action="store_true", help="skip the window after")
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers (default 2)")
    parser.add_argument("--pool", type=int, default=8, help="DB_POOL_MAX_SIZE (default 8)")
    parser.add_argument(
        "--movement", default="normal", choices=["normal", "fast", "faster"],
        help="the tables' movement option (default normal: long games)",
    )  # fmt: skip
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument(
        "--pg-url", default="postgres://postgres@127.0.0.1:5432",
        help="PostgreSQL server, without database",
    )  # fmt: skip
    parser.add_argument("--db-name", default="bench_attack", help="database to (re)create")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database after")
    parser.add_argument(
        "--redis-url", default="redis://127.0.0.1:6379/13",
        help="Redis for the server (default db 13)",
    )  # fmt: skip
    parser.add_argument(
        "--server-env", action="append", default=[], metavar="KEY=VALUE",
        help="extra environment for the server (repeatable), e.g. other caps",
    )  # fmt: skip
    parser.add_argument(
        "--wait-idle", type=float, default=0.0, metavar="S",
        help="wait up to S seconds for the machine to be quiet before starting",
    )  # fmt: skip
    parser.add_argument(
        "--proxy", action="store_true",
        help="put Debian's haproxy on docker/haproxy.cfg in front of the server, as production "
        f"does; the attacker connects from {PROXY_ATTACKER_ADDRESS}, the players from 127.0.0.1",
    )  # fmt: skip
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="smoke run: short windows")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.warmup = 8.0, 2.0
    if min(args.pairs, args.workers, args.pool) < 1 or args.seconds <= 0 or args.interval <= 0:
        parser.error("--pairs, --workers, --pool, --seconds and --interval must be positive")
    args.server_cmd = None  # api.Run: its own uvicorn command
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    configure(args)
    raise_open_files(2 * (args.streams + args.sockets) + 8 * args.pairs + 512)
    run = api.Run(args)
    prefix = f"bench-attack-{secrets.token_hex(4)}"
    db_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
    run.env.update(
        DATABASE_URL=f"{db_url}?{urllib.parse.urlencode({'application_name': APPLICATION_NAME})}",
        REDIS_PREFIX=prefix,
        DB_POOL_MAX_SIZE=str(args.pool),
    )
    os.environ["REDIS_PREFIX"] = prefix  # this process reads the counts the server keeps
    setup_django(db_url, args.redis_url)
    atexit.register(run.cleanup)

    def on_signal(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    try:
        busy = wait_quiet(args.wait_idle)
        speed_before = machine_speed()
        run.create_database()
        run.start_server()
        if args.proxy:
            proxy = Proxy(run)
            atexit.register(proxy.close)
            proxy.start()
            run.base = proxy.base  # players, probes and the attacker all go through it
        info = api.environment(args, run)
        info["machine_busy_before_pct"] = round(100 * busy, 1)
        result = asyncio.run(bench(run, args))
        info["machine_speed_ms"] = {"before": speed_before, "after": machine_speed()}
    except BaseException:
        run.failed = True
        raise
    finally:
        run.cleanup()
    result["goals"] = goals(result)
    result["environment"] = info
    speed = info["machine_speed_ms"]
    print(f"\nMachine speed: {speed['before']} ms before, {speed['after']} ms after "
          "(bench/_common.py: machine_speed; lower is faster)")  # fmt: skip
    report(result, args)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        config = {k: v for k, v in vars(args).items() if k != "pairs_list"}
        path.write_text(json.dumps({"benchmark": "attack", "config": config, **result},
                                   indent=2, default=str) + "\n")  # fmt: skip
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
