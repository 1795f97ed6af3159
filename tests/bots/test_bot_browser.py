"""In Chromium: from the lobby, "Play against the computer", a game that the bot,
played by a real Celery worker on the bots queue, finishes once the person resigns; and the
profile and leaderboard pages pass axe. Needs PostgreSQL and Redis (the worker's broker)."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import log_in, needs_chromium, settle, watched_page
from tests.browser.test_accessibility import Axe, violations
from tests.e2e.server import request_json

pytestmark = [
    *needs_chromium,
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.skipif(Axe is None, reason="needs axe-playwright-python"),
]


def test_play_against_the_computer_from_the_lobby_to_the_end(server_and_worker, person, chromium):
    server, worker = server_and_worker
    since = worker.log_size()
    player, login = person
    problems: list[str] = []
    base = server.url("").rstrip("/")
    page = watched_page(chromium, problems)
    log_in(page, base, *login)
    page.select_option("#id_players", "2")
    page.check("#id_computer")
    page.select_option("#id_bot_level_1", "easy")  # the one computer place
    page.click("#create-button")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    detail = _game(server, player, game_id)  # (Playwright's thread refuses database calls)
    assert detail["status"] == "playing" and detail["rated"] is False
    assert [s["bot"] for s in detail["seats"] if s["user"]["id"] != player.user.pk] == ["easy"]
    # the seats table is drawn by the page's script from the game's state, after the load
    page.wait_for_function(
        "() => document.getElementById('seats').innerText.includes('Computer')", timeout=10_000
    )

    settle(page)  # a click aimed before the panels' last redraw may land beside its button
    page.click("#resign-button")
    page.click("#resign-confirm")
    # the bot plays on (the resigned seat's turns are the autopilot's) to the end
    page.wait_for_selector("#result:not([hidden])", timeout=120_000)
    assert _game(server, player, game_id)["status"] == "finished"
    _status, log = request_json(server.url(f"/api/v1/games/{game_id}/log"), token=player.token)
    bot_seat = 1 - detail["your_seat"]
    assert any(e["actor"] == {"kind": "bot", "seat": bot_seat} for e in log["entries"])
    assert worker.errors(since) == [] and problems == []


def _game(server, player, game_id: int) -> dict:
    status, detail = request_json(server.url(f"/api/v1/games/{game_id}"), token=player.token)
    assert status == 200, detail
    return detail


def test_the_profile_and_leaderboard_pages_pass_axe(server_and_worker, person, chromium):
    server, _worker = server_and_worker
    player, login = person
    problems: list[str] = []
    base = server.url("").rstrip("/")
    page = watched_page(chromium, problems)
    log_in(page, base, *login)
    found = violations(page)  # the lobby, with its opponents' fieldset
    page.click("#leaderboard-link")
    page.wait_for_load_state("networkidle")
    found += violations(page)
    page.goto(f"{base}/leaderboard?players=2")
    found += violations(page)
    page.goto(f"{base}/")
    page.click("#my-rating-link")
    page.wait_for_url(f"{base}/players/{player.user.pk}")
    found += violations(page)
    assert found == [] and problems == []
