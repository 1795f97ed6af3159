#!/usr/bin/env python3
"""Bot think time on the server under load: how late each level's move comes while the server
carries the api bench's paced load.

    .venv/bin/python bench/bot_think.py --json bench/out/bot_think.json   # K=100, ~10 min
    .venv/bin/python bench/bot_think.py --quick                           # smoke run, ~2 min

Needs PostgreSQL (`--pg-url`) and Redis (`--redis-url`, a database number of its own: it is
cleared). What it does, all on this machine and only over 127.0.0.1:

1. A fresh database, migrated (bench/api.py's `Run`, `--db-name`, dropped at the end unless
   `--keep-db`); Celery workers on the server's Redis as docker/compose.yaml runs them: one on
   the `bots` queue (`--bot-concurrency` processes, no beat) and one on the default queue with
   the beat (the deadline sweep every second, `wake_bots` every 2 s); `--one-worker`: a single
   worker consuming both queues with the beat, as `dev.py serve` runs it. Then the uvicorn
   server (`--workers`), with BOT_THINK_SECONDS = `--think-seconds` for it and the workers.
2. K person-vs-person games played by players who never think (bench/api.py's
   `unpaced_moves`): the move capacity of this server in this run.
3. The paced windows (bench/api.py's `paced_moves`: the same K games with players offering
   `--rate-fraction` of that capacity at Poisson times), `--rounds` pairs of windows of
   `--duration` s, each after a `--warmup` whose moves are not counted, alternating without
   and with bots (plain, bots; bots, plain; …) so that the shared machine's changes of speed
   fall on both kinds. In a bots window (its warm-up included) `--bot-games` tables per level
   (easy, medium, strong) of one person against one bot, 2 players, are played: the person
   follows the game on its WebSocket and, when the turn comes back, plays at once over HTTP
   (its moves from the engine's autopilot on its view: `choose(..., level="easy")`, a whole
   turn in one request where it is certain). Between bots windows the persons wait; a bot
   still on turn finishes in the next window's warm-up, which is longer than the think time.
4. After the run, from the log in the database: every bot turn that began in a bots window.
   An entry's `created_at` is taken by the write path just before its one-statement append
   (which commits at once, outside a transaction), so the difference of two entries' times is
   the difference of their commits to within each append's own few milliseconds. For each
   turn: lateness = (the bot's first entry of the turn − the entry that began it) −
   BOT_THINK_SECONDS (when the move is due: its task, queued at once after that commit,
   decides meanwhile and waits): whatever of the decision ends after the due time, the wake-up
   from the wait and the write; and the whole turn = (the bot's last entry of the turn − the
   entry that began it) − BOT_THINK_SECONDS (a bot may need several atomic actions for a turn).
   The bots worker runs at `--loglevel info`, as docker/compose.yaml runs it, and its tasks
   log one line per action (games/tasks.py's `bot_play`: the task's start, its decision, its
   due time, its submit, each step's wall and CPU time): `lateness_parts` cuts each turn with
   the line of the task that appended its first entry into the wait for the task's start,
   load, view, choose, then the lateness into the decision's overrun of the due time, the
   wake-up and the submit up to the append.
5. Prints, per level, the count and p50/p95/p99/max of lateness and of the whole turn,
   PASS/FAIL of lateness p99 against `games.engine.bots.LATENESS_BUDGET_MS`; the parts of the
   lateness (p50, p99, and their mean over the slowest 5 % of the turns); the paced
   players' move latency pooled over the windows of each kind (with and without the bots) and
   its ratio; the workers' CPU; the machine speed before and after (bench/_common.py).
   `--json PATH` writes every figure. Goals never change the exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import copy
import json
import secrets
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402  (python3 dev.py bench installs it)
import psycopg  # noqa: E402

from bench import _client, api  # noqa: E402
from bench._common import (  # noqa: E402
    exit_on_signals,
    log,
    machine_speed,
    proc_stats,
    speed_line,
    wait_quiet,
)
from games.engine import encode_action  # noqa: E402
from games.engine.bots import LATENESS_BUDGET_MS, LEVELS  # noqa: E402
from games.engine.bots import choose as bot_choose  # noqa: E402

#: The settings' default queue names (CELERY_TASK_DEFAULT_QUEUE, CELERY_BOT_QUEUE).
DEFAULT_QUEUE = "celery"
BOT_QUEUE = "bots"


# ---------------------------------------------------------------------------------- workers


def start_workers(stack: contextlib.ExitStack, run: api.Run, args) -> list:
    """The Celery workers on the server's database and Redis (the broker the server queues
    bot turns on). Started before the server: the helper clears the Redis database first."""
    from tests.tasks.worker import CeleryWorker, celery_worker

    db_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
    extra = {k: v for k, v in run.env.items() if k in ("DEBUG", "SECRET_KEY", "BOT_THINK_SECONDS")}
    extra["BOT_POOL_NICENESS"] = str(args.bot_niceness)
    common = {"database_url": db_url, "redis_url": args.redis_url, "env": extra}
    if args.one_worker:
        log(f"Celery: one worker on both queues with beat, {args.bot_concurrency} processes")
        worker = celery_worker(
            **common, concurrency=args.bot_concurrency, lock_wait=60, loglevel="info"
        )
        return [stack.enter_context(worker)]
    log(
        f"Celery: a worker on '{BOT_QUEUE}' ({args.bot_concurrency} processes), one on "
        f"'{DEFAULT_QUEUE}' with beat (1 process)"
    )
    bots = stack.enter_context(
        celery_worker(
            **common,
            concurrency=args.bot_concurrency,
            lock_wait=60,
            beat=False,
            queues=[BOT_QUEUE],
            loglevel="info",  # as docker/compose.yaml: the tasks' timing lines are at INFO
        )  # fmt: skip
    )
    workdir = run.tmp / "default-worker"
    workdir.mkdir()
    default = CeleryWorker(**common, concurrency=1, workdir=workdir, queues=[DEFAULT_QUEUE])
    stack.callback(default.close)
    default.start()
    return [bots, default]


def workers_cpu(workers: list) -> float:
    """CPU seconds of the workers' process trees so far (pool processes and beat included)."""
    stats = proc_stats()
    total = 0.0
    for worker in workers:
        pids = set(api.tree_pids(worker.pid))
        total += sum(stats[pid].own + stats[pid].reaped for pid in pids if pid in stats)
    return total


