#!/usr/bin/env python3
"""Benchmark of the computer opponents, with the engine alone.

    python3 bench/bots.py --games 400 --settings strong-vs-greedy-2p --log run.jsonl
    python3 bench/bots.py --games 40           # every setting, a short run (say so when quoted)
    python3 bench/bots.py --settings strong-2p,oracle-2p --budget 120 --jobs 2
    python3 bench/bots.py --games 200 --first 200 ...   # games 200..399 of a setting
    python3 bench/bots.py --timing             # CPU per medium and strong decision, 2-8 players

Each setting seats one player under test against others of one kind and plays games with fixed
seeds: game k uses seed SEED + k with the player under test at seat k mod players, so it moves
first, second, … equally often. Default table options (normal movement; pickup before movement
with 5+ players). A game's winner is its first rank; a shared first place counts as 1/n of a
win. The win share is given with a 95 % Wilson interval. `--log` writes one JSON line per game
(its seed, win, margin, CPU per decision), so a long run can be read, or resumed with `--first`.

The others are `greedy` (the yardstick) or `easy` (the autopilot, K2). **greedy** is a player of
this file's own, written from RULES.md and not from the bots' code: one ply, the turn with the
best immediate income, ties to the turn that picks up a citizen, then to the one that ends
nearest to a fare (`greedy_action`). It is the fairest public yardstick: anyone can write it.

The **oracle** is the strong level's search given the true pile: its worlds are copies of the
real game. It cheats, and exists here only (bench/ is not a package the server imports).

`--timing` measures the CPU time (time.process_time) of single medium and strong decisions at
their default budgets over positions of autopilot games with 2-8 players.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine import (  # noqa: E402
    AREAS,
    DISTANCE,
    NEIGHBOURS,
    Decline,
    Options,
    Pass,
    Pickup,
    Setup,
    Stop,
    Turn,
    autopilot_action,
    player_view,
    start,
)
from games.engine.bots import STALL_TURNS_PER_PLAYER, choose  # noqa: E402
from games.engine.bots.search import search  # noqa: E402

SEED = 20_231_100
#: name: (player under test, the other seats, players). The greedy settings are the yardstick.
SETTINGS = {
    "strong-vs-greedy-2p": ("strong", "greedy", 2),
    "strong-vs-3greedy-4p": ("strong", "greedy", 4),
    "medium-vs-greedy-2p": ("medium", "greedy", 2),
    "medium-vs-3greedy-4p": ("medium", "greedy", 4),
    "easy-vs-greedy-2p": ("easy", "greedy", 2),
    "strong-2p": ("strong", "easy", 2),
    "strong-4p": ("strong", "easy", 4),
    "medium-2p": ("medium", "easy", 2),
    "medium-4p": ("medium", "easy", 4),
    "oracle-2p": ("oracle", "easy", 2),
    "oracle-4p": ("oracle", "easy", 4),
}
#: Goals (win share of the player under test) by setting.
GOALS = {
    "strong-vs-greedy-2p": 0.70,
    "strong-vs-3greedy-4p": 0.35,
    "medium-vs-greedy-2p": 0.55,
    "strong-2p": 0.75,
    "strong-4p": 0.40,
    "oracle-2p": 0.75,
    "oracle-4p": 0.40,
}
#: A game still running after this many turns is cut off and counted as not won (none was).
MAX_TURNS = 3000


# ---------------------------------------------------------------------------- the greedy yardstick
# Written from RULES.md alone (T1, T3, T5, P1-P3), reading only what every player sees: the
# board, the taxis, the riders, the waiting citizens, the pile's size. One ply: among every turn
# the rules allow (where to stop, whom to pick up there), the one that pays most now (T5: fares
# of the riders dropped at the stop); ties go to the turn that picks up more citizens (a fare in
# hand), then to the one that ends nearest to a fare (a rider's destination; with no rider, the
# origin of a citizen the taxi may pick up), then to the first stop in board order. It knows
# nothing of the other taxis' plans, nor of any card to come.

UNREACHABLE = 10_000


def _greedy_stops(game, seat: int) -> list[tuple[str, tuple[str, ...]]]:
    """T1, T3: every area the taxi may stop on this turn, with a shortest step path to it."""
    left = game.allowance() - len(game.path)
    closed = {area for other, area in enumerate(game.taxis) if other != seat}
    closed.add(game.turn_start)
    here = game.taxis[seat]
    found: dict[str, tuple[str, ...]] = {}
    frontier = [(here, ())]
    seen = {here}
    for _ in range(left):
        nxt = []
        for area, path in frontier:
            for near in NEIGHBOURS[area]:
                if near in closed or near in seen:
                    continue
                seen.add(near)
                found[near] = (*path, near)
                nxt.append((near, (*path, near)))
        frontier = nxt
    return sorted(found.items(), key=lambda item: AREAS.index(item[0]))


def _may_pick_up(riders: int, pile: int, waiting: int) -> bool:
    """P1-P3 for a taxi carrying `riders`, with `waiting` citizens waiting before the pickup."""
    return riders < 3 and not (riders >= 2 and pile < 2) and not (riders >= 1 and waiting <= 4)


def _to_a_fare(area: str, riders, waiting, pile: int) -> int:
    """Steps from `area` to the nearest fare: a rider's destination, or with no rider the origin
    of a waiting citizen (P1-P3 allow an empty taxi a pickup while anyone waits)."""
    row = DISTANCE[area]
    if riders:
        return min(row[d] for _, d in riders)
    return min((row[o] for o, _ in waiting), default=UNREACHABLE)


def greedy_action(game):
    """The yardstick's next action for the seat to move (see above)."""
    seat = game.active
    riders = list(game.passengers[seat])
    waiting = list(game.waiting)
    pile = len(game.pile)
    if game.phase == "pickup":  # only after an atomic stop: take the best single pickup
        choices = game.pickup_choices()
        if not choices:
            return Decline(seat)
        here = game.taxis[seat]
        return Pickup(seat, min(choices, key=lambda d: (DISTANCE[here][d], AREAS.index(d))))
    if game.path:
        return Stop(seat)  # the yardstick always hands in whole turns; never reached by it
    before = game.pickup_choices()  # T2: a pre-movement pickup, if the options allow it
    best_key, best_action = None, None
    options: list[tuple[str | None, list, list]] = [(None, riders, waiting)]
    here = game.taxis[seat]
    for destination in before:
        citizen = (here, destination)
        rest = waiting[:]
        rest.remove(citizen)
        options.append((destination, [*riders, citizen], rest))
    for pre, aboard, still in options:
        for stop, path in _greedy_stops(game, seat):
            income = sum(DISTANCE[o][d] for o, d in aboard if d == stop)  # T5: drop-offs
            staying = [c for c in aboard if c[1] != stop]
            candidates = [(None, staying, still)]
            if _may_pick_up(len(staying), pile, len(still)):
                for citizen in still:
                    if citizen[0] == stop:
                        rest = still[:]
                        rest.remove(citizen)
                        candidates.append((citizen[1], [*staying, citizen], rest))
            for pickup, after, left in candidates:
                taken = 0 if pickup is None else 1
                key = (-income, -taken, _to_a_fare(stop, after, left, pile))
                if best_key is None or key < best_key:
                    best_key = key
                    if pre is not None:
                        best_action = Pickup(seat, pre)  # then decide the move after its draw
                    else:
                        best_action = Turn(seat, path, () if pickup is None else (pickup,))
    if best_action is None:
        return Pass(seat)  # T7: blocked (no pre-movement pickup is worth anything then)
    return best_action


