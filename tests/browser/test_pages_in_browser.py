"""Every page in Chromium under the Content-Security-Policy: no console error (a refused script
or style is one), no uncaught exception, no control drawn that carries `hidden` (the
seated creator saw "Join this table", a visitor "Leave this table"), the policy header on each
document, and /favicon.ico found."""

from __future__ import annotations

import re
import uuid

import pytest

from accounts.models import User
from tests.browser.conftest import (
    PHONE,
    log_in,
    needs_chromium,
    visible_hidden_controls,
    watched_page,
)
from tests.players import Player, finished_game, start_game

pytestmark = needs_chromium


class Person:
    def __init__(self, name: str):
        self.player = Player(name)
        self.username = name
        self.password = "pw-" + name * 2  # tests/players.py


@pytest.fixture
def scene(committed_db, web_server, settings):
    # the server checks passwords with the production hashers
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    ana, ben, cy = (Person(f"{name}{tag}") for name in ("ana", "ben", "cy"))
    User.objects.create_superuser(username=f"mod{tag}", password="mod-pw-123", email="m@x.org")
    open_table = ana.player.post("/api/v1/tables", {"players": 2}).json()["id"]
    invite_table = ana.player.post("/api/v1/tables", {"players": 3, "visibility": "invite"})
    running = start_game([ana.player, ben.player], movement="fast")
    finished = finished_game([Player(), Player()])
    return {
        "base": web_server.url(""),
        "ana": ana,
        "ben": ben,
        "cy": cy,
        "moderator": (f"mod{tag}", "mod-pw-123"),
        "open": open_table,
        "invite": invite_table.json()["id"],
        "running": running,
        "finished": finished,
    }


def visit(page, url: str) -> None:
    response = page.goto(url)
    assert response.status == 200, url
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy, url


def test_the_creator_and_a_visitor_see_only_their_own_controls(scene, chromium):
    problems: list[str] = []
    base = scene["base"]
    creator = watched_page(chromium, problems)
    log_in(creator, base, scene["ana"].username, scene["ana"].password)
    for table in (scene["open"], scene["invite"]):
        visit(creator, f"{base}/games/{table}")
        creator.wait_for_selector("#waiting-room:not([hidden])")
        assert creator.is_visible("#leave-button")
        assert creator.inner_text("#leave-button") == "Cancel this table"
        assert not creator.is_visible("#join-button")
        assert visible_hidden_controls(creator) == []

    visitor = watched_page(chromium, problems, viewport=PHONE)
    log_in(visitor, base, scene["cy"].username, scene["cy"].password)
    # a wrong invite code is told as such, not as "by invitation only"
    assert problems == []
    visitor.fill("#id_invite_table", str(scene["invite"]))
    visitor.fill("#id_invite_code", "not-the-code")
    visitor.click("#invite-form button[type=submit]")
    visitor.wait_for_selector("#invite-error:not(:empty)")
    assert visitor.inner_text("#invite-error") == "No open table has this number and invite code."
    # the refused join (403, or 404) is logged by the browser as a failed load, and only that
    assert all("the server responded with a status of 40" in p for p in problems), problems
    problems.clear()
    visit(visitor, f"{base}/games/{scene['open']}")
    visitor.wait_for_selector("#waiting-room:not([hidden])")
    assert visitor.is_visible("#join-button")
    assert not visitor.is_visible("#leave-button")
    assert visible_hidden_controls(visitor) == []

    # a running game: no waiting room at all, for a player or a spectator
    for page in (creator, visitor):
        visit(page, f"{base}/games/{scene['running']}")
        page.wait_for_function(
            "() => document.getElementById('connection').dataset.state === 'live'"
        )
        assert not page.is_visible("#waiting-room")
        assert not page.is_visible("#join-button") and not page.is_visible("#leave-button")
        assert visible_hidden_controls(page) == []
    assert problems == []


def test_no_page_logs_an_error(scene, chromium):
    problems: list[str] = []
    base = scene["base"]
    anonymous = watched_page(chromium, problems)
    for path in ("/", "/login", "/signup", "/rules/", f"/games/{scene['finished']}/replay"):
        visit(anonymous, base + path)
        anonymous.wait_for_load_state("networkidle")
        assert visible_hidden_controls(anonymous) == [], path
    assert anonymous.evaluate("fetch('/favicon.ico').then((r) => r.status)") == 200

    ana = watched_page(chromium, problems)
    log_in(ana, base, scene["ana"].username, scene["ana"].password)
    pages = [
        ("/", "#create-button"),
        ("/profile", "#main"),
        (f"/games/{scene['open']}", "#waiting-room:not([hidden])"),
        (f"/games/{scene['running']}", "#connection[data-state=live]"),
        (f"/games/{scene['finished']}", "#result:not([hidden]) #ranking li"),
        (f"/games/{scene['finished']}/replay", "#replay-seq"),
        (f"/games/{scene['finished']}/replay?seq=1", "#replay-seq"),
        ("/logout", "#main"),
    ]
    for path, ready in pages:
        visit(ana, base + path)
        ana.wait_for_selector(ready)
        ana.wait_for_load_state("networkidle")
        assert visible_hidden_controls(ana) == [], path
    # the replay's keys still work (replay.js runs under the policy)
    visit(ana, f"{base}/games/{scene['finished']}/replay?seq=1")
    ana.keyboard.press("ArrowRight")
    ana.wait_for_url(re.compile(r"seq=2$"))

    moderator = watched_page(chromium, problems)
    username, password = scene["moderator"]
    visit(moderator, f"{base}/admin/login/")
    moderator.fill("#id_username", username)
    moderator.fill("#id_password", password)
    moderator.click("input[type=submit]")
    moderator.wait_for_url(f"{base}/admin/")
    visit(moderator, f"{base}/admin/games/game/{scene['finished']}/replay/?seq=1")
    moderator.keyboard.press("ArrowRight")
    moderator.wait_for_url(re.compile(r"seq=2$"))
    assert problems == []
