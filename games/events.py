"""Pushing what happened to WebSocket clients, through the channel layer (after commit only).

Groups: `game-<id>` (everyone watching a game), `user-<id>` (one user's sockets), `lobby`.
Messages carry everything a consumer needs to build each client's frame without touching the
database: the entry's notifications, the public view, and the legal actions of the seat to move
(which only that seat's sockets put in their frame). Pushing is best effort: a failure is
logged, never raised into a committed request; clients resync from their last seq.
"""

from __future__ import annotations

import json
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder

from games import engine
from games.selectors import seed_as_text

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
        async_to_sync(get_channel_layer().group_send)(group, message)
    except Exception:  # the move is committed; clients catch up by resync
        log.exception("push to %s failed", group)


def _plain(data) -> dict:
    """JSON-safe (datetimes as ISO strings), as the channel layer serialises with msgpack."""
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def entry_message(
    *, seq: int, notifications: list[dict], current: engine.Game, clock: dict
) -> dict:
    """The channel-layer message for a log entry, taken at the state right after it."""
    return {
        "type": "game.entry",
        "seq": seq,
        "clock": _plain(clock),
        "notifications": notifications,
        "public": seed_as_text(engine.public_view(current)),
        "active_seat": current.current_player(),
        "legal": [engine.encode_action(a) for a in current.legal_actions()],
    }


def entry_committed(*, game_id: int, message: dict, users: dict) -> None:
    """A log entry committed: tell the game's sockets, and the next player's user sockets."""
    _send(game_group(game_id), message)
    active = message["active_seat"]
    if active is not None and active in users:
        _send(
            user_group(users[active]),
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
