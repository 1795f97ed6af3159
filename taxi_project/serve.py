"""Serve the ASGI application with N uvicorn worker processes, each accepting connections on a
listening socket of its own bound to the same address (SO_REUSEPORT).

    python -m taxi_project.serve --host 0.0.0.0 --port 8000 --workers 2 --proxy-headers \\
        --no-access-log

Why not `uvicorn --workers N`: its workers share one listening socket, and a worker woken for
it accepts every connection waiting at that moment. A client that keeps its connections alive
(a reverse proxy's pool, a load generator, an app) opens them in a burst, so one worker takes
most of them and keeps them: measured with 100 kept-alive connections on 3 workers, 13, 45 and
45 of them, the two crowded workers' requests queued for a thread and a pooled database
connection while the third idled (BENCHMARKS.md, the tail). With a socket per worker the kernel
hands each new connection to one of the workers' sockets by a hash of its addresses, an even
spread whatever the timing. Spread by connections, not by load: the workers tell each other
how busy they are through memory they share, and one that is crowded while another has room
closes the connections it answers (taxi_project/worker_load.py).

`--socket-port P` adds `--socket-workers` more workers (default 1) on a second port, for the
WebSockets a proxy sends there (docker/haproxy.cfg: `/ws/`), `--socket-niceness` (default 5)
nicer than the others. Every entry goes to every socket watching its game: served by the
workers that answer requests, those pushes shared their interpreter lock and event loop with
the requests, and a full garbage collection walked every socket's objects while requests
waited; at the same priority they also took the CPUs requests needed. With 1,000 sockets
watching 100 games, in each of four pairs of windows of one load, paced players' p99 was lower
with the sockets on workers of their own: 66-220 ms against 123-533 (BENCHMARKS.md, the tail).
Both ports serve the whole application: without a proxy, the first serves everything.

Each worker is `uvicorn.Server(uvicorn.Config(app, …)).run(sockets=[its socket])` in a
process of its own (spawned, as uvicorn does). The parent only supervises: a worker that dies
is replaced, SIGINT/SIGTERM stop every worker (uvicorn's graceful shutdown, then SIGKILL after
`--timeout-graceful-shutdown`). Options are uvicorn's, for those this project uses; `--workers 1`
serves in this process, as `uvicorn` would.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import MutableSequence

APP = "taxi_project.asgi:application"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m taxi_project.serve", description=__doc__)
    parser.add_argument("app", nargs="?", default=APP, help=f"ASGI app (default {APP})")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", 1)))
    parser.add_argument("--proxy-headers", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--forwarded-allow-ips", default=None)
    parser.add_argument("--no-access-log", action="store_true")
    parser.add_argument("--log-level", default=None)
    parser.add_argument("--timeout-keep-alive", type=int, default=5)
    parser.add_argument("--backlog", type=int, default=2048)
    parser.add_argument("--timeout-graceful-shutdown", type=float, default=30.0)
    parser.add_argument("--socket-port", type=int, default=None, help="a port for WebSockets")
    parser.add_argument("--socket-workers", type=int, default=1)
    parser.add_argument("--socket-niceness", type=int, default=5, help="(default 5)")
    args = parser.parse_args(argv)
    if args.workers < 1 or args.socket_workers < 1:
        parser.error("--workers and --socket-workers must be at least 1")
    if not 0 <= args.socket_niceness <= 19:
        parser.error("--socket-niceness must be 0 to 19")
    return args


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port) that other processes may bind too (SO_REUSEPORT)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def serve(
    args: argparse.Namespace,
    port: int | None = None,
    niceness: int = 0,
    board: MutableSequence[int] | None = None,
    index: int = 0,
) -> None:
    """One worker: uvicorn on a socket of its own, on `port` (default `--port`); HTTP worker
    `index` of those whose load `board` shares (taxi_project/worker_load.py), if given."""
    import uvicorn

    from taxi_project import worker_load

    worker_load.attach(board, index)
    port = args.port if port is None else port
    if niceness:
        os.nice(niceness)
    options: dict = {
        "proxy_headers": args.proxy_headers,
        "access_log": not args.no_access_log,
        "timeout_keep_alive": args.timeout_keep_alive,
        "backlog": args.backlog,
        "timeout_graceful_shutdown": args.timeout_graceful_shutdown,
    }
    if args.forwarded_allow_ips is not None:
        options["forwarded_allow_ips"] = args.forwarded_allow_ips
    if args.log_level is not None:
        options["log_level"] = args.log_level
    config = uvicorn.Config(args.app, host=args.host, port=port, **options)
    uvicorn.Server(config).run(sockets=[listening_socket(args.host, port)])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.workers == 1 and args.socket_port is None:
        serve(args)
        return 0
    # the addresses are free: fail here, not in N workers
    for port in (args.port, args.socket_port):
        if port is not None:
            listening_socket(args.host, port).close()
    spawn = multiprocessing.get_context("spawn")
    stopping = False

    def stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    # the HTTP workers' loads, which each tells the others (taxi_project/worker_load.py)
    board = spawn.RawArray("i", args.workers)
    # what each worker serves: (port, niceness, the board it shares, its index there)
    roles: list[tuple] = [(args.port, 0, board, i) for i in range(args.workers)]
    if args.socket_port is not None:
        roles += [(args.socket_port, args.socket_niceness, None, 0)] * args.socket_workers

    def start(role: tuple) -> multiprocessing.process.BaseProcess:
        worker = spawn.Process(target=serve, args=(args, *role), name="uvicorn-worker")
        worker.start()
        return worker

    workers = [start(role) for role in roles]
    pids = " ".join(str(w.pid) for w in workers[: args.workers])
    print(
        f"serving on {args.host}:{args.port}: {args.workers} workers, a socket each (pids {pids})",
        file=sys.stderr,
        flush=True,
    )
    if args.socket_port is not None:
        pids = " ".join(str(w.pid) for w in workers[args.workers :])
        print(
            f"serving WebSockets on {args.host}:{args.socket_port}: {args.socket_workers} "
            f"workers at niceness {args.socket_niceness} (pids {pids})",
            file=sys.stderr,
            flush=True,
        )
    while not stopping:
        time.sleep(0.5)
        for i, worker in enumerate(workers):
            if not stopping and not worker.is_alive():
                print(f"worker {worker.pid} exited ({worker.exitcode}); starting another",
                      file=sys.stderr, flush=True)  # fmt: skip
                if i < args.workers:
                    board[i] = 0  # what the dead worker last told is not the new one's load
                workers[i] = start(roles[i])
    for worker in workers:
        if worker.is_alive() and worker.pid is not None:
            os.kill(worker.pid, signal.SIGTERM)
    deadline = time.monotonic() + args.timeout_graceful_shutdown + 5
    for worker in workers:
        worker.join(max(deadline - time.monotonic(), 0.1))
        if worker.is_alive():
            worker.kill()
            worker.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