# ---------------------------------------------------------------------------------- bot tables


def person_action(view: dict) -> dict:
    """The person's next action: the autopilot on its own view (a whole turn when every part
    is certain, else one atomic action), as the move body's `action` (the server fills in the
    caller's seat)."""
    action = encode_action(bot_choose(view, seed=0, level="easy"))  # the autopilot draws nothing
    action.pop("seat", None)
    return action


class BotTables:
    """`per_level` tables per bot level, each a person against one bot, played only while the
    gate is open (the bots windows); a finished game is followed by a new one."""

    def __init__(self, session, ws_session, base: str, persons, per_level: int, options: dict):
        self.session = session
        self.ws_session = ws_session
        self.base = base
        self.options = options
        self.slots = [
            (persons[i * len(LEVELS) + j], level)
            for i in range(per_level)
            for j, level in enumerate(LEVELS)
        ]
        self.gate = asyncio.Event()
        self.games: dict[int, str] = {}  # game id -> bot level
        self.finished = 0
        self.person_moves = _client.Stats()  # the persons' moves (every one, not only in windows)
        self.spans: list[tuple[float, float]] = []  # the bots windows, warm-up to end (wall)
        self.tasks: list[asyncio.Task] = []

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._table_loop(p, lv)) for p, lv in self.slots]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        results = await asyncio.gather(*self.tasks, return_exceptions=True)
        failed = [
            r for r in results
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)
        ]  # fmt: skip
        if failed:
            raise RuntimeError(f"{len(failed)} bot tables failed; first: {failed[0]!r}")

    async def window(self, window: _client.Window) -> None:
        """`paced_moves`'s `alongside`: the persons play from now until the window closes."""
        wall = time.time() - time.perf_counter()
        opened = time.perf_counter()
        for task in self.tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise RuntimeError(f"a bot table failed: {task.exception()!r}")
        self.gate.set()
        try:
            await asyncio.sleep(max(window.end - time.perf_counter(), 0))
        finally:
            self.gate.clear()
        self.spans.append((opened + wall, window.end + wall))

    async def _table_loop(self, person: _client.Player, level: str) -> None:
        while True:
            await self.gate.wait()
            created = await _client.expect(
                self.session, "POST", f"{self.base}/api/v1/tables", 201,
                headers=person.headers, json={"players": 2, "bots": [level], **self.options},
            )  # fmt: skip
            self.games[created["id"]] = level
            await self._play(person, created["id"])
            self.finished += 1

    async def _play(self, person: _client.Player, game_id: int) -> None:
        ws = await _client.synced_socket(
            self.ws_session, self.base, game_id, person, f"game {game_id}"
        )
        frames: asyncio.Queue = asyncio.Queue()

        async def read():
            async for message in ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                data = json.loads(message.data)
                if data["type"] == "entry" and data.get("view") is not None:
                    await frames.put(data)
            await frames.put(None)

        reader = asyncio.create_task(read())
        try:
            version, view = await self._detail(person, game_id)
            url = f"{self.base}/api/v1/games/{game_id}/actions"
            while view["status"] == "playing":
                if view["active_seat"] != view["you"]:  # the bot's turn: its entries come
                    frame = await frames.get()
                    if frame is None:
                        raise RuntimeError(f"game {game_id}: the socket closed")
                    if frame["seq"] > version:
                        version, view = frame["seq"], frame["view"]
                    continue
                await self.gate.wait()
                body = {
                    "action": person_action(view),
                    "version": version,
                    "idempotency_key": uuid.uuid4().hex,
                }
                t0 = time.perf_counter()
                status, answer = await _client.request(
                    self.session, "POST", url, headers=person.headers, json=body
                )
                t1 = time.perf_counter()
                self.person_moves.codes[status] += 1
                if status in (200, 201):
                    self.person_moves.accepted(t0, t1)
                    version, view = answer["version"], answer["view"]
                else:  # a 409 when the bot came first should not happen: the turn was ours
                    self.person_moves.error(status, answer)
                    version, view = await self._detail(person, game_id)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            await ws.close()

    async def _detail(self, person: _client.Player, game_id: int) -> tuple[int, dict]:
        detail = await _client.expect(
            self.session, "GET", f"{self.base}/api/v1/games/{game_id}", 200,
            headers=person.headers,
        )  # fmt: skip
        return detail["version"], detail["view"]


