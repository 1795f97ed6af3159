"""Digit Code over the game socket: a `move` frame asks a question, every socket gets the entry
with its own view (the asker's next offers, the spectator's none), and nothing of the code
(G6) goes out before the end."""

from __future__ import annotations

import uuid

from games import registry, state
from games.models import Game
from tests.players import seat_players, start_game
from tests.ws.test_consumers import frames_until, open_game_socket, run

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
        sockets = [await open_game_socket(game_id, p, synced=True) for p in (mover, other)]
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
