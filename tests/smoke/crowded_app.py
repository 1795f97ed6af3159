"""An ASGI application for tests/smoke/test_worker_load.py, served by taxi_project.serve: the
production `SyncLimit` (HTTP_CONCURRENCY places) around an answer that can be held.

    GET /state    (outside the limit) {"pid", "index", "loads"}: taxi_project/worker_load.py's
    GET /hold     (counted) waits until /release on the same process, then answers
    GET /release  (outside the limit) lets every held request of this process answer
    GET /quick    (counted) answers at once
"""

from __future__ import annotations

import asyncio
import json
import os

from taxi_project import worker_load
from taxi_project.sync_limit import SyncLimit

_released: asyncio.Event | None = None


def _event() -> asyncio.Event:
    global _released
    if _released is None:
        _released = asyncio.Event()
    return _released


async def _answer(send, data: dict) -> None:
    body = json.dumps(data).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})


async def _counted(scope, receive, send) -> None:
    if scope["path"] == "/hold":
        await _event().wait()
    await _answer(send, {"pid": os.getpid()})


_limited = SyncLimit(_counted)


async def application(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                return await send({"type": "lifespan.shutdown.complete"})
    if scope["path"] == "/state":
        index, loads = worker_load.loads()
        return await _answer(send, {"pid": os.getpid(), "index": index, "loads": loads})
    if scope["path"] == "/release":
        _event().set()
        return await _answer(send, {"pid": os.getpid()})
    return await _limited(scope, receive, send)
