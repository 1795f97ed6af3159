"""G6 of Digit Code (RULES-digit-code.md) through Web Push: what a subscribed device receives,
decrypted as a browser would (tests/push/endpoint.py), never holds the hidden code or the
seed while the game runs; the push of its end tells the code."""

from __future__ import annotations

import json

import pytest

from games.models import Game
from tests.digit_code.helpers import leaks
from tests.digit_code.over_http import autopilot_choice, secret_code
from tests.players import seat_players, start_game
from tests.push.conftest import subscribe

pytestmark = pytest.mark.usefixtures("eager_tasks")


def test_G6_pushes_of_a_digit_code_game_hold_the_code_only_once_it_ended(
    make_player, make_endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    devices = [make_endpoint() for _ in players]
    for player, device in zip(players, devices, strict=True):
        subscribe(player, device)
    with django_capture_on_commit_callbacks(execute=True):
        game_id = start_game(players, game="digit-code")
    by_seat = seat_players(game_id, players)
    code, seed = secret_code(game_id), Game.objects.get(pk=game_id).seed
    while_running: list[dict] = []
    for _ in range(200):
        game = Game.objects.get(pk=game_id)
        if game.status != "playing":
            break
        while_running = [p for device in devices for p in device.payloads()]
        with django_capture_on_commit_callbacks(execute=True):
            moved = by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), game.version)
        assert moved.status_code == 201, moved.json()
    assert Game.objects.get(pk=game_id).status == "finished"

    assert [p for p in while_running if p["type"] == "your_turn"], while_running
    assert all(p["type"] == "your_turn" for p in while_running)
    assert leaks(json.dumps(while_running, ensure_ascii=False), code, seed) == []
    for device in devices:
        [ended] = [p for p in device.payloads() if p["type"] == "game_ended"]
        assert ended["version"] == Game.objects.get(pk=game_id).version
        assert "the code as text" in leaks(json.dumps(ended, ensure_ascii=False), code, seed)
