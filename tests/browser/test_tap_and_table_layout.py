"""In Chromium: on a phone, a tap on an area you may step to plans the step even where a
waiting citizen's tag is drawn over that area (the tag still reads, and who waits there is
still in the "Waiting citizens" list); a long name does not push the Income column out of the
taxis table on a 1,366 px screen; Japanese table headers do not break inside a word on a
phone. Measured on the element boxes Chromium lays out."""

from __future__ import annotations

import uuid

import pytest

from games import engine, state
from games.models import Game
from tests.browser.conftest import PHONE, log_in, needs_chromium, settle, watched_page
from tests.players import Player, finished_by_autopilot, seat_players, start_game

pytestmark = needs_chromium

LAPTOP = {"width": 1366, "height": 768}
LONG_NAME = "Bartholomew-Maximilian-Featherstonehaugh-Wolfesch"  # 50 characters, no space


def login_of(player: Player) -> tuple[str, str]:
    name = player.user.username
    return name, "pw-" + name * 2


def step_onto_a_citizen(players: list[Player]) -> tuple[int, Player, str]:
    """A new game whose player to move may step, first thing, onto an area where a citizen
    waits: (game, that player, the area)."""
    for _ in range(30):
        game_id = start_game(players, movement="fast", clock="24h")
        game = Game.objects.get(pk=game_id)
        current = state.state_for(game)
        steps = {a.to for a in current.legal_actions() if isinstance(a, engine.Step)}
        waiting = {c["origin"] for c in engine.public_view(current)["waiting"]}
        if steps & waiting:
            return game_id, seat_players(game_id, players)[game.active_seat], min(steps & waiting)
    raise AssertionError("no game in 30 offered a step onto a waiting citizen")


@pytest.fixture
def players(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    return web_server.url("").rstrip("/"), [Player(f"ana{tag}"), Player(f"ben{tag}")]


def open_game(page, base: str, game_id: int) -> None:
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    settle(page)


@pytest.fixture
def citizen_on_a_step(players):
    """(Playwright's thread refuses database calls: games are made before Chromium starts.)"""
    base, people = players
    return base, *step_onto_a_citizen(people)


def test_on_a_phone_a_tap_on_a_legal_area_under_a_citizen_plans_the_step(
    citizen_on_a_step, chromium
):
    base, game_id, mover, area = citizen_on_a_step
    problems: list[str] = []
    phone = watched_page(chromium, problems, viewport=PHONE)
    log_in(phone, base, *login_of(mover))
    open_game(phone, base, game_id)
    phone.wait_for_selector(f"#board g.area.legal[data-area='{area}']")
    tag = phone.locator(f"#board g.citizen[data-origin='{area}']")
    assert tag.count() == 1 and tag.text_content().strip()  # the citizen is drawn and reads
    # the tag is what a finger on the middle of the area lands on
    box = tag.bounding_box()
    centre = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    on_top = phone.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('g').getAttribute('class')",
        [centre["x"], centre["y"]],
    )
    assert on_top == "citizen"

    phone.touchscreen.tap(centre["x"], centre["y"])
    phone.wait_for_selector(f"#board .plan .plan-stop[data-area='{area}']", state="attached")
    assert phone.inner_text("#board-info").startswith("Route: ")
    assert phone.locator(f"#board g.citizen[data-origin='{area}']").count() == 1  # still shown
    # who waits there is still told in words
    assert phone.locator(f"#waiting li[data-origin='{area}']").count() >= 1
    assert problems == []


@pytest.fixture
def long_named(players):
    base, people = players
    renamed = people[1].client.patch("/api/v1/me", {"display_name": LONG_NAME}, format="json")
    assert renamed.status_code == 200, renamed.json()
    return base, people, start_game(people, movement="fast", clock="24h")


def test_a_long_name_leaves_the_income_column_in_the_table_at_1366_px(long_named, chromium):
    base, people, game_id = long_named
    problems: list[str] = []
    page = watched_page(chromium, problems, viewport=LAPTOP)
    log_in(page, base, *login_of(people[0]))
    open_game(page, base, game_id)
    page.wait_for_function(
        "(name) => document.getElementById('seats').innerText.includes(name)", arg=LONG_NAME
    )
    measured = page.evaluate(
        """() => {
            const wrap = document.querySelector('#seats').closest('.table-wrap');
            const box = wrap.getBoundingClientRect();
            const incomes = [...document.querySelectorAll('#seats th:last-child, #seats td.income')]
                .map((cell) => cell.getBoundingClientRect().right);
            return { scroll: wrap.scrollWidth, client: wrap.clientWidth, right: box.right,
                     incomes };
        }"""
    )
    assert measured["scroll"] <= measured["client"], measured
    assert all(right <= measured["right"] + 0.5 for right in measured["incomes"]), measured
    assert problems == []


# each table header's text, line by line as Chromium laid it out (one character at a time)
HEADER_LINES = """() => [...document.querySelectorAll('table th')].map((th) => {
  const lines = [];
  let top = null;
  const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect) continue;
      const y = Math.round(rect.top);
      if (top === null || Math.abs(y - top) > 2) {
        lines.push("");
        top = y;
      }
      lines[lines.length - 1] += node.data[i];
    }
  }
  return lines;
})"""

# the words of the Japanese headers of the taxis, leaderboard and rating tables
JAPANESE_WORDS = (
    "プレイヤー", "エリア", "乗客", "運賃", "収入", "順位", "レーティング", "対象", "対局",
    "人数", "終了", "変動",
)  # fmt: skip


def broken_words(headers: list[list[str]]) -> list[tuple[str, list[str]]]:
    """(word, the header's lines) for every word a header's lines cut in two."""
    return [
        (word, lines)
        for lines in headers
        for word in JAPANESE_WORDS
        if word in "".join(lines) and not any(word in line for line in lines)
    ]


@pytest.fixture
def japanese_tables(players):
    """A running game with three passengers a taxi (shift change: the widest Passengers
    column), and rated games, so the leaderboard and the rating history have rows."""
    base, people = players
    _seven_digit_game_ids()
    running = start_game(people, movement="fast", clock="24h", shift_change=True)
    finished = [finished_by_autopilot(people) for _ in range(2)]
    return base, people, running, finished[0]


def _seven_digit_game_ids() -> None:
    """Game numbers as a service that has run a while shows them (a table of them must still
    fit a phone), whatever ran before in this test database."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence('games_game', 'id'),"
                " GREATEST(1000000, (SELECT COALESCE(MAX(id), 0) FROM games_game)))"
            )
        else:
            cursor.execute("DELETE FROM sqlite_sequence WHERE name = 'games_game'")
            cursor.execute(
                "INSERT INTO sqlite_sequence (name, seq) SELECT 'games_game',"
                " MAX(1000000, COALESCE(MAX(id), 0)) FROM games_game"
            )


def test_japanese_table_headers_keep_their_words_whole_on_a_phone(japanese_tables, chromium):
    base, people, running, finished = japanese_tables
    problems: list[str] = []
    phone = watched_page(chromium, problems, viewport=PHONE, locale="ja")
    log_in(phone, base, *login_of(people[0]))
    pages = (
        f"/games/{running}",
        f"/games/{finished}/replay",
        "/leaderboard?players=2",
        f"/players/{people[0].user.pk}",
    )
    for path in pages:
        if path == pages[0]:
            open_game(phone, base, running)
        else:
            phone.goto(base + path)
        headers = phone.evaluate(HEADER_LINES)
        assert headers, path
        assert broken_words(headers) == [], (path, headers)
        # whole words, and still on the phone's screen: no sideways scrolling
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    assert problems == []
