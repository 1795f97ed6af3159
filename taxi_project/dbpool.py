"""The PostgreSQL connection pool (psycopg_pool, through Django's `OPTIONS["pool"]`).

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
