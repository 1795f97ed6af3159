"""Liveness and readiness in one, for load balancers and container health checks: 200 only if
the database answers and, when REDIS_URL is configured, Redis answers (the channel layer, the
broker and the rate-limit counters live there). 503 with the failing part's code otherwise.
With a connection pool, the answer also shows the answering process's pool
(`database_pool`: `max`, `open`, `in_use` counting this check's own when it got one,
`waiting`): a pool whose connections are all lent out, and stay so, is seen from outside."""

from __future__ import annotations

import functools

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse

from taxi_project.dbpool import pool_figures

CHECK_TIMEOUT = 2.0  # seconds: a health check must answer before the balancer gives up


@functools.cache
def _redis():
    import redis

    # One client (and connection pool) per process; short timeouts, no retries.
    return redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=CHECK_TIMEOUT, socket_connect_timeout=CHECK_TIMEOUT
    )


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        return False
    return True


def _redis_ok() -> bool:
    import redis

    try:
        return bool(_redis().ping())
    except (redis.RedisError, OSError):
        return False


def healthz(request: HttpRequest) -> JsonResponse:
    body: dict[str, object]
    if not _database_ok():
        body, status = {"status": "error", "code": "database_unavailable"}, 503
    elif getattr(settings, "REDIS_URL", "") and not _redis_ok():
        body, status = {"status": "error", "code": "redis_unavailable"}, 503
    else:
        body, status = {"status": "ok"}, 200
    if (pool := pool_figures()) is not None:
        body["database_pool"] = pool
    return JsonResponse(body, status=status)
