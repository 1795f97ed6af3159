"""A real server for end-to-end tests and benchmarks: `uvicorn taxi_project.asgi:application`
in a subprocess, on a free 127.0.0.1 port, with the database and channel layer it is given.

    from tests.e2e.server import current_database_url, live_server

    with live_server(database_url=current_database_url(), redis_url=..., workers=2) as server:
        server.url("/healthz")            # http://127.0.0.1:<port>/healthz
        server.ws_url("/ws/me/")          # ws://127.0.0.1:<port>/ws/me/
        server.origin                     # an Origin the server accepts
        request_json(server.url("/api/v1/me"), token=key)

The server runs as in production (DEBUG off, a random SECRET_KEY, ALLOWED_HOSTS
127.0.0.1,localhost) with the `auth` and `moves` throttles raised (set-ups sign up many users,
players move far faster than people).
It is up when every worker has started and /healthz answers. Its output (stdout and stderr)
goes to a temporary file: `log_tail()` for failure messages; it is also printed to stderr when
the `with` block fails. At exit the server's process group (uvicorn and its workers, started
in a session of their own) gets SIGTERM, then SIGKILL if it has not stopped in time; servers
still running when the interpreter exits are stopped by an atexit hook. TAXI_KEEP_SERVER_LOG=1
keeps the log file (its path is printed) for debugging.

pytest-django runs tests against a *test* database (`test_<name>` on PostgreSQL, a file under
var/ on SQLite): `current_database_url()` reads the name from `django.db.connection` (call it
once the test database is set up, e.g. from a fixture that depends on `django_db_setup`), so
the server sees what the test commits (use `committed_db`).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
ALLOWED_HOSTS = "127.0.0.1,localhost"

# Only loopback: never go through a proxy from the environment.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_running: set[LiveServer] = set()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def current_database_url(settings_dict: Mapping | None = None) -> str:
    """A DATABASE_URL (as taxi_project.settings reads it) for the database this process uses
    now: under pytest-django, the test database."""
    if settings_dict is None:
        from django.db import connection

        settings_dict = connection.settings_dict
    engine = settings_dict["ENGINE"]
    name = str(settings_dict["NAME"])
    if engine == "django.db.backends.sqlite3":
        if not name or name == ":memory:" or "mode=memory" in name:
            raise RuntimeError("an in-memory SQLite database cannot be shared with a server")
        return "sqlite:///" + str(Path(name).resolve())  # sqlite:////abs/path
    if engine == "django.db.backends.postgresql":
        quote = lambda value: urllib.parse.quote(str(value), safe="")  # noqa: E731
        auth = ""
        if settings_dict.get("USER"):
            auth = quote(settings_dict["USER"])
            if settings_dict.get("PASSWORD"):
                auth += ":" + quote(settings_dict["PASSWORD"])
            auth += "@"
        host = quote(settings_dict.get("HOST") or "")
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        options = {
            k: v
            for k, v in (settings_dict.get("OPTIONS") or {}).items()
            if isinstance(v, str | int) and not isinstance(v, bool)
        }
        query = "?" + urllib.parse.urlencode(options) if options else ""
        return f"postgres://{auth}{host}{port}/{quote(name)}{query}"
    raise RuntimeError(f"no DATABASE_URL for database engine {engine}")


def server_env(
    *, database_url: str, redis_url: str | None, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The server's environment: ours, minus Django/PostgreSQL overrides, plus production
    settings. Without `redis_url` the server uses the in-memory channel layer (1 worker only)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "PG")) and k not in ("DATABASE_URL", "REDIS_URL")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="taxi_project.settings",
        DATABASE_URL=database_url,
        DEBUG="false",
        SECRET_KEY="e2e-" + secrets.token_urlsafe(32),
        ALLOWED_HOSTS=ALLOWED_HOSTS,
        AUTH_THROTTLE_RATE="100000/min",
        TABLE_CREATE_THROTTLE_RATE="100000/hour",
        MOVE_THROTTLE_RATE="100000/min",  # test and bench players move far faster than people
        DB_POOL_MAX_SIZE="8",  # the production pool (the test process itself runs without)
        PYTHONUNBUFFERED="1",
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra or {})
    return env


class ServerFailed(RuntimeError):
    pass


class LiveServer:
    """A started server: where it listens, its process, its log."""

    def __init__(self, process: subprocess.Popen, port: int, workers: int, log_path: Path):
        self.process = process
        self.port = port
        self.workers = workers
        self.log_path = log_path
        self.base = f"http://{HOST}:{port}"
        self.origin = f"http://{HOST}:{port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    def url(self, path: str = "/") -> str:
        return self.base + path

    def ws_url(self, path: str) -> str:
        return f"ws://{HOST}:{self.port}{path}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, chars: int = 6000) -> str:
        return self.log()[-chars:]

    def worker_pids(self) -> list[int]:
        """The uvicorn worker processes (children of the supervisor), from /proc."""
        if self.workers <= 1:
            return [self.pid]
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    data = f.read()
            except OSError:
                continue
            if int(data[data.rfind(")") + 2 :].split()[1]) != self.pid:
                continue
            with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as f:
                if b"resource_tracker" in f.read():  # multiprocessing's helper, not a worker
                    continue
            found.append(int(entry))
        return sorted(found)

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM to the server's process group (uvicorn and its workers), then SIGKILL."""
        _running.discard(self)
        if self.process.poll() is not None:
            return
        # start_new_session: the group id is the server's pid, and stays ours while that
        # process is not reaped (so signal the group only before wait() has returned)
        group = self.process.pid
        try:
            os.killpg(group, signal.SIGTERM)  # uvicorn and each worker: graceful shutdown
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
            self.process.wait(timeout=10)
        except ProcessLookupError:
            self.process.wait(timeout=10)


