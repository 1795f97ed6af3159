"""Django's Redis cache, with one Redis client per process and server.

Django keeps a cache object per request context (under ASGI, per request), and its Redis
client builds a new connection pool for each such object and a new `redis.Redis` (about 170
response callbacks) on every call: a move, which reads and writes its rate-limit count, paid
for two clients and a fresh connection. Here the pool and client are made once per process and
server and shared (redis-py clients are thread-safe: each command borrows a pooled connection).
"""

from __future__ import annotations

import os
import threading

from django.core.cache.backends import redis as django_redis

_clients: dict[tuple[int, str], object] = {}
_lock = threading.Lock()


class RedisCacheClient(django_redis.RedisCacheClient):
    def get_client(self, key=None, *, write=False):
        server = self._servers[self._get_connection_pool_index(write)]
        name = (os.getpid(), server)  # a forked child makes its own
        client = _clients.get(name)
        if client is None:
            with _lock:
                client = _clients.get(name)
                if client is None:
                    pool = self._pool_class.from_url(server, **self._pool_options)
                    client = _clients[name] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient

    def count(self, key: str, timeout: int) -> int:
        """Add one to the counter `key`, which expires `timeout` seconds after its first
        count; the new count. One round trip (INCR), two on the first count (EXPIRE)."""
        key = self.make_and_validate_key(key)
        client = self._cache.get_client(key, write=True)
        counted = client.incr(key)
        if counted == 1:
            client.expire(key, timeout)
        return counted


def count(cache, key: str, timeout: int) -> int:
    """`RedisCache.count` on any Django cache: with another backend (the embedded default's
    memory cache), `add` then `incr`, atomic enough for one process."""
    if isinstance(cache, RedisCache):
        return cache.count(key, timeout)
    cache.add(key, 0, timeout)
    return cache.incr(key)
