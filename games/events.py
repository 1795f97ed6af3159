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

import redis
from asgiref.sync import async_to_sync
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, decode_hosts
from django.conf import settings
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


def _send(*pushes: tuple[str, dict]) -> None:
    """Each (group, message) to its group. Best effort: logged, never raised."""
    try:
        layer = get_channel_layer()
        target = _publisher.target(layer)
        if target is not None:
            _publisher.publish(layer, target, pushes)  # from any thread, without an event loop
            return
        loop = request_loop.get()
        for group, message in pushes:
            if loop is not None:  # an HTTP request's thread: the server's loop sends it, later
                future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
                future.add_done_callback(partial(_check_sent, group))
            else:
                async_to_sync(layer.group_send)(group, message)  # a consumer's loop, or a new one
    except Exception:  # the move is committed; clients catch up by resync
        log.exception("push to %s failed", ", ".join(group for group, _ in pushes))


def _check_sent(group: str, future) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("push to %s failed", group, exc_info=future.exception())


class _Publisher:
    """channels_redis's pub/sub `group_send`, done synchronously: a PUBLISH of the layer's own
    serialisation of the message to the Redis channel the layer subscribes its group's sockets
    to (`<prefix>__group__<group>`, on the shard it hashes the name to), through one redis-py
    client per process and shard, built from the layer's own host settings. Several pushes go
    in one pipeline: one round trip. tests/test_push.py checks that the layer's sockets
    get what this publishes.

    Handing `group_send` to an event loop instead cost a move about 1 ms of CPU (a coroutine
    scheduled across threads, and redis-py's asyncio client); this PUBLISH about 0.4 ms
    (BENCHMARKS.md, API). A Redis that does not answer fails the push in 2 s at most, as it
    fails the rate limit (the entry is committed already; the sockets resync)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._targets: dict[tuple, tuple[str, list[redis.Redis]] | None] = {}

    def target(self, layer) -> tuple[str, list[redis.Redis]] | None:
        """(the layer's prefix, a client per shard) for the pub/sub layer on Redis servers by
        address; None for any other layer (in-memory) or hosts (Sentinel). Made once per
        process and configuration (a forked child, or a test's settings, make their own)."""
        if not isinstance(layer, RedisPubSubChannelLayer):
            return None
        config = _config()
        key = (os.getpid(), repr(config))
        if key not in self._targets:
            with self._lock:
                if key not in self._targets:
                    hosts = decode_hosts(config.get("hosts"))
                    self._targets[key] = (
                        None
                        if any("master_name" in host for host in hosts)
                        else (config.get("prefix", "asgi"), [_client(h) for h in hosts])
                    )
        return self._targets[key]

    @staticmethod
    def publish(layer: RedisPubSubChannelLayer, target, pushes) -> None:
        prefix, shards = target
        pipelines = {}
        for group, message in pushes:
            channel = f"{prefix}__group__{group}"
            shard = shards[_consistent_hash(channel, len(shards))]
            pipeline = pipelines.get(id(shard))
            if pipeline is None:
                pipeline = pipelines[id(shard)] = shard.pipeline(transaction=False)
            pipeline.publish(channel, layer.serialize(message))
        for pipeline in pipelines.values():
            pipeline.execute()


def _config() -> dict:
    return settings.CHANNEL_LAYERS[DEFAULT_CHANNEL_LAYER].get("CONFIG", {})


def _client(host: dict) -> redis.Redis:
    """A redis-py client for a host as channels_redis reads it (`create_pool`, synchronous)."""
    host = {**host, "socket_timeout": min(host.get("socket_timeout") or 2, 2)}
    if "address" in host:
        return redis.Redis.from_url(host.pop("address"), **host)
    return redis.Redis(**host)


_publisher = _Publisher()


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
    pushes = [(game_group(game_id), message)]
    if your_turn is not None:
        turn = {"type": "user.your_turn", "game": game_id, "version": message["seq"]}
        pushes.append((user_group(your_turn), turn))
    _send(*pushes)


def chat_posted(*, game_id: int, message: dict) -> None:
    _send((game_group(game_id), {"type": "game.chat", "message": _plain(message)}))


def chat_hidden(*, game_id: int, message_id: int) -> None:
    _send((game_group(game_id), {"type": "game.chat_hidden", "id": message_id}))


def table_changed(*, table: dict) -> None:
    _send((LOBBY_GROUP, {"type": "lobby.table", "table": _plain(table)}))


def user_refused(*, user_id: int) -> None:
    """The account was suspended or banned: its open sockets say so and close."""
    _send((account_group(user_id), {"type": "account.refused"}))
