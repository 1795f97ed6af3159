"""Every HTML page carries a strict Content-Security-Policy and has nothing
the policy would block: no inline script, no inline style. That the pages still work under it
is proven in Chromium (tests/browser/test_pages_in_browser.py: no console error, which is
where a blocked script or style is reported). Also: /favicon.ico is served (no 404 on a first
load)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from taxi_project.csp import HEADER, STRICT
from tests.players import finished_game, start_game


def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        parsed[name] = sources
    return parsed


class InlineCode(HTMLParser):
    """Collects what a strict policy refuses: <script> without src (other than a JSON data
    block), <style> elements, style="…" attributes, on*="…" handlers."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and "src" not in attributes:
            if attributes.get("type") != "application/json":
                self.found.append(f"inline <script {attrs}>")
        if tag == "style":
            self.found.append("<style> element")
        for name, _value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"{name}= on <{tag}>")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def test_the_policy_is_strict():
    policy = directives(STRICT)
    assert policy["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval'
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["default-src"] == ["'self'"]


@pytest.fixture
def pages(make_player, django_user_model):
    """(client, path) for every kind of HTML page the site serves."""
    ana, ben = make_player("ana"), make_player("ben")
    running = start_game([ana, ben])
    finished = finished_game([make_player(), make_player()])
    signed_in = Client()
    signed_in.force_login(ana.user)
    staff = Client()
    staff.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "x"))
    anonymous = Client()
    return [
        (anonymous, "/login"),
        (anonymous, "/signup"),
        (anonymous, "/rules/"),
        (anonymous, "/no-such-page"),
        (anonymous, "/admin/login/"),
        (signed_in, "/"),
        (signed_in, "/lobby/lists"),
        (signed_in, f"/games/{running}"),
        (signed_in, f"/games/{finished}/replay"),
        (signed_in, f"/games/{finished}/replay?seq=1"),
        (signed_in, "/profile"),
        (signed_in, "/logout"),
        (signed_in, "/api/v1/me"),  # DRF's browsable API, asked for as HTML
        (anonymous, "/api/docs/"),  # Swagger UI: the same policy, its files from our host
        (staff, "/admin/"),
        (staff, "/admin/games/game/"),
        (staff, f"/admin/games/game/{finished}/change/"),
        (staff, "/admin/accounts/user/"),
        (staff, f"/admin/games/game/{finished}/replay/?seq=3"),
        (staff, f"/admin/games/game/{running}/replay/"),
    ]


def test_every_html_page_has_the_strict_policy_and_no_inline_code(pages):
    for client, path in pages:
        response = client.get(path, headers={"accept": "text/html"})
        assert response["Content-Type"].startswith("text/html"), path
        assert response[HEADER] == STRICT.replace(
            "connect-src 'self'", "connect-src 'self' ws://testserver"
        ), path
        found = inline_code(response.content.decode())
        if path.startswith("/api/v1/"):
            # DRF's browsable API writes Pygments' colours for code samples in a <style>: the
            # policy blocks it, and the page works without the colours. Nothing else inline.
            found = [f for f in found if f != "<style> element"]
        assert found == [], path


def test_the_api_docs_page_runs_from_files_on_this_host(client, db):
    response = client.get("/api/docs/")
    page = response.content.decode()
    assert "cdn." not in page and "https://" not in page  # drf-spectacular-sidecar's files
    assert '<link rel="stylesheet" href="/static/web/swagger-ui.css">' in page
    script = client.get("/api/docs/?script")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")


def test_json_answers_carry_no_policy(client, db):
    response = client.get("/board.json")
    assert response.status_code == 200 and HEADER not in response


def test_the_favicon_is_served(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
    page = client.get("/login").content.decode()
    assert '<link rel="icon" href="/static/web/favicon.svg"' in page
