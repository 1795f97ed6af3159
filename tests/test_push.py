"""One push path (games/events.py): `group_send`, from a request's thread (as Django's ASGI
handler runs views: `sync_to_async`) or a Celery worker's (a thread with no event loop), on
Redis and on the in-memory layer alike. What it sends must reach the group's sockets exactly as
the layer's own `group_send` delivers it; a Redis that does not answer loses the push, never
the committed request. In a server process the thread hands the push to the server's loop and
goes on, up to `PUSHES_PENDING` pushes waiting; past them it waits for its own."""

from __future__ import annotations

import asyncio
import logging
import random
from functools import partial

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer

from games import events


def _game_id() -> int:
    return random.randrange(10**9, 2 * 10**9)  # groups no other test or process uses


IN_MEMORY = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.parametrize(
    "layer_kind, caller",
    [
        ("memory", "request"),
        pytest.param("redis", "request", marks=pytest.mark.redis),
        pytest.param("redis", "worker", marks=pytest.mark.redis),
        pytest.param("redis", "worker with its own loop", marks=pytest.mark.redis),
    ],
)
def test_pushes_from_a_thread_reach_the_layers_group_members_as_its_own_group_send(
    layer_kind, caller, settings, monkeypatch
):
    from channels_redis.pubsub import RedisPubSubChannelLayer

    if layer_kind == "memory":
        settings.CHANNEL_LAYERS = IN_MEMORY
    if caller == "worker with its own loop":  # as taxi_project/celery.py sets a worker up
        monkeypatch.setattr(events, "_own_loop", None)
        events.use_own_loop()
    layer = get_channel_layer()
    assert isinstance(layer, RedisPubSubChannelLayer) == (layer_kind == "redis")
    game_id, user_id = _game_id(), _game_id()
    entry = {
        "type": "game.entry",
        "game": game_id,
        "commitment": "c0ffee",
        "seq": 7,
        "clock": {"turn_deadline_at": "2026-12-01T21:00:00Z"},
        "notifications": [{"type": "turn_started", "seat": 1}],
        "public": {
            "status": "playing",
            "turn": 3,
            "waiting": [{"origin": "5D", "destination": "9H"}],
            "seats": [{"zombie": False}, {"zombie": False}],
        },
        "active_seat": 1,
        "legal": [{"type": "stop", "seat": 1}],
    }
    pushed = events.entry_push(entry)  # as the game's sockets get it

    async def scenario():
        game_socket = await layer.new_channel()
        user_socket = await layer.new_channel()
        await layer.group_add(events.game_group(game_id), game_socket)
        await layer.group_add(events.user_group(user_id), user_socket)
        try:
            # an entry that began the user's turn, committed in a request or a worker
            push = partial(events.entry_committed, game_id=game_id, message=entry,
                           your_turn=user_id)  # fmt: skip
            if caller == "request":
                await sync_to_async(push)()
            else:
                await asyncio.to_thread(push)
            published = [
                await asyncio.wait_for(layer.receive(game_socket), 5),
                await asyncio.wait_for(layer.receive(user_socket), 5),
            ]
            await layer.group_send(events.game_group(game_id), pushed)  # the layer's own way
            sent = await asyncio.wait_for(layer.receive(game_socket), 5)
            return published, sent
        finally:
            await layer.group_discard(events.game_group(game_id), game_socket)
            await layer.group_discard(events.user_group(user_id), user_socket)

    (to_game, to_user), sent = async_to_sync(scenario)()
    assert to_game == sent == pushed
    assert to_user == {"type": "user.your_turn", "game": game_id, "version": 7, "turn": 3}


def test_a_redis_that_is_down_loses_the_push_not_the_caller(settings, caplog):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": "redis://127.0.0.1:1/0"}]},  # nothing listens
        }
    }
    game_id = _game_id()
    with caplog.at_level(logging.ERROR, logger="games.events"):
        events.chat_hidden(game_id=game_id, message_id=5)  # returns: nothing raised
    assert f"push to game-{game_id} failed" in caplog.text


class _HeldLayer:
    """An in-memory layer whose publishes wait for `gate`, recording what they published."""

    def __init__(self, fail: bool = False):
        self.gate = asyncio.Event()
        self.published: list[int] = []
        self.fail = fail

    async def group_send(self, group, message):
        await self.gate.wait()
        if self.fail:
            raise ConnectionError("the layer is gone")
        self.published.append(message["id"])


async def _until(condition) -> None:
    """Wait up to a second for `condition()` (what the loop publishes comes a moment later)."""
    for _ in range(100):
        if condition():
            return
        await asyncio.sleep(0.01)


def _hidden(n: int):
    return partial(events.chat_hidden, game_id=_game_id(), message_id=n)


def _in_a_request(push):
    """A push from a thread as Django's ASGI handler runs a view (`sync_to_async`)."""
    return sync_to_async(push, thread_sensitive=False)()


