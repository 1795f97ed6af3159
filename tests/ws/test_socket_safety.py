"""The WebSocket under attack and faults: open sockets do not outlive their credentials, hostile
frames get an error frame and leave the socket open, a foreign entry is dropped, a lost push
is caught up by the heartbeat, and a datetime reads the same in a frame as over HTTP. Through
the real ASGI application."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.services import token_issue
from games import events
from games.models import Game, GameEntry
from tests.players import autopilot_choice
from tests.ws.test_consumers import frames_until, move_over_http, run, socket


def _move_frame(game_id: int) -> dict:
    game = Game.objects.get(pk=game_id)
    return {
        "type": "move",
        "ref": 1,
        "action": autopilot_choice(game_id),
        "version": game.version,
        "idempotency_key": uuid.uuid4().hex,
    }


async def _closed(ws) -> int:
    output = await ws.receive_output(timeout=5)
    assert output["type"] == "websocket.close", output
    return output["code"]


def _open_and_sync(game_id, player):
    async def opened():
        ws = socket(f"/ws/games/{game_id}/", player)
        connected, _ = await ws.connect()
        assert connected
        await frames_until(ws, "hello")
        await ws.send_json_to({"type": "sync", "after": -1})
        await frames_until(ws, "synced")
        return ws

    return opened


@pytest.mark.parametrize("how", ["logout", "token_revoked", "password_changed"])
def test_a_socket_closes_when_its_token_is_revoked(table, how):
    """Item 1: logging out (with the token), revoking it, or changing the password closes
    the user's open sockets with 4401."""
    game_id, by_seat = table
    game = Game.objects.get(pk=game_id)
    mover = by_seat[game.active_seat]

    watcher = mover
    if how == "password_changed":  # the changing device keeps its token: the
        # socket of another device of the same user is the one that must close
        tablet = token_issue(user=mover.user, device="tablet")[1]
        watcher = SimpleNamespace(user=mover.user, token=tablet)

    async def scenario():
        ws = await _open_and_sync(game_id, watcher)()
        from channels.db import database_sync_to_async

        def revoke():
            if how == "logout":
                return mover.post("/api/v1/auth/logout")
            if how == "token_revoked":
                return mover.client.delete("/api/v1/auth/token")
            return mover.post(
                "/api/v1/me/password",
                {"old_password": "pw-" + mover.user.username * 2, "new_password": "n3w-Passw0rd!x"},
            )

        answer = await database_sync_to_async(revoke)()
        assert answer.status_code in (200, 204), answer.content
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "not_authenticated"
        assert await _closed(ws) == 4401

    run(scenario)


def test_a_move_or_chat_frame_is_refused_when_the_close_notice_was_lost(table, monkeypatch):
    """Item 1: with the notice lost, the next move frame still finds the token gone: refused,
    closed, nothing written."""
    game_id, by_seat = table
    mover = by_seat[Game.objects.get(pk=game_id).active_seat]
    monkeypatch.setattr(events, "credentials_changed", lambda **kwargs: None)

    async def scenario():
        from channels.db import database_sync_to_async

        ws = await _open_and_sync(game_id, mover)()
        await database_sync_to_async(lambda: mover.client.delete("/api/v1/auth/token"))()
        frame = await database_sync_to_async(_move_frame)(game_id)
        await ws.send_json_to(frame)
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "not_authenticated"
        assert await _closed(ws) == 4401

    before = GameEntry.objects.filter(game_id=game_id).count()
    run(scenario)
    assert GameEntry.objects.filter(game_id=game_id).count() == before


@pytest.mark.parametrize("kind", ["move", "chat"])
def test_a_ban_written_to_the_user_row_refuses_the_next_frame(table, kind):
    """Item 1: a ban written straight to the row (no service, no notice): the socket's next
    move or chat frame is refused with the account's code and it closes with 4403."""
    game_id, by_seat = table
    mover = by_seat[Game.objects.get(pk=game_id).active_seat]

    async def scenario():
        from channels.db import database_sync_to_async

        ws = await _open_and_sync(game_id, mover)()
        await database_sync_to_async(
            lambda: User.objects.filter(pk=mover.user.pk).update(banned_at=timezone.now())
        )()
        if kind == "move":
            await ws.send_json_to(await database_sync_to_async(_move_frame)(game_id))
        else:
            await ws.send_json_to({"type": "chat", "text": "hello"})
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "account_banned"
        assert await _closed(ws) == 4403

    before = GameEntry.objects.filter(game_id=game_id).count()
    run(scenario)
    assert GameEntry.objects.filter(game_id=game_id).count() == before


