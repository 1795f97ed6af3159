"""Serve the ASGI application with N uvicorn worker processes, each accepting connections on a
listening socket of its own bound to the same address (SO_REUSEPORT).

    python -m taxi_project.serve --host 0.0.0.0 --port 8000 --workers 2 --proxy-headers \\
        --no-access-log

Why not `uvicorn --workers N`: its workers share one listening socket, and a worker woken for
it accepts every connection waiting at that moment. A client that keeps its connections alive
(a reverse proxy's pool, a load generator, an app) opens them in a burst, so one worker takes
most of them and keeps them: measured with 100 kept-alive connections on 3 workers, 13, 45 and
45 of them, the two crowded workers' requests queued for a thread and a pooled database
connection while the third idled (BENCHMARKS.md, API). With a socket per worker the kernel
hands each new connection to one of the workers' sockets by a hash of its addresses, an even
spread whatever the timing.

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
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    return args


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port) that other processes may bind too (SO_REUSEPORT)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def serve(args: argparse.Namespace) -> None:
    """One worker: uvicorn on a socket of its own."""
    import uvicorn

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
    config = uvicorn.Config(args.app, host=args.host, port=args.port, **options)
    uvicorn.Server(config).run(sockets=[listening_socket(args.host, args.port)])


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.workers == 1:
        serve(args)
        return 0
    listening_socket(args.host, args.port).close()  # the address is free: fail here, not in N
    spawn = multiprocessing.get_context("spawn")
    workers: list[multiprocessing.process.BaseProcess] = []
    stopping = False

    def stop(signum, frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    def start() -> multiprocessing.process.BaseProcess:
        worker = spawn.Process(target=serve, args=(args,), name="uvicorn-worker")
        worker.start()
        return worker

    workers = [start() for _ in range(args.workers)]
    pids = " ".join(str(w.pid) for w in workers)
    print(
        f"serving on {args.host}:{args.port}: {args.workers} workers, a socket each (pids {pids})",
        file=sys.stderr,
        flush=True,
    )
    while not stopping:
        time.sleep(0.5)
        for i, worker in enumerate(workers):
            if not stopping and not worker.is_alive():
                print(f"worker {worker.pid} exited ({worker.exitcode}); starting another",
                      file=sys.stderr, flush=True)  # fmt: skip
                workers[i] = start()
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
