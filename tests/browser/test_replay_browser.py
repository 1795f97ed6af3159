"""The replay viewer in a real headless Chromium (Playwright, Debian's /usr/bin/chromium).

A moderator logs in through the admin's login form on pytest-django's live server, opens the
replay of a game played over the API, and steps through it with the Next link and with the
arrow keys. Screenshots go to var/screenshots/replay-*.png for a person to look at.

Needs `playwright` (the Python package only: it never downloads a browser here) and
/usr/bin/chromium (`apt-get install -y chromium`); the test skips when either is missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accounts.models import User
from games.models import Game, GameEntry
from tests.browser.conftest import needs_chromium
from tests.players import Player, play_turn, seat_players, start_game

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"

pytestmark = needs_chromium


@pytest.fixture
def scenario(committed_db, settings):
    """A moderator and a two-player game a few turns in, committed so that the live server's
    thread sees them. Made before the browser starts: Playwright's sync API runs an event loop
    in this thread, and Django refuses database calls from a thread with a running loop."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    User.objects.create_superuser(username="moderator", password="replay-pw", email="m@x.org")
    players = [Player(), Player()]
    game_id = start_game(players, movement="fast")
    by_seat = seat_players(game_id, players)
    for _ in range(4):
        play_turn(game_id, by_seat)
    game = Game.objects.get(pk=game_id)
    moved = next(
        entry.seq
        for entry in GameEntry.objects.filter(game=game, seq__gte=1).order_by("seq")
        if any(n["type"] == "taxi_moved" for n in entry.notifications)
    )
    return {"game_id": game_id, "players": game.players, "last": game.version, "moved": moved}


@pytest.fixture
def browser(scenario, chromium):
    """Chromium, launched once the scenario is written (tests/browser/conftest.py)."""
    return chromium


def shown_seq(page) -> int:
    return int(page.get_attribute("#replay-seq", "data-seq"))


def test_a_moderator_steps_through_a_replay(live_server, scenario, browser):
    moved, last, players = scenario["moved"], scenario["last"], scenario["players"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    replay_path = f"/admin/games/game/{scenario['game_id']}/replay/"
    page.goto(f"{live_server.url}/admin/login/?next={replay_path}?seq={moved}")
    page.fill("#id_username", "moderator")
    page.fill("#id_password", "replay-pw")
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(re.escape(replay_path)))
    assert shown_seq(page) == moved

    # the admin's stylesheet is served, and the board is drawn: 52 areas, every taxi
    header = page.eval_on_selector("#header", "e => getComputedStyle(e).backgroundColor")
    assert header not in ("", "rgba(0, 0, 0, 0)", "transparent")
    assert page.locator("#replay-board g.area circle").count() == 52
    taxis = page.locator("#replay-board g.taxi")
    assert taxis.count() == players
    for index in range(players):
        box = taxis.nth(index).bounding_box()
        assert box is not None and box["width"] > 20 and box["height"] > 20
    assert page.locator("#replay-board g.move").count() >= 1  # this step's move, as an arrow
    assert "Bahama Taxi board by Bartosz Sułkowski, CC BY 4.0" in page.inner_text(
        "#replay-attribution"
    )
    page.screenshot(path=str(SCREENSHOTS / "replay-step.png"), full_page=True)
    page.locator("#replay-board").screenshot(path=str(SCREENSHOTS / "replay-board.png"))

    # the Next link
    page.click("#replay-next")
    page.wait_for_url(re.compile(rf"seq={moved + 1}$"))
    assert shown_seq(page) == moved + 1

    # the keys
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(rf"seq={moved + 2}$"))
    assert shown_seq(page) == moved + 2
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(rf"seq={moved + 1}$"))
    assert shown_seq(page) == moved + 1
    page.keyboard.press("End")
    page.wait_for_url(re.compile(rf"seq={last}$"))
    assert shown_seq(page) == last
    page.screenshot(path=str(SCREENSHOTS / "replay-last.png"), full_page=True)
    page.keyboard.press("Home")
    page.wait_for_url(re.compile(r"seq=0$"))
    assert shown_seq(page) == 0

    # typing in the jump box is not stepping; the form jumps
    page.fill("#replay-jump-seq", "2")
    page.keyboard.press("ArrowRight")
    assert shown_seq(page) == 0
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"seq=2$"))
    assert shown_seq(page) == 2

    assert errors == []