# ---------------------------------------------------------------------------------- the log


def bot_turns(db_url: str, games: dict[int, str], spans, think_s: float) -> dict:
    """Every bot turn of these games, from the log: when it began (the entry whose
    notifications start the bot seat's turn), the bot's first and last entries of it."""
    ids = sorted(games)
    with psycopg.connect(db_url) as conn:
        bot_seats = {
            (game, seat): level
            for game, seat, level in conn.execute(
                "SELECT game_id, seat, bot_level FROM games_seat "
                "WHERE game_id = ANY(%s) AND bot_level <> ''",
                [ids],
            )
        }
        rows = conn.execute(
            "SELECT game_id, seq, seat, notifications, created_at FROM games_gameentry "
            "WHERE game_id = ANY(%s) ORDER BY game_id, seq",
            [ids],
        ).fetchall()
    by_game: dict[int, list] = {}
    for row in rows:
        by_game.setdefault(row[0], []).append(row)
    turns = {level: [] for level in LEVELS}
    skipped = {"outside_windows": 0, "unfinished": 0, "overtaken": 0, "own_move_began": 0}
    for game, entries in by_game.items():
        for i, (_g, seq, by_seat, notes, began_at) in enumerate(entries):
            for note in notes or ():
                seat = note.get("seat")
                level = bot_seats.get((game, seat))
                if note.get("type") != "turn_started" or level is None:
                    continue
                if by_seat == seat:  # its own move began it (the other's turn passed at once)
                    skipped["own_move_began"] += 1
                    continue
                start = began_at.timestamp()
                if not any(a <= start <= b for a, b in spans):
                    skipped["outside_windows"] += 1
                    continue
                turn = _turn(entries, i, seat)
                if isinstance(turn, str):
                    skipped[turn] += 1
                    continue
                (first_seq, first), last, actions = turn
                turns[level].append(
                    {
                        "game": game,
                        "seq": seq,
                        "began_at": start,
                        "first_seq": first_seq,
                        "first_at": first.timestamp(),
                        "lateness_ms": 1000 * (first.timestamp() - start - think_s),
                        "turn_ms": 1000 * (last.timestamp() - start - think_s),
                        "actions": actions,
                    }
                )
    return {"turns": turns, "skipped": skipped}


