"""Pushing what happened to WebSocket clients, through the channel layer (after commit only).

Groups: `game-<id>` (everyone watching a game), `user-<id>` (one user's sockets), `lobby`.
Messages carry everything a consumer needs to build each client's frame without touching the
database: the entry's notifications, the public view, and the legal actions of the seat to move
(which only that seat's sockets put in their frame). Pushing is best effort: a failure is
logged, never raised into a committed request; clients resync from their last seq.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder

from games import engine
from taxi_project.handler import request_loop

log = logging.getLogger(__name__)

FRAME_VERSION = 1
LOBBY_GROUP = "lobby"


def game_group(game_id: int) -> str:
    return f"game-{game_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def account_group(user_id: int) -> str:
    """Every socket of one user, game sockets included: to close them all on a refusal."""
    return f"account-{user_id}"


def _send(group: str, message: dict) -> None:
    try:
        send = get_channel_layer().group_send
        loop = request_loop.get()
        if loop is not None:  # an HTTP request's thread: the server's loop sends it, later
            future = asyncio.run_coroutine_threadsafe(send(group, message), loop)
            future.add_done_callback(partial(_check_sent, group))
        elif _own_loop is None:
            async_to_sync(send)(group, message)  # a WebSocket consumer's loop, or a new one
        else:
            _own_loop.run(send(group, message))
    except Exception:  # the move is committed; clients catch up by resync
        log.exception("push to %s failed", group)


def _check_sent(group: str, future) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("push to %s failed", group, exc_info=future.exception())


class _Loop:
    """An event loop on a thread of its own, started on first use in each process. Outside an
    ASGI server (a Celery worker), `async_to_sync` would make a new loop per push, and the
    Redis channel layer a new connection per loop; this loop keeps one."""

    def __init__(self):
        self._lock = threading.Lock()
        self._loop = None
        self._pid = None

    def run(self, coroutine, timeout: float = 10.0):
        with self._lock:
            if self._loop is None or self._pid != os.getpid():  # new, or inherited by a fork
                self._loop = asyncio.new_event_loop()
                self._pid = os.getpid()
                threading.Thread(
                    target=self._loop.run_forever, name="channel-layer-loop", daemon=True
                ).start()
            loop = self._loop
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout)


_own_loop: _Loop | None = None


def use_own_loop() -> None:
    """Push through a long-lived loop of this process (for processes outside the ASGI server)."""
    global _own_loop
    _own_loop = _own_loop or _Loop()


def _plain(data) -> dict:
    """JSON-safe (datetimes as ISO strings), as the channel layer serialises with msgpack."""
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def entry_message(
    *, seq: int, notifications: list[dict], current: engine.Game, clock: dict, public: dict
) -> dict:
    """The channel-layer message for a log entry, taken at the state right after it
    (`public`: its public view, as clients get it)."""
    return {
        "type": "game.entry",
        "seq": seq,
        "clock": _plain(clock),
        "notifications": notifications,
        "public": public,
        "active_seat": current.current_player(),
        "legal": [engine.encode_action(a) for a in current.legal_actions()],
    }


def entry_committed(*, game_id: int, message: dict, your_turn: int | None) -> None:
    """A log entry committed: tell the game's sockets, and — when the entry began a player's
    turn — that player's user sockets (`your_turn`: their user id)."""
    _send(game_group(game_id), message)
    if your_turn is not None:
        _send(
            user_group(your_turn),
            {"type": "user.your_turn", "game": game_id, "version": message["seq"]},
        )


def chat_posted(*, game_id: int, message: dict) -> None:
    _send(game_group(game_id), {"type": "game.chat", "message": _plain(message)})


def chat_hidden(*, game_id: int, message_id: int) -> None:
    _send(game_group(game_id), {"type": "game.chat_hidden", "id": message_id})


def table_changed(*, table: dict) -> None:
    _send(LOBBY_GROUP, {"type": "lobby.table", "table": _plain(table)})


def user_refused(*, user_id: int) -> None:
    """The account was suspended or banned: its open sockets say so and close."""
    _send(account_group(user_id), {"type": "account.refused"})
