"""taxi_project/worker_load.py through taxi_project/sync_limit.py: a worker whose requests wait
for a place while another has one free closes the connection it answers, so the client's next
connection is hashed again; a balanced worker, or one alone, keeps its connections.

In one process, `SyncLimit` around an application whose answers the test releases; then
taxi_project/serve.py's workers sharing their loads through memory, and uvicorn closing the
connection that the crowded worker answered."""

from __future__ import annotations

import asyncio
import http.client
import json
import sys
import time

import pytest

from taxi_project import worker_load
from taxi_project.sync_limit import SyncLimit
from tests.e2e.server import free_port
from tests.smoke.test_serve import start_server, stop


@pytest.fixture
def board():
    """This process as worker 0 of two (a plain list stands for the shared array)."""
    shared = [0, 0]
    worker_load.attach(shared, 0)
    yield shared
    worker_load.attach(None, 0)


def scope(path: str = "/api/v1/me") -> dict:
    return {"type": "http", "method": "GET", "path": path, "headers": []}


async def held_requests(count: int, board: list[int] | None = None, other: int = 0):
    """`count` requests through one place (HTTP_CONCURRENCY 1), the first answering only once
    all have arrived, worker 1 having told `other` meanwhile (`board`: the shared loads). Their
    response-start messages in the order sent, and the loads told as each request arrived."""
    release = asyncio.Event()

    async def app(scope, receive, send):
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    limit = SyncLimit(app)
    starts: list[dict] = []

    async def one():
        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                starts.append(message)

        await limit(scope(), receive, send)

    tasks, told = [], []
    for _ in range(count):
        tasks.append(asyncio.create_task(one()))
        await asyncio.sleep(0)  # it arrives, and waits for the place or for `release`
        told.append(worker_load.loads()[1])
    if board is not None:
        board[1] = other
    release.set()
    await asyncio.gather(*tasks)
    return starts, told


def closes(message: dict) -> bool:
    return (b"connection", b"close") in message.get("headers", [])


def test_a_crowded_worker_closes_what_it_answers_while_another_has_room(board, settings):
    settings.HTTP_CONCURRENCY = 1
    before = worker_load.shed
    starts, told = asyncio.run(held_requests(3, board, other=0))
    # told as each arrived: one in Django, then two waiting for its place
    assert told == [[1, 0], [2, 0], [3, 0]]
    # the first two answered while others waited here and worker 1 had a free place; the
    # last one answered with nobody waiting
    assert [closes(m) for m in starts] == [True, True, False]
    assert worker_load.shed - before == 2
    assert board == [0, 0]  # all answered: nothing left in the count


def test_nothing_is_closed_when_every_worker_is_as_busy(board, settings):
    settings.HTTP_CONCURRENCY = 1
    starts, _ = asyncio.run(held_requests(3, board, other=1))  # worker 1's place is taken
    assert [closes(m) for m in starts] == [False, False, False]


def test_a_worker_alone_never_closes_a_connection(settings):
    settings.HTTP_CONCURRENCY = 1
    worker_load.attach(None, 0)
    starts, told = asyncio.run(held_requests(3))
    assert [closes(m) for m in starts] == [False, False, False]
    assert told == [[], [], []]


def test_the_decision_reads_the_other_workers_loads(board):
    board[:] = [5, 4]
    assert not worker_load.crowded(5, 4)  # 4 places here, worker 1 has none free
    board[1] = 3
    assert worker_load.crowded(5, 4)
    assert not worker_load.crowded(4, 4)  # nobody waits here
    assert worker_load.close_connection([(b"x", b"1")]) == [(b"x", b"1"), (b"connection", b"close")]


def get(connection: http.client.HTTPConnection, path: str) -> tuple[dict, str | None]:
    connection.request("GET", path)
    response = connection.getresponse()
    return json.loads(response.read()), response.getheader("connection")


@pytest.mark.skipif(sys.platform != "linux", reason="SO_REUSEPORT spreads connections on Linux")
def test_serve_s_workers_share_their_loads_and_the_crowded_one_sheds(committed_db):
    port = free_port()
    server = start_server(
        "tests.smoke.crowded_app:application", "--host", "127.0.0.1", "--port", str(port),
        "--workers", "2", "--no-access-log", "--timeout-keep-alive", "60",
        extra={"HTTP_CONCURRENCY": "1"},
    )  # fmt: skip
    connections: list[http.client.HTTPConnection] = []
    try:
        by_index: dict[int, list[http.client.HTTPConnection]] = {0: [], 1: []}
        deadline = time.monotonic() + 60
        while min(len(c) for c in by_index.values()) < 2:  # two connections to each worker
            assert time.monotonic() < deadline, "the two workers did not both answer"
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            try:
                state, _ = get(connection, "/state")
            except OSError:
                time.sleep(0.2)
                continue
            connections.append(connection)
            by_index[state["index"]].append(connection)
            assert len(state["loads"]) == 2
        crowded, roomy = by_index[0][:2], by_index[1][:2]
        # worker 0: one request in its one place, another waiting for it
        for held, connection in enumerate(crowded, start=1):
            connection.request("GET", "/hold")
            while get(roomy[0], "/state")[0]["loads"] != [held, 0]:  # through shared memory
                assert time.monotonic() < deadline, "worker 1 never saw worker 0's load"
                time.sleep(0.05)
        # let them answer: the first answers while the second waits here and worker 1 has room
        assert get(roomy[1], "/quick")[1] != "close"  # worker 1 balanced: kept alive
        releaser = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        connections.append(releaser)
        while True:  # /release reaches worker 0 on a connection the kernel hands it
            state, _ = get(releaser, "/state")
            if state["index"] == 0:
                get(releaser, "/release")
                break
            releaser.close()
            releaser = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            connections.append(releaser)
        raw = [connection.sock.dup() for connection in crowded]  # as the server leaves them
        connections_socks = [connection.sock for connection in crowded]
        answers = []
        for connection in crowded:
            response = connection.getresponse()
            response.read()
            answers.append(response.getheader("connection"))
        assert answers == ["close", None]
        # uvicorn closed the first connection after its answer; the second still serves
        raw[0].settimeout(10)
        assert raw[0].recv(1) == b""
        assert get(crowded[1], "/state")[0]["loads"] == [0, 0]
        assert crowded[1].sock is connections_socks[1]  # the same connection, kept alive
        for sock in raw:
            sock.close()
    finally:
        for connection in connections:
            connection.close()
        stop(server)
    assert server.returncode == 0
