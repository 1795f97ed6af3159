"""How many streams and sockets one client may keep open: per account and per client address.

A stream (`GET /api/v1/games/{id}/stream`) or a WebSocket takes a *lease* when it opens and
gives it back when it ends. A lease counts once against its account (none for an anonymous
spectator) and once against its client address; when either count is at its cap the
connection is refused: 429 `too_many_connections` for a stream, close code 4429 for a socket
(docs/reliability.md "Limits", docs/websocket.md). The caps are settings
(`MAX_STREAMS_PER_ACCOUNT`, `MAX_STREAMS_PER_ADDRESS`, `MAX_SOCKETS_PER_ACCOUNT`,
`MAX_SOCKETS_PER_ADDRESS`; 0 turns one off).

The client address is the one the rate limits count (DRF's `get_ident`: `REMOTE_ADDR`, which
uvicorn sets from `X-Forwarded-For` only for the proxies in `FORWARDED_ALLOW_IPS`, or the
address `NUM_PROXIES` back in `X-Forwarded-For`).

Counted across processes and nodes. With REDIS_URL, each count is a sorted set
`<REDIS_PREFIX>:held:<kind>:<account|address>:<id>` of lease ids scored by the time (Redis's
own clock) at which they lapse; a Lua script checks both caps and adds the lease to both sets
at once, so two nodes cannot both take the last place. Every process renews the leases it
holds every third of `CONNECTION_LEASE_SECONDS`; the leases of a process that was killed
lapse after at most that long, and a key disappears with its last lease. Without Redis (the
embedded server, one process) the counts are kept in the process.

Opening one costs as much as any authenticated request (the token's lookup, the checks): a
client that opens hundreds at once would keep every thread and database connection of the
process busy refusing it. So at most `MAX_HANDSHAKES_PER_ADDRESS` streams and sockets per
client address are being opened at once in a server process (`HandshakeLimit`, in front of
the application: until the stream's response starts or the socket is accepted or closed);
one more is refused at once, before authentication: 429 `too_many_connections` (`per:
address`), for a socket as the answer to its handshake (it is never opened).

A lease that is never started (the stream was taken but never began to send: its client went
away before) is not renewed and lapses likewise. Redis failing fails open, as the rate limits
do: the connection is let through, uncounted (the channel layer, on the same Redis, is down
then too).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from dataclasses import dataclass, field

import redis
from django.conf import settings
from django.http import HttpRequest
from django.urls import Resolver404, resolve
from django.utils import translation
from rest_framework.throttling import BaseThrottle

from taxi_project.api_errors import TooManyConnections

log = logging.getLogger(__name__)

STREAM = "stream"
SOCKET = "socket"
ACCOUNT = "account"
ADDRESS = "address"

# KEYS: the sets to count in; ARGV: lease id, seconds to live, then each key's cap.
# Returns 0 (taken), or the 1-based index of the key whose cap is reached.
_TAKE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local ttl = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', t)
  if redis.call('ZCARD', key) >= tonumber(ARGV[i + 2]) then
    return i
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, t + ttl, ARGV[1])
  redis.call('EXPIRE', key, math.ceil(ttl) + 1)
end
return 0
"""

# KEYS: sets; ARGV: seconds to live, then the lease id to renew in each key (same order).
# XX: a lease that was given back (or lapsed and was swept) is not brought back.
_RENEW = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local ttl = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', t + ttl, ARGV[i + 1])
  redis.call('EXPIRE', key, math.ceil(ttl) + 1)
