#!/usr/bin/env python3
"""Benchmark of the Digit Code bots, with the engine alone: strong against easy.

    python3 bench/digit_code_bots.py                   # 400 two-player games (200 seeds × 2)
    python3 bench/digit_code_bots.py --games 40        # a short check (say so when you quote it)
    python3 bench/digit_code_bots.py --players 3 --games 300 --jobs 2

Game k uses seed SEED + k // players with the strong bot at seat k mod players, so every seed
is played once with the strong bot in each seat (both seat orders with 2 players); the other
seats are easy bots. Each seat decides from its own player view (`bots.choose`), with its own
bot seed. The strong bot's win share is given with a 95 % Wilson interval (goal: ≥ 80 % with
2 players); a game nobody wins (everyone eliminated) counts as not won. The game length is in
turns (`turn_started`s). Think time is the CPU time (time.process_time) of each `choose`
call, per level, from the view to the action; the per-process tables of the consistent codes
(`consistent.tables`, built once, about half a second) are built before the clock starts
(goal: p99 ≤ 250 ms).
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

from games.digit_code.engine import Options, Setup, player_view, start  # noqa: E402
from games.digit_code.engine.bots import choose  # noqa: E402
from games.digit_code.engine.consistent import tables  # noqa: E402

SEED = 20_250_807
WIN_GOAL = 0.80  # with 2 players
THINK_GOAL_MS = 250.0


def play_one(task: tuple[int, int]) -> dict:
    players, k = task
    tables()  # built once per process, outside the clock
    seed = SEED + k // players
    strong = k % players
    game, _ = start(Setup(Options(), players, seed))
    think: dict[str, list[float]] = {"easy": [], "strong": []}
    while not game.over:
        seat = game.active
        level = "strong" if seat == strong else "easy"
        view = player_view(game, seat)
        began = time.process_time()
        action = choose(view, seed=seed * 10 + seat, level=level)
        think[level].append(time.process_time() - began)
        game.apply(action)
    return {"won": game.result.winner == strong, "turns": game.turn, "think": think}


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def quantile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--jobs", type=int, default=1, help="processes (2 on a quiet machine)")
    args = parser.parse_args()
    print(
        f"# bench/digit_code_bots.py: python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(f"{args.games} games, {args.players} players, strong against easy, seed {SEED}")
    tasks = [(args.players, k) for k in range(args.games)]
    began = time.perf_counter()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            results = pool.map(play_one, tasks, chunksize=4)
    else:
        results = [play_one(task) for task in tasks]
    wall = time.perf_counter() - began
    games = len(results)
    rate = sum(r["won"] for r in results) / games
    low, high = wilson(rate, games)
    goal = f"≥ {100 * WIN_GOAL:.0f} %" if args.players == 2 else "(none)"
    turns = statistics.median(r["turns"] for r in results)
    print("| games | strong wins | 95 % CI | goal | median game (turns) | max | wall s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(
        f"| {games} | {100 * rate:.1f} % | {100 * low:.1f}–{100 * high:.1f} % | {goal} "
        f"| {turns:g} | {max(r['turns'] for r in results)} | {wall:.0f} |"
    )
    print()
    print(f"| level | decisions | think p50 | p99 (goal ≤ {THINK_GOAL_MS:.0f} ms) | max |")
    print("| --- | --- | --- | --- | --- |")
    for level in ("easy", "strong"):
        cpu = sorted(c for r in results for c in r["think"][level])
        print(
            f"| {level} | {len(cpu)} | {1000 * quantile(cpu, 0.5):.1f} ms "
            f"| {1000 * quantile(cpu, 0.99):.1f} ms | {1000 * cpu[-1]:.1f} ms |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
