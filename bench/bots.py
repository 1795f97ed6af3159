#!/usr/bin/env python3
"""Benchmark of the computer opponents (issue 23 goals), with the engine alone.

    python3 bench/bots.py                      # every setting, 200 games each
    python3 bench/bots.py --games 40           # a shorter run (say so when you quote it)
    python3 bench/bots.py --settings strong-2p,oracle-2p --budget 120 --jobs 2
    python3 bench/bots.py --timing             # CPU per strong decision, 2 to 8 players

Each setting seats one bot under test against `easy` bots (the autopilot, K2) and plays games
with fixed seeds: game k uses seed SEED + k with the bot under test at seat k mod players, so it
moves first, second, … equally often. Default table options (normal movement). A game's winner
is its first rank; a shared first place counts as 1/n of a win. The win rate is given with a
95 % Wilson interval.

The **oracle** is the strong level's search given the true pile: its worlds are copies of the
real game, so every playout is the real future under the autopilot's play. It cheats, and
exists here only (bench/ is not a package the server imports). The issue's rule: where even the
oracle falls short of a goal, the goal becomes 90 % of the oracle's win rate.

`--timing` measures the CPU time (time.process_time) of single strong decisions at the given
budget over positions of autopilot games with 2–8 players: the figure the 1 s budget is about.
"""

from __future__ import annotations

import argparse
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

from games.engine import Options, Setup, autopilot_action, player_view, start  # noqa: E402
from games.engine.bots import DEFAULT_BUDGET, STALL_TURNS_PER_PLAYER, choose  # noqa: E402
from games.engine.bots.search import search  # noqa: E402

SEED = 20_231_100
#: (name, bot under test, players). The goals are the issue's.
SETTINGS = {
    "strong-2p": ("strong", 2),
    "strong-4p": ("strong", 4),
    "medium-2p": ("medium", 2),
    "medium-4p": ("medium", 4),
    "oracle-2p": ("oracle", 2),
    "oracle-4p": ("oracle", 4),
}
GOALS = {2: 0.75, 4: 0.40}
#: A game still running after this many turns is cut off and counted as not won (none was).
MAX_TURNS = 3000


def oracle_action(game, budget: int):
    """The strong search with the true pile: one world, the real one (playouts of a known
    future are all alike, so one round is the whole search)."""
    if game.turn > STALL_TURNS_PER_PLAYER * game.players:
        return autopilot_action(game)
    return search(game.clone, budget=budget, keep=budget).action


def play_one(args: tuple[str, int, int, int]) -> dict:
    level, players, k, budget = args
    options = Options(pickup_before_movement=players >= 5)
    game, _ = start(Setup(options, players, SEED + k))
    seat = k % players
    cpu = []
    decisions = 0
    while not game.over and game.turn < MAX_TURNS:
        if game.active != seat:
            game.apply(autopilot_action(game))
            continue
        began = time.process_time()
        if level == "oracle":
            action = oracle_action(game, 6)
        else:
            view = player_view(game, seat)
            action = choose(view, seed=SEED + 1000 * k + decisions, level=level, budget=budget)
        cpu.append(time.process_time() - began)
        decisions += 1
        game.apply(action)
    if not game.over:
        return {"won": 0.0, "cut": True, "cpu": cpu, "margin": 0}
    first = game.result.ranking[0]
    incomes = game.result.incomes
    best_other = max(v for s, v in enumerate(incomes) if s != seat)
    return {
        "won": 1.0 / len(first) if seat in first else 0.0,
        "cut": False,
        "cpu": cpu,
        "margin": incomes[seat] - best_other,
    }


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run_setting(name: str, games: int, budget: int, jobs: int) -> dict:
    level, players = SETTINGS[name]
    tasks = [(level, players, k, budget) for k in range(games)]
    began = time.perf_counter()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(play_one, tasks, chunksize=4)
    else:
        results = [play_one(task) for task in tasks]
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
        "cpu_p99_ms": 1000 * cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))],
        "cpu_max_ms": 1000 * cpu[-1],
        "wall_s": wall,
    }


def timing(budget: int, positions: int) -> None:
    print(f"CPU per strong decision, budget {budget} playouts (time.process_time)")
    print("| players | decisions | mean ms | p95 ms | max ms |")
    print("| --- | --- | --- | --- | --- |")
    for players in range(2, 9):
        options = Options(pickup_before_movement=players >= 5)
        game, _ = start(Setup(options, players, SEED))
        cpu = []
        while not game.over and len(cpu) < positions:
            if game.turn % 5 == 0 and game.phase == "move" and not game.path:
                view = player_view(game, game.active)
                began = time.process_time()
                choose(view, seed=len(cpu), level="strong", budget=budget)
                cpu.append(time.process_time() - began)
            game.apply(autopilot_action(game))
        cpu.sort()
        print(
            f"| {players} | {len(cpu)} | {1000 * statistics.fmean(cpu):.0f} "
            f"| {1000 * cpu[int(0.95 * (len(cpu) - 1))]:.0f} | {1000 * cpu[-1]:.0f} |",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="strong playouts")
    parser.add_argument("--settings", default=",".join(SETTINGS))
    parser.add_argument("--jobs", type=int, default=1, help="processes (2 on a quiet machine)")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--positions", type=int, default=20, help="--timing: per player count")
    args = parser.parse_args()
    print(
        f"# bench/bots.py: python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    if args.timing:
        timing(args.budget, args.positions)
        return 0
    print(f"games per setting {args.games}, strong budget {args.budget} playouts, seed {SEED}")
    print(
        "| setting | games | win rate | 95 % CI | goal | mean margin | cut off "
        "| CPU/decision mean | p99 | max | wall s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.settings.split(","):
        r = run_setting(name, args.games, args.budget, args.jobs)
        goal = GOALS[r["players"]] if r["level"] != "medium" else None
        print(
            f"| {name} | {r['games']} | {100 * r['win_rate']:.1f} % "
            f"| {100 * r['ci'][0]:.1f}–{100 * r['ci'][1]:.1f} % "
            f"| {'' if goal is None else f'≥ {100 * goal:.0f} %'} | {r['mean_margin']:+.1f} "
            f"| {r['cut']} | {r['cpu_mean_ms']:.1f} ms | {r['cpu_p99_ms']:.1f} ms "
            f"| {r['cpu_max_ms']:.1f} ms | {r['wall_s']:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
