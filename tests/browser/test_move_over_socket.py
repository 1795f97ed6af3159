"""The game page moves over its open socket (a `move` frame, no HTTP request), and over HTTP
with the same idempotency key when the socket is closed or its answer does not come."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from games.models import Game, GameEntry
from tests.browser.conftest import log_in, needs_chromium, settle, watched_page
from tests.players import Player, seat_players, start_game

pytestmark = needs_chromium

# The page's socket reads as closed from here on (its frames still arrive): `send` refuses.
SOCKET_CLOSED = """() => Object.defineProperty(WebSocket.prototype, 'readyState', {
    configurable: true, get: () => WebSocket.CLOSED })"""
# The page's `move` frames are lost on the way (never sent): no answer ever comes.
MOVES_LOST = """() => {
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (text) {
        if (JSON.parse(text).type !== 'move') send.call(this, text);
    };
}"""


@pytest.fixture
def table(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    ana, ben = Player(f"ana{tag}"), Player(f"ben{tag}")
    game_id = start_game([ana, ben])
    mover = seat_players(game_id, [ana, ben])[Game.objects.get(pk=game_id).active_seat]
    return {
        "base": web_server.url(""),
        "game": game_id,
        "mover": (mover.user.username, "pw-" + mover.user.username * 2),
    }


def in_thread(read):
    """A database read from a thread of its own (Playwright's loop runs in this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(read).result()


def logged(game_id: int) -> tuple[int, str | None]:
    """The game's version, and the idempotency key of its entry 1."""

    def read():
        entry = GameEntry.objects.filter(game_id=game_id, seq=1).first()
        return Game.objects.get(pk=game_id).version, entry and entry.idempotency_key

    return in_thread(read)


def play_one_step(browser, table, problems, breakage: str | None):
    page = watched_page(browser, problems)
    page.add_init_script("localStorage.setItem('bahama-taxi:turn-mode', 'steps')")
    frames: list[dict] = []
    posts: list[dict] = []
    page.on(
        "websocket", lambda ws: ws.on("framesent", lambda data: frames.append(json.loads(data)))
    )
    page.on(
        "request",
        lambda r: (
            posts.append({"url": r.url, "body": r.post_data_json})
            if r.method == "POST" and r.url.endswith("/actions")
            else None
        ),
    )
    log_in(page, table["base"], *table["mover"])
    page.goto(f"{table['base']}/games/{table['game']}")
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    settle(page)
    page.wait_for_selector("#actions button[data-type=step]")
    if breakage:
        page.evaluate(breakage)
    page.click("#actions button[data-type=step]")
    # the move is in the log once the page shows the next version
    page.wait_for_function("() => document.getElementById('game').dataset.seq === '1'")
    return page, [f for f in frames if f.get("type") == "move"], posts


def test_a_move_with_the_socket_open_goes_over_it_and_not_over_http(table, chromium):
    problems: list[str] = []
    _page, moves, posts = play_one_step(chromium, table, problems, None)
    assert len(moves) == 1 and moves[0]["action"]["type"] == "step"
    assert posts == []
    assert logged(table["game"]) == (1, moves[0]["idempotency_key"])
    assert problems == []


@pytest.mark.parametrize("breakage", [SOCKET_CLOSED, MOVES_LOST], ids=["closed", "no-answer"])
def test_a_move_falls_back_to_http_with_the_same_key(table, chromium, breakage):
    problems: list[str] = []
    _page, moves, posts = play_one_step(chromium, table, problems, breakage)
    assert len(posts) == 1, posts
    body = posts[0]["body"]
    assert body["action"]["type"] == "step" and body["version"] == 0
    assert moves == []  # refused by the socket or lost before it: none reached the server
    assert logged(table["game"]) == (1, body["idempotency_key"])
    assert problems == []
