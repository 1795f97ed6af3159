"""Whether a worker that plays computer opponents' turns is alive, so the clock leaves a bot's
turn to the bot rather than to the autopilot (docs/reliability.md, "Bots' turns").

    bot_workers.keep_alive(hostname)   # a worker consuming the bots queue, at its start
    bot_workers.alive()                # the clock, before it times a bot out

Each such worker's main process renews one shared cache key (Redis in production, so every
process sees it) every `BOT_WORKER_HEARTBEAT_SECONDS`, with a time to live of three beats: the
key lapses within three beats of the last bot worker's death (a SIGKILL, a lost machine), and
any one living bot worker keeps it. The main process, not a pool child, renews it: a child
killed mid-think is replaced and its task redelivered (`bot_play` is acknowledged late and
rejected on a lost worker), while the worker itself lives on.

A cache that fails answers "none alive": the autopilot plays, as it would with no bot worker.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

KEY = "bot-workers:alive"


def _ttl() -> float:
    return settings.BOT_WORKER_HEARTBEAT_SECONDS * 3


def heartbeat(hostname: str) -> None:
    """One beat of a living bot worker."""
    cache.set(KEY, hostname, timeout=_ttl())


def alive() -> bool:
    """Whether some bot worker beat within the last three beats."""
    try:
        return cache.get(KEY) is not None
    except Exception:  # the cache is away: as if no bot worker were up
        log.warning("could not tell whether a bot worker is alive", exc_info=True)
        return False


def keep_alive(hostname: str) -> threading.Event:
    """Beat from a daemon thread until the returned event is set (the worker shuts down)."""
    stop = threading.Event()

    def beat() -> None:
        while True:
            try:
                heartbeat(hostname)
            except Exception:  # the cache is away: the next beat tries again
                log.warning("bot worker heartbeat failed", exc_info=True)
            if stop.wait(settings.BOT_WORKER_HEARTBEAT_SECONDS):
                return

    threading.Thread(target=beat, name="bot-worker-heartbeat", daemon=True).start()
    return stop
