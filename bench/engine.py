#!/usr/bin/env python3
"""Benchmark of the Bahama Taxi rules engine (games/engine), standard library only.

    python3 bench/engine.py                 # full run (about 15 s on 2 vCPUs)
    python3 bench/engine.py --quick         # smoke run (a few seconds)
    python3 bench/engine.py --json bench/out/engine.json

What it measures (see BENCHMARKS.md for the latest figures):

1. Replay throughput, in log entries per second. A fixed corpus of complete games is generated
   up front: one autopilot game for every valid (players, options) combination, extra 4-player
   autopilot games with the default options, and random-policy games cut off at a number of
   turns. Each game's history is encoded with `encode_action` (the JSON objects the server
   stores), then `replay(setup, actions)` is timed over the whole corpus several times; the
   figure is the median of the repeats. Subsets are timed on their own.
2. Time to replay one complete 4-player game (default options, autopilot): the same game is
   replayed many times after a warm-up; median and p95 per replay.
3. `simulate.play` throughput: complete games and actions per second, autopilot and random policy.
4. Memory: tracemalloc peak while replaying one game, and what the finished game retains.

The garbage collector stays enabled, as in production. Goals are printed as PASS/FAIL next to
the figures and never change the exit status; the run stops only if the corpus is not what
`simulate.play` plays or does not replay to the same game (a broken engine, not a slow one).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engine import (  # noqa: E402
    RULES_VERSION,
    Options,
    Setup,
    encode_action,
    replay,
)
from games.engine.options import MAX_PLAYERS, MIN_PLAYERS, MOVEMENTS  # noqa: E402
from games.engine.simulate import play  # noqa: E402

#: Goals (the brief's speed goals). Memory is measured but has no goal yet.
GOAL_REPLAY_ENTRIES_PER_S = 100_000
GOAL_ONE_GAME_MS = 3.0

#: The one game of measurement 2 (and of the memory figures).
ONE_GAME = Setup(Options(), players=4, seed=1)

PROFILES = {
    # corpus: extra 4-player default autopilot games, random-policy games and their turn cap;
    # repeats of the corpus replay; replays of the one game; runs per seed across the 4p subset;
    # simulate: autopilot games, random games (per pass) and passes.
    "full": dict(
        four_player_games=20,
        random_games=16,
        random_max_turns=200,
        corpus_repeats=9,
        one_game_runs=1000,
        one_game_warmup=50,
        per_seed_runs=25,
        sim_autopilot_games=50,
        sim_random_games=8,
        sim_passes=3,
    ),
    "quick": dict(
        four_player_games=5,
        random_games=4,
        random_max_turns=100,
        corpus_repeats=3,
        one_game_runs=200,
        one_game_warmup=20,
        per_seed_runs=5,
        sim_autopilot_games=10,
        sim_random_games=2,
        sim_passes=1,
    ),
}


# ---------------------------------------------------------------------------- playing games


def all_setups(seed: int) -> list[Setup]:
    """Every valid (players, options) combination; 5–8 players need pickup_before_movement."""
    setups = []
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for shift_change in (False, True):
            for pickup_before_movement in (False, True):
                if players >= 5 and not pickup_before_movement:
                    continue
                for movement in MOVEMENTS:
                    options = Options(shift_change, pickup_before_movement, movement)
                    setups.append(Setup(options, players, seed + len(setups)))
    return setups


class Stored:
    """One corpus game as the server keeps it: setup and JSON-like action log."""

    __slots__ = ("label", "setup", "policy", "actions", "finished")

    def __init__(self, label, setup, policy, actions, finished):
        self.label, self.setup, self.policy = label, setup, policy
        self.actions, self.finished = actions, finished


def build_corpus(profile: dict) -> dict[str, list[Stored]]:
    subsets: dict[str, list[Stored]] = {
        "autopilot_all_setups": [],
        "autopilot_4p_default": [],
        "random_policy": [],
    }

    def add(subset, setup, policy, max_turns):
        game, _ = play(setup, policy=policy, max_turns=max_turns)
        # The corpus must replay to the same game.
        actions = [encode_action(a) for a in game.history]
        if replay(setup, actions) != game:
            raise RuntimeError(f"replaying the log does not give the same game for {setup}")
        subsets[subset].append(
            Stored(
                f"{setup.players}p {setup.options.to_json()} seed {setup.seed}",
                setup,
                policy,
                actions,
                game.over,
            )
        )

    for setup in all_setups(seed=1000):
        add("autopilot_all_setups", setup, "autopilot", 2000)
    for k in range(profile["four_player_games"]):
        add("autopilot_4p_default", Setup(Options(), 4, 2000 + k), "autopilot", 2000)
    setups = all_setups(seed=3000)
    stride = max(1, len(setups) // max(1, profile["random_games"]))
    for setup in setups[::stride][: profile["random_games"]]:
        add("random_policy", setup, "random", profile["random_max_turns"])
    return subsets


# ---------------------------------------------------------------------------- measuring


def percentile(sorted_values: list, fraction: float):
    """Nearest-rank percentile of an already sorted list."""
    return sorted_values[max(0, math.ceil(fraction * len(sorted_values)) - 1)]


def time_replay_pass(games: list[Stored], cpu: list[int] | None = None) -> int:
    """Wall-clock ns of one replay of `games`; appends the process CPU ns to `cpu` if given."""
    cpu_ns = time.process_time_ns()
    start_ns = time.perf_counter_ns()
    for stored in games:
        replay(stored.setup, stored.actions)
    elapsed = time.perf_counter_ns() - start_ns
    if cpu is not None:
        cpu.append(time.process_time_ns() - cpu_ns)
    return elapsed


def time_replay_json_pass(games: list[tuple[Setup, str]]) -> int:
    start_ns = time.perf_counter_ns()
    for setup, text in games:
        replay(setup, json.loads(text))
    return time.perf_counter_ns() - start_ns


def measure_throughput(corpus: dict[str, list[Stored]], repeats: int) -> dict:
    everything = [g for games in corpus.values() for g in games]
    subsets = {"all": everything, **corpus}
    as_text = [(g.setup, json.dumps(g.actions, separators=(",", ":"))) for g in everything]
    time_replay_pass(everything)  # warm-up
    samples: dict[str, list[int]] = {name: [] for name in subsets}
    samples["all_from_json_text"] = []
    cpu_all: list[int] = []
    wall_start, cpu_start = time.perf_counter_ns(), time.process_time_ns()
    for _ in range(repeats):
        for name, games in subsets.items():
            samples[name].append(time_replay_pass(games, cpu_all if name == "all" else None))
        samples["all_from_json_text"].append(time_replay_json_pass(as_text))
    results = {}
    for name, ns in samples.items():
        games = subsets.get(name, everything)
        entries = sum(len(g.actions) for g in games)
        rates = sorted(entries / (t / 1e9) for t in ns)
        results[name] = {
            "games": len(games),
            "finished": sum(g.finished for g in games),
            "entries": entries,
            "entries_per_s_median": statistics.median(rates),
            "entries_per_s_min": rates[0],
            "entries_per_s_max": rates[-1],
            "pass_ms_median": statistics.median(ns) / 1e6,
            "repeats": repeats,
        }
    results["all"]["log_json_bytes"] = sum(len(text) for _, text in as_text)
    # Per CPU second of this process: what preemption by other processes does not change.
    results["all"]["entries_per_cpu_s_median"] = results["all"]["entries"] / (
        statistics.median(cpu_all) / 1e9
    )
    # Below 1, other processes took this CPU during the passes and the rates are understated.
    results["cpu_share"] = (time.process_time_ns() - cpu_start) / (
        time.perf_counter_ns() - wall_start
    )
    return results


def replay_times_ns(setup: Setup, actions: list[dict], runs: int, warmup: int) -> list[int]:
    for _ in range(warmup):
        replay(setup, actions)
    times = []
    clock = time.perf_counter_ns
    for _ in range(runs):
        start_ns = clock()
        replay(setup, actions)
        times.append(clock() - start_ns)
    times.sort()
    return times


def measure_one_game(profile: dict, corpus: dict[str, list[Stored]]) -> dict:
    game, _ = play(ONE_GAME)
    actions = [encode_action(a) for a in game.history]
    times = replay_times_ns(ONE_GAME, actions, profile["one_game_runs"], profile["one_game_warmup"])
    result = {
        "setup": ONE_GAME.to_json(),
        "entries": len(actions),
        "turns": game.turn,
        "runs": len(times),
        "warmup": profile["one_game_warmup"],
        "median_ms": statistics.median(times) / 1e6,
        "p95_ms": percentile(times, 0.95) / 1e6,
        "min_ms": times[0] / 1e6,
        "max_ms": times[-1] / 1e6,
        "mean_ms": statistics.fmean(times) / 1e6,
    }
    # The same figure for every 4-player default game of the corpus, so one seed cannot flatter.
    medians = []
    for stored in corpus["autopilot_4p_default"]:
        per_seed = replay_times_ns(stored.setup, stored.actions, profile["per_seed_runs"], 3)
        medians.append((statistics.median(per_seed) / 1e6, len(stored.actions)))
    medians.sort()
    result["across_seeds"] = {
        "games": len(medians),
        "runs_each": profile["per_seed_runs"],
        "median_of_medians_ms": statistics.median(m for m, _ in medians),
        "worst_median_ms": medians[-1][0],
        "worst_entries": medians[-1][1],
        "entries_min": min(n for _, n in medians),
        "entries_max": max(n for _, n in medians),
    }
    return result


def measure_simulate(profile: dict) -> dict:
    results = {}
    for policy, count, max_turns in (
        ("autopilot", profile["sim_autopilot_games"], 2000),
        # Random games run 1,500-2,500 turns; the CLI's default cap (2000) would cut many off.
        ("random", profile["sim_random_games"], 10_000),
    ):
        setups = [Setup(Options(), 4, 5000 + k) for k in range(count)]
        expected = []
        for setup in setups:  # untimed: action counts, and the reference notifications
            game, notifications = play(setup, policy=policy, max_turns=max_turns)
            expected.append((len(game.history), len(notifications), game.over, notifications))
        play(setups[0], policy=policy, max_turns=max_turns)  # warm-up
        passes = []
        for _ in range(profile["sim_passes"]):
            elapsed = 0
            for setup, (_, _, _, reference) in zip(setups, expected, strict=True):
                start_ns = time.perf_counter_ns()
                _, notifications = play(setup, policy=policy, max_turns=max_turns)
                elapsed += time.perf_counter_ns() - start_ns
                if notifications != reference:
                    raise RuntimeError(f"simulate.play is not deterministic for {setup}")
            passes.append(elapsed)
        seconds = statistics.median(passes) / 1e9
        actions = sum(e[0] for e in expected)
        results[policy] = {
            "players": 4,
            "options": Options().to_json(),
            "max_turns": max_turns,
            "games": count,
            "finished": sum(e[2] for e in expected),
            "actions": actions,
            "notifications": sum(e[1] for e in expected),
            "passes": len(passes),
            "games_per_s": count / seconds,
            "actions_per_s": actions / seconds,
            "ms_per_game": seconds * 1e3 / count,
        }
    return results


def measure_memory(corpus: dict[str, list[Stored]]) -> dict:
    def traced(setup, actions):
        gc.collect()
        tracemalloc.start()
        try:
            before, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            game = replay(setup, actions)
            after, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        del game
        return {
            "entries": len(actions),
            "peak_kib": (peak - before) / 1024,
            "retained_kib": (after - before) / 1024,
            "log_json_bytes": len(json.dumps(actions, separators=(",", ":"))),
        }

    game, _ = play(ONE_GAME)
    one = traced(ONE_GAME, [encode_action(a) for a in game.history])
    everything = [g for games in corpus.values() for g in games]
    largest = max(everything, key=lambda g: len(g.actions))
    big = traced(largest.setup, largest.actions)
    big["game"] = f"{largest.label} ({largest.policy} policy)"
    result = {"one_game": one, "largest_corpus_game": big}
    try:
        import resource

        scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
        result["process_max_rss_mib"] = (
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20
        )
    except (ImportError, OSError):
        pass
    return result


# ---------------------------------------------------------------------------- reporting


def machine_facts() -> dict:
    facts = {
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "python_build": " ".join(platform.python_build()),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": _cpu_model() or platform.processor() or "unknown",
        "cpu_count": os.cpu_count(),
        "gc_enabled": gc.isenabled(),
        "gc_thresholds": gc.get_threshold(),
        "rules_version": RULES_VERSION,
    }
    if hasattr(os, "getloadavg"):  # other work on the machine skews every figure
        facts["load_average"] = tuple(round(x, 2) for x in os.getloadavg())
    if hasattr(os, "sched_getaffinity"):
        facts["cpus_usable"] = len(os.sched_getaffinity(0))
    facts.update(_git_state())
    return facts


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _git_state() -> dict:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "games/engine"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return {}
    changed = sorted(line[3:] for line in dirty if line.strip())
    return {"git_commit": commit, "engine_uncommitted_changes": changed}


def status(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def render(facts: dict, results: dict) -> str:
    thr, one, sim, mem = (
        results[k] for k in ("replay_throughput", "one_game", "simulate", "memory")
    )
    rows: list[tuple[str, str, str, str]] = []

    def row(measure, figure, goal="", state=""):
        rows.append((measure, figure, goal, state))

    goal_rate = f">= {GOAL_REPLAY_ENTRIES_PER_S:,} entries/s"
    names = {
        "all": "whole corpus",
        "autopilot_4p_default": "4-player default options, autopilot",
        "autopilot_all_setups": "every players x options, autopilot",
        "random_policy": "random policy (cut off at max turns)",
        "all_from_json_text": "whole corpus, incl. json.loads of the log",
    }
    for key in (
        "all",
        "autopilot_4p_default",
        "autopilot_all_setups",
        "random_policy",
        "all_from_json_text",
    ):
        r = thr[key]
        figure = (
            f"{r['entries_per_s_median']:,.0f} entries/s "
            f"({r['games']} games, {r['entries']:,} entries)"
        )
        if key in ("all", "autopilot_4p_default"):
            row(
                f"replay: {names[key]}",
                figure,
                goal_rate,
                status(r["entries_per_s_median"] >= GOAL_REPLAY_ENTRIES_PER_S),
            )
            row(
                f"replay: {names[key]}, slowest / fastest repeat",
                f"{r['entries_per_s_min']:,.0f} / {r['entries_per_s_max']:,.0f} entries/s "
                f"({r['repeats']} repeats)",
            )
            if "entries_per_cpu_s_median" in r:
                row(
                    f"replay: {names[key]}, per CPU second of the process",
                    f"{r['entries_per_cpu_s_median']:,.0f} entries/CPU-s (median)",
                )
        else:
            row(f"replay: {names[key]}", figure)
    row(
        "replay one 4p game: median",
        f"{one['median_ms']:.3f} ms ({one['entries']} entries, {one['runs']} runs)",
        f"<= {GOAL_ONE_GAME_MS:g} ms",
        status(one["median_ms"] <= GOAL_ONE_GAME_MS),
    )
    row(
        "replay one 4p game: p95 / min / max",
        f"{one['p95_ms']:.3f} / {one['min_ms']:.3f} / {one['max_ms']:.3f} ms",
    )
    seeds = one["across_seeds"]
    row(
        f"replay 4p game, {seeds['games']} seeds: median of medians",
        f"{seeds['median_of_medians_ms']:.3f} ms "
        f"({seeds['entries_min']}-{seeds['entries_max']} entries)",
        f"<= {GOAL_ONE_GAME_MS:g} ms",
        status(seeds["median_of_medians_ms"] <= GOAL_ONE_GAME_MS),
    )
    row(
        f"replay 4p game, {seeds['games']} seeds: worst median",
        f"{seeds['worst_median_ms']:.3f} ms ({seeds['worst_entries']} entries)",
    )
    for policy in ("autopilot", "random"):
        s = sim[policy]
        row(
            f"simulate.play, 4p default, {policy}",
            f"{s['games_per_s']:,.1f} games/s, {s['actions_per_s']:,.0f} actions/s "
            f"({s['ms_per_game']:.2f} ms/game, {s['actions'] // s['games']:,} actions/game, "
            f"{s['finished']}/{s['games']} finished)",
        )
    m1, mbig = mem["one_game"], mem["largest_corpus_game"]
    row(
        "memory: replay one 4p game, peak",
        f"{m1['peak_kib']:,.1f} KiB (retained {m1['retained_kib']:,.1f} KiB; "
        f"log {m1['log_json_bytes']:,} B JSON)",
        "no goal set",
        "-",
    )
    row(
        "memory: largest corpus game, peak",
        f"{mbig['peak_kib']:,.1f} KiB ({mbig['entries']:,} entries; "
        f"log {mbig['log_json_bytes']:,} B JSON)",
        "no goal set",
        "-",
    )
    if "process_max_rss_mib" in mem:
        row("memory: benchmark process max RSS", f"{mem['process_max_rss_mib']:.1f} MiB")

    headers = ("measure", "figure", "goal", "status")
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(4)]

    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    lines = [line(headers), line("-" * w for w in widths), *(line(r) for r in rows)]

    changed = facts.get("engine_uncommitted_changes") or []
    machine = [
        f"python {facts['python']} ({facts['implementation']}, {facts['python_build']})",
        f"platform {facts['platform']} ({facts['machine']})",
        f"cpu {facts['processor']}; os.cpu_count() = {facts['cpu_count']}"
        + (f", usable {facts['cpus_usable']}" if "cpus_usable" in facts else ""),
        f"gc enabled = {facts['gc_enabled']}, thresholds {facts['gc_thresholds']}",
        f"engine rules version {facts['rules_version']}, git {facts.get('git_commit', '?')}"
        + (f" + uncommitted changes in {', '.join(changed)}" if changed else ""),
        f"date {facts['date_utc']}; profile {results['profile']}",
        f"contention: CPU share of the replay passes {thr['cpu_share']:.2f} "
        "(1.00 = never preempted)"
        + (
            f"; load average (1, 5, 15 min) {results['load_average_at_start']} at start, "
            f"{facts['load_average']} at end"
            if "load_average" in facts
            else ""
        ),
    ]
    return "\n".join(["Machine:", *("  " + m for m in machine), "", *lines])


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small corpus, few repeats")
    parser.add_argument("--json", metavar="PATH", help="also write every figure as JSON here")
    args = parser.parse_args(argv)
    profile_name = "quick" if args.quick else "full"
    profile = PROFILES[profile_name]

    def say(text):
        print(text, file=sys.stderr, flush=True)

    started = time.perf_counter()
    load_at_start = None
    if hasattr(os, "getloadavg"):
        load_at_start = tuple(round(x, 2) for x in os.getloadavg())
    say(f"[{profile_name}] building the corpus ...")
    corpus = build_corpus(profile)
    say(f"[{profile_name}] 1/4 replay throughput ...")
    throughput = measure_throughput(corpus, profile["corpus_repeats"])
    say(f"[{profile_name}] 2/4 one 4-player game ...")
    one_game = measure_one_game(profile, corpus)
    say(f"[{profile_name}] 3/4 simulate.play ...")
    simulate = measure_simulate(profile)
    say(f"[{profile_name}] 4/4 memory ...")
    memory = measure_memory(corpus)

    results = {
        "profile": profile_name,
        "load_average_at_start": load_at_start,
        "parameters": profile,
        "goals": {
            "replay_entries_per_s": GOAL_REPLAY_ENTRIES_PER_S,
            "one_4p_game_median_ms": GOAL_ONE_GAME_MS,
        },
        "status": {
            "replay_entries_per_s": status(
                throughput["all"]["entries_per_s_median"] >= GOAL_REPLAY_ENTRIES_PER_S
            ),
            "one_4p_game_median_ms": status(one_game["median_ms"] <= GOAL_ONE_GAME_MS),
        },
        "replay_throughput": throughput,
        "one_game": one_game,
        "simulate": simulate,
        "memory": memory,
        "seconds": round(time.perf_counter() - started, 1),
    }
    facts = machine_facts()
    print(render(facts, results))
    print(f"\n(took {results['seconds']} s)")
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"machine": facts, **results}, indent=2) + "\n", "utf-8")
        say(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
