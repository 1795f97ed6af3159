"""The log in players' words: names instead of seats where the names are known, tied
places ranked as in sport (1, 2, 2, 2, 5), and a stop that opens the pickup choice told as such
instead of "Nothing happened." in the replay. games/static/web/wording.js mirrors `describe`:
tests/browser/test_web_client.py compares the two with names too."""

from __future__ import annotations

import re

from django.test import Client

from games.models import Game, GameEntry
from games.wording import competition_ranks, describe
from tests.players import finished_game

NAMES = {0: "Ana", 1: "Bob", 2: "Cy", 3: "Dee", 4: "Eve"}


def test_players_are_named_where_names_are_known():
    moved = {"type": "taxi_moved", "seat": 1, "from": "10H", "to": "AS"}
    assert describe(moved) == "Seat 2 moved from 10♥ to A♠."
    assert describe(moved, NAMES) == "Bob moved from 10♥ to A♠."
    assert describe(moved, {0: "Ana"}) == "Seat 2 moved from 10♥ to A♠."  # unknown: the seat
    started = {"type": "turn_started", "seat": 0, "allowance": 3}
    assert describe(started, NAMES) == "Ana's turn begins: up to 3 steps."


def test_tied_places_are_ranked_as_in_sport():
    assert competition_ranks([[0], [1, 2, 3], [4]]) == [(1, [0]), (2, [1, 2, 3]), (5, [4])]
    assert competition_ranks([[2, 0], [1]]) == [(1, [2, 0]), (3, [1])]
    ended = {
        "type": "game_ended",
        "incomes": [43, 20, 20, 20, 5],
        "ranking": [[0], [1, 2, 3], [4]],
    }
    assert describe(ended, NAMES) == (
        "The game ended. Ranking: 1. Ana (43); 2. Bob, Cy, Dee (20); 5. Eve (5)."
    )


def test_the_replay_tells_a_stop_that_opens_the_pickup_choice(make_player):
    players = [make_player(), make_player()]
    game_id = finished_game(players)
    game = Game.objects.get(pk=game_id)
    names = {seat.seat: str(seat.user) for seat in game.seats.all()}
    quiet_stop = next(
        entry
        for entry in GameEntry.objects.filter(game=game).order_by("seq")
        if (entry.action or {}).get("type") == "stop" and not entry.notifications
    )
    client = Client()
    client.force_login(players[0].user)
    page = client.get(f"/games/{game_id}/replay?seq={quiet_stop.seq}").content.decode()
    sentences = page.split('<ol id="replay-sentences">', 1)[1].split("</ol>", 1)[0]
    assert "Nothing happened." not in sentences
    told = rf"<li>{re.escape(names[quiet_stop.seat])} stopped at \S+ and chooses whom to pick up\."
    assert re.search(told, sentences)


def test_the_replay_names_who_acted_and_the_ranking(make_player):
    """The player's replay says "By Ana", not "By Seat 1 (Ana)", and ranks names, not seats."""
    players = [make_player(), make_player()]
    game_id = finished_game(players)
    game = Game.objects.get(pk=game_id)
    names = {seat.seat: str(seat.user) for seat in game.seats.all()}
    moved = next(
        entry
        for entry in GameEntry.objects.filter(game=game, seq__gte=1).order_by("seq")
        if (entry.action or {}).get("type") == "step"
    )
    client = Client()
    client.force_login(players[0].user)
    page = client.get(f"/games/{game_id}/replay?seq={moved.seq}").content.decode()
    assert f'<span id="replay-actor">{names[moved.seat]}</span>' in page
    ranking = page.split('<ol id="ranking">', 1)[1].split("</ol>", 1)[0]
    assert "Seat" not in ranking
    for seat, name in names.items():
        assert f"{name}: {game.result['incomes'][seat]}</li>" in ranking
