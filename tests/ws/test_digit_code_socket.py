"""Digit Code over the game socket: a `move` frame asks a question, every socket gets the entry
with its own view (the asker's next offers, the spectator's none), nothing of the code (G6)
goes out before the end, and a player's private notes (C2) go out to no socket at all."""

from __future__ import annotations

import uuid

from games import registry, state
from games.models import Game
from tests.digit_code.test_notes import NOTES, put
from tests.digit_code.test_platform_api import autopilot_choice
from tests.players import seat_players, start_game
from tests.ws.test_consumers import frames_until, run, socket

engine = registry.get("digit-code").engine


def test_G6_a_question_asked_over_the_socket_reaches_every_socket_without_the_code(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players, game="digit-code")
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    mover, other = by_seat[game.active_seat], by_seat[1 - game.active_seat]
    code = engine.full_view(state.state_for(game))["secret"]["code"]
    ask = {"type": "ask", "question": {"kind": "count", "line": "row", "index": 1}}

    async def scenario():
        sockets = []
        for player in (mover, other):
            ws = socket(f"/ws/games/{game_id}/", player)
            assert (await ws.connect(timeout=10))[0]
            assert (await ws.receive_json_from(timeout=10))["type"] == "hello"
            await ws.send_json_to({"type": "sync", "after": 0})
            await frames_until(ws, "synced")
            sockets.append(ws)
        key = uuid.uuid4().hex
        await sockets[0].send_json_to(
            {"type": "move", "ref": "q", "action": ask, "version": 0, "idempotency_key": key}
        )
        seen = [await frames_until(ws, "entry") for ws in sockets]
        accepted = [f for f in seen[0] if f["type"] == "move_accepted"]
        if not accepted:  # the answer may come after the entry
            accepted = await frames_until(sockets[0], "move_accepted")
        for ws in sockets:
            await ws.disconnect()
        return seen, accepted

    seen, accepted = run(scenario)
    assert accepted[-1]["ref"] == "q"
    mine, theirs = seen[0][-1], seen[1][-1]
    assert mine["type"] == theirs["type"] == "entry"
    assert [n["type"] for n in mine["notifications"]] == [
        "question_asked", "turn_ended", "turn_started"
    ]  # fmt: skip
    assert mine["view"]["legal_actions"] == [{"type": "resign", "seat": game.active_seat}]
    offered = [a["type"] for a in theirs["view"]["legal_actions"]]
    assert offered == ["ask", "guess", "resign"]
    for frame in (*seen[0], *seen[1]):
        assert "code" not in (frame.get("view") or {})
        assert "secret" not in str(frame)
        assert str(code) not in str(frame)


def test_C2_saving_notes_sends_no_frame_to_any_socket(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players, game="digit-code")
    by_seat = seat_players(game_id, players)
    me, other = by_seat[0], by_seat[1]

    async def scenario():
        from channels.db import database_sync_to_async

        sockets = []
        for player in (me, other):
            ws = socket(f"/ws/games/{game_id}/", player)
            assert (await ws.connect(timeout=10))[0]
            assert (await ws.receive_json_from(timeout=10))["type"] == "hello"
            await ws.send_json_to({"type": "sync", "after": 0})
            await frames_until(ws, "synced")
            sockets.append(ws)
        saved = await database_sync_to_async(put)(me, game_id, NOTES)
        assert saved.status_code == 200
        quiet = [await ws.receive_nothing(timeout=0.5) for ws in sockets]
        # the sockets are live: the next move reaches both, without the notes
        action = await database_sync_to_async(autopilot_choice)(game_id)
        moved = await database_sync_to_async(me.move)(game_id, action, 0)
        assert moved.status_code == 201
        frames = [await frames_until(ws, "entry") for ws in sockets]
        for ws in sockets:
            await ws.disconnect()
        return quiet, frames

    quiet, frames = run(scenario)
    assert quiet == [True, True]
    for frame in (f for got in frames for f in got):
        assert "digits" not in str(frame) and "leds" not in str(frame)
