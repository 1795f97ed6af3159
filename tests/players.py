"""Players for API and WebSocket tests: users with real tokens, games played over HTTP."""

from __future__ import annotations

import itertools
import uuid

from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_issue
from games import engine, state
from games.models import Game

_names = itertools.count()


class Player:
    """A user and an API client authenticated with the user's token."""

    def __init__(self, name: str | None = None):
        name = name or f"player{next(_names)}"
        self.user = User.objects.create_user(username=name, password="pw-" + name * 2)
        self.client = APIClient()
        self.token = token_issue(user=self.user, device="tests")[1]
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {self.token}")

    def get(self, url, **params):
        return self.client.get(url, params)

    def post(self, url, data=None):
        return self.client.post(url, data or {}, format="json")

    def move(self, game_id: int, action: dict, version: int, key: str | None = None):
        return self.post(
            f"/api/v1/games/{game_id}/actions",
            {"action": action, "version": version, "idempotency_key": key or uuid.uuid4().hex},
        )


def start_game(players: list[Player], **options) -> int:
    """Create a table with the first player, join the others; the game starts."""
    body = {"players": len(players), **options}
    created = players[0].post("/api/v1/tables", body)
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    for player in players[1:]:
        joined = player.post(f"/api/v1/tables/{game_id}/join")
        assert joined.status_code == 200, joined.json()
    return game_id


def seat_players(game_id: int, players: list[Player]) -> dict[int, Player]:
    detail = players[0].get(f"/api/v1/games/{game_id}").json()
    by_id = {p.user.pk: p for p in players}
    return {s["seat"]: by_id[s["user"]["id"]] for s in detail["seats"]}


def autopilot_choice(game_id: int) -> dict:
    """The move a sensible player would make now (chosen with the autopilot; sent over HTTP)."""
    action = engine.autopilot_action(state.state_for(Game.objects.get(pk=game_id)))
    data = engine.encode_action(action)
    del data["seat"]
    return data


def play_turn(game_id: int, by_seat: dict) -> None:
    """The player to move plays a whole turn over HTTP (sensible moves, one request each)."""
    game = Game.objects.get(pk=game_id)
    seat, turn = game.active_seat, game.turn_number
    while game.status == "playing" and game.turn_number == turn:
        response = by_seat[seat].move(game_id, autopilot_choice(game_id), game.version)
        assert response.status_code == 201, response.json()
        game = Game.objects.get(pk=game_id)


def finished_game(players: list[Player], *, max_turns: int = 2000, **options) -> int:
    """A game of these players played to its end over HTTP, turn by turn ("faster" movement
    unless asked otherwise, which keeps it short). Returns its id."""
    game_id = start_game(players, **{"movement": "faster", **options})
    by_seat = seat_players(game_id, players)
    for _ in range(max_turns):
        if Game.objects.get(pk=game_id).status != "playing":
            return game_id
        play_turn(game_id, by_seat)
    raise AssertionError(f"game {game_id} did not end in {max_turns} turns")


def finished_by_autopilot(players: list[Player], **options) -> int:
    """A game started over the API and played to its end by the autopilot straight through the
    write paths' append (`entries.entry_append`: its ratings too), without HTTP. Its id."""
    game_id = start_game(players, **{"movement": "faster", **options})
    played_out(game_id)
    return game_id


def played_out(game_id: int) -> None:
    """A running game, of any game, played to its end by its autopilot through the write paths'
    append (its ratings too)."""
    from games import repository
    from games.services import entries

    loaded = repository.load(game_id)
    autopilot = loaded.game.game_kind.engine.autopilot_action
    users = {seat.seat: seat.user_id for seat in loaded.seats}
    while not loaded.state.over:
        seat = loaded.state.current_player()
        entry = repository.NewEntry(autopilot(loaded.state), actor=User(pk=users[seat]), seat=seat)
        entries.entry_append(loaded, entry, expected_version=loaded.game.version)
