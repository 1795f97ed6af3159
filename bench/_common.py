"""What the service benchmarks (api.py, ws.py, deadlines.py, chaos.py) share: logging, the
machine's CPU use, and a throw-away PostgreSQL database migrated for the run."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import psycopg

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
QUIET = 0.15  # busier than this before a run: other processes will skew the figures


def exit_on_signals() -> None:
    """SIGTERM and SIGHUP end the run as an exception would, so that its `finally` blocks and
    atexit hooks stop the server and drop the database."""

    def on_signal(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------- CPU


def machine_speed() -> float:
    """CPU milliseconds this machine takes for a fixed piece of pure-Python work: the engine
    playing the same 20 two-player games with the autopilot, the best of five tries. This VM's
    speed changes within the hour (a move's server CPU has varied by 2× with the same code), so
    two runs compare only at similar figures; lower is faster."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from games.engine.options import Options
    from games.engine.replay import Setup
    from games.engine.simulate import play

    play(Setup(options=Options(), players=2, seed=0))  # loads the board, warms the caches
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for seed in range(1, 21):
            play(Setup(options=Options(), players=2, seed=seed))
        best = min(best, time.process_time() - start)
    return round(1000 * best, 1)


def speed_line(speed: dict) -> str:
    """The report's line for `{"before": ms, "after": ms}` of `machine_speed`."""
    return (
        f"Machine speed: {speed['before']} ms before the run, {speed['after']} ms after, of CPU"
        " for fixed engine work (bench/_common.py: machine_speed; lower is faster; compare runs"
        " only at similar figures)"
    )


def _cpu_ticks() -> list[int]:
    """The machine's line of /proc/stat: user, nice, system, idle, iowait, irq, softirq, steal…"""
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:]]


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the machine since boot. Busy includes steal: time this
    VM's CPUs were ready to run and the hypervisor ran another guest (`machine_steal`)."""
    fields = _cpu_ticks()
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    total = sum(fields[:8])
    return (total - idle) / TICKS, total / TICKS


def machine_steal() -> float:
    """CPU seconds stolen from this VM by the hypervisor since boot (/proc/stat's eighth
    field): on a crowded host, time the benchmark wanted and did not get."""
    fields = _cpu_ticks()
    return (fields[7] if len(fields) > 7 else 0) / TICKS


class ProcStat(NamedTuple):
    ppid: int
    pgid: int
    comm: str
    own: float  # CPU seconds of the process itself
    reaped: float  # CPU seconds of its children that exited and were reaped


def proc_stat(pid: int) -> ProcStat | None:
    """One process, from /proc/<pid>/stat (None: it has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            data = f.read()
    except OSError:
        return None
    comm = data[data.find("(") + 1 : data.rfind(")")]
    rest = data[data.rfind(")") + 2 :].split()
    return ProcStat(
        ppid=int(rest[1]),
        pgid=int(rest[2]),
        comm=comm,
        own=(int(rest[11]) + int(rest[12])) / TICKS,
        reaped=(int(rest[13]) + int(rest[14])) / TICKS,
    )


def proc_stats() -> dict[int, ProcStat]:
    """Every process of the machine."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := proc_stat(int(name))) is not None:
            found[int(name)] = stat
    return found


def busy_fraction(seconds: float) -> float:
    """How busy the machine is (0..1) over the next `seconds`."""
    busy0, total0 = machine_cpu()
    time.sleep(seconds)
    busy1, total1 = machine_cpu()
    return (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0


def wait_quiet(patience: float) -> float:
    """Wait up to `patience` seconds for the machine to be quiet; return how busy it is."""
    deadline = time.monotonic() + patience
    busy = busy_fraction(2.0)
    while busy > QUIET and time.monotonic() < deadline:
        log(f"machine {100 * busy:.0f}% busy before the run; waiting (--wait-idle)")
        busy = busy_fraction(min(10.0, max(deadline - time.monotonic(), 1.0)))
    if busy > QUIET:
        log(
            f"WARNING: the machine is {100 * busy:.0f}% busy before the run: other processes "
            "compete for the CPUs and the figures will be low (see 'other processes' below)"
        )
    return busy


# ---------------------------------------------------------------------------------- database


def server_environment(database_url: str, redis_url: str) -> dict:
    """The server's settings for a benchmark (bench/api.py, bench/ab.py): production settings
    with DEBUG off on these PostgreSQL and Redis, a fresh secret key, and the rate limits raised
    so that the load generator is never refused (the move limit is still counted, as in
    production)."""
    return {
        "DJANGO_SETTINGS_MODULE": "taxi_project.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DEBUG": "false",
        "SECRET_KEY": "bench-" + secrets.token_urlsafe(32),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "AUTH_THROTTLE_RATE": "100000/min",
        "MOVE_THROTTLE_RATE": "100000/min",
        "TABLE_CREATE_THROTTLE_RATE": "100000/hour",
        # every simulated player comes from 127.0.0.1: no cap per address on what it opens
        "MAX_SOCKETS_PER_ADDRESS": "0",
        "MAX_HANDSHAKES_PER_ADDRESS": "0",
    }


def ident(name: str) -> str:
    """A database name as an SQL identifier (letters, digits and _ only)."""
    if not name.replace("_", "").isalnum():
        raise SystemExit(f"--db-name must be letters, digits and _: {name!r}")
    return f'"{name}"'


def pg_admin(pg_url: str, *statements: str) -> None:
    """Run statements on the server's `postgres` database (autocommit: CREATE/DROP DATABASE)."""
    with psycopg.connect(pg_url, dbname="postgres", autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def recreate_database(pg_url: str, db_name: str, env: dict) -> None:
    """Drop `db_name` if it exists, create it, and run `manage.py migrate` on it with `env`."""
    log(f"database {db_name}: drop and create, migrate")
    drop_database(pg_url, db_name, quiet=True)
    pg_admin(pg_url, f"CREATE DATABASE {ident(db_name)}")
    migrate(env)


def migrate(env: dict, timeout: float = 300) -> None:
    """`manage.py migrate` on the database `env` names."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT, env=env, check=True, timeout=timeout,
    )  # fmt: skip


def drop_database(pg_url: str, db_name: str, *, quiet: bool = False) -> None:
    pg_admin(pg_url, f"DROP DATABASE IF EXISTS {ident(db_name)} WITH (FORCE)")
    if not quiet:
        log(f"database {db_name} dropped")