def _turn(entries: list, begun: int, seat: int):
    """((seq, time) of the first, time of the last, actions) of the bot's entries after entry
    `begun` up to the one that ends its turn (begins another's, or ends the game); "unfinished"
    or "overtaken" (an entry by anyone else came first: a timeout, a moderator)."""
    first = None
    for count, (_g, seq, by_seat, notes, at) in enumerate(entries[begun + 1 :], start=1):
        if by_seat != seat:
            return "overtaken"
        first = first or (seq, at)
        if any(n.get("type") in ("turn_started", "game_ended") for n in notes or ()):
            return first, at, count
    return "unfinished"


# ---------------------------------------------------------------------------------- the worker

#: What games/tasks.py's `bot_play` logs for each action (its BOT_TIMINGS_LOGGER).
ACTION_LINE = "bot action {"
#: The parts of a turn, in the order they happen (see `lateness_parts`); the last three add up
#: to the lateness.
PARTS = ("queued", "load", "view", "choose", "late_decision", "wake", "to_append")


def action_records(log_text: str) -> list[dict]:
    """The bots worker's timing line of every action its tasks played or looked at."""
    records = []
    for line in log_text.splitlines():
        at = line.find(ACTION_LINE)
        if at >= 0:
            with contextlib.suppress(ValueError):
                records.append(json.loads(line[at + len(ACTION_LINE) - 1 :]))
    return records


def lateness_parts(found: dict, records: list[dict], think_s: float) -> dict:
    """Each counted turn cut into its parts, from the worker's line of the task that appended
    the turn's first entry (milliseconds; the task is queued at once and waits until due):

    * queued: the task's start in a pool process − the entry that began the turn (the
      append's commit, queueing, and the wait for a free pool process);
    * load, view, choose: the steps' wall time (and `cpu_ms`: their CPU);
    * late_decision: how far past the due time the decision ended (0 when it came first);
    * wake: the start of the submit − the later of the due time and the decision (the
      process's wake-up from its wait);
    * to_append: the first entry's time − the start of the submit (the checks and the apply;
      the entry's time is taken just before its append statement).

    late_decision + wake + to_append is the lateness. `decided` is the decision's end − the
    turn's start (under the think time: decided before it was due). A turn whose task line is
    missing (the worker's log cut short) is left out."""
    by_entry = {(r["game"], r["seq"]): r for r in records if r.get("seq") is not None}
    parts: dict[str, list[dict]] = {}
    for level, turns in found["turns"].items():
        rows = parts[level] = []
        for turn in turns:
            record = by_entry.get((turn["game"], turn["first_seq"]))
            if record is None or record.get("due") is None or record.get("decided_at") is None:
                continue
            due, decided = turn["began_at"] + think_s, record["decided_at"]
            steps = record["steps"]
            row = {
                "lateness": turn["lateness_ms"],
                "queued": 1000 * (record["started"] - turn["began_at"]),
                **{name: steps[name][0] for name in ("load", "view", "choose")},
                "late_decision": 1000 * max(decided - due, 0.0),
                "wake": 1000 * (record["submit_at"] - max(due, decided)),
                "to_append": 1000 * (turn["first_at"] - record["submit_at"]),
                "decided": 1000 * (decided - turn["began_at"]),
                "submit": steps["submit"][0],
                "cpu_ms": {name: cpu for name, (_wall, cpu) in steps.items()},
            }
            rows.append(row)
    return parts


