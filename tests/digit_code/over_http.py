"""Digit Code games played over the HTTP API by the tests (a database is needed): sensible
moves, a game to its end, the hidden code read from the server's state for the checks of G6."""

from __future__ import annotations

from games import registry, state
from games.models import Game, GameEntry
from games.services import bots

engine = registry.get("digit-code").engine


def autopilot_choice(game_id: int) -> dict:
    """A sensible move (C1's autopilot reads the public answers only), sent over HTTP."""
    action = engine.encode_action(
        engine.autopilot_action(state.state_for(Game.objects.get(pk=game_id)))
    )
    del action["seat"]
    return action


def play_to_the_end(game_id: int, by_seat: dict, max_moves: int = 200) -> Game:
    game = Game.objects.get(pk=game_id)
    for _ in range(max_moves):
        if game.status != "playing":
            break
        player = by_seat[game.active_seat]
        if player is None:  # a bot's seat: the bot worker's path
            bots.bot_turn_play(game_id=game_id, version=game.version, seat=game.active_seat)
        else:
            response = player.move(game_id, autopilot_choice(game_id), game.version)
            assert response.status_code == 201, response.json()
        game = Game.objects.get(pk=game_id)
    return game


def notes_of(game_id: int) -> list[dict]:
    return [
        n
        for e in GameEntry.objects.filter(game_id=game_id).order_by("seq")
        for n in e.notifications
    ]


def secret_code(game_id: int) -> list[int]:
    return engine.full_view(state.state_for(Game.objects.get(pk=game_id)))["secret"]["code"]
