"""Resign with a confirmation, and report a player or a chat line, from the game page (issue
21). The report reaches the moderators' table through the API; the resignation is a
`resign` action in the log, after which the autopilot plays the seat and the page offers no
resignation any more."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from games.services.chat import chat_post
from tests.browser.conftest import log_in, needs_chromium, settle, watched_page
from tests.players import Player, start_game

pytestmark = needs_chromium


@pytest.fixture
def table(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    ana, ben = Player(f"ana{tag}"), Player(f"ben{tag}")
    game_id = start_game([ana, ben], movement="fast")
    line = chat_post(game_id=game_id, user=ben.user, text="You drive like a snail!")
    return {
        "base": web_server.url(""),
        "game": game_id,
        "ana": (ana.user.username, "pw-" + ana.user.username * 2),
        "ben": ben.user,
        "line": line.pk,
    }


def reports_of(game_id: int) -> list[tuple]:
    """Read in a thread of its own: this one runs Playwright's event loop, where Django
    refuses database calls."""

    def read():
        from django.db import connection

        from games.models import Report

        try:
            return list(
                Report.objects.filter(game_id=game_id)
                .order_by("pk")
                .values_list("reported_user_id", "chat_message_id", "reason")
            )
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(read).result()


def test_report_a_player_and_a_chat_line_then_resign(table, chromium):
    problems: list[str] = []
    page = watched_page(chromium, problems)
    frames: list[dict] = []
    page.on(
        "websocket", lambda ws: ws.on("framesent", lambda text: frames.append(json.loads(text)))
    )
    log_in(page, table["base"], *table["ana"])
    page.goto(f"{table['base']}/games/{table['game']}")
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    settle(page)

    # a player: from the taxis table
    page.click(f"#seats button[data-report-user='{table['ben'].pk}']")
    assert page.is_visible("#report-dialog")
    page.click("#report-send")  # no reason: refused on the page
    assert page.inner_text("#report-error") != ""
    page.fill("#report-reason", "Rude in the chat.")
    page.click("#report-send")
    page.wait_for_selector("#report-done.notice")
    assert not page.is_visible("#report-dialog")

    # a chat line: from the chat
    page.click(f"#chat-messages button[data-report-message='{table['line']}']")
    assert "You drive like a snail!" in page.inner_text("#report-what")
    page.fill("#report-reason", "An insult.")
    page.click("#report-send")
    page.wait_for_function("() => !document.getElementById('report-dialog').open")
    assert reports_of(table["game"]) == [
        (table["ben"].pk, None, "Rude in the chat."),
        (table["ben"].pk, table["line"], "An insult."),
    ]
    assert page.locator("#seats button[data-report-user]").count() == 1  # not oneself

    # resign: asked first, and "Keep playing" sends nothing
    page.click("#resign-button")
    assert page.is_visible("#resign-dialog")
    page.click("#resign-cancel")
    assert not page.is_visible("#resign-dialog")
    assert [f for f in frames if f.get("type") == "move"] == []
    page.click("#resign-button")
    page.click("#resign-confirm")
    page.wait_for_selector("#log-lines li[data-type=seat_zombified]")
    assert "resigned" in page.inner_text("#log-lines li[data-type=seat_zombified]")
    assert [f["action"] for f in frames if f.get("type") == "move"] == [{"type": "resign"}]
    page.wait_for_selector("#leave-game", state="hidden")
    assert problems == []
