"""A replay that steps turn by turn through an all-autopilot stretch (issue 21): both players
resign, the autopilot plays the rest of the game in one log entry, and the replay page steps
through that entry's turns, its board following each turn."""

from __future__ import annotations

import re

import pytest

from games.models import Game, GameEntry
from games.replay_turns import turn_groups
from tests.browser.conftest import needs_chromium, watched_page
from tests.players import Player, seat_players, start_game

pytestmark = needs_chromium


@pytest.fixture
def autopiloted(committed_db, web_server):
    players = [Player(), Player()]
    game_id = start_game(players, movement="faster")
    for player in seat_players(game_id, players).values():
        player.move(game_id, {"type": "resign"}, Game.objects.get(pk=game_id).version)
    game = Game.objects.get(pk=game_id)
    assert game.status == "finished"
    last = GameEntry.objects.get(game=game, seq=game.version)
    return {
        "base": web_server.url(""),
        "game": game_id,
        "seq": last.seq,
        "turns": len(turn_groups(last.notifications)),
    }


def taxis(page) -> dict:
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#board g.taxi')]"
        ".map((g) => [g.dataset.seat, g.dataset.area]))"
    )


def test_the_replay_steps_through_the_autopilots_turns(autopiloted, chromium):
    problems: list[str] = []
    page = watched_page(chromium, problems)  # a visitor: the game is public and over
    base, game, seq = autopiloted["base"], autopiloted["game"], autopiloted["seq"]
    assert autopiloted["turns"] > 3
    page.goto(f"{base}/games/{game}/replay?seq={seq}")
    assert page.get_attribute("#replay-turn", "data-turns") == str(autopiloted["turns"])
    page.click("#replay-turn-first")
    page.wait_for_url(re.compile(rf"seq={seq}&turn=1$"))
    seen = [taxis(page)]
    for turn in (2, 3):
        page.click("#replay-turn-next")
        page.wait_for_url(re.compile(rf"seq={seq}&turn={turn}$"))
        assert page.get_attribute("#replay-turn", "data-turn") == str(turn)
        seen.append(taxis(page))
    assert seen[0] != seen[1] or seen[1] != seen[2]  # the taxis move from turn to turn
    page.click("#replay-turn-whole")
    page.wait_for_url(re.compile(rf"seq={seq}$"))
    assert page.get_attribute("#replay-turn", "data-turn") == "0"
    assert problems == []
