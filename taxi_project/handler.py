"""Django's ASGI handler, with each request's Django work done in one call on a worker thread.

Our middleware and views are synchronous (the ORM is). Django's own ASGIHandler runs the
middleware chain in async mode: it crosses between the event loop and a thread at every
sync-only middleware, twice per `MiddlewareMixin` (process_request, process_response), once for
the view, once for each of request_started and request_finished, and it gives every request a
new thread (asgiref's ThreadSensitiveContext). Here the whole of it — request_started, the
middleware, the view, request_finished — runs as one call on a bounded pool of long-lived
threads, as a WSGI server runs it, while uvicorn's event loop keeps the sockets, the WebSocket
consumers (Channels) and the channel layer. On two cores this took a trivial authenticated GET
from 370 to 600 requests/s (BENCHMARKS.md, API).

A request keeps one thread from start to end, so Django's per-thread database connection and
its transaction are the request's own, as under WSGI. The pool has WEB_THREADS threads (4), no
more than the database pool has connections (DB_POOL_MAX_SIZE), so no thread waits for a
connection: few, because threads of one process take turns holding Python's GIL, and each of a
request's waits (a database round trip, Redis) ends in a queue for it behind the other threads'
work; on two cores 8 threads per process gave a p99 four to six times that of 4 (BENCHMARKS.md,
API). On Redis, a view's pushes are published from its thread (games/events.py); with the
in-memory channel layer they are handed to the server's event loop (`request_loop`) and not
waited for.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar, copy_context

from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.db import close_old_connections
from django.http import FileResponse
from django.urls import set_script_prefix

#: The server's event loop, as the request's thread sees it (`_in_thread` runs the request in a
#: copy of the loop's context): what need not finish before the response (a push to the
#: in-memory channel layer) is handed to it, not awaited.
request_loop: ContextVar[asyncio.AbstractEventLoop | None] = ContextVar(
    "request_loop", default=None
)


def _threads() -> int:
    """settings.WEB_THREADS, but no more than the database pool has connections."""
    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    size = pool["max_size"] if isinstance(pool, dict) else settings.WEB_THREADS
    return max(1, min(settings.WEB_THREADS, size))


class ThreadedASGIHandler(ASGIHandler):
    """HTTP only (Channels routes WebSockets elsewhere)."""

    def __init__(self):
        super().__init__()
        self.load_middleware(is_async=False)  # the chain, as under WSGI
        self.executor = ThreadPoolExecutor(max_workers=_threads(), thread_name_prefix="django")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        request_loop.set(asyncio.get_running_loop())
        try:
            response = await self._in_thread(self._respond, scope, body_file)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:  # a file: closed once sent (request_finished)
                    await self._in_thread(response.close)
        finally:
            body_file.close()

    def _in_thread(self, function, *args):
        """`function(*args)` on a pool thread, in a copy of this context: asgiref's
        sync_to_async(thread_sensitive=False) without its set-up on each call."""
        run = copy_context().run
        return asyncio.get_running_loop().run_in_executor(self.executor, run, function, *args)

    def _respond(self, scope, body_file):
        """request_started, the response, request_finished: Django's steps, on one thread."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size  # the ASGI server chunks it
        if response.streaming:
            # Sent and closed later, maybe on another thread: hand back this thread's
            # database connection now (no streamed response of ours reads the database).
            close_old_connections()
        else:
            response.close()  # request_finished: the connection goes back to the pool
        return response