def parts_summary(parts: dict) -> dict:
    """Per level: p50 and p99 of each part; and the mean of each part over the slowest 5 % of
    the turns (what their lateness is made of)."""
    pct = _client.percentile
    summary = {}
    for level, rows in parts.items():
        tail = sorted(rows, key=lambda r: r["lateness"])[-max(1, len(rows) // 20) :] if rows else []
        names = (*PARTS, "decided", "submit")
        summary[level] = {
            "turns": len(rows),
            "p50_ms": {n: _round(pct([r[n] for r in rows], 50)) for n in names},
            "p99_ms": {n: _round(pct([r[n] for r in rows], 99)) for n in names},
            "cpu_p50_ms": {
                n: _round(pct([r["cpu_ms"][n] for r in rows if n in r["cpu_ms"]], 50))
                for n in ("load", "view", "choose", "wait", "submit")
            },
            "cpu_p99_ms": {
                n: _round(pct([r["cpu_ms"][n] for r in rows if n in r["cpu_ms"]], 99))
                for n in ("load", "view", "choose", "wait", "submit")
            },
            "slowest_5pct_mean_ms": {
                n: _round(sum(r[n] for r in tail) / len(tail)) if tail else None
                for n in ("lateness", *names)
            },
        }
    return summary


# ---------------------------------------------------------------------------------- figures


def _spread(values: list[float]) -> dict:
    pct = _client.percentile
    return {
        "count": len(values),
        **{f"p{q}_ms": _round(pct(values, q)) for q in (50, 95, 99)},
        "max_ms": _round(max(values) if values else None),
        "min_ms": _round(min(values) if values else None),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def levels_summary(found: dict) -> dict:
    summary = {}
    for level in LEVELS:
        turns = found["turns"][level]
        lateness = _spread([t["lateness_ms"] for t in turns])
        budget = LATENESS_BUDGET_MS[level]
        p99 = lateness["p99_ms"]
        summary[level] = {
            "lateness": lateness,
            "turn": _spread([t["turn_ms"] for t in turns]),
            "actions_per_turn_max": max((t["actions"] for t in turns), default=None),
            "budget_ms": budget,
            "pass": p99 is not None and p99 <= budget,
        }
    return summary


def paced_summary(windows: list[dict], kind: str) -> dict:
    mine = [w for w in windows if w["kind"] == kind]
    latencies = [x for w in mine for x in w["latencies"]]
    seconds = sum(w["paced"]["cpu"]["wall_s"] for w in mine)
    accepted = sum(w["paced"]["accepted"] for w in mine)
    offered = sum(w["paced"]["offered_per_s"] * w["paced"]["cpu"]["wall_s"] for w in mine)
    worker_s = sum(w["workers_cpu_s"] for w in mine)
    span_s = sum(w["span_s"] for w in mine)
    return {
        "windows": len(mine),
        **{k: v for k, v in _spread([1000 * x for x in latencies]).items() if k != "min_ms"},
        "carried": accepted / offered if offered else None,
        "errors": sum(w["paced"]["errors"] for w in mine),
        "per_window_p99_ms": [w["paced"]["p99_ms"] for w in mine],
        "machine_busy_pct": [round(w["paced"]["cpu"]["machine_busy_pct"], 1) for w in mine],
        "workers_cpu_per_s": worker_s / span_s if span_s else None,
        "server_cpu_per_s": sum(w["paced"]["cpu"]["server_cpu_s"] for w in mine) / seconds
        if seconds
        else None,
    }


def _f(value, spec=".1f") -> str:
    return "-" if value is None else format(value, spec)


def report(result: dict, args) -> None:
    print()
    print(
        f"Bot think time on the server (K={args.games} paced games at {args.rate_fraction:g} × "
        f"{result['capacity_per_s']:.1f} moves/s = {result['offered_per_s']:.1f}/s offered; "
        f"{args.bot_games} tables per level; BOT_THINK_SECONDS {args.think_seconds:g}; "
        f"{'one worker' if args.one_worker else 'a bots worker and a default worker'}; "
        f"{args.bot_concurrency} bots processes at niceness {args.bot_niceness})"
    )
    print("lateness = first bot entry − entry that began the turn − think time; turn: last entry")
    head = (
        f"{'level':<7} {'turns':>5} | {'late p50':>8} {'p95':>6} {'p99':>6} {'max':>6} | "
        f"{'turn p50':>8} {'p95':>6} {'p99':>6} {'max':>6} | budget (lateness p99)"
    )
    print(head)
    print("-" * len(head))
    for level, s in result["levels"].items():
        la, tu = s["lateness"], s["turn"]
        print(
            f"{level:<7} {la['count']:>5} | {_f(la['p50_ms']):>8} {_f(la['p95_ms']):>6} "
            f"{_f(la['p99_ms']):>6} {_f(la['max_ms']):>6} | {_f(tu['p50_ms']):>8} "
            f"{_f(tu['p95_ms']):>6} {_f(tu['p99_ms']):>6} {_f(tu['max_ms']):>6} | "
            f"≤ {s['budget_ms']} ms: {'PASS' if s['pass'] else 'FAIL'}"
        )
    print(f"  turns not counted: {result['skipped']}; bot games finished {result['bot_finished']}")
    print()
    print(
        "Where the time goes (ms; each turn's first action, from the bots worker's lines): "
        "queued = task start − began; late_decision = decision end − due (0 if before); "
        "wake = submit start − later of due and decision; to_append = entry − submit start "
        "(the last three add up to the lateness); decided = decision end − began; submit = "
        "the whole move_submit (with the push after the append)"
    )
    names = (*PARTS, "decided", "submit")
    print(f"{'level':<7} {'':<5} " + " ".join(f"{n:>9}" for n in names))
    for level, b in result["lateness_parts"].items():
        for label, key in (("p50", "p50_ms"), ("p99", "p99_ms"), ("tail", "slowest_5pct_mean_ms")):
            row = b[key]
            print(f"{level:<7} {label:<5} " + " ".join(f"{_f(row.get(n)):>9}" for n in names))
        cpu50, cpu99 = b["cpu_p50_ms"], b["cpu_p99_ms"]
        print(
            f"{'':<7} CPU   "
            + ", ".join(f"{n} {_f(cpu50[n])}/{_f(cpu99[n])}" for n in cpu50)
            + f" (p50/p99); {b['turns']} turns matched; tail = mean of the slowest 5 %"
        )
    pm = result["person_moves"]
    print(
        f"  the persons' moves in bot games: {pm['count']} accepted, p99 {_f(pm['p99_ms'])} ms, "
        f"errors {pm['errors']}"
    )
    print()
    print("Paced players' moves, pooled over the windows of each kind (ms)")
    for kind in ("plain", "bots"):
        p = result["paced"][kind]
        print(
            f"  {kind:<5} {p['windows']} windows, {p['count']} moves: p50 {_f(p['p50_ms'])} "
            f"p95 {_f(p['p95_ms'])} p99 {_f(p['p99_ms'])} max {_f(p['max_ms'])}; carried "
            f"{_f(100 * p['carried'] if p['carried'] else None)} %, errors {p['errors']}; "
            f"per window p99 {p['per_window_p99_ms']}; machine busy {p['machine_busy_pct']} %; "
            f"CPU per s: server {_f(p['server_cpu_per_s'], '.2f')}, Celery workers "
            f"{_f(p['workers_cpu_per_s'], '.2f')}"
        )
    print(f"  p99 with bots ÷ without: {_f(result['paced_p99_ratio'], '.2f')}")
    print()
    print(speed_line(result["machine_speed_ms"]))


# ---------------------------------------------------------------------------------- main


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    add = parser.add_argument
    add("--games", type=int, default=api.GOAL_GAMES, help="K, paced person-vs-person games")
    add("--bot-games", type=int, default=4, help="tables of a person and a bot, per level")
    add("--rounds", type=int, default=8, help="pairs of paced windows, without and with bots")
    add("--duration", type=float, default=20.0, help="measured seconds of each paced window")
    add("--warmup", type=float, default=5.0, help="unmeasured seconds before each window")
    add("--capacity-duration", type=float, default=30.0, help="seconds of unpaced moves")
    add("--rate-fraction", type=float, default=api.GOAL_RATE_FRACTION)
    add("--rate", type=float, default=0.0, help="offer this many moves/s (0: the fraction)")
    add("--think-seconds", type=float, default=2.0, help="BOT_THINK_SECONDS (default 2)")
    add("--bot-concurrency", type=int, default=16, help="the bots worker's processes (compose)")
    add("--bot-niceness", type=int, default=0, help="BOT_POOL_NICENESS of the bots worker")
    add("--one-worker", action="store_true", help="one worker on both queues (dev.py serve)")
    add("--movement", default="normal", choices=["normal", "fast", "faster"])
    add("--workers", type=int, default=3, help="uvicorn workers")
    add("--server", choices=["serve", "uvicorn"], default="serve")
    add("--port", type=int, default=0)
    add("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    add("--db-name", default="bench_bot_think")
    add("--keep-db", action="store_true")
    add(
        "--redis-url", default="redis://127.0.0.1:6379/9",
        help="the server's and the workers' Redis (broker too); this database is cleared",
    )  # fmt: skip
    add("--signup-concurrency", type=int, default=8)
    add("--wait-idle", type=float, default=0.0, metavar="S")
    add("--server-env", action="append", default=[], metavar="KEY=VALUE")
    add("--json", metavar="PATH", help="write the figures as JSON")
    add("--quick", action="store_true", help="smoke run: K=10, 1 table a level, short windows")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.bot_games, args.rounds = 10, 1, 1
        args.duration, args.warmup, args.capacity_duration = 8.0, 3.0, 3.0
    if args.warmup <= args.think_seconds:
        parser.error("--warmup must be longer than --think-seconds (a bot's trailing turn)")
    if min(args.games, args.bot_games, args.rounds) < 1 or args.duration <= 0:
        parser.error("--games, --bot-games, --rounds and --duration must be positive")
    # what bench/api.py's Run and its phases read
    args.server_cmd, args.py_spy, args.no_probe = None, None, True
    args.server_env = [*args.server_env, f"BOT_THINK_SECONDS={args.think_seconds:g}"]
    return args


async def bench(run: api.Run, args, workers: list) -> dict:
    persons_needed = len(LEVELS) * args.bot_games
    need = 2 * args.games + persons_needed
    connector = aiohttp.TCPConnector(limit=args.games + persons_needed + 8, limit_per_host=0)
    timeout = aiohttp.ClientTimeout(total=60)
    async with (
        aiohttp.ClientSession(connector=connector, timeout=timeout) as session,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as ws_session,
    ):
        log(f"signing up {need} users")
        users = await _client.signup_many(
            session, run.base, f"t{secrets.token_hex(3)}u", need, args.signup_concurrency
        )
        pairs = [(users[2 * i], users[2 * i + 1]) for i in range(args.games)]
        options = {"movement": args.movement}
        meter = api.CpuMeter(run.server.pid)
        capacity_args = copy.copy(args)
        capacity_args.duration = args.capacity_duration
        capacity = await api.unpaced_moves(run, session, pairs, options, capacity_args, meter)
        capacity.pop("ongoing")  # the paced windows begin games of their own
        rate = args.rate or args.rate_fraction * capacity["per_s"]
        tables = BotTables(
            session, ws_session, run.base, users[2 * args.games :], args.bot_games, options
        )
        tables.start()
        firsts = list(
            await asyncio.gather(
                *(_client.open_game(session, run.base, p, options, _client.Stats()) for p in pairs)
            )
        )
        windows = []
        try:
            for r in range(args.rounds):
                for kind in ("plain", "bots") if r % 2 == 0 else ("bots", "plain"):
                    log(f"round {r + 1}/{args.rounds}: a window {kind}")
                    stats = _client.Stats()
                    cpu0, t0 = workers_cpu(workers), time.perf_counter()
                    paced = await api.paced_moves(
                        run, session, pairs, options, args, meter, rate, stats=stats,
                        firsts=firsts, alongside=tables.window if kind == "bots" else None,
                    )  # fmt: skip
                    windows.append(
                        {
                            "kind": kind,
                            "paced": paced,
                            "latencies": stats.latencies,
                            "workers_cpu_s": workers_cpu(workers) - cpu0,
                            "span_s": time.perf_counter() - t0,
                        }
                    )
            # the last window's bot turns end in the warm-up of no window: wait for them
            await asyncio.sleep(args.think_seconds + 1.0)
        finally:
            await tables.stop()
    person = tables.person_moves
    return {
        "capacity": capacity,
        "capacity_per_s": capacity["per_s"],
        "offered_per_s": rate,
        "windows": windows,
        "bot_games": tables.games,
        "bot_finished": tables.finished,
        "spans": tables.spans,
        "person_moves": {
            **_spread([1000 * x for x in person.latencies]),
            "errors": sum(v for k, v in person.codes.items() if k not in (200, 201)),
            "first_errors": person.first_errors,
        },
    }


def main(argv=None) -> int:
    args = parse_args(argv)
    run = api.Run(args)
    atexit.register(run.cleanup)
    exit_on_signals()
    db_url = f"{args.pg_url.rstrip('/')}/{args.db_name}"
    try:
        busy = wait_quiet(args.wait_idle)
        speed_before = machine_speed()
        run.create_database()
        with contextlib.ExitStack() as stack:
            workers = start_workers(stack, run, args)
            run.start_server()
            env_info = api.environment(args, run)
            env_info["machine_busy_before_pct"] = round(100 * busy, 1)
            with asyncio.Runner() as runner:
                result = runner.run(bench(run, args, workers))
            found = bot_turns(db_url, result["bot_games"], result["spans"], args.think_seconds)
            errors = [line for worker in workers for line in worker.errors()]
            records = action_records(workers[0].log())  # the bots worker (or the only one)
        result["machine_speed_ms"] = {"before": speed_before, "after": machine_speed()}
    finally:
        run.cleanup()
    result.update(
        levels=levels_summary(found),
        lateness_parts=parts_summary(lateness_parts(found, records, args.think_seconds)),
        actions_logged=len(records),
        action_records=records,  # the worker's lines, to cut the lateness again after the run
        skipped=found["skipped"],
        turns=found["turns"],
        worker_errors=errors[:20],
        paced={kind: paced_summary(result["windows"], kind) for kind in ("plain", "bots")},
    )
    plain, bots = result["paced"]["plain"]["p99_ms"], result["paced"]["bots"]["p99_ms"]
    result["paced_p99_ratio"] = bots / plain if plain and bots else None
    report(result, args)
    if errors:
        print(f"\nCelery workers' errors ({len(errors)}): {errors[:5]}")
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        for window in result["windows"]:
            del window["latencies"]
        figures = {
            "benchmark": "bot_think",
            "environment": env_info,
            "config": {k: v for k, v in vars(args).items() if k != "server_env"},
            "goals": {"lateness_p99_ms": LATENESS_BUDGET_MS},
            **result,
        }
        path.write_text(json.dumps(figures, indent=2, default=str) + "\n")
        print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