# ---------------------------------------------------------------------------- the oracle


def oracle_action(game, budget: int):
    """The strong search with the true pile: one world, the real one (playouts of a known
    future are all alike, so one round is the whole search)."""
    if game.turn > STALL_TURNS_PER_PLAYER * game.players:
        return autopilot_action(game)
    return search(game.clone, budget=budget, keep=budget).action


def decide(kind: str, game, seat: int, seed: int, budget: int | None):
    """One decision of a player of kind `kind` for `seat`, the seat to move."""
    if kind == "greedy":
        return greedy_action(game)
    if kind == "easy" and seat != game.active:
        return autopilot_action(game)
    if kind == "oracle":
        return oracle_action(game, 6)
    view = player_view(game, seat)
    return choose(view, seed=seed, level=kind, budget=budget)


def play_one(args: tuple[str, str, int, int, int | None]) -> dict:
    """Game k of a setting: the bot under test at seat k mod players, `rest` everywhere else."""
    level, rest, players, k, budget = args
    options = Options(pickup_before_movement=players >= 5)
    game, _ = start(Setup(options, players, SEED + k))
    seat = k % players
    cpu = []
    decisions = 0
    while not game.over and game.turn < MAX_TURNS:
        active = game.active
        if active != seat:
            game.apply(decide(rest, game, active, SEED + 7919 * k + game.turn, None))
            continue
        began = time.process_time()
        action = decide(level, game, seat, SEED + 1000 * k + decisions, budget)
        cpu.append(time.process_time() - began)
        decisions += 1
        game.apply(action)
    if not game.over:
        return {"won": 0.0, "cut": True, "cpu": cpu, "margin": 0}
    incomes, ranking = final_result(game)
    best_other = max(v for s, v in enumerate(incomes) if s != seat)
    return {
        "won": 1.0 / len(ranking[0]) if seat in ranking[0] else 0.0,
        "cut": False,
        "cpu": cpu,
        "margin": incomes[seat] - best_other,
    }


