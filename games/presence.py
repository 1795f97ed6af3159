"""Who is watching which game right now: a user with a socket open on a game is not pushed
about it (games/push.py), since the page already shows it.

Kept in Django's cache (Redis in production, so every server process and Celery worker sees
every process's sockets), through the process's one cache object (taxi_project/cache.py:
`shared`), not one per socket: one key per (game, user) holding {socket channel: seen until}. A
socket is written when it opens, again on every heartbeat of its process (games/consumers.py:
`_Watch`, SOCKET_HEARTBEAT_SECONDS) and removed when it closes; an entry not renewed (its
process died) lapses a little after one missed heartbeat. Two processes renewing one key at
once may lose one's write; the next heartbeat restores it.

Best effort both ways: a cache that fails loses no socket and sends no push twice; it only
means a user may be pushed while watching, or not pushed for one heartbeat.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping

from asgiref.sync import sync_to_async
from django.conf import settings

from taxi_project.cache import shared

log = logging.getLogger(__name__)


def _ttl() -> float:
    return settings.SOCKET_HEARTBEAT_SECONDS * 1.5 + 5


def _key(game_id: int, user_id: int) -> str:
    return f"watching:{game_id}:{user_id}"


def _live(entries: dict | None, now: float) -> dict:
    return {channel: until for channel, until in (entries or {}).items() if until > now}


async def _renew(sockets: Iterable[tuple[int, int, str]], *, leaving: bool = False) -> None:
    by_key: dict[str, list[str]] = {}
    for game_id, user_id, channel in sockets:
        by_key.setdefault(_key(game_id, user_id), []).append(channel)
    if by_key:
        # One thread hop and one round trip each way for all the keys: the cache's own async
        # `aget_many` and `aset_many` await a thread and a round trip per key (Django's
        # BaseCache), and a heartbeat of 500 sockets cost its process 0.4 s of CPU.
        await sync_to_async(_write, thread_sensitive=False)(by_key, leaving)


def _write(by_key: dict[str, list[str]], leaving: bool) -> None:
    try:
        now = time.time()
        cache = shared()
        found = cache.get_many(list(by_key))
        writes, gone = {}, []
        for key, channels in by_key.items():
            entries = _live(found.get(key), now)
            for channel in channels:
                if leaving:
                    entries.pop(channel, None)
                else:
                    entries[channel] = now + _ttl()
            if entries:
                writes[key] = entries
            else:
                gone.append(key)
        if writes:
            cache.set_many(writes, timeout=_ttl())
        if gone:
            cache.delete_many(gone)
    except Exception:  # the cache is away: pushes may reach a watcher meanwhile
        log.exception("could not record who watches which game")


def _socket(consumer) -> tuple[int, int, str] | None:
    user = consumer.user
    return (consumer.game_id, user.pk, consumer.channel_name) if user.is_authenticated else None


async def arrived(consumer) -> None:
    """A game socket opened (`consumer`: a GameConsumer)."""
    if (socket := _socket(consumer)) is not None:
        await _renew([socket])


async def left(consumer) -> None:
    if (socket := _socket(consumer)) is not None:
        await _renew([socket], leaving=True)


async def renew(games: Mapping[int, Iterable]) -> None:
    """The heartbeat: every game socket of this process is still there."""
    await _renew(s for consumers in games.values() for c in consumers if (s := _socket(c)))


def watching(*, game_id: int, user_id: int) -> bool:
    try:
        return bool(_live(shared().get(_key(game_id, user_id)), time.time()))
    except Exception:  # the cache is away: push rather than stay silent
        log.exception("could not read who watches game %s", game_id)
        return False