def test_in_a_server_process_a_thread_hands_its_push_to_the_loop_and_goes_on(settings, monkeypatch):
    layer = _HeldLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    settings.PUSHES_PENDING = 10

    async def scenario():
        events.publish_from(asyncio.get_running_loop())  # as the ASGI application does
        # the publish cannot finish while the gate is shut: the thread returns all the same
        await asyncio.wait_for(_in_a_request(_hidden(1)), 5)
        await asyncio.wait_for(_in_a_request(_hidden(2)), 5)
        assert layer.published == []
        layer.gate.set()
        await _until(lambda: len(layer.published) == 2)
        return layer.published

    assert async_to_sync(scenario)() == [1, 2]


def test_past_PUSHES_PENDING_a_thread_waits_for_its_own_push(settings, monkeypatch):
    layer = _HeldLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    settings.PUSHES_PENDING = 1

    async def scenario():
        events.publish_from(asyncio.get_running_loop())
        await asyncio.wait_for(_in_a_request(_hidden(1)), 5)  # takes the one place
        second = asyncio.ensure_future(_in_a_request(_hidden(2)))
        await asyncio.sleep(0.3)
        waited = not second.done()  # no place: it waits for its own publish
        layer.gate.set()
        await asyncio.wait_for(second, 5)
        return waited, sorted(layer.published)

    waited, published = async_to_sync(scenario)()
    assert waited
    assert published == [1, 2]


def test_a_push_the_loop_fails_to_publish_is_logged_and_its_place_given_back(
    settings, monkeypatch, caplog
):
    layer = _HeldLayer(fail=True)
    layer.gate.set()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    settings.PUSHES_PENDING = 1

    async def scenario():
        events.publish_from(asyncio.get_running_loop())
        await _in_a_request(_hidden(1))
        await _until(lambda: "failed" in caplog.text)
        layer.fail = False
        layer.gate.clear()
        # the failed push gave its place back: the next is handed over too, and the thread
        # goes on while its publish waits at the gate
        await asyncio.wait_for(_in_a_request(_hidden(2)), 5)
        layer.gate.set()
        await _until(lambda: layer.published)
        return layer.published

    with caplog.at_level(logging.ERROR, logger="games.events"):
        assert async_to_sync(scenario)() == [2]
    assert "push to game-" in caplog.text and "the layer is gone" in caplog.text


def test_with_the_servers_loop_gone_a_push_is_published_by_the_thread_itself(settings, monkeypatch):
    layer = _HeldLayer()
    layer.gate.set()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)

    async def served():
        events.publish_from(asyncio.get_running_loop())

    async_to_sync(served)()  # that loop has stopped since
    _hidden(7)()
    assert layer.published == [7]


class _RecordingLayer:
    """A layer that records each publish in `log`, and the tasks it was published from."""

    def __init__(self, log: list):
        self.log = log
        self.tasks: set = set()

    async def group_send(self, group, message):
        self.tasks.add(asyncio.current_task())
        self.log.append(f"push {message['id']}")


@pytest.mark.parametrize("own_loop", [True, False], ids=["worker", "no loop of its own"])
def test_a_batchs_pushes_are_published_together_once_it_ends_in_order(own_loop, monkeypatch):
    log: list[str] = []
    layer = _RecordingLayer(log)
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(events, "_own_loop", None)
    if own_loop:  # as taxi_project/celery.py sets a worker up
        events.use_own_loop()
    with events.pushes_batched():
        for n in range(3):
            _hidden(n)()
        log.append("batch made")
    assert log == ["batch made", "push 0", "push 1", "push 2"]
    assert len(layer.tasks) == 1  # one hand-off for the batch


def test_a_batch_holds_at_most_PUSHES_PENDING_pushes(settings, monkeypatch):
    log: list[str] = []
    monkeypatch.setattr(events, "get_channel_layer", lambda: _RecordingLayer(log))
    settings.PUSHES_PENDING = 2
    with events.pushes_batched():
        for n in range(3):
            _hidden(n)()
        log.append("third made")
    assert log == ["push 0", "push 1", "third made", "push 2"]


def test_a_push_that_fails_in_a_batch_is_logged_and_the_others_go_on(monkeypatch, caplog):
    log: list[str] = []

    class Failing(_RecordingLayer):
        async def group_send(self, group, message):
            if message["id"] == 1:
                raise ConnectionError("the layer is gone")
            await super().group_send(group, message)

    monkeypatch.setattr(events, "get_channel_layer", lambda: Failing(log))
    with caplog.at_level(logging.ERROR, logger="games.events"):
        with events.pushes_batched():
            for n in range(3):
                _hidden(n)()
    assert log == ["push 0", "push 2"]
    assert "push to game-" in caplog.text and "the layer is gone" in caplog.text
