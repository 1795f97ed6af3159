"""Counters for the rate limits' fixed windows: one Redis round trip per count; and the process's
one Django cache object (`shared`).

On Redis, a counter is an INCR and an EXPIRE … NX in one pipeline, through one redis-py client
per process (its connection pool shared by the process's threads). Django's own cache would
serve as well, but under ASGI it builds a cache object, and with it a Redis connection pool, for
every request context, and its `incr` first asks whether the key exists: on the move path that
was a new Redis connection and three round trips per move. Keys carry the deployment's prefix
(settings.REDIS_PREFIX). Without Redis (the embedded default), Django's cache counts: `add`
then `incr`, atomic enough for one process.
"""

from __future__ import annotations

import os
import threading

import redis
from django.conf import settings
from django.core.cache import BaseCache, caches

_clients: dict[tuple[int, str], redis.Redis] = {}
_shared: dict[int, BaseCache] = {}
_lock = threading.Lock()


def shared() -> BaseCache:
    """This process's one object for the default cache, whatever the thread or asyncio task.

    `django.core.cache.cache` is an object per asyncio context: every request, and every
    socket (each runs in a task of its own), that touches it builds one, and on Redis with it a
    connection pool and a connection of its own. A thousand sockets held a thousand Redis
    connections, and every full garbage collection walked their objects again. One object
    serves all: the Redis backend's pool is shared by threads, the local-memory one locks."""
    pid = os.getpid()  # a forked child makes its own
    cache = _shared.get(pid)
    if cache is None:
        with _lock:
            cache = _shared.setdefault(pid, caches["default"])
    return cache


def _client(url: str) -> redis.Redis:
    key = (os.getpid(), url)  # a forked child makes its own
    client = _clients.get(key)
    if client is None:
        with _lock:
            client = _clients.get(key)
            if client is None:
                # a Redis that stops answering fails the count in 2 s (the limits fail open)
                client = _clients[key] = redis.Redis.from_url(url, socket_timeout=2)
    return client


def count(key: str, timeout: int) -> int:
    """Add one to the counter `key`, which expires `timeout` seconds after its first count;
    the new count."""
    if settings.REDIS_URL:
        pipeline = _client(settings.REDIS_URL).pipeline(transaction=False)
        pipeline.incr(f"{settings.REDIS_PREFIX}:count:{key}")
        pipeline.expire(f"{settings.REDIS_PREFIX}:count:{key}", timeout, nx=True)
        counted, _ = pipeline.execute()
        return counted
    cache = caches["default"]
    cache.add(key, 0, timeout)
    return cache.incr(key)
