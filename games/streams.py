"""Following a game over plain HTTP: the log as an NDJSON stream (`GET /games/{id}/stream`).

One line per log entry (the log API's Entry), in order, from `after` on; the stream stays
open and says so with a keep-alive line (`{"keepalive": <server time>}`) after
`settings.STREAM_KEEPALIVE_SECONDS` (20: under the usual 30–60 s idle timeouts of proxies and
mobile networks) without an entry, and ends after the entry that ends the game. New entries
are learnt from the game's channel-layer group (the message `games/events.py` sends after each
commit), then read from the log itself, so a stream never skips or repeats a seq even if it
misses a message (the next one, or the keep-alive's check, catches it up).

A stream holds no database connection while it waits: the request's own (authentication, the
visibility check) goes back to the pool before the first line, and each read takes one and
gives it back at once (`database_sync_to_async` closes it, also when the client left during
the read). It holds its place under the caps of what one client may keep open (a lease,
taxi_project/connection_limits.py) until it ends, however it ends. A read that fails (the
database or Redis is away) ends the stream; the client reconnects with `after`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing

from asgiref.sync import async_to_sync, sync_to_async
from channels.db import aclose_old_connections, database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from games import events, log, selectors
from games.models import Game
from taxi_project.connection_limits import Lease

logger = logging.getLogger(__name__)

OVER = (Game.Status.FINISHED, Game.Status.ABORTED, Game.Status.CANCELLED)


def _line(data: dict) -> str:
    return json.dumps(data, cls=JSONEncoder, ensure_ascii=False) + "\n"


def _entries_after_sync(game_id: int, after: int) -> tuple[list[str], bool]:
    """The lines of the entries after `after`, and whether the game is over."""
    game = Game.objects.get(pk=game_id)
    entries = log.since(game, after=after)
    bots = selectors.bot_seats(game)
    return [_line(selectors.entry_public(e, bots)) for e in entries], game.status in OVER


# Every stream of the process reads on these few threads of its own: streams together hold at
# most this many connections at once, however many follow a game that just moved (each on its
# request's own thread, they would all read at once), and never wait for one on the event
# loop's default executor, which Django needs to finish other requests (it logs a 4xx there
# before the request gives its connection back: reads waiting there for a connection such a
# request holds made every request wait out the pool's timeout).
READERS = 2
_readers = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="stream-read")
_entries_after = database_sync_to_async(
    _entries_after_sync, thread_sensitive=False, executor=_readers
)


class Lines:
    """What the view streams: the lines of `entry_lines`, and `close()`, which Django calls
    when the response is over. The generator ends by itself at the game's end, and is stopped
    where it waits when the client leaves; but a client that leaves while a line is being
    written stops the response outside it, at a `yield`, and it would be closed (its place
    and its group given back) only once it is collected: `close()` closes it at once."""

    def __init__(self, *, game_id: int, after: int, lease: Lease):
        self.lines = entry_lines(game_id=game_id, after=after, lease=lease)
        self.lease = lease

    def __aiter__(self) -> AsyncIterator[str]:
        return self.lines

    def close(self) -> None:  # from a thread: Django's handler runs it with sync_to_async
        async_to_sync(self.aclose)()
        self.lease.release()  # also if the generator never began

    async def aclose(self) -> None:
        await self.lines.aclose()


async def entry_lines(*, game_id: int, after: int, lease: Lease) -> AsyncIterator[str]:
    """The stream's lines; `lease` (taken by the view) is given back when it ends."""
    lease.start()
    try:
        # The view's connection belongs to the request's thread, which Django gives back only
        # when the response ends: give it back now (the same thread, thread-sensitive).
        await aclose_old_connections()
        async with aclosing(_follow(game_id=game_id, after=after)) as lines:
            async for line in lines:
                yield line
    finally:
        # shielded: a client gone mid-read cancels this task, and the lease must still go back
        await asyncio.shield(sync_to_async(lease.release, thread_sensitive=False)())


async def _follow(*, game_id: int, after: int) -> AsyncIterator[str]:
    keepalive = settings.STREAM_KEEPALIVE_SECONDS
    layer = get_channel_layer()
    try:
        channel = await layer.new_channel()
        group = events.game_group(game_id)
        await layer.group_add(group, channel)  # before the first read: nothing falls in between
    except Exception:
        logger.warning("game %s stream could not join its group", game_id, exc_info=True)
        return
    try:
        last = after
        while True:
            try:
                lines, over = await _entries_after(game_id, last)
            except Exception:  # ends the stream cleanly: the client resumes from `after`
                logger.warning("game %s stream could not read the log", game_id, exc_info=True)
                return
            for line in lines:
                yield line
            last += len(lines)  # seqs are consecutive (the log's unique key and triggers)
            if over:
                return
            try:
                while True:
                    message = await asyncio.wait_for(layer.receive(channel), keepalive)
                    if message.get("type") == "game.entry" and message.get("seq", 0) > last:
                        break
            except TimeoutError:
                yield _line({"keepalive": timezone.now()})
            except Exception:
                logger.warning("game %s stream lost its channel", game_id, exc_info=True)
                return
    finally:
        try:
            await layer.group_discard(group, channel)
        except Exception:
            logger.warning("game %s stream could not leave its group", game_id, exc_info=True)
