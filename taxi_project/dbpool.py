"""The PostgreSQL connection pool (psycopg_pool, through Django's `OPTIONS["pool"]`).

A connection is lent to a thread at its first query and given back by Django's
`close_old_connections`: at the end of a request (`request_finished`), and around every
`database_sync_to_async` call. What stays open for long holds none while it waits: a stream
gives its request's connection back before its first wait (games/streams.py) and takes one per
read; a socket takes one per `database_sync_to_async` call (games/consumers.py). A request that
finds every connection lent waits up to `DB_POOL_TIMEOUT` seconds, then answers 503.

When the server drops connections (a restart, a failover, `pg_terminate_backend`), every idle
connection in the pool is dead, but the pool finds out one checkout at a time. Connections are
not checked on checkout (psycopg_pool backs off 1 s, 2 s, 4 s … between failed checks, so a
pool full of dead connections would stall requests for seconds); instead, the first request
that fails on a dropped connection answers 503 (retry) and has the pool check all its idle
connections at once, replacing the dead ones.
"""

from __future__ import annotations

import logging

from django.db import connection

log = logging.getLogger(__name__)


def purge_dead_connections() -> None:
    pool = getattr(connection, "pool", None)  # None: SQLite, or pooling turned off
    if pool is None:
        return
    try:
        pool.check()
    except Exception:  # the server is still away: the next failure tries again
        log.warning("could not check the pool's connections", exc_info=True)


def pool_figures() -> dict[str, int] | None:
    """This process's pool now (None without one): its cap, the connections open, those
    lent out (to requests running queries; one the pool is opening counts until it is ready)
    and the requests waiting for one. /healthz shows them, so a pool that leaked (lent
    connections nobody gives back) is seen from outside."""
    pool = getattr(connection, "pool", None)
    if pool is None:
        return None
    stats = pool.get_stats()
    return {
        "max": stats["pool_max"],
        "open": stats["pool_size"],
        "in_use": stats["pool_size"] - stats["pool_available"],
        "waiting": stats.get("requests_waiting", 0),
    }
