"""axe-core finds no violation (WCAG 2 A/AA and best practices) on any page, in two
languages: the visitor's landing page, log-in, sign-up, rules, the lobby with a
finished game's results, a running game with a turn being planned and a dialog open, a replay,
the profile."""

from __future__ import annotations

import uuid

import pytest

from games.models import Game
from tests.browser.conftest import PHONE, log_in, needs_chromium, settle, watched_page
from tests.players import Player, finished_game, seat_players, start_game

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:
    Axe = None

pytestmark = [
    *needs_chromium,
    pytest.mark.skipif(Axe is None, reason="needs axe-playwright-python"),
]


@pytest.fixture
def scene(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    ana, ben = Player(f"ana{tag}"), Player(f"ben{tag}")
    running = start_game([ana, ben], movement="fast")
    finished = finished_game([ana, ben])
    mover = seat_players(running, [ana, ben])[Game.objects.get(pk=running).active_seat]
    name = mover.user.username
    return {
        "base": web_server.url(""),
        "running": running,
        "finished": finished,
        "login": (name, "pw-" + name * 2),
    }


def violations(page) -> list[str]:
    results = Axe().run(page).response
    return [
        f"{page.url} {v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(", ".join(node["target"]) for node in v["nodes"][:5])
        for v in results["violations"]
    ]


@pytest.mark.parametrize("locale", ["en-GB", "ja-JP"])
def test_every_page_passes_axe(scene, chromium, locale):
    problems: list[str] = []
    found: list[str] = []
    base = scene["base"]
    visitor = watched_page(chromium, problems, locale=locale)
    for path in ("/", "/login", "/signup", "/rules/", f"/games/{scene['finished']}/replay"):
        visitor.goto(base + path)
        visitor.wait_for_load_state("networkidle")
        found += violations(visitor)
    assert visitor.get_attribute("html", "lang") == locale[:2]

    for viewport in (None, PHONE):
        page = watched_page(
            chromium, problems, locale=locale, **({"viewport": viewport} if viewport else {})
        )
        log_in(page, base, *scene["login"])
        page.wait_for_load_state("networkidle")
        found += violations(page)  # the lobby, with the finished game's results
        page.goto(f"{base}/games/{scene['running']}")
        page.wait_for_function(
            "() => document.getElementById('connection').dataset.state === 'live'"
        )
        settle(page)
        page.click("#actions button[data-type=plan-step]")
        page.wait_for_selector(
            "#board .plan polyline", state="attached"
        )  # a line may have no width
        found += violations(page)
        page.click("#resign-button")
        found += violations(page)
        page.click("#resign-cancel")
        page.goto(f"{base}/games/{scene['finished']}/replay?seq=3")
        found += violations(page)
        page.goto(f"{base}/profile")
        page.wait_for_load_state("networkidle")
        found += violations(page)
    assert found == []
    assert problems == []
