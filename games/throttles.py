"""Rate limits on writes over HTTP, per signed-in user: moves, and private notes."""

from __future__ import annotations

import logging
from types import SimpleNamespace

from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle

from taxi_project.cache import take

log = logging.getLogger(__name__)

MOVES_SCOPE = "moves"
NOTES_SCOPE = "notes"
FALLBACK_RATES = {MOVES_SCOPE: "120/min", NOTES_SCOPE: "120/min"}


class MoveRateThrottle(UserRateThrottle):
    """Moves submitted over HTTP (`POST …/actions`), counted per user across every game and
    every web process (the count lives in the shared cache, Redis in production). Reading the
    legal actions is not counted. Generous: it stops floods, not fast players.

    Counted in fixed windows of the rate's period (DRF's sliding log reads and rewrites a list
    of times, two round trips and a pickle), at the price of up to twice the rate across a
    window's edge; each process counts permits into the shared count a few at a time
    (`taxi_project.cache.take`: one Redis round trip per `LEASE` moves of a user on a
    process, never more than the rate in all). `Retry-After` is the time to the window's end.

    The rate (REST_FRAMEWORK DEFAULT_THROTTLE_RATES["moves"], env MOVE_THROTTLE_RATE) is read
    when the throttle is made, once per request, not once at import as DRF's class attribute
    `THROTTLE_RATES` is, so tests and deployments can change it."""

    scope = MOVES_SCOPE
    method = "POST"  # the counted request; reads are free

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES or {}
        return rates.get(self.scope, FALLBACK_RATES[self.scope])

    def allow_request(self, request, view) -> bool:
        if request.method != self.method or self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        try:
            return take(f"{key}:{window}", self.duration + 1, self.num_requests)
        except (RedisError, OSError):
            # The cache (Redis) is down. A move needs only the database, so the limit fails
            # open rather than turning every move into a 500 until Redis is back.
            log.warning(
                "%s rate limit skipped: the cache is unavailable", self.scope, exc_info=True
            )
            return True

    def wait(self) -> float:
        return max(self.window_ends - self.now, 1.0)


class NotesRateThrottle(MoveRateThrottle):
    """Private notes saved (`PUT …/notes`), counted per user across every game like the moves
    (the same fixed windows, failing open without the cache), under their own scope and rate
    (DEFAULT_THROTTLE_RATES["notes"], env NOTES_THROTTLE_RATE)."""

    scope = NOTES_SCOPE
    method = "PUT"


def socket_move_allowed(user) -> bool:
    """A move sent over the game's WebSocket counts against the same per-user limit as one
    sent over HTTP (the socket has no DRF request: the throttle needs only the user)."""
    return MoveRateThrottle().allow_request(SimpleNamespace(method="POST", user=user), None)
