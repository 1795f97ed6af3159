"""At most `HTTP_CONCURRENCY` HTTP requests of a server process in Django at once; the others
wait their turn in the event loop, in arrival order.

Django's ASGI handler runs each request's synchronous part (the middleware chain and the view)
in a thread of its own, so a server process has as many threads as requests in flight, and
they share one interpreter lock. With 40 of them (a worker that holds 45 kept-alive
connections) every request advanced in 5 ms slices between the others, the event loop itself
waited its turn to read requests and write answers (18 ms on average), and 32 of them waited
for one of the process's 8 pooled database connections: every request was slow because all
were in progress at once. Served a few at a time, each finishes in its own time and the rest
wait in a queue that costs no lock (BENCHMARKS.md, the tail).

Each place is a thread kept for the process's life: Django's handler would otherwise start a
thread for every request (and a database connection object with it, garbage for the
collector once the request ends).

The body is read before the request takes its place, so a slow upload never holds one (bodies
are bounded by taxi_project/body_limit.py, in front). Streams (`GET …/stream`, long-lived by
design: games/streams.py) are not counted, and neither is `/healthz`: behind the proxy
(docker/haproxy.cfg checks it every second and marks a node down after two answers later than
a second, cutting every request on it with a 502), a node whose places were all taken by slow
requests, such as a burst of sign-ups hashing their passwords, would otherwise be taken for
dead exactly when it is busy. 0 turns the limit off.

The requests counted here, in Django or waiting for a place, are what this worker tells the
node's other HTTP workers (taxi_project/worker_load.py). While some of them wait here and
another worker has a free place, the connection of each answer sent here is closed after it,
so that the client's next connection may land on a worker that has room.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.conf import settings

from taxi_project import worker_load
from taxi_project.connection_limits import HandshakeLimit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

UNCOUNTED = frozenset({"/healthz"})  # the proxy's health check: never queued behind requests


class SyncLimit:
    def __init__(self, app):
        self.app = app
        self.free: asyncio.Queue[ThreadPoolExecutor] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.demand = 0  # requests in Django or waiting for a place (changed on the loop only)

    def _threads(self, limit: int) -> asyncio.Queue[ThreadPoolExecutor]:
        """The free places, each a thread kept for the process's life (one per loop)."""
        loop = asyncio.get_running_loop()
        if self.free is None or self.loop is not loop:
            self.free, self.loop = asyncio.Queue(), loop
            for i in range(limit):
                self.free.put_nowait(ThreadPoolExecutor(1, thread_name_prefix=f"django-{i}"))
        return self.free

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = int(settings.HTTP_CONCURRENCY)
        if (
            scope["type"] != "http"
            or limit <= 0
            or scope["path"] in UNCOUNTED
            or HandshakeLimit.opens_a_connection(scope)
        ):
            return await self.app(scope, receive, send)
        # the whole body first (Django reads it all before the view anyway)
        read: list[Message] = []
        while True:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break

        async def replay() -> Message:
            return read.pop(0) if read else await receive()

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start" and worker_load.crowded(self.demand, limit):
                headers = worker_load.close_connection(list(message.get("headers", ())))
                message = {**message, "headers": headers}
            await send(message)

        free = self._threads(limit)
        self.demand += 1
        worker_load.publish(self.demand)
        try:
            executor = await free.get()  # waiters are served in order
            try:
                # Django's handler then runs this request's synchronous part on this place's
                # own thread (its ThreadSensitiveContext is inside this one), not on a new one
                async with ThreadSensitiveContext(executor=executor):
                    await self.app(scope, replay, answer)
            finally:
                free.put_nowait(executor)
        finally:
            self.demand -= 1
            worker_load.publish(self.demand)
