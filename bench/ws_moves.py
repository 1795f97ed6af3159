#!/usr/bin/env python3
"""Moves over the game socket: K games whose players move with `move` frames on their open
`/ws/games/<id>/` sockets, against the trivial authenticated GET over HTTP, same server, same run.

    python3 dev.py bench                                # installs aiohttp
    .venv/bin/python bench/ws_moves.py --json bench/out/ws_moves.json   # K=100, ~3 min
    .venv/bin/python bench/ws_moves.py --quick          # smoke run (K=10, a few seconds)
    .venv/bin/python bench/ws_moves.py --py-spy /tmp/spy.txt   # + where the workers' CPU goes

The server is bench/api.py's (uvicorn, 3 workers, PostgreSQL and Redis, production settings,
bench/_probe.py in each worker unless `--no-probe`). What it does, only over 127.0.0.1:

1. Signs up 2×K users, opens K two-player tables over HTTP (as bench/api.py), and each player
   opens a socket on its game with its token (`Authorization: Token`, no Origin, as the mobile
   app), reads `hello`, sends `sync {after: -1}` and reads up to `synced`.
2. Unpaced: in every game the player to move sends `move {action, version, idempotency_key,
   ref}` on its socket and waits for the answer frame (`move_accepted` with its `ref`, or an
   `error`): the latency timed is from the frame sent to the answer frame. The next move waits
   for the entry frame on the next mover's socket as well (its view and legal actions: a client
   that moves over the socket learns the new state from it). One move in flight per game. A
   finished game is followed by a spare one, its table and sockets set up before the window's
   clock started and its old sockets closed after the window, so that the window holds moves
   only: when set-ups ran inside the windows, the last of four rounds carried 40 % fewer moves
   than the first, with 40 games started in it against 1. Moves are chosen by
   bench/_client.py's policy from the view's legal actions.
3. GET /api/v1/me over HTTP, K loops, one request in flight each. Then the ratio's verdict:
   `--ratio-rounds` (4) rounds of a socket-move window and a GET window, `--ratio-window` (5)
   seconds each, alternating, so that the machine's drift within the run falls on both sides
   alike (bench/api.py does the same; the ratio of steps 2 and 3 is shown too, as "seq").
4. Paced: the same K games, players thinking between moves, together offering
   `--rate-fraction` (0.5) at Poisson times of the socket move rate measured unpaced just
   before (`--capacity-window` seconds), as bench/api.py.

Goals (K=100): socket moves/s ≥ 1.0 × GET/s of the same run; paced p99 ≤ 100 ms with ≥ 97 %
carried and no error. Printed as PASS/FAIL; the exit status is non-zero only if the run failed.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import itertools
import json
import random
import signal
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import _breakdown, _client, _pyspy, api  # noqa: E402
from bench._common import log, machine_speed, wait_quiet  # noqa: E402

try:
    import aiohttp
except ImportError:  # pragma: no cover - a hint, not a feature
    sys.exit("bench/ws_moves.py needs aiohttp: python3 dev.py bench installs it")

GOAL_RATIO = 1.0
_refs = itertools.count(1)


@dataclass
class Socket:
    """One player's open game socket: the latest view it was sent, and its waiters."""

    ws: aiohttp.ClientWebSocketResponse
    seq: int = -1
    view: dict | None = None
    answers: dict[str, asyncio.Future] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    reader: asyncio.Task | None = None
    other: dict[str, int] = field(default_factory=dict)

    async def read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            kind = data["type"]
            if kind == "entry":
                self.seq = max(self.seq, data["seq"])
                if data["view"] is not None:
                    self.view = data["view"]
                self.changed.set()
            elif kind in ("move_accepted", "error") and str(data.get("ref")) in self.answers:
                future = self.answers.pop(str(data["ref"]))
                if not future.done():
                    future.set_result(data)
            else:
                self.other[kind] = self.other.get(kind, 0) + 1
        for future in self.answers.values():
            if not future.done():
                future.set_exception(ConnectionError(f"socket closed ({self.ws.close_code})"))

    async def at_least(self, seq: int, timeout: float = 30) -> None:
        deadline = time.perf_counter() + timeout
        while self.seq < seq:
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0 or self.reader is None or self.reader.done():
                raise TimeoutError(f"no entry {seq} on the socket (at {self.seq})")
            await asyncio.wait_for(self.changed.wait(), left)


