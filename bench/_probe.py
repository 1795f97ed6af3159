"""Inside each server worker, when bench/api.py asks for it (`BENCH_PROBE_DIR`): where a request's
time goes, for the breakdown of the report. Loaded by bench/_asgi.py only; the product never
imports it.

Per request (the ASGI call that Django's handler serves): when it entered the application, when
its thread started the middleware chain (the wait for a thread: Django runs the synchronous chain
in a thread of its own per request), the wait for a pooled database connection, the time and
count of its SQL statements, when the view's answer was ready and when the response was sent.
A request carrying `x-bench-id` is recorded with that id, so the load generator can look up
what the server saw of each of its slow requests; the others by path only.

Per process: the garbage collector's pauses (gc.callbacks), the event loop's lag (a task that
sleeps 5 ms and measures how late it wakes: the loop was busy, or could not get the GIL), the
psycopg pool's counters (requests that queued for a connection, and how long), requests in
flight, the connections it closed to rebalance the node (taxi_project/worker_load.py), its
CPU time (user and system apart) and its threads' context switches (those that
gave up the CPU to wait, for a lock, the interpreter or I/O, and those the kernel took it
from).

bench/api.py asks for a dump by creating `<dir>/dump-<n>` (`mark-<n>`: counters only, at a
window's start); each worker writes
`<dir>/<pid>-<n>.json` (counters since start, and the request records since its previous dump)
within 0.1 s."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import json
import os
import resource
import threading
import time
from pathlib import Path

from taxi_project import worker_load

clock = time.perf_counter  # CLOCK_MONOTONIC: the same clock in every process of the machine

_current: contextvars.ContextVar[dict | None] = contextvars.ContextVar("bench_probe", default=None)

LAG_TICK = 0.005
SLOW_GC = 0.002  # gc pauses from this long are listed one by one
SLOW_LAG = 0.020  # loop lags from this long are listed one by one


class _State:
    def __init__(self):
        self.lock = threading.Lock()
        self.records: list[tuple] = []
        self.requests = 0
        self.in_flight = 0
        self.in_flight_max = 0
        self.in_flight_sum = 0  # summed at each arrival: mean concurrency seen by a request
        # generation: [collections, seconds, objects collected]
        self.gc = {0: [0, 0.0, 0, 0.0], 1: [0, 0.0, 0, 0.0], 2: [0, 0.0, 0, 0.0]}  # + its CPU s
        self.gc_max = 0.0
        self.gc_pauses: list[tuple[float, float, int]] = []  # (start, seconds, generation)
        self.gc_started: float | None = None
        self.gc_started_cpu = 0.0
        self.lag_ticks = 0
        self.lag_sum = 0.0
        self.lag_max = 0.0
        self.lags: list[tuple[float, float]] = []  # (when, seconds late)
        self.lag_task: asyncio.Task | None = None


_state = _State()


def _on_gc(phase: str, info: dict) -> None:
    if phase == "start":
        _state.gc_started = clock()
        _state.gc_started_cpu = time.thread_time()
        return
    if _state.gc_started is None:
        return
    now = clock()
    took = now - _state.gc_started
    generation = info.get("generation", 0)
    _state.gc_started = None
    counts = _state.gc[generation]
    counts[0] += 1
    counts[1] += took
    counts[2] += info.get("collected", 0)
    counts[3] += time.thread_time() - _state.gc_started_cpu
    _state.gc_max = max(_state.gc_max, took)
    if took >= SLOW_GC:
        _state.gc_pauses.append((now - took, took, generation))


async def _lag_loop() -> None:
    while True:
        due = clock() + LAG_TICK
        await asyncio.sleep(LAG_TICK)
        late = clock() - due
        _state.lag_ticks += 1
        _state.lag_sum += late
        if late > _state.lag_max:
            _state.lag_max = late
        if late >= SLOW_LAG:
            _state.lags.append((due, late))


def _pool_stats() -> dict:
    try:
        from django.db import connection

        pool = getattr(connection, "pool", None)
        return dict(pool.get_stats()) if pool is not None else {}
    except Exception:  # noqa: BLE001 - a probe never breaks the server
        return {}


def _census() -> list[tuple[str, int]]:
    """The commonest types in the oldest generation (slow: only when asked for)."""
    from collections import Counter

    return Counter(type(o).__qualname__ for o in gc.get_objects(2)).most_common(25)


def _dump(directory: Path, number: str, mark: bool) -> None:
    """The figures now; `mark` (a window's start): the counters only, what came before is
    dropped unwritten (writing it would hold the interpreter lock as the window opens)."""
    with _state.lock:
        records, _state.records = _state.records, []
        gc_pauses, _state.gc_pauses = _state.gc_pauses, []
        lags, _state.lags = _state.lags, []
    if mark:
        records, gc_pauses, lags = [], [], []
    usage = resource.getrusage(resource.RUSAGE_SELF)
    data = {
        "pid": os.getpid(),
        "at": clock(),
        "user_s": usage.ru_utime,
        "system_s": usage.ru_stime,
        "switches": [usage.ru_nvcsw, usage.ru_nivcsw],  # voluntary, involuntary
        "requests": _state.requests,
        "in_flight_max": _state.in_flight_max,
        "in_flight_sum": _state.in_flight_sum,
        "gc": {
            str(g): {"count": c, "s": s, "collected": n, "cpu_s": cpu}
            for g, (c, s, n, cpu) in _state.gc.items()
        },
        # objects the collector tracks in each generation now, and those frozen out of its sight:
        # not at a window's start, as counting them walks every one holding the interpreter lock
        # (gc.get_freeze_count walks the ~150,000 frozen objects: 13 ms of CPU a worker, every
        # worker at once, which stalled each window's first tenth of a second)
        "gc_sizes": None if mark else [len(gc.get_objects(g)) for g in range(3)],
        "gc_frozen": None if mark else gc.get_freeze_count(),
        "gc_old_types": _census() if os.environ.get("BENCH_PROBE_CENSUS") and not mark else None,
        "gc_max_s": _state.gc_max,
        "gc_pauses": gc_pauses,
        "lag_ticks": _state.lag_ticks,
        "lag_sum_s": _state.lag_sum,
        "lag_max_s": _state.lag_max,
        "lags": lags,
        "pool": _pool_stats(),
        "threads": threading.active_count(),
        "shed": worker_load.shed,
        # (id, kind, entered, thread, view_done, sent, pool_wait, sql_s, sql_n, status)
        "records": records,
    }
    _state.in_flight_max = _state.in_flight
    _state.lag_max = 0.0
    _state.gc_max = 0.0
    path = directory / f"{os.getpid()}-{number}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.rename(path)


def _dumper(directory: Path) -> None:
    done: set[str] = set()
    while True:
        time.sleep(0.1)
        try:
            asked = {p.name[5:] for p in directory.glob("dump-*")}
            marks = {p.name[5:] for p in directory.glob("mark-*")}
        except OSError:
            continue
        for number in sorted((asked | marks) - done):
            done.add(number)
            try:
                _dump(directory, number, number in marks)
            except OSError:
                pass


def _kind(path: str, method: str) -> str:
    if path.endswith("/actions") and method == "POST":
        return "move"
    if path == "/api/v1/me":
        return "me"
    return "other"


class Probe:
    """ASGI wrapper around the whole application: one record per HTTP request."""

    def __init__(self, app, directory: str):
        self.app = app
        self.directory = Path(directory)
        self.started_pid: int | None = None

    def _start(self) -> None:
        if self.started_pid == os.getpid():
            return
        self.started_pid = os.getpid()
        gc.callbacks.append(_on_gc)
        threading.Thread(target=_dumper, args=(self.directory,), daemon=True).start()

    async def __call__(self, scope, receive, send):
        self._start()  # at the lifespan's start: every worker answers dumps from the outset
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if _state.lag_task is None or _state.lag_task.done():
            _state.lag_task = asyncio.get_running_loop().create_task(_lag_loop())
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        bench_id = None
        for name, value in scope.get("headers", ()):
            if name == b"x-bench-id":
                bench_id = value.decode("latin1")
        record = {"entered": clock(), "thread": None, "view_done": None, "pool_wait": 0.0,
                  "sql_s": 0.0, "sql_n": 0, "status": None}  # fmt: skip
        token = _current.set(record)
        _state.requests += 1
        _state.in_flight += 1
        _state.in_flight_sum += _state.in_flight
        _state.in_flight_max = max(_state.in_flight_max, _state.in_flight)

        async def watched(message):
            if message["type"] == "http.response.start":
                record["status"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            _state.in_flight -= 1
            _current.reset(token)
            row = (
                bench_id, _kind(scope["path"], scope.get("method", "")), record["entered"],
                record["thread"], record["view_done"], clock(), record["pool_wait"],
                record["sql_s"], record["sql_n"], record["status"],
            )  # fmt: skip
            with _state.lock:
                _state.records.append(row)


def _timed_sql(record):
    def wrapper(execute, sql, params, many, context):
        started = clock()
        try:
            return execute(sql, params, many, context)
        finally:
            record["sql_s"] += clock() - started
            record["sql_n"] += 1

    return wrapper


class ProbeMiddleware:
    """First in the (synchronous) middleware chain: it runs in the request's thread. Takes the
    pooled connection first, so that the wait for one is timed apart from the SQL."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        record = _current.get()
        if record is None:
            return self.get_response(request)
        record["thread"] = clock()
        from django.db import connection

        if connection.settings_dict["ENGINE"].endswith("postgresql"):
            started = clock()
            connection.ensure_connection()
            record["pool_wait"] = clock() - started
        with connection.execute_wrapper(_timed_sql(record)):
            response = self.get_response(request)
        record["view_done"] = clock()
        return response
