"""A real Celery worker with its embedded beat, in a subprocess, for live tests and benchmarks.

    from tests.e2e.server import current_database_url
    from tests.tasks.worker import celery_worker, isolated_redis_url

    with celery_worker(database_url=current_database_url(),
                       redis_url=isolated_redis_url(os.environ["REDIS_URL"])) as worker:
        ...                                   # beat ticks, the worker sweeps deadlines
        worker.kill(signal.SIGKILL)           # a crash: the worker, its pool and beat
        worker.start()                        # a new worker (and a fresh beat schedule)

It runs `celery -A taxi_project worker -B --concurrency N --loglevel warning -s <tmp>/…` as
production does, in a session of its own (so the worker, its pool processes and the embedded
beat are signalled as one group), with an environment that points at the database and the
Redis it is given: under pytest-django, `current_database_url()` (tests/e2e/server.py) is the
*test* database (call it once the test database exists, e.g. from a test using `committed_db`).

Isolation. The settings read only REDIS_URL for the broker (no queue name or key prefix from
the environment), so a run is isolated by its Redis database number: `isolated_redis_url` maps
REDIS_URL to db 15 (bench/deadlines.py uses 13, bench/api.py 14). Inside the `with` block the
helper holds a lock key in that database (other runs using the same number wait for it), and
on entry it deletes every other key there, so stale ticks or control messages of an earlier run
cannot reach this worker.

Ready means: the worker answers a control ping (`celery inspect ping`, sent from this process
with a bare Celery app on the same broker) and the embedded beat has opened its schedule file.
At exit (also on error) the worker gets SIGTERM (warm shutdown: running tasks finish), then its
group SIGKILL after `stop_timeout`; workers still running when the interpreter exits are
stopped by an atexit hook. The worker's output goes to a temporary file: `log_tail()`, and
`errors(since)` lists its ERROR/CRITICAL lines and tracebacks; the tail is printed to stderr when
the block fails. `--without-gossip --without-mingle` only shorten the start (no peers to meet).
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCK_KEY = "bahama-taxi:celery-worker-helper:lock"
LOCK_TTL_MS = 30_000
TEST_REDIS_DB = 15

_running: set[CeleryWorker] = set()


class WorkerFailed(RuntimeError):
    pass


def isolated_redis_url(redis_url: str, db: int = TEST_REDIS_DB) -> str:
    """The same Redis server, another database number."""
    parts = urllib.parse.urlsplit(redis_url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, ""))


def worker_env(
    *, database_url: str, redis_url: str, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Ours, minus what would override the settings (Django, libpq, Celery's own variables)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "PG", "CELERY_"))
        and k not in ("DATABASE_URL", "REDIS_URL", "DEADLINE_TICK_SECONDS")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="taxi_project.settings",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        DB_POOL_MAX_SIZE="8",  # the production pool (the test process itself runs without)
        PYTHONUNBUFFERED="1",
        # tests wait on the worker's results: at a lower priority than the test processes it
        # would trail them on a busy machine (benchmarks pass the product's niceness)
        WORKER_POOL_NICENESS="0",
    )
    env.update(extra or {})
    return env


class _RedisLock:
    """One holder per Redis database at a time (a key with a TTL, refreshed by a thread)."""

    def __init__(self, redis_url: str, wait: float):
        import redis

        self.client = redis.Redis.from_url(redis_url)
        self.token = secrets.token_hex(8)
        self.wait = wait
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> None:
        deadline = time.monotonic() + self.wait
        while not self.client.set(LOCK_KEY, self.token, nx=True, px=LOCK_TTL_MS):
            if time.monotonic() > deadline:
                raise WorkerFailed(
                    f"another run holds {LOCK_KEY} in {self.client.connection_pool} "
                    f"for more than {self.wait:g} s"
                )
            time.sleep(0.2)
        self._thread = threading.Thread(target=self._refresh, daemon=True)
        self._thread.start()

    def _refresh(self) -> None:
        while not self._stop.wait(LOCK_TTL_MS / 3000):
            with contextlib.suppress(Exception):
                if self.client.get(LOCK_KEY) == self.token.encode():
                    self.client.pexpire(LOCK_KEY, LOCK_TTL_MS)

    def clear_others(self) -> int:
        """Delete every key of the database but the lock: stale queues, results, pidboxes."""
        keys = [key for key in self.client.scan_iter(count=1000) if key != LOCK_KEY.encode()]
        for start in range(0, len(keys), 500):
            self.client.delete(*keys[start : start + 500])
        return len(keys)

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        with contextlib.suppress(Exception):
            if self.client.get(LOCK_KEY) == self.token.encode():
                self.client.delete(LOCK_KEY)
        with contextlib.suppress(Exception):
            self.client.close()


class CeleryWorker:
    """`celery -A taxi_project worker -B` in its own process group; start, kill, start again."""

    def __init__(
        self,
        *,
        database_url: str,
        redis_url: str,
        concurrency: int = 2,
        loglevel: str = "warning",
        env: Mapping[str, str] | None = None,
        workdir: Path,
        startup_timeout: float = 60,
        stop_timeout: float = 20,
        beat: bool = True,
        queues: Sequence[str] = (),
    ):
        self.beat = beat  # False: no embedded beat (production runs `celery beat` on its own)
        # () consumes every declared queue (dev.py serve); production runs one worker per queue
        self.queues = tuple(queues)
        self.database_url = database_url
        self.redis_url = redis_url
        self.concurrency = concurrency
        self.loglevel = loglevel
        self.env = worker_env(database_url=database_url, redis_url=redis_url, extra=env)
        self.workdir = workdir
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.process: subprocess.Popen | None = None
        self.hostname = ""
        self.starts = 0
        self.log_path = workdir / "worker.log"
        self._probe = None

    # -- state
    @property
    def pid(self) -> int:
        if self.process is None:
            raise WorkerFailed("the worker is not started")
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, chars: int = 6000) -> str:
        return self.log()[-chars:]

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def errors(self, since: int = 0) -> list[str]:
        """Lines of the log (from byte `since`) that report an error or a traceback."""
        try:
            with open(self.log_path, "rb") as log_file:
                log_file.seek(since)
                text = log_file.read().decode(errors="replace")
        except OSError:
            return []
        markers = ("ERROR/", "CRITICAL/", "Traceback (most recent call last)")
        return [line for line in text.splitlines() if any(m in line for m in markers)]

    def command(self, schedule: Path) -> list[str]:
        options = ["-B", "-s", str(schedule)] if self.beat else []
        if self.queues:
            options += ["-Q", ",".join(self.queues)]
        return [
            sys.executable, "-m", "celery", "-A", "taxi_project", "worker", *options,
            "--concurrency", str(self.concurrency), "--loglevel", self.loglevel,
            "-n", self.hostname, "--without-gossip", "--without-mingle",
        ]  # fmt: skip

    # -- life cycle
    def start(self) -> None:
        """Start a new worker (with a fresh beat schedule) and wait until it is ready."""
        if self.alive():
            raise WorkerFailed("the worker is already running")
        self.starts += 1
        self.hostname = f"taxi-live-{secrets.token_hex(4)}@%h"
        schedule = self.workdir / f"celerybeat-schedule-{self.starts}"
        with open(self.log_path, "ab") as log_file:
            log_file.write(
                f"--- start #{self.starts}: {' '.join(self.command(schedule))}\n".encode()
            )
            log_file.flush()
            self.process = subprocess.Popen(
                self.command(schedule),
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: the pool and beat are signalled with it
            )
        _running.add(self)
        try:
            self._wait_ready(schedule)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, schedule: Path) -> None:
        deadline = time.monotonic() + self.startup_timeout
        name = self.hostname.replace("%h", _node())
        pinged = False
        while time.monotonic() < deadline:
            if not self.alive():
                raise WorkerFailed(
                    f"the worker exited with {self.process.returncode}:\n{self.log_tail()}"
                )
            if not pinged:
                try:
                    pinged = bool(self._control().ping(destination=[name], timeout=0.5))
                except Exception:  # noqa: BLE001 - the broker restarted under the probe
                    self._close_probe()  # a new connection on the next attempt
            if pinged and (not self.beat or glob.glob(f"{schedule}*")):  # beat opened its file
                return
            time.sleep(0.1)
        raise WorkerFailed(
            f"the worker was not ready within {self.startup_timeout:g} s:\n{self.log_tail()}"
        )

    def _control(self):
        if self._probe is None:
            from celery import Celery

            self._probe = Celery("taxi-live-probe", broker=self.redis_url, set_as_current=False)
            # the worker's keys start with its deployment's prefix: ask its settings
            self._probe.conf.broker_transport_options = {
                "global_keyprefix": f"{self._settings_value('REDIS_PREFIX')}:celery:"
            }
        return self._probe.control

    def _settings_value(self, name: str) -> str:
        """A setting as the worker's own environment makes it."""
        code = f"from django.conf import settings; print(settings.{name})"
        found = subprocess.run(
            [sys.executable, "-c", code], env=self.env, cwd=ROOT, capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        return found.stdout.strip()

    def kill(self, sig: int = signal.SIGKILL, *, group: bool = True) -> None:
        """Send `sig` to the worker's group (worker, pool processes, beat), or only its main
        process. SIGKILL: a crash; the process is reaped, `start()` may follow."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(self.process.pid, sig)
            else:
                os.kill(self.process.pid, sig)
        if sig == signal.SIGKILL:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
            if group:
                _reap_group(self.process.pid)

    def stop(self, timeout: float | None = None) -> None:
        """Warm shutdown (SIGTERM to the worker: running tasks finish), then SIGKILL to the
        group if that takes longer than `timeout`; leftovers of the group are killed."""
        _running.discard(self)
        process = self.process
        if process is None:
            return
        timeout = self.stop_timeout if timeout is None else timeout
        if process.poll() is None:
            try:
                os.kill(process.pid, signal.SIGTERM)  # the worker stops its pool and beat
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            except ProcessLookupError:
                process.wait(timeout=10)
        _reap_group(process.pid)

    def restart(self) -> None:
        self.stop()
        self.start()

    def _close_probe(self) -> None:
        if self._probe is not None:
            with contextlib.suppress(Exception):
                self._probe.close()
            self._probe = None

    def close(self) -> None:
        self.stop()
        self._close_probe()


def _node() -> str:
    import socket

    return socket.gethostname()


def _reap_group(pgid: int) -> None:
    """Pool processes or beat outliving the worker (it was killed) are in its group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _stop_all_at_exit() -> None:
    for worker in list(_running):
        with contextlib.suppress(Exception):
            worker.stop(timeout=5)


atexit.register(_stop_all_at_exit)


@contextlib.contextmanager
def celery_worker(
    *,
    database_url: str,
    redis_url: str,
    concurrency: int = 2,
    loglevel: str = "warning",
    env: Mapping[str, str] | None = None,
    start: bool = True,
    lock_wait: float = 300,
    startup_timeout: float = 60,
    stop_timeout: float = 20,
    beat: bool = True,
    queues: Sequence[str] = (),
) -> Iterator[CeleryWorker]:
    """Hold the Redis database, clear it, start the worker (unless `start=False`), yield it;
    always stop it and release the database."""
    lock = _RedisLock(redis_url, wait=lock_wait)
    lock.acquire()
    workdir = Path(tempfile.mkdtemp(prefix="taxi-celery-"))
    worker = CeleryWorker(
        database_url=database_url,
        redis_url=redis_url,
        concurrency=concurrency,
        loglevel=loglevel,
        env=env,
        workdir=workdir,
        startup_timeout=startup_timeout,
        stop_timeout=stop_timeout,
        beat=beat,
        queues=queues,
    )
    failed = True
    try:
        lock.clear_others()
        if start:
            worker.start()
        yield worker
        failed = False
    except WorkerFailed:
        failed = False  # its message already holds the log's tail
        raise
    finally:
        try:
            worker.close()
        finally:
            if failed and worker.log().strip():
                print(f"--- celery worker log (tail) ---\n{worker.log_tail()}", file=sys.stderr)
            with contextlib.suppress(Exception):
                lock.clear_others()
            lock.release()
            for path in workdir.iterdir():
                with contextlib.suppress(OSError):
                    path.unlink()
            with contextlib.suppress(OSError):
                workdir.rmdir()
