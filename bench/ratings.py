#!/usr/bin/env python3
"""Benchmark of the rating rebuild (goal: 100,000 finished games at >= 5,000 games/s).

    python3 bench/ratings.py                    # 100,000 games, player counts 2-8 and 2-4
    python3 bench/ratings.py --games 20000      # shorter

Times `games.ratings.rebuild` alone, over finished games made up front (not timed):
synthetic results, not engine games (100,000 engine games would take minutes to play and
rating reads only the ranking). Each game seats 2–8 (or 2–4) accounts drawn from a pool of
5,000, with incomes drawn from 0..60 so ties occur as in real games; 5 % of the games have a
seat that resigned or became a zombie, 3 % a bot seat (unrated), 2 % are unrated tables; a
thousand games end per day, so the per-day pair rule has pairs to count. 5 % of the seats
played fewer turns than the policy's minimum (rule 4), and accounts join over the first days,
so the first games of each are provisional (rule 5) under the server's default policy. Wall time is
`time.perf_counter`, best of `--repeats`, garbage collector on.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.ratings import FinishedGame, Policy, rebuild  # noqa: E402

GOAL_GAMES_PER_S = 5_000
ACCOUNTS = 5_000
GAMES_PER_DAY = 1_000
#: the server's defaults (settings RATING_MIN_OWN_TURNS, RATING_PROVISIONAL_GAMES, _DAYS)
POLICY = Policy(min_own_turns=5, provisional_games=5, provisional_age=datetime.timedelta(days=3))


def finished_games(count: int, max_players: int, seed: int = 23) -> list[FinishedGame]:
    rng = random.Random(seed)
    first_day = datetime.date(2026, 1, 1)
    joined = [rng.uniform(0, 10) for _ in range(ACCOUNTS)]  # the day each account was made
    games = []
    for k in range(count):
        n = rng.randint(2, max_players)
        players: list[int | None] = list(rng.sample(range(ACCOUNTS), n))
        if rng.random() < 0.03:
            players[rng.randrange(n)] = None
        incomes = [rng.randint(0, 60) for _ in range(n)]
        ranking = tuple(
            tuple(s for s in range(n) if incomes[s] == v)
            for v in sorted(set(incomes), reverse=True)
        )
        quit = frozenset({rng.randrange(n)}) if rng.random() < 0.05 else frozenset()
        day = k / GAMES_PER_DAY
        games.append(
            FinishedGame(
                players=tuple(players),
                ranking=ranking,
                ended_on=first_day + datetime.timedelta(days=int(day)),
                quit=quit,
                rated=rng.random() >= 0.02,
                own_turns=tuple(2 if rng.random() < 0.05 else 20 for _ in range(n)),
                ages=tuple(
                    None if p is None else datetime.timedelta(days=max(0.0, day - joined[p]))
                    for p in players
                ),
            )
        )
    return games


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(
        f"# bench/ratings.py: python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print("| players per game | games | best s | games/s | goal |")
    print("| --- | --- | --- | --- | --- |")
    for max_players in (8, 4):
        games = finished_games(args.games, max_players)
        times = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            ratings = rebuild(games, policy=POLICY)
            times.append(time.perf_counter() - began)
        best = min(times)
        rate = args.games / best
        verdict = "PASS" if rate >= GOAL_GAMES_PER_S else "FAIL"
        print(
            f"| 2–{max_players} | {args.games} | {best:.2f} | {rate:,.0f} "
            f"| ≥ {GOAL_GAMES_PER_S:,} {verdict} ({len(ratings)} players rated) |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