async def open_socket(session, ws_base: str, game_id: int, player: _client.Player) -> Socket:
    ws = await session.ws_connect(
        f"{ws_base}/ws/games/{game_id}/", headers=player.headers, max_msg_size=0, autoping=True
    )
    hello = await ws.receive_json(timeout=30)
    if hello["type"] != "hello":
        raise RuntimeError(f"game {game_id}: expected hello, got {hello}")
    socket = Socket(ws)
    await ws.send_json({"type": "sync", "after": -1})
    while True:
        data = await ws.receive_json(timeout=30)
        if data["type"] == "synced":
            socket.seq = data["version"]
            break
        if data["type"] == "entry" and data["view"] is not None:
            socket.view = data["view"]
    socket.reader = asyncio.create_task(socket.read())
    return socket


async def close_sockets(sockets: dict[int, Socket]) -> None:
    for socket in sockets.values():
        await socket.ws.close()
        if socket.reader is not None:
            await socket.reader


async def new_game(session, run, ws_base, pair, options, stats) -> tuple[int, dict[int, Socket]]:
    table, _version, _view = await _client.open_game(session, run.base, pair, options, stats)
    sockets = {}
    for seat, player in table.by_seat.items():
        sockets[seat] = await open_socket(session, ws_base, table.game_id, player)
    return table.game_id, sockets


Game = tuple[int, dict[int, Socket]]


async def play(
    session, run, ws_base: str, pair, options, window: _client.Window, stats: _client.Stats,
    game: Game, spare: Game | None, interval: float | None = None,
) -> tuple[Game, Game | None, list[dict[int, Socket]]]:  # fmt: skip
    """Moves over the sockets until the window closes (as _client.play_games over HTTP): the
    game in play, the spare left (None once used) and the sockets of the games that finished,
    for the caller to close once the window is over. A game that ends goes on with `spare`, set
    up before the window, so that no table, handshake or sync is inside the measured moves
    (only a second game ending in one window sets one up inside it)."""
    clock = time.perf_counter
    next_at = None if interval is None else clock() + random.expovariate(1 / interval)
    game_id, sockets = game
    finished: list[dict[int, Socket]] = []
    while clock() < window.end:
        view = next(s.view for s in sockets.values() if s.view is not None)
        if view["status"] != "playing":
            stats.games_finished += 1
            finished.append(sockets)
            if spare is not None:
                (game_id, sockets), spare = spare, None
            else:
                game_id, sockets = await new_game(session, run, ws_base, pair, options, stats)
            continue
        seat = view["active_seat"]
        mover = sockets[seat]
        version = max(s.seq for s in sockets.values())
        await mover.at_least(version)
        own = mover.view
        offered = [a for a in own["legal_actions"] if a["type"] != "resign"]
        legal = offered or _client.legal_from_view(own, seat)
        action = dict(_client.choose(own, seat, legal))
        action.pop("seat", None)
        ref = str(next(_refs))
        answer = asyncio.get_running_loop().create_future()
        mover.answers[ref] = answer
        if next_at is not None:
            await asyncio.sleep(max(next_at - clock(), 0))
            next_at += random.expovariate(1 / interval)
        frame = {"type": "move", "action": action, "version": version,
                 "idempotency_key": uuid.uuid4().hex, "ref": ref}  # fmt: skip
        t0 = clock()
        await mover.ws.send_json(frame)
        try:
            data = await asyncio.wait_for(answer, 30)
            status = 201 if data["type"] == "move_accepted" else f"frame:{data.get('code')}"
        except (TimeoutError, ConnectionError) as error:
            data, status = str(error), f"exc:{type(error).__name__}"
        t1 = clock()
        inside = window.holds(t0, t1)
        if inside:
            stats.codes[status] += 1
        else:
            stats.outside_window += 1
        if status == 201:
            if inside:
                stats.accepted(t0, t1)
            stats.answered_in_window += window.has(t1)
            for socket in sockets.values():  # the next mover needs the entry's view
                await socket.at_least(data["seq"])
            continue
        if inside:
            stats.error(status, data)
        stats.resyncs += 1
        if isinstance(data, str):
            raise RuntimeError(f"game {game_id}: {data}")
        await asyncio.sleep(0.05)
    return (game_id, sockets), spare, finished