end
return 0
"""

RENEW_BATCH = 500  # leases per renewal script call


def caps(kind: str) -> dict[str, int]:
    """{ACCOUNT: cap, ADDRESS: cap} for `kind` (STREAM or SOCKET); 0 means no cap."""
    prefix = "MAX_STREAMS" if kind == STREAM else "MAX_SOCKETS"
    return {
        ACCOUNT: int(getattr(settings, f"{prefix}_PER_ACCOUNT")),
        ADDRESS: int(getattr(settings, f"{prefix}_PER_ADDRESS")),
    }


def lease_seconds() -> float:
    return float(settings.CONNECTION_LEASE_SECONDS)


# ---------------------------------------------------------------------------- client address


def request_address(request) -> str | None:
    """The client address of an HTTP request, as the rate limits count it."""
    return BaseThrottle().get_ident(request)


def socket_address(scope) -> str | None:
    """The client address of a WebSocket handshake, by the same rule as `request_address`."""
    client = scope.get("client")
    meta = {"REMOTE_ADDR": client[0] if client else None}
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-for":
            meta["HTTP_X_FORWARDED_FOR"] = value.decode("latin1")
    request = HttpRequest()
    request.META = meta
    return request_address(request)


# ---------------------------------------------------------------------------------- leases


@dataclass(eq=False)
class Lease:
    """One open stream or socket, counted in `keys` until `release()`."""

    kind: str
    keys: list[str]
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    taken_at: float = field(default_factory=time.monotonic)
    started: bool = False
    released: bool = False

    def start(self) -> None:
        """The connection is serving: renew the lease for as long as it is held."""
        self.started = True

    def release(self) -> None:
        """Give the lease back (idempotent; safe from any thread)."""
        if _registry.forget(self):
            _store().give_back(self)


class _Registry:
    """This process's leases, and the thread that renews them."""

    def __init__(self):
        self.leases: set[Lease] = set()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.pid = os.getpid()

    def add(self, lease: Lease) -> None:
        with self.lock:
            if self.pid != os.getpid():  # a forked child holds none of its parent's leases
                self.leases, self.thread, self.pid = set(), None, os.getpid()
            self.leases.add(lease)
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(
                    target=self._renew_forever, name="connection-leases", daemon=True
                )
                self.thread.start()

    def forget(self, lease: Lease) -> bool:
        """True if `lease` was held (and is not any more)."""
        with self.lock:
            if lease.released:
                return False
            lease.released = True
            self.leases.discard(lease)
            return True

    def held(self) -> list[Lease]:
        with self.lock:
            return list(self.leases)

    def _renew_forever(self) -> None:
        pause = lease_seconds() / 3
        while True:
            time.sleep(pause)
            try:
                self.renew()
                pause = lease_seconds() / 3
            except Exception:  # Redis is away or slow: try again soon, before the leases lapse
                log.warning("could not renew the connection leases", exc_info=True)
                pause = lease_seconds() / 12

    def renew(self) -> None:
        """Renew the started leases; let those never started lapse."""
        now, ttl = time.monotonic(), lease_seconds()
        started = []
        for lease in self.held():
            if lease.started:
                started.append(lease)
            elif now - lease.taken_at > ttl:
                lease.release()
        _store().renew(started)


_registry = _Registry()


class _LocalStore:
    """One process (no Redis): the counts in memory."""

    def __init__(self):
        self.counts: dict[str, set[str]] = {}
        self.lock = threading.Lock()

    def take(self, lease: Lease, limits: list[int]) -> int:
        with self.lock:
            for index, (key, limit) in enumerate(zip(lease.keys, limits, strict=True), 1):
                if len(self.counts.get(key, ())) >= limit:
                    return index
            for key in lease.keys:
                self.counts.setdefault(key, set()).add(lease.id)
            return 0

    def give_back(self, lease: Lease) -> None:
        with self.lock:
            for key in lease.keys:
                held = self.counts.get(key)
                if held is not None:
                    held.discard(lease.id)
                    if not held:
                        del self.counts[key]

    def renew(self, leases: list[Lease]) -> None:
        pass

    def count(self, key: str) -> int:
        with self.lock:
            return len(self.counts.get(key, ()))


class _RedisStore:
    """Several processes and nodes: the counts in Redis."""

    def __init__(self, url: str):
        # a Redis that stops answering fails a call in 2 s (the caps then fail open)
        self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.take_script = self.client.register_script(_TAKE)
        self.renew_script = self.client.register_script(_RENEW)

    def take(self, lease: Lease, limits: list[int]) -> int:
        try:
            return int(self.take_script(keys=lease.keys, args=[lease.id, lease_seconds(), *limits]))
        except (redis.RedisError, OSError):
            log.warning("connection caps skipped: Redis is unavailable", exc_info=True)
            return 0

    def give_back(self, lease: Lease) -> None:
        try:
            pipeline = self.client.pipeline(transaction=False)
            for key in lease.keys:
                pipeline.zrem(key, lease.id)
            pipeline.execute()
        except (redis.RedisError, OSError):  # it lapses by itself
            log.warning("could not give a connection lease back", exc_info=True)

    def renew(self, leases: list[Lease]) -> None:
        pairs = [(key, lease.id) for lease in leases for key in lease.keys]
        for start in range(0, len(pairs), RENEW_BATCH):
            batch = pairs[start : start + RENEW_BATCH]
            self.renew_script(
                keys=[key for key, _ in batch], args=[lease_seconds(), *(i for _, i in batch)]
            )

    def count(self, key: str) -> int:
        now = self.client.time()
        return self.client.zcount(key, now[0] + now[1] / 1e6, "+inf")


