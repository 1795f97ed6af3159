"""Exactly one `your_turn` per turn on a user's sockets: from the push or from the heartbeat,
keyed on the turn (the game's version moves within a turn), also across a reconnect."""

from __future__ import annotations

from channels.db import database_sync_to_async

from games import selectors
from games.consumers import watch
from games.models import Game
from tests.players import seat_players, start_game
from tests.ws.test_consumers import move_over_http, run, socket


async def _drain(ws) -> list[dict]:
    frames = []
    while not await ws.receive_nothing(timeout=0.3):
        frames.append(await ws.receive_json_from(timeout=1))
    return frames


def test_five_turns_five_notices_with_heartbeats_mid_turn_and_a_reconnect(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="faster")  # several steps (versions) per turn
    by_seat = seat_players(game_id, players)
    waiting_seat = 1 - Game.objects.get(pk=game_id).active_seat
    me = by_seat[waiting_seat]

    def state() -> tuple[int, int, int]:
        game = Game.objects.get(pk=game_id)
        return game.active_seat, game.turn_number, game.version

    async def heartbeat():
        """What every node's heartbeat does, at once rather than every 10 s."""
        versions, waiting = await database_sync_to_async(selectors.heartbeat)(
            games=[], users=[me.user.pk]
        )
        await watch.tell(versions, waiting)

    async def scenario():
        ws = socket("/ws/me/", me)
        await ws.connect(timeout=10)
        hellos = [await ws.receive_json_from(timeout=10)]
        frames: list[dict] = []
        my_turns_begun, reconnected = 0, False
        seat, turn, _version = await database_sync_to_async(state)()
        while my_turns_begun < 5 or seat == waiting_seat:
            await database_sync_to_async(move_over_http)(game_id, by_seat)
            await heartbeat()
            new_seat, new_turn, _version = await database_sync_to_async(state)()
            if new_turn != turn and new_seat == waiting_seat:
                my_turns_begun += 1
            if (
                my_turns_begun == 3
                and new_turn == turn
                and seat == waiting_seat
                and not reconnected
            ):
                frames += await _drain(ws)  # one step into my 3rd turn: the page reloads
                await ws.disconnect()
                ws = socket("/ws/me/", me)
                await ws.connect(timeout=10)
                hellos.append(await ws.receive_json_from(timeout=10))
                await heartbeat()
                reconnected = True
            seat, turn = new_seat, new_turn
        frames += await _drain(ws)
        await ws.disconnect()
        return hellos, frames, reconnected

    hellos, frames, reconnected = run(scenario)
    assert reconnected
    notices = [f for f in frames if f["type"] == "your_turn"]
    assert len(notices) == 5, notices
    assert len({n["turn"] for n in notices}) == 5 and all(n["game"] == game_id for n in notices)
    assert hellos[0]["your_turn"] == [] and hellos[1]["your_turn"] == [game_id]
