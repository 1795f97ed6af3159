"""Following a game over plain HTTP: the log as an NDJSON stream (`GET /games/{id}/stream`).

One line per log entry (the log API's Entry), in order, from `after` on; the stream stays
open and says so with a keep-alive line (`{"keepalive": <server time>}`) after
`settings.STREAM_KEEPALIVE_SECONDS` (20: under the usual 30–60 s idle timeouts of proxies and
mobile networks) without an entry, and ends after the entry that ends the game. New entries
are learnt from the game's channel-layer group (the message `games/events.py` sends after each
commit), then read from the log itself, so a stream never skips or repeats a seq even if it
misses a message (the next one, or the keep-alive's check, catches it up).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from games import events, log, selectors
from games.models import Game

OVER = (Game.Status.FINISHED, Game.Status.ABORTED, Game.Status.CANCELLED)


def _line(data: dict) -> str:
    return json.dumps(data, cls=JSONEncoder, ensure_ascii=False) + "\n"


def _entries_after_sync(game_id: int, after: int) -> tuple[list[str], bool]:
    """The lines of the entries after `after`, and whether the game is over."""
    game = Game.objects.get(pk=game_id)
    entries = log.since(game, after=after)
    return [_line(selectors.entry_public(entry)) for entry in entries], game.status in OVER


# Not thread-sensitive: Django runs sync views (the moves themselves) one at a time on its one
# thread-sensitive thread; a stream's read queued behind them would wait for every move.
_entries_after = database_sync_to_async(_entries_after_sync, thread_sensitive=False)


async def entry_lines(*, game_id: int, after: int) -> AsyncIterator[str]:
    keepalive = settings.STREAM_KEEPALIVE_SECONDS
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = events.game_group(game_id)
    await layer.group_add(group, channel)  # before the first read: nothing falls in between
    try:
        last = after
        while True:
            lines, over = await _entries_after(game_id, last)
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
    finally:
        await layer.group_discard(group, channel)
