"""Counters for the rate limits' fixed windows: one Redis round trip per count, or per few
permits (`take`); and the process's one Django cache object (`shared`).

On Redis, a counter is an INCR and an EXPIRE … NX in one pipeline, through one redis-py client
per process (its connection pool shared by the process's threads). Django's own cache would
serve as well, but under ASGI it builds a cache object, and with it a Redis connection pool, for
every request context, and its `incr` first asks whether the key exists: on the move path that
was a new Redis connection and three round trips per move. Keys carry the deployment's prefix
(settings.REDIS_PREFIX). Without Redis (the embedded default), Django's cache counts: `add`
then `incr`, atomic enough for one process.

A limit checked on every move (`take`) would cost each move a Redis round trip. So a process
counts `LEASE` permits at once into the shared counter and hands them out itself: the count
still never lets more through than the limit (a permit is counted before it is used), at the
price of refusing early the permits other processes hold unused, at most
(processes - 1) x (LEASE - 1) a window for one key.
"""

from __future__ import annotations

import os
import threading
import time

import redis
from django.conf import settings
from django.core.cache import BaseCache, caches

LEASE = 4  # permits a process counts into a shared counter at once (`take`)
LEASES_KEPT = 10_000  # keys a process holds permits of, before it drops those of past windows

_clients: dict[tuple[int, str], redis.Redis] = {}
# key -> (permits this process counted and has not handed out, when the key expires); a forked
# child starts with none (they are its parent's)
_leases: dict[str, tuple[int, float]] = {}
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


def count(key: str, timeout: int, by: int = 1) -> int:
    """Add `by` to the counter `key`, which expires `timeout` seconds after its first count;
    the new count."""
    if settings.REDIS_URL:
        pipeline = _client(settings.REDIS_URL).pipeline(transaction=False)
        pipeline.incrby(f"{settings.REDIS_PREFIX}:count:{key}", by)
        pipeline.expire(f"{settings.REDIS_PREFIX}:count:{key}", timeout, nx=True)
        counted, _ = pipeline.execute()
        return counted
    cache = caches["default"]
    cache.add(key, 0, timeout)
    return cache.incr(key, by)


def take(key: str, timeout: int, limit: int) -> bool:
    """One permit of the `limit` that the counter `key` allows before it expires, `timeout`
    seconds after its first count: True if granted. From the permits this process holds of
    `key`, else `LEASE` more counted at once (`count`), of which it keeps what the limit leaves
    (none: refused). Raises what `count` does, the Redis client's errors."""
    with _lock:
        permits, expires = _leases.get(key, (0, 0.0))
        if permits > 0:
            _leases[key] = (permits - 1, expires)
            return True
    counted = count(key, timeout, LEASE)
    granted = min(LEASE, limit - (counted - LEASE))
    if granted <= 0:
        return False
    now = time.monotonic()
    with _lock:
        if len(_leases) >= LEASES_KEPT:
            for old in [k for k, (_, ends) in _leases.items() if ends <= now]:
                del _leases[old]
        permits, _ = _leases.get(key, (0, 0.0))
        _leases[key] = (permits + granted - 1, now + timeout)
    return True


def forget_leases() -> None:
    """Drop the permits this process holds (tests: counters cleared with the cache)."""
    with _lock:
        _leases.clear()


os.register_at_fork(after_in_child=_leases.clear)