def test_deeply_nested_json_and_an_anonymous_chat_get_error_frames_and_the_socket_lives(table):
    """Items 5 and 6: a frame nested 1,000 deep, and a chat frame from an anonymous
    spectator, are answered with an error frame; the socket then still answers a ping."""
    game_id, _ = table
    deep = '{"type": "ping", "x": ' + "[" * 1000 + "]" * 1000 + "}"

    async def scenario():
        ws = socket(f"/ws/games/{game_id}/")
        connected, _ = await ws.connect()
        assert connected
        await frames_until(ws, "hello")
        await ws.send_to(text_data=deep)
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "malformed_frame"
        await ws.send_json_to({"type": "chat", "text": "hi"})
        error = await ws.receive_json_from(timeout=5)
        assert error["type"] == "error" and error["code"] == "not_authenticated"
        await ws.send_json_to({"type": "ping", "ref": 7})
        assert (await ws.receive_json_from(timeout=5)) == {"v": 1, "type": "pong", "ref": 7}
        await ws.disconnect()

    run(scenario)


def test_a_foreign_entry_is_dropped_and_the_real_ones_still_arrive(table):
    """Item 12: an entry for this game id from another deployment (another seed commitment)
    on a shared channel layer is not forwarded, and does not make the socket skip the real
    next entry."""
    game_id, by_seat = table
    game = Game.objects.get(pk=game_id)

    async def scenario():
        from channels.db import database_sync_to_async
        from channels.layers import get_channel_layer

        ws = await _open_and_sync(game_id, by_seat[0])()
        foreign = {
            "type": "game.entry", "game": game_id, "commitment": "another deployment",
            "seq": game.version + 1, "clock": {}, "notifications": [{"type": "foreign"}],
            "public": {}, "active_seat": None, "legal": [],
        }  # fmt: skip
        await get_channel_layer().group_send(events.game_group(game_id), foreign)
        await database_sync_to_async(move_over_http)(game_id, by_seat)
        entry = await ws.receive_json_from(timeout=5)
        assert entry["type"] == "entry" and entry["seq"] == game.version + 1
        assert entry["notifications"] != [{"type": "foreign"}]
        await ws.disconnect()

    run(scenario)


def test_a_lost_push_reaches_the_socket_on_the_next_heartbeat(table, monkeypatch, settings):
    """Item 13: an entry committed whose push never left (its process died between commit
    and publish: here the push is dropped) reaches the open socket within a heartbeat."""
    settings.SOCKET_HEARTBEAT_SECONDS = 0.5
    game_id, by_seat = table
    monkeypatch.setattr(events, "entry_committed", lambda **kwargs: None)

    async def scenario():
        from channels.db import database_sync_to_async

        ws = await _open_and_sync(game_id, by_seat[0])()
        await database_sync_to_async(move_over_http)(game_id, by_seat)
        version = (await database_sync_to_async(Game.objects.get)(pk=game_id)).version
        entry = await ws.receive_json_from(timeout=5)
        assert entry["type"] == "entry" and entry["seq"] == version
        assert entry["view"] is not None
        await ws.disconnect()

    run(scenario)


def test_a_lost_your_turn_reaches_the_users_socket_on_the_next_heartbeat(
    table, monkeypatch, settings
):
    settings.SOCKET_HEARTBEAT_SECONDS = 0.5
    game_id, by_seat = table
    game = Game.objects.get(pk=game_id)
    waiting = by_seat[1 - game.active_seat]
    monkeypatch.setattr(events, "entry_committed", lambda **kwargs: None)

    async def scenario():
        from channels.db import database_sync_to_async

        ws = socket("/ws/me/", waiting)
        connected, _ = await ws.connect()
        assert connected
        hello = await ws.receive_json_from(timeout=5)
        assert hello["your_turn"] == []
        while True:  # the other player's whole turn, no push
            await database_sync_to_async(move_over_http)(game_id, by_seat)
            now = await database_sync_to_async(Game.objects.get)(pk=game_id)
            if now.active_seat != game.active_seat:
                break
        turn = await ws.receive_json_from(timeout=5)
        assert turn == {"v": 1, "type": "your_turn", "game": game_id, "version": now.version,
                        "turn": now.turn_number}  # fmt: skip
        await ws.disconnect()

    run(scenario)


def test_a_datetime_reads_the_same_in_a_frame_as_over_http(make_player):
    """Item 15: the turn clock's start, in the socket's hello and in the HTTP game detail."""
    from tests.players import seat_players, start_game

    players = [make_player(), make_player()]
    game_id = start_game(players, clock="24h")
    by_seat = seat_players(game_id, players)
    over_http = by_seat[0].get(f"/api/v1/games/{game_id}").json()["clock_state"]

    async def scenario():
        ws = socket(f"/ws/games/{game_id}/", by_seat[0])
        await ws.connect()
        hello = await ws.receive_json_from(timeout=5)
        await ws.disconnect()
        return hello["clock"]

    in_frame = run(scenario)
    assert in_frame["turn_started_at"] == over_http["turn_started_at"]
    assert "." in in_frame["turn_started_at"] and len(in_frame["turn_started_at"]) == 27
