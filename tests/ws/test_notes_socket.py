"""Digit Code's private notes (C2) over the game socket: saving them sends no frame to any
socket, the author's or anyone else's; the next move's frames do not carry them."""

from __future__ import annotations

from tests.digit_code.test_notes import NOTES, put
from tests.digit_code.test_platform_api import autopilot_choice
from tests.players import seat_players, start_game
from tests.ws.test_consumers import frames_until, open_game_socket, run


def test_C2_saving_notes_sends_no_frame_to_any_socket(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players, game="digit-code")
    by_seat = seat_players(game_id, players)
    me, other = by_seat[0], by_seat[1]

    async def scenario():
        from channels.db import database_sync_to_async

        sockets = [await open_game_socket(game_id, p, synced=True) for p in (me, other)]
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
