"""A replay that steps turn by turn through an all-autopilot stretch: both players
resign, the autopilot plays the rest of the game in one log entry, and the players' replay page
and the moderators' replay viewer (the admin) step through that entry's turns, their boards
following each turn."""

from __future__ import annotations

import re
import uuid

import pytest

from accounts.models import User
from games.models import Game, GameEntry
from games.replay_turns import turn_groups
from tests.browser.conftest import needs_chromium, watched_page
from tests.players import Player, seat_players, start_game

pytestmark = needs_chromium


@pytest.fixture
def autopiloted(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    moderator = User.objects.create_superuser(
        username=f"mod{uuid.uuid4().hex[:6]}", password="mod-pw-123", email="m@x.org"
    )
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
        "moderator": moderator.username,
    }


def taxis(page, board: str = "#board") -> dict:
    return page.evaluate(
        f"() => Object.fromEntries([...document.querySelectorAll('{board} g.taxi')]"
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


def test_the_admin_replay_viewer_steps_through_the_autopilots_turns(autopiloted, chromium):
    problems: list[str] = []
    page = watched_page(chromium, problems)
    base, game, seq = autopiloted["base"], autopiloted["game"], autopiloted["seq"]
    viewer = f"/admin/games/game/{game}/replay/"
    page.goto(f"{base}/admin/login/?next={viewer}?seq={seq}")
    page.fill("#id_username", autopiloted["moderator"])
    page.fill("#id_password", "mod-pw-123")
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(rf"{re.escape(viewer)}\?seq={seq}$"))
    assert page.get_attribute("#replay-seq", "data-seq") == str(seq)
    turns = autopiloted["turns"]
    assert turns > 3
    assert page.get_attribute("#replay-turn", "data-turns") == str(turns)
    whole = taxis(page, "#replay-board")

    page.click("#replay-turn-first")
    page.wait_for_url(re.compile(rf"seq={seq}&turn=1$"))
    assert page.locator("#replay-turn-prev").count() == 0  # nothing before the first turn
    seen = [taxis(page, "#replay-board")]
    for turn in range(2, turns + 1):
        page.click("#replay-turn-next")
        page.wait_for_url(re.compile(rf"seq={seq}&turn={turn}$"))
        assert page.get_attribute("#replay-turn", "data-turn") == str(turn)
        assert f"Turn {turn} of {turns}" in page.inner_text("#replay-turn")
        seen.append(taxis(page, "#replay-board"))
    assert page.locator("#replay-turn-next").count() == 0  # the last turn: no next
    assert len({tuple(sorted(t.items())) for t in seen}) > 1  # the taxis move turn by turn
    assert seen[-1] == whole  # the entry's last turn ends where the whole entry does
    page.click("#replay-turn-prev")
    page.wait_for_url(re.compile(rf"seq={seq}&turn={turns - 1}$"))
    assert taxis(page, "#replay-board") == seen[-2]
    page.click("#replay-turn-whole")
    page.wait_for_url(re.compile(rf"seq={seq}$"))
    assert page.get_attribute("#replay-turn", "data-turn") == "0"
    assert problems == []