async def run_all(run: api.Run, args) -> dict:
    ws_base = run.socket_base.replace("http://", "ws://")
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=60)
    meter = api.CpuMeter(run.server.pid)
    options = {"movement": "normal"}
    k = args.games
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        log(f"signing up {2 * k} users")
        players = await _client.signup_many(session, run.base, "wm", 2 * k, 8)
        pairs = [(players[2 * i], players[2 * i + 1]) for i in range(k)]
        setup = _client.Stats()
        log(f"K={k}: opening {k} games and {2 * k} sockets")
        games = list(
            await asyncio.gather(
                *(new_game(session, run, ws_base, pair, options, setup) for pair in pairs)
            )
        )

        spares: list[Game | None] = [None] * k

        async def window_of(
            duration: float, interval: float | None, kind: str, warmup: float | None = None
        ):
            missing = [i for i, spare in enumerate(spares) if spare is None]
            made = await asyncio.gather(
                *(new_game(session, run, ws_base, pairs[i], options, setup) for i in missing)
            )
            for i, spare in zip(missing, made, strict=True):
                spares[i] = spare
            stats = _client.Stats()
            now = time.perf_counter()
            start = now + (args.warmup if warmup is None else warmup)
            window = _client.Window(start, start + duration)
            cpu_task = asyncio.create_task(api._meter_window(meter, window))
            probe_task = asyncio.create_task(api._probe_window(run, window, stats, kind))
            spy_task = None
            if args.py_spy and not run.spied:
                run.spied = True
                spy_task = asyncio.create_task(api._spy_window(run, window, Path(args.py_spy)))
            results = await asyncio.gather(
                *(
                    play(
                        session, run, ws_base, pair, options, window, stats, game, spare, interval
                    )  # fmt: skip
                    for pair, game, spare in zip(pairs, games, spares, strict=True)
                ),
                return_exceptions=True,
            )
            crashed = [r for r in results if isinstance(r, BaseException)]
            if crashed:
                raise RuntimeError(f"{len(crashed)} socket game loops failed: {crashed[0]!r}")
            games[:] = [game for game, _spare, _finished in results]
            spares[:] = [spare for _game, spare, _finished in results]
            for _game, _spare, finished in results:  # the window is over: closing is not in it
                for sockets in finished:
                    await close_sockets(sockets)
            summary = await api.window_summary(stats, window, cpu_task, probe_task)
            summary["games_finished"] = stats.games_finished
            if spy_task is not None and (spy := await spy_task) is not None:
                summary["py_spy"] = spy
            return summary

        log(f"K={k}: socket moves, {args.warmup:g} s warm-up + {args.duration:g} s")
        moves = await window_of(args.duration, None, "ws")

        def gets_of(duration: float):
            return api.get_window(run, session, players[:k], meter, duration)

        log(f"K={k}: GET /api/v1/me, 1 s warm-up + {args.get_duration:g} s")
        gets = await gets_of(args.get_duration)

        rounds = []
        if args.ratio_rounds:
            log(f"K={k}: socket moves and GET /api/v1/me in {args.ratio_rounds} alternating "
                f"rounds of 1 s + {args.ratio_window:g} s each")  # fmt: skip
        for _ in range(args.ratio_rounds):
            row = {
                "moves": await window_of(args.ratio_window, None, "ws", warmup=1.0),
                "get": await gets_of(args.ratio_window),
            }
            for side in row.values():  # the totals, not each window's breakdown
                side.pop("breakdown", None)
                side.pop("timeline", None)
            per_s = row["get"]["answered_per_s"]  # answers within the window (api.Stats)
            row["ratio"] = row["moves"]["answered_per_s"] / per_s if per_s else None
            rounds.append(row)
            log(f"  round {len(rounds)}: {row['moves']['answered_per_s']:.1f} socket moves/s, "
                f"{per_s:.1f} GET/s, ratio {api._f(row['ratio'], '.2f')}")  # fmt: skip

        paced = None
        capacity = None
        if not args.rate and args.rate_fraction > 0:
            # of the rate measured just before the window, as bench/api.py: the machine's speed
            # drifts within a run
            log(f"K={k}: socket moves unpaced, 1 s + {args.capacity_window:g} s (the capacity)")
            now_window = await window_of(args.capacity_window, None, "ws", warmup=1.0)
            capacity = now_window["answered_per_s"]
        rate = args.rate or args.rate_fraction * (capacity or 0)
        if rate > 0:
            interval = k / rate
            log(f"K={k}: paced socket moves, {rate:.1f}/s offered, {args.warmup:g} s warm-up + "
                f"{args.duration:g} s")  # fmt: skip
            paced = await window_of(args.duration, interval, "ws")
            paced["offered_per_s"] = rate
            paced["capacity_per_s"] = capacity
        for _game_id, sockets in games + [spare for spare in spares if spare is not None]:
            await close_sockets(sockets)
    sequential = moves["per_s"] / gets["per_s"] if gets["per_s"] else None
    moved = sum(r["moves"]["answered_per_s"] for r in rounds)
    got = sum(r["get"]["answered_per_s"] for r in rounds)
    return {
        "games": k, "moves": moves, "get_me": gets, "paced": paced,
        "ratio_sequential": sequential, "rounds": rounds,
        "ratio": (moved / got if got else None) if rounds else sequential,
        "rounds_errors": sum(r[side]["errors"] for r in rounds for side in ("moves", "get")),
    }  # fmt: skip