def _stop_all_at_exit() -> None:
    for server in list(_running):
        with contextlib.suppress(Exception):
            server.stop(timeout=5)


atexit.register(_stop_all_at_exit)


def _get_status(url: str, timeout: float = 2) -> int | None:
    try:
        with _opener.open(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, OSError):
        return None


@contextlib.contextmanager
def live_server(
    *,
    database_url: str,
    redis_url: str | None = None,
    workers: int = 1,
    port: int | None = None,
    env: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
    startup_timeout: float = 60,
    log_dir: str | os.PathLike | None = None,
    graceful_shutdown: int = 2,
) -> Iterator[LiveServer]:
    """Start the server, wait until it is up, yield it, always stop it.

    `graceful_shutdown`: seconds uvicorn waits at exit for its tasks to end. Short, as a
    consumer whose socket has closed still waits on its channel-layer receive (channels_redis
    polls Redis with a 5 s timeout), and nothing here needs a drain."""
    if workers > 1 and not redis_url:
        raise ValueError("several workers share groups only through Redis: give redis_url")
    attempts = 1 if port else 3  # a free port may be taken between probing and binding
    for attempt in range(attempts):
        server = _start(
            port=port or free_port(),
            workers=workers,
            env=server_env(database_url=database_url, redis_url=redis_url, extra=env),
            extra_args=extra_args,
            log_dir=log_dir,
            graceful_shutdown=graceful_shutdown,
        )
        try:
            _wait_ready(server, startup_timeout)
            break
        except ServerFailed:
            server.stop()
            in_use = "address already in use" in server.log().lower()
            if not (in_use and attempt + 1 < attempts):
                _discard_log(server)
                raise
            _discard_log(server)
    failed = True
    try:
        yield server
        failed = False
    finally:
        server.stop()
        if failed:
            tail = server.log_tail()
            if tail.strip():
                print(f"--- server log (tail) ---\n{tail}", file=sys.stderr)
        _discard_log(server)


@contextlib.contextmanager
def entered_together(*managers: AbstractContextManager) -> Iterator[list]:
    """Enter context managers (servers) at once, each from a thread of its own, so that their
    processes start side by side rather than one after another; yield what each gave, in order;
    exit them in the reverse order. If one fails to enter, those that did are exited and its
    error is raised."""
    with contextlib.ExitStack() as stack:
        with concurrent.futures.ThreadPoolExecutor(len(managers)) as pool:
            entering = [pool.submit(manager.__enter__) for manager in managers]
        values, failure = [], None
        for manager, entered in zip(managers, entering, strict=True):
            try:
                values.append(entered.result())
            except BaseException as error:  # noqa: BLE001 - raised below, once all are in
                failure = failure or error
                continue
            stack.push(manager)
        if failure is not None:
            raise failure
        yield values


def _start(*, port, workers, env, extra_args, log_dir, graceful_shutdown) -> LiveServer:
    command = [
        sys.executable, "-m", "uvicorn", "taxi_project.asgi:application",
        "--host", HOST, "--port", str(port),
        "--workers", str(workers),
        "--log-level", "info", "--no-access-log",
        "--timeout-graceful-shutdown", str(graceful_shutdown),
        *extra_args,
    ]  # fmt: skip
    fd, log_name = tempfile.mkstemp(prefix="taxi-server-", suffix=".log", dir=log_dir)
    with os.fdopen(fd, "wb") as log_file:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped as one, by its id
        )
    server = LiveServer(process, port, workers, Path(log_name))
    _running.add(server)
    return server


def _wait_ready(server: LiveServer, timeout: float) -> None:
    """Every worker has started its application and /healthz answers 200."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not server.alive():
            raise ServerFailed(
                f"the server exited with {server.process.returncode}:\n{server.log_tail()}"
            )
        started = len(re.findall(r"Application startup complete", server.log()))
        if started >= server.workers and _get_status(server.url("/healthz")) == 200:
            return
        time.sleep(0.1)
    raise ServerFailed(f"the server was not up within {timeout:g} s:\n{server.log_tail()}")


def _discard_log(server: LiveServer) -> None:
    if os.environ.get("TAXI_KEEP_SERVER_LOG"):  # debugging: keep it, say where
        print(f"server log kept: {server.log_path}", file=sys.stderr)
        return
    with contextlib.suppress(OSError):
        server.log_path.unlink()


# ---------------------------------------------------------------------------------- HTTP


def request_json(
    url: str,
    data: object = None,
    *,
    method: str | None = None,
    token: str | None = None,
    timeout: float = 15,
) -> tuple[int, object]:
    """One HTTP request with a JSON body (if `data` is not None); (status, decoded JSON)."""
    body = None if data is None else json.dumps(data).encode()
    request = urllib.request.Request(url, data=body, method=method or ("POST" if body else "GET"))
    request.add_header("Accept", "application/json")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with _opener.open(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode(errors="replace")
