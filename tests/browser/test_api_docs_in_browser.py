"""The API's Swagger UI (drf-spectacular, /api/docs/) in Chromium under the site's
Content-Security-Policy: it loads from this server alone (no CDN: the page must work where
only our host is reachable), shows the operations, the move endpoint among them, and logs no
console error, which is where a script, style or image the policy refuses shows up."""

from __future__ import annotations

import pytest

from taxi_project.csp import STRICT
from tests.browser.conftest import DESKTOP, needs_chromium, watched_page

pytestmark = needs_chromium


@pytest.fixture
def base(committed_db, web_server):
    return web_server.url("")


def test_swagger_ui_loads_under_the_policy_and_lists_the_move_endpoint(base, chromium):
    problems: list[str] = []
    page = watched_page(chromium, problems, viewport=DESKTOP)
    foreign: list[str] = []
    page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith(base) else None)
    response = page.goto(f"{base}/api/docs/")
    assert response.status == 200
    # the same policy as every other page: nothing from a CDN, no inline style or script
    policy = response.headers["content-security-policy"]
    assert policy.split("; connect-src")[0] == STRICT.split("; connect-src")[0]
    # the move endpoint: POST /api/v1/games/{game_id}/actions
    move = page.locator("#operations-games-games_actions_submit")
    move.wait_for()
    assert "/api/v1/games/{game_id}/actions" in move.inner_text()
    move.locator("button.opblock-summary-control").click()  # open it: the form renders too
    page.wait_for_selector("#operations-games-games_actions_submit .opblock-body")
    assert page.locator(".opblock").count() >= 15
    page.wait_for_load_state("networkidle")
    assert foreign == []
    assert problems == []