_stores: dict[tuple[int, str], _LocalStore | _RedisStore] = {}
_stores_lock = threading.Lock()


def _store() -> _LocalStore | _RedisStore:
    key = (os.getpid(), settings.REDIS_URL)
    store = _stores.get(key)
    if store is None:
        with _stores_lock:
            store = _stores.get(key)
            if store is None:
                url = settings.REDIS_URL
                store = _stores[key] = _RedisStore(url) if url else _LocalStore()
    return store


def _key(kind: str, per: str, ident: object) -> str:
    return f"{settings.REDIS_PREFIX}:held:{kind}:{per}:{ident}"


def lease_take(kind: str, *, user, address: str | None) -> Lease:
    """A lease for one more `kind` (STREAM or SOCKET) of `user` (an anonymous user counts by
    address only) from `address`, or TooManyConnections. Blocking (one Redis call): from
    async code, run it in a thread."""
    limits = caps(kind)
    counted = []
    if user is not None and user.is_authenticated and limits[ACCOUNT] > 0:
        counted.append((ACCOUNT, _key(kind, ACCOUNT, user.pk), limits[ACCOUNT]))
    if address and limits[ADDRESS] > 0:
        counted.append((ADDRESS, _key(kind, ADDRESS, address), limits[ADDRESS]))
    lease = Lease(kind=kind, keys=[key for _, key, _ in counted])
    refused = _store().take(lease, [limit for _, _, limit in counted]) if counted else 0
    if refused:
        per, _, limit = counted[refused - 1]
        raise TooManyConnections(per=per, limit=limit)
    _registry.add(lease)
    return lease


def held(kind: str, *, user_id: int | None = None, address: str | None = None) -> int:
    """How many `kind` leases an account or an address holds now, in every process."""
    per, ident = (ACCOUNT, user_id) if user_id is not None else (ADDRESS, address)
    return _store().count(_key(kind, per, ident))


def release_all() -> None:
    """Give back every lease this process holds (tests: between tests)."""
    for lease in _registry.held():
        lease.release()


# ------------------------------------------------------------------------- opening, at once


STREAM_URL_NAME = "game-stream"


class HandshakeLimit:
    """ASGI middleware: at most MAX_HANDSHAKES_PER_ADDRESS streams and sockets of one client
    address being opened at once in this process; one more is refused before anything else
    is done for it (no authentication, no database, no Redis)."""

    # address → streams and sockets being opened now, in this process (its one event loop),
    # whichever part of the application (HTTP, WebSocket) they go to
    opening: dict[str, int] = {}

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if not self.opens_a_connection(scope):
            return await self.app(scope, receive, send)
        limit = int(settings.MAX_HANDSHAKES_PER_ADDRESS)
        address = socket_address(scope)
        if limit <= 0 or not address:
            return await self.app(scope, receive, send)
        if self.opening.get(address, 0) >= limit:
            return await _refuse(scope, receive, send, limit)
        self.opening[address] = self.opening.get(address, 0) + 1
        opened = False

        def done() -> None:
            nonlocal opened
            if not opened:
                opened = True
                left = self.opening[address] - 1
                if left:
                    self.opening[address] = left
                else:
                    del self.opening[address]

        async def watched(message):
            if message["type"] in ("http.response.start", "websocket.accept", "websocket.close"):
                done()
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            done()

    @staticmethod
    def opens_a_connection(scope) -> bool:
        """A WebSocket handshake, or an HTTP request that opens a game's stream."""
        if scope["type"] == "websocket":
            return True
        if scope["type"] != "http" or scope.get("method") != "GET":
            return False
        if not scope["path"].endswith("/stream"):  # every other GET, at the cost of a compare
            return False
        try:
            return resolve(scope["path"]).url_name == STREAM_URL_NAME
        except Resolver404:
            return False


async def _refuse(scope, receive, send, limit: int) -> None:
    """429 `too_many_connections` (`per: address`): an HTTP answer, also to a WebSocket
    handshake (the ASGI denial response: the socket is never opened)."""
    from accounts.middleware import scope_language  # the app's, once Django is ready

    with translation.override(scope_language(scope)):
        error = TooManyConnections(per=ADDRESS, limit=limit)
        body = {"code": str(error.code), "message": error.message, **error.extra}
    payload = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(payload)).encode())]  # fmt: skip
    kind = "http"
    if scope["type"] == "websocket":
        if (await receive())["type"] != "websocket.connect":
            return
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 4429})  # the server answers 403
            return
        kind = "websocket.http"
    await send({"type": f"{kind}.response.start", "status": 429, "headers": headers})
    await send({"type": f"{kind}.response.body", "body": payload})