def report(result: dict, speed: dict) -> None:
    m, g, p = result["moves"], result["get_me"], result["paced"]
    print(f"\nSocket moves (K={result['games']}; machine speed {speed['before']}/{speed['after']} "
          "ms before/after; latencies in ms)")  # fmt: skip
    print(f"  socket moves: {m['per_s']:.1f}/s, p50 {m['p50_ms']} p95 {m['p95_ms']} p99 "
          f"{m['p99_ms']}, errors {m['errors']} {m['error_codes'] or ''}")  # fmt: skip
    print(f"  GET /me:      {g['per_s']:.1f}/s, p50 {g['p50_ms']} p99 {g['p99_ms']}, errors "
          f"{g['errors']}")  # fmt: skip
    ratio = result["ratio"]
    ok_ratio = (
        ratio is not None and ratio >= GOAL_RATIO and m["errors"] == 0
        and result["rounds_errors"] == 0
    )  # fmt: skip
    print(f"  seq: the socket-move window's rate ÷ the GET window's after it: "
          f"{api._f(result['ratio_sequential'], '.2f')}")  # fmt: skip
    if result["rounds"]:
        rounds = result["rounds"]
        print(f"  in {len(rounds)} alternating rounds, socket moves/s / GET/s: " + " | ".join(
            f"{r['moves']['answered_per_s']:.0f}/{r['get']['answered_per_s']:.0f} = "
            f"{api._f(r['ratio'], '.2f')}"
            for r in rounds
        ))  # fmt: skip
        print("    serving CPU ms per socket move / per GET by round: " + ", ".join(
            f"{api._f(r['moves'].get('serving_cpu_ms_per_op'))} / "
            f"{api._f(r['get'].get('serving_cpu_ms_per_op'))}" for r in rounds
        ))  # fmt: skip
    print(f"  ratio socket moves ÷ GET: {api._f(ratio, '.2f')} (goal ≥ {GOAL_RATIO}): "
          f"{'PASS' if ok_ratio else 'FAIL'}")  # fmt: skip
    if p:
        verdict = "PASS" if api._paced_ok(p) else "FAIL"
        print(
            f"  paced at {p['offered_per_s']:.1f}/s offered ({api._f(p.get('capacity_per_s'))}/s "
            f"carried unpaced just before): {p['per_s']:.1f}/s carried,"
            f" p50 {p['p50_ms']} p95 {p['p95_ms']} p99 {p['p99_ms']} max {p['max_ms']},"
            f" errors {p['errors']}: {verdict} (p99 ≤ {api.GOAL_P99_MS} ms)"
        )
    for name, phase in (("moves", m), ("GET", g), ("paced", p)):
        if phase is None:
            continue
        c = phase["cpu"]
        w = c["wall_s"]
        per = phase.get("server_cpu_ms_per_op")
        serving = api._f(phase.get("serving_cpu_ms_per_op"))
        busy = c["machine_busy_pct"]
        other = c["other_cpu_s"] / w
        stolen = c.get("steal_cpu_s", 0.0) / w
        print(
            f"  {name}: server CPU {api._f(per)} ms per op, serving {serving} ms;"
            f" machine {busy:.0f}% busy; other processes {other:.2f} CPU; stolen {stolen:.2f}"
        )
        tl = phase["timeline"]
        counts = sorted(tl["per_second"])
        print(f"    answers per second fewest/median/most {counts[0]}/{counts[len(counts) // 2]}/"
              f"{counts[-1]}; longest pause {tl['longest_gap_ms']:.0f} ms")  # fmt: skip
        if phase.get("breakdown"):
            for line in _breakdown.text(name, phase["breakdown"]):
                print(line)
        if phase.get("py_spy"):
            print(f"  {name}, server side: " + _pyspy.report(phase["py_spy"]))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=api.GOAL_GAMES, help="K (default 100)")
    parser.add_argument("--workers", type=int, default=3, help="uvicorn workers (default 3)")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--get-duration", type=float, default=10.0)
    parser.add_argument(
        "--ratio-rounds", type=int, default=4,
        help="alternating rounds of socket-move and GET windows that the ratio is judged on "
        "(0: the ratio of the move window and the GET window after it)",
    )  # fmt: skip
    parser.add_argument("--ratio-window", type=float, default=5.0, help="seconds of each side")
    parser.add_argument(
        "--capacity-window", type=float, default=5.0,
        help="seconds of unpaced socket moves before the paced window, its rate's base",
    )  # fmt: skip
    parser.add_argument("--rate-fraction", type=float, default=api.GOAL_RATE_FRACTION)
    parser.add_argument("--rate", type=float, default=0.0, help="offer this many moves/s paced")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--db-name", default="bench_ws_moves")
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/11")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="S")
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--server-cmd", default=None)
    parser.add_argument("--server", choices=["serve", "uvicorn"], default="serve")
    parser.add_argument(
        "--socket-workers", type=int, default=0, metavar="N",
        help="the sockets on N workers of their own on a second port, as docker/haproxy.cfg "
        "routes them (serve's --socket-port); 0: on the workers that answer the GETs (default)",
    )  # fmt: skip
    parser.add_argument("--socket-niceness", type=int, default=5, metavar="N")
    parser.add_argument("--no-probe", action="store_true")
    parser.add_argument(
        "--py-spy", metavar="PATH",
        help="sample the workers with py-spy during the unpaced socket moves; raw stacks to PATH",
    )  # fmt: skip
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--quick", action="store_true", help="smoke run: K=10, short windows")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.duration, args.warmup, args.get_duration = 10, 3.0, 1.0, 2.0
        args.ratio_rounds, args.ratio_window, args.capacity_window = 2, 1.0, 1.0
    if args.ratio_rounds < 0 or args.ratio_window <= 0 or args.capacity_window <= 0:
        parser.error("--ratio-rounds must be at least 0, --ratio-window and --capacity-window "
                     "positive")  # fmt: skip
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    run = api.Run(args)
    atexit.register(run.cleanup)

    def on_signal(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    try:
        busy = wait_quiet(args.wait_idle)
        before = machine_speed()
        run.create_database()
        run.start_server()
        try:
            import uvloop

            loop_factory = uvloop.new_event_loop
        except ImportError:
            loop_factory = None
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            result = runner.run(run_all(run, args))
        speed = {"before": before, "after": machine_speed()}
    finally:
        run.cleanup()
    print(f"\nMachine speed: {speed['before']} ms before, {speed['after']} ms after "
          f"(bench/_common.py: machine_speed); machine {100 * busy:.0f}% busy before")  # fmt: skip
    report(result, speed)
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        result["machine_speed_ms"] = speed
        result["busy_before_pct"] = round(100 * busy, 1)
        path.write_text(json.dumps(result, indent=2, default=str) + "\n")
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
