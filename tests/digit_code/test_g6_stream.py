"""G6 of Digit Code (RULES-digit-code.md) on the live NDJSON stream (`GET /api/v1/games/{id}/
stream`, a real server: uvicorn): a spectator follows a whole game; no line before the entry
holding `game_ended` carries the hidden code or the seed, and that entry carries both."""

from __future__ import annotations

import json
import time

import pytest

from games.models import Game
from tests.digit_code.helpers import leaks
from tests.digit_code.over_http import autopilot_choice, secret_code
from tests.e2e.server import current_database_url, live_server, request_json
from tests.e2e.test_stream import Follower
from tests.players import Player, seat_players, start_game

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(django_db_setup):
    env = {"STREAM_KEEPALIVE_SECONDS": "0.5"}
    with live_server(database_url=current_database_url(), workers=1, env=env) as server:
        yield server


def test_G6_the_stream_of_a_digit_code_game_holds_the_code_only_from_game_ended(live, committed_db):
    people = [Player(), Player()]
    game_id = start_game(people, game="digit-code")
    by_seat = seat_players(game_id, people)
    code, seed = secret_code(game_id), Game.objects.get(pk=game_id).seed
    follower = Follower(live.url(f"/api/v1/games/{game_id}/stream"), Player().token)
    lines: list[dict] = []
    try:
        for _ in range(200):
            game = Game.objects.get(pk=game_id)
            if game.status != "playing":
                break
            status, body = request_json(
                live.url(f"/api/v1/games/{game_id}/actions"),
                {
                    "action": autopilot_choice(game_id),
                    "version": game.version,
                    "idempotency_key": f"k{game.version}-{time.time()}",
                },
                token=by_seat[game.active_seat].token,
            )
            assert status == 201, body
        while (line := follower.lines.get(timeout=10)[1]) is not None:  # to the stream's end
            lines.append(line)
    finally:
        follower.close()

    entries = [line for line in lines if "seq" in line]
    assert [entry["seq"] for entry in entries] == list(range(game.version + 1))
    ended = [
        i
        for i, e in enumerate(entries)
        if any(n["type"] == "game_ended" for n in e["notifications"])
    ]
    assert ended == [len(entries) - 1]
    before = json.dumps(lines[: lines.index(entries[-1])], ensure_ascii=False)
    assert leaks(before, code, seed) == []
    [game_ended] = [n for n in entries[-1]["notifications"] if n["type"] == "game_ended"]
    assert game_ended["code"] == code and game_ended["seed"] == seed
