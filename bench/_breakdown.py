"""The server side of a measuring window, from what bench/_probe.py recorded in each worker:
per-worker requests and CPU, where a request's time went (waiting for a thread, for a pooled
connection, SQL, the rest of the view, sending), the gc pauses and event-loop lags, and for the
client's slow requests what the server saw of them. Used by bench/api.py and bench/ws_moves.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from bench import _client

_dumps = 0


async def dump(
    directory: Path, pids: list[int], patience: float = 3.0, mark: bool = False
) -> dict[int, dict]:
    """Ask every worker for its probe figures now; {pid: figures} of those that answered.
    `mark`: the counters only (a window's start)."""
    global _dumps
    _dumps += 1
    number = str(_dumps)
    (directory / f"{'mark' if mark else 'dump'}-{number}").touch()
    deadline = time.monotonic() + patience
    found: dict[int, dict] = {}
    while time.monotonic() < deadline:
        for pid in pids:
            path = directory / f"{pid}-{number}.json"
            if pid not in found and path.exists():
                found[pid] = json.loads(path.read_text())
        if len(found) == len(pids):
            break
        await asyncio.sleep(0.05)
    return found


def _pct(values: list[float], q: float) -> float | None:
    value = _client.percentile(values, q)
    return None if value is None else round(1000 * value, 2)


def _spread(values: list[float]) -> dict:
    return {
        "p50_ms": _pct(values, 50),
        "p99_ms": _pct(values, 99),
        "max_ms": None if not values else round(1000 * max(values), 2),
        "mean_ms": None if not values else round(1000 * sum(values) / len(values), 3),
    }


SLOW_MS = 100.0


def analyse(
    before: dict[int, dict],
    after: dict[int, dict],
    window: _client.Window,
    stats: _client.Stats,
    kind: str,
) -> dict:
    """The breakdown of one window (`before`/`after`: the dumps at its start and end; the
    request records are those of `after`, which hold every request since `before`)."""
    wall = window.end - window.start
    workers = []
    by_id: dict[str, tuple] = {}
    gc_pauses: list[tuple[float, float, int]] = []
    lags: list[tuple[float, float]] = []
    for pid, a in sorted(after.items()):
        b = before.get(pid)
        if b is None:
            continue
        in_window = [r for r in a["records"] if window.start <= r[2] <= window.end]
        for r in a["records"]:
            if r[0] is not None:
                by_id[r[0]] = (pid, *r[1:])
        gc_pauses += [
            (t, s, g, pid) for t, s, g in a["gc_pauses"] if window.start <= t <= window.end
        ]
        lags += [(t, s, pid) for t, s in a["lags"] if window.start <= t <= window.end]
        requests = a["requests"] - b["requests"]
        user_s, system_s = a["user_s"] - b["user_s"], a["system_s"] - b["system_s"]
        pool_a, pool_b = a.get("pool", {}), b.get("pool", {})
        workers.append(
            {
                "pid": pid,
                "requests": requests,
                "in_window": len(in_window),
                "of_kind": sum(1 for r in in_window if r[1] == kind),
                "cpu_per_s": round((user_s + system_s) / wall, 3),
                "mean_in_flight": round((a["in_flight_sum"] - b["in_flight_sum"]) / requests, 1)
                if requests
                else 0,
                "max_in_flight": a["in_flight_max"],
                "gc": {
                    g: {
                        "count": a["gc"][g]["count"] - b["gc"][g]["count"],
                        "ms": round(1000 * (a["gc"][g]["s"] - b["gc"][g]["s"]), 1),
                        "cpu_ms": round(1000 * (a["gc"][g]["cpu_s"] - b["gc"][g]["cpu_s"]), 1),
                    }
                    for g in a["gc"]
                },
                "gc_max_ms": round(1000 * a["gc_max_s"], 1),
                "gc_collected": {
                    g: a["gc"][g]["collected"] - b["gc"][g]["collected"] for g in a["gc"]
                },
                "gc_sizes": a.get("gc_sizes"),
                "gc_frozen": a.get("gc_frozen"),
                # the commonest types in the oldest generation (BENCH_PROBE_CENSUS=1)
                "gc_old_types": a.get("gc_old_types"),
                "loop_lag_mean_ms": round(
                    1000
                    * (a["lag_sum_s"] - b["lag_sum_s"])
                    / max(a["lag_ticks"] - b["lag_ticks"], 1),
                    2,
                ),
                "loop_lag_max_ms": round(1000 * a["lag_max_s"], 1),
                "pool_queued": pool_a.get("requests_queued", 0) - pool_b.get("requests_queued", 0),
                "pool_wait_ms": pool_a.get("requests_wait_ms", 0)
                - pool_b.get("requests_wait_ms", 0),
                "pool_size": pool_a.get("pool_size"),
                "threads": a.get("threads"),
                # connections closed to rebalance the node (taxi_project/worker_load.py)
                "shed": a.get("shed", 0) - b.get("shed", 0),
                "user_s": user_s,
                "system_s": system_s,
                "switches": [x - y for x, y in zip(a["switches"], b["switches"], strict=True)],
            }
        )
    total = sum(w["of_kind"] for w in workers) or 1
    for w in workers:
        w["share"] = round(w["of_kind"] / total, 3)

    # the client's accepted requests of the window, as the server saw them
    parts: dict[str, list[float]] = {
        k: []
        for k in (
            "client",
            "server",
            "outside",
            "thread_wait",
            "pool_wait",
            "sql",
            "view",
            "send",
        )  # fmt: skip
    }
    sql_n: list[int] = []
    slow = []
    for rid, (t0, t1) in stats.timed.items():
        r = by_id.get(rid)
        if r is None or r[3] is None or r[4] is None:
            continue
        pid, _kind, entered, thread, view_done, sent, pool_wait, sql_s, n, _status = r
        row = {
            "client": t1 - t0,
            "server": sent - entered,
            "outside": (t1 - t0) - (sent - entered),
            "thread_wait": thread - entered,
            "pool_wait": pool_wait,
            "sql": sql_s,
            "view": (view_done - thread) - pool_wait - sql_s,
            "send": sent - view_done,
        }
        for k, v in row.items():
            parts[k].append(v)
        sql_n.append(n)
        if 1000 * row["client"] >= SLOW_MS:
            overlapping_gc = sum(s for t, s, _g, p in gc_pauses if p == pid and t0 <= t <= t1)
            worst_lag = max((s for t, s, p in lags if p == pid and t0 <= t <= t1), default=0.0)
            slow.append({**row, "pid": pid, "gc": overlapping_gc, "lag": worst_lag, "at": t0})
    slow_summary = None
    if slow:
        keys = ["client", "outside", "thread_wait", "pool_wait", "sql", "view", "send", "gc", "lag"]
        slow_summary = {
            "count": len(slow),
            "mean_ms": {k: round(1000 * sum(s[k] for s in slow) / len(slow), 1) for k in keys},
            "by_worker": {
                str(pid): sum(1 for s in slow if s["pid"] == pid) for pid in sorted(after)
            },
            "seconds_into_window": sorted({int(s["at"] - window.start) for s in slow}),
        }
    biggest_gc = sorted(gc_pauses, key=lambda p: -p[1])[:5]
    biggest_lag = sorted(lags, key=lambda p: -p[1])[:5]
    return {
        "workers": workers,
        "per_request": _per_request(workers),
        "matched": len(parts["client"]),
        "parts": {k: _spread(v) for k, v in parts.items()},
        "sql_statements_mean": round(sum(sql_n) / len(sql_n), 2) if sql_n else None,
        "slow": slow_summary,
        "gc_pauses_over_2ms": len(gc_pauses),
        "gc_biggest": [
            {"at_s": round(t - window.start, 2), "ms": round(1000 * s, 1), "gen": g, "pid": p}
            for t, s, g, p in biggest_gc
        ],
        "loop_lags_over_20ms": len(lags),
        "loop_lag_biggest": [
            {"at_s": round(t - window.start, 2), "ms": round(1000 * s, 1), "pid": p}
            for t, s, p in biggest_lag
        ],
    }


def _per_request(workers: list[dict]) -> dict | None:
    """The CPU (user, system) and context switches of the workers that served HTTP requests in
    the window, per request: what a request costs beyond its own code (thread hand-offs, waits
    for the interpreter lock, socket calls) shows here first."""
    workers = [w for w in workers if w["requests"] > 0]
    requests = sum(w["requests"] for w in workers)
    if not requests:
        return None
    return {
        "user_ms": round(1000 * sum(w["user_s"] for w in workers) / requests, 2),
        "system_ms": round(1000 * sum(w["system_s"] for w in workers) / requests, 2),
        "switches_voluntary": round(sum(w["switches"][0] for w in workers) / requests, 1),
        "switches_involuntary": round(sum(w["switches"][1] for w in workers) / requests, 1),
    }


def _f(value, spec=".1f") -> str:
    return "-" if value is None else format(value, spec)


def text(name: str, b: dict) -> list[str]:
    """The breakdown of one window, as report lines."""
    lines = [
        f"  {name}: per worker (HTTP requests of the window, share of its {b.get('kind', '')} "
        "requests, CPU s/s, mean/max in flight, gc count/wall (CPU), loop lag mean/max, "
        "pool queued/wait, connections shed):"
    ]
    for w in b["workers"]:
        gc_text = " ".join(
            f"g{g}:{v['count']}/{v['ms']:.0f}ms({v['cpu_ms']:.0f} CPU)" for g, v in w["gc"].items()
        )
        lines.append(
            f"    pid {w['pid']}: {w['in_window']} req, {100 * w['share']:.0f} % | CPU "
            f"{w['cpu_per_s']:.2f} | in flight {w['mean_in_flight']:.1f}/{w['max_in_flight']} | "
            f"{gc_text} (max {w['gc_max_ms']:.0f} ms; tracked {w['gc_sizes']}, frozen "
            f"{w['gc_frozen']}) | lag {w['loop_lag_mean_ms']:.1f}/"
            f"{w['loop_lag_max_ms']:.0f} ms | pool {w['pool_queued']}/{w['pool_wait_ms']} ms | "
            f"shed {w.get('shed', 0)}"
        )
    r = b.get("per_request")
    if r:
        lines.append(
            f"    per request of the window, the workers that served it: CPU "
            f"{r['user_ms']:.2f} ms user + {r['system_ms']:.2f} ms system; context switches "
            f"{r['switches_voluntary']:.1f} waiting + {r['switches_involuntary']:.1f} preempted"
        )
    p = b["parts"]
    if not b["matched"]:  # socket frames: the probe sees HTTP requests only
        return lines + _pauses(b)
    lines.append(
        f"    where a request's time went (p50 / p99 / max ms; {b['matched']} matched): "
        + "; ".join(
            f"{k.replace('_', ' ')} {_f(v['p50_ms'])}/{_f(v['p99_ms'])}/{_f(v['max_ms'], '.0f')}"
            for k, v in p.items()
        )
    )
    lines.append(
        "    (outside = the client's time minus the server's: the kernel's queue, uvicorn, the "
        f"loop, the client; {_f(b['sql_statements_mean'], '.2f')} SQL statements per request)"
    )
    s = b["slow"]
    if s:
        mean = s["mean_ms"]
        lines.append(
            f"    the {s['count']} requests ≥ {SLOW_MS:.0f} ms, mean ms: "
            + ", ".join(f"{k.replace('_', ' ')} {v:.1f}" for k, v in mean.items())
            + f"; by worker {s['by_worker']}; in seconds {s['seconds_into_window'][:20]}"
        )
    return lines + _pauses(b)


def _pauses(b: dict) -> list[str]:
    lines = []
    if b["gc_biggest"]:
        lines.append(
            f"    gc pauses ≥ 2 ms: {b['gc_pauses_over_2ms']}; biggest "
            + ", ".join(
                f"{g['ms']:.0f} ms (gen {g['gen']}, at {g['at_s']:.1f} s)" for g in b["gc_biggest"]
            )  # fmt: skip
        )
    if b["loop_lag_biggest"]:
        lines.append(
            f"    event-loop lags ≥ 20 ms: {b['loop_lags_over_20ms']}; biggest "
            + ", ".join(f"{g['ms']:.0f} ms (at {g['at_s']:.1f} s)" for g in b["loop_lag_biggest"])
        )
    return lines