def final_result(game) -> tuple[list[int], list[list[int]]]:
    """(incomes, ranking) of a finished game: the one place the bench reads the result."""
    return list(game.result.incomes), [list(group) for group in game.result.ranking]


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run_setting(
    name: str, games: int, budget: int | None, jobs: int, log: Path | None = None, first: int = 0
) -> dict:
    level, rest, players = SETTINGS[name]
    tasks = [(level, rest, players, k, budget) for k in range(first, first + games)]
    began = time.perf_counter()
    results = []
    with multiprocessing.Pool(jobs) if jobs > 1 else contextlib.nullcontext() as pool:
        played = pool.imap(play_one, tasks) if pool is not None else map(play_one, tasks)
        for k, result in enumerate(played, start=first):
            results.append(result)
            if log is not None:  # one line per game, so a long run can be read while it runs
                line = {"setting": name, "game": k, "seed": SEED + k, **result}
                line["cpu"] = [round(1000 * c, 2) for c in result["cpu"]]
                with log.open("a") as out:
                    out.write(json.dumps(line) + "\n")
    wall = time.perf_counter() - began
    wins = sum(r["won"] for r in results)
    cpu = sorted(c for r in results for c in r["cpu"])
    rate = wins / games
    low, high = wilson(rate, games)
    return {
        "setting": name,
        "level": level,
        "players": players,
        "games": games,
        "win_rate": rate,
        "ci": (low, high),
        "cut": sum(r["cut"] for r in results),
        "mean_margin": statistics.fmean(r["margin"] for r in results),
        "cpu_mean_ms": 1000 * statistics.fmean(cpu),
        "cpu_p50_ms": 1000 * cpu[len(cpu) // 2],
        "cpu_p99_ms": 1000 * cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))],
        "cpu_max_ms": 1000 * cpu[-1],
        "wall_s": wall,
    }


