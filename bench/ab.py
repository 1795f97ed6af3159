#!/usr/bin/env python3
"""A/B of server variants in one process: CPU per move, the variants alternating window by window.

    .venv/bin/python bench/ab.py                               # every variant in VARIANTS
    .venv/bin/python bench/ab.py --variants current,push-via-loop --rounds 30 --window 2

This VM's speed drifts by tens of percent within minutes (BENCHMARKS.md), so two full runs of
bench/api.py made minutes apart cannot show a change of 5 %. Here one process serves the
project's ASGI application (`taxi_project.asgi:application`, the production settings, DEBUG off,
PostgreSQL and Redis) to bench/_client.py's players, called directly (no sockets between client
and server; the server's own connections to PostgreSQL and Redis are real). The variants take
turns in short windows, in ABBA order, so that a drift of the machine falls on both alike; each
window reports this process's CPU per request and PostgreSQL's, and the summary gives the
median of the paired differences. The client's policy is in the same process and costs the
same in every variant.

A variant is a function in VARIANTS that puts the code in that state (monkeypatching what the
change replaced); "current" is the code as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    drop_database,
    log,
    proc_stats,
    recreate_database,
    server_environment,
)


def _current() -> None:
    from games import events

    events._Publisher.target = _PUBLISHER_TARGET


def _push_via_loop() -> None:
    """Before 1e4d7fa: a request's pushes handed to the event loop as `group_send` coroutines."""
    from games import events

    events._Publisher.target = lambda self, layer: None


VARIANTS = {"current": _current, "push-via-loop": _push_via_loop}
_PUBLISHER_TARGET = None


# ---------------------------------------------------------------------------------- ASGI client


class _Response:
    def __init__(self, status: int, body: bytes):
        self.status, self.body = status, body

    async def json(self, content_type=None):
        return json.loads(self.body)

    async def text(self):
        return self.body.decode()


class _Call:
    """`async with session.request(...) as response`, answered by the ASGI application."""

    def __init__(self, application, method, url, headers, body):
        self.application = application
        self.args = (method, url, headers or {}, body)

    async def __aenter__(self) -> _Response:
        method, url, headers, body = self.args
        path, _, query = ("/" + url.split("://", 1)[1].split("/", 1)[1]).partition("?")
        raw = [(b"host", b"127.0.0.1"), (b"accept", b"*/*")]
        raw += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        data = b"" if body is None else json.dumps(body).encode()
        if body is not None:
            raw += [(b"content-type", b"application/json"),
                    (b"content-length", str(len(data)).encode())]  # fmt: skip
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": query.encode(), "root_path": "", "headers": raw,
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
        }  # fmt: skip
        given = False

        async def receive():
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": data, "more_body": False}
            await asyncio.Event().wait()  # never disconnects

        status, chunks = [0], []

        async def send(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            else:
                chunks.append(message.get("body", b""))

        await self.application(scope, receive, send)
        return _Response(status[0], b"".join(chunks))

    async def __aexit__(self, *exc):
        return False


class Session:
    """What bench/_client.py needs of an aiohttp session."""

    def __init__(self, application):
        self.application = application

    def request(self, method, url, headers=None, json=None):
        return _Call(self.application, method, url, headers, json)


# ---------------------------------------------------------------------------------- run


def _postgres_cpu() -> float:
    return sum(s.own for s in proc_stats().values() if s.comm.startswith("postgres"))


async def run(args) -> dict:
    from bench import _client
    from taxi_project.asgi import application

    session, base = Session(application), "http://127.0.0.1:8000"
    players = await _client.signup_many(session, base, "ab", 2 * args.games, 4)
    pairs = [(players[2 * i], players[2 * i + 1]) for i in range(args.games)]
    names = args.variants.split(",")
    figures = {name: {"cpu": [], "pg": []} for name in names}
    for round_ in range(args.rounds + 1):  # round 0 warms up, unmeasured
        for name in names if round_ % 2 else names[::-1]:
            VARIANTS[name]()
            stats = _client.Stats()
            now = time.perf_counter()
            window = _client.Window(start=now, end=now + args.window)
            cpu0, pg0 = time.process_time(), _postgres_cpu()
            await asyncio.gather(
                *(_client.play_games(session, base, pair, {}, window, stats) for pair in pairs)
            )
            cpu1, pg1 = time.process_time(), _postgres_cpu()
            requests = sum(stats.codes.values()) + stats.outside_window
            errors = {k: v for k, v in stats.codes.items() if k not in (200, 201)}
            if round_ == 0 or requests == 0:
                continue
            cpu, pg = (cpu1 - cpu0) * 1000 / requests, (pg1 - pg0) * 1000 / requests
            figures[name]["cpu"].append(cpu)
            figures[name]["pg"].append(pg)
            print(f"round {round_:2d}  {name:16s} {cpu:6.3f} ms CPU per request, PostgreSQL "
                  f"{pg:5.3f} ms ({requests} requests{f', errors {errors}' if errors else ''})",
                  flush=True)  # fmt: skip
    return figures


def report(figures: dict) -> None:
    names = list(figures)
    print()
    for name in names:
        cpu, pg = figures[name]["cpu"], figures[name]["pg"]
        print(f"{name:16s} CPU per request: median {statistics.median(cpu):.3f} ms "
              f"(min {min(cpu):.3f}); PostgreSQL {statistics.median(pg):.3f} ms")  # fmt: skip
    first = figures[names[0]]["cpu"]
    for name in names[1:]:
        diffs = [b - a for a, b in zip(first, figures[name]["cpu"], strict=False)]
        median = statistics.median(diffs)
        better = sum(d < 0 for d in diffs)
        print(f"{name} - {names[0]}: median paired difference {median:+.3f} ms "
              f"({100 * median / statistics.median(first):+.1f} %), lower in {better} of "
              f"{len(diffs)} pairs")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument("--games", type=int, default=4, help="concurrent two-player games")
    parser.add_argument("--window", type=float, default=2.0, help="seconds per window")
    parser.add_argument("--rounds", type=int, default=30, help="windows per variant")
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--db-name", default="bench_ab")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    args = parser.parse_args()
    unknown = set(args.variants.split(",")) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)}; known: {sorted(VARIANTS)}")
    os.environ.update(
        server_environment(f"{args.pg_url.rstrip('/')}/{args.db_name}", args.redis_url)
    )
    recreate_database(args.pg_url, args.db_name, dict(os.environ))
    try:
        import django
        import uvloop

        django.setup()
        from games import events

        global _PUBLISHER_TARGET
        _PUBLISHER_TARGET = events._Publisher.target
        log(f"variants {args.variants}: {args.rounds} windows of {args.window} s each")
        report(uvloop.run(run(args)))  # uvicorn's loop
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(args.pg_url, args.db_name)


if __name__ == "__main__":
    main()