def summarize(logs: list[Path]) -> None:
    """The table of `main` from `--log` files (games of one setting may come from several runs,
    e.g. `--first` ranges; a game logged twice counts once)."""
    games: dict[str, dict[int, dict]] = {}
    for log in logs:
        for line in log.read_text().splitlines():
            row = json.loads(line)
            games.setdefault(row["setting"], {})[row["game"]] = row
    print(
        "| setting | games | seeds | win share | 95 % CI | goal | mean margin | cut off "
        "| CPU/decision p50 | p99 | max |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, rows in games.items():
        n = len(rows)
        rate = sum(r["won"] for r in rows.values()) / n
        low, high = wilson(rate, n)
        cpu = sorted(c for r in rows.values() for c in r["cpu"])
        seeds = f"{SEED + min(rows)}…{SEED + max(rows)}"
        goal = GOALS.get(name)
        print(
            f"| {name} | {n} | {seeds} | {100 * rate:.1f} % | {100 * low:.1f}–{100 * high:.1f} % "
            f"| {'' if goal is None else f'≥ {100 * goal:.0f} %'} "
            f"| {statistics.fmean(r['margin'] for r in rows.values()):+.1f} "
            f"| {sum(r['cut'] for r in rows.values())} | {cpu[len(cpu) // 2]:.1f} ms "
            f"| {cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]:.1f} ms | {cpu[-1]:.1f} ms |"
        )


def timing(budget: int | None, positions: int) -> None:
    print("CPU per decision at each level's default budget (time.process_time); positions at")
    print("the start of a turn, every one of a game of greedy players (pickup before movement")
    print("with 5+ players), until `positions` decisions")
    print("| level | movement | players | decisions | p50 ms | p99 ms | max ms |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for level in ("medium", "strong"):
        for movement in ("normal", "fast", "faster"):
            for players in (2, 4, 8):
                options = Options(pickup_before_movement=players >= 5, movement=movement)
                game, _ = start(Setup(options, players, SEED + players))
                cpu = []
                while not game.over and len(cpu) < positions:
                    if game.phase == "move" and not game.path:
                        view = player_view(game, game.active)
                        began = time.process_time()
                        choose(view, seed=len(cpu), level=level, budget=budget)
                        cpu.append(time.process_time() - began)
                    game.apply(greedy_action(game))
                cpu.sort()
                print(
                    f"| {level} | {movement} | {players} | {len(cpu)} "
                    f"| {1000 * cpu[len(cpu) // 2]:.0f} "
                    f"| {1000 * cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]:.0f} "
                    f"| {1000 * cpu[-1]:.0f} |",
                    flush=True,
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument(
        "--budget", type=int, default=None, help="the level's budget (default: the level's own)"
    )
    parser.add_argument("--settings", default=",".join(SETTINGS))
    parser.add_argument("--jobs", type=int, default=1, help="processes (2 on a quiet machine)")
    parser.add_argument("--first", type=int, default=0, help="play games first … first+games-1")
    parser.add_argument("--log", type=Path, help="append one JSON line per game to this file")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--summarize", type=Path, nargs="+", help="the table from --log files")
    parser.add_argument("--positions", type=int, default=40, help="--timing: per setting")
    args = parser.parse_args()
    print(
        f"# bench/bots.py: python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    if args.summarize:
        summarize(args.summarize)
        return 0
    if args.timing:
        timing(args.budget, args.positions)
        return 0
    budget = "each level's default" if args.budget is None else args.budget
    print(f"games per setting {args.games}, budget {budget}, seeds {SEED} + k")
    print(
        "| setting | games | win share | 95 % CI | goal | mean margin | cut off "
        "| CPU/decision mean | p50 | p99 | max | wall s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.settings.split(","):
        r = run_setting(name, args.games, args.budget, args.jobs, args.log, args.first)
        goal = GOALS.get(name)
        print(
            f"| {name} | {r['games']} | {100 * r['win_rate']:.1f} % "
            f"| {100 * r['ci'][0]:.1f}–{100 * r['ci'][1]:.1f} % "
            f"| {'' if goal is None else f'≥ {100 * goal:.0f} %'} | {r['mean_margin']:+.1f} "
            f"| {r['cut']} | {r['cpu_mean_ms']:.1f} ms | {r['cpu_p50_ms']:.1f} ms "
            f"| {r['cpu_p99_ms']:.1f} ms "
            f"| {r['cpu_max_ms']:.1f} ms | {r['wall_s']:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
