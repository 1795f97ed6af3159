"""The game page on a phone (390 × 844, issue 21): the board and the action bar are both on the
screen without scrolling, the action bar fixed at the bottom; the board zooms (buttons) inside
its frame, and the suits may be drawn in four colours. Also writes the screenshots the README
links to (docs/screenshots/, with WRITE_DOCS_SCREENSHOTS=1)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from games.models import Game
from tests.browser.conftest import DESKTOP, PHONE, log_in, needs_chromium, settle, watched_page
from tests.players import Player, seat_players, start_game

pytestmark = needs_chromium
# docs/screenshots/ when asked (WRITE_DOCS_SCREENSHOTS=1: the README links them), else var/
ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / ("docs" if os.environ.get("WRITE_DOCS_SCREENSHOTS") else "var") / "screenshots"


@pytest.fixture
def table(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    ana, ben = Player(f"ana{tag}"), Player(f"ben{tag}")
    game_id = start_game([ana, ben], movement="fast", clock="24h")
    by_seat = seat_players(game_id, [ana, ben])
    mover = by_seat[Game.objects.get(pk=game_id).active_seat]
    name = mover.user.username
    return {"base": web_server.url(""), "game": game_id, "login": (name, "pw-" + name * 2)}


def open_game(browser, table, viewport, problems):
    page = watched_page(browser, problems, viewport=viewport)
    log_in(page, table["base"], *table["login"])
    page.goto(f"{table['base']}/games/{table['game']}")
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    page.wait_for_selector("#actions button[data-type=plan-step]")
    settle(page)
    return page


TAGS_ON_OTHER_AREAS = """() => {
  const discs = [...document.querySelectorAll('#board g.area')].map((g) => {
    const c = g.querySelector('.area-disc');
    return { id: g.dataset.area, x: +c.getAttribute('cx'), y: +c.getAttribute('cy'),
             r: +c.getAttribute('r') };
  });
  const found = [];
  for (const tag of document.querySelectorAll('#board g.citizen')) {
    const rect = tag.querySelector('rect');
    const [x, y] = [+rect.getAttribute('x'), +rect.getAttribute('y')];
    const [w, h] = [+rect.getAttribute('width'), +rect.getAttribute('height')];
    for (const d of discs) {
      if (d.id === tag.dataset.origin) continue;
      const nx = Math.max(x, Math.min(d.x, x + w));
      const ny = Math.max(y, Math.min(d.y, y + h));
      if (Math.hypot(d.x - nx, d.y - ny) < d.r) found.push(`${tag.dataset.origin} on ${d.id}`);
    }
  }
  return found;
}"""


CROWDED_BOARD = """async (crowd) => {
  const { createBoard } = await import('/static/web/board.js');
  const data = JSON.parse(document.getElementById('board-data').textContent);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.id = 'crowded';
  document.body.appendChild(svg);
  const waiting = data.areas.flatMap((a) =>
    Array.from({ length: crowd }, () => ({ origin: a.id, destination: '10H' })));
  const view = { seats: [], waiting, active_seat: null, path: [], turn_start: null };
  createBoard(svg, data, { colours: [{ fill: '#000', ink: '#fff' }] }).render(view);
  const found = [];
  const discs = data.areas;
  for (const tag of svg.querySelectorAll('g.citizen')) {
    const rect = tag.querySelector('rect');
    const [x, y] = [+rect.getAttribute('x'), +rect.getAttribute('y')];
    const [w, h] = [+rect.getAttribute('width'), +rect.getAttribute('height')];
    for (const d of discs) {
      if (d.id === tag.dataset.origin) continue;
      const nx = Math.max(x, Math.min(d.x, x + w));
      const ny = Math.max(y, Math.min(d.y, y + h));
      if (Math.hypot(d.x - nx, d.y - ny) < d.r) found.push(`${tag.dataset.origin} on ${d.id}`);
    }
  }
  svg.remove();
  return found;
}"""


def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def test_on_a_phone_board_and_action_bar_fit_the_screen(table, chromium):
    problems: list[str] = []
    phone = open_game(chromium, table, PHONE, problems)
    assert phone.evaluate("scrollY") == 0
    board, bar = box(phone, "#board-frame"), box(phone, "#move-panel")
    assert board["y"] >= 0 and board["width"] > PHONE["width"] * 0.9
    assert bar["y"] + bar["height"] <= PHONE["height"] + 0.5  # at the bottom of the screen
    assert board["y"] + board["height"] <= bar["y"] + 1, (board, bar)  # not under the bar
    assert (
        phone.evaluate("getComputedStyle(document.getElementById('move-panel')).position")
        == "fixed"
    )
    confirm = box(phone, "#confirm-turn")
    assert bar["y"] <= confirm["y"] and confirm["y"] + confirm["height"] <= PHONE["height"]
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the taxis table shows every column, Income included, without scrolling sideways
    wrap = "document.querySelector('#seats').closest('.table-wrap')"
    assert phone.evaluate(f"{wrap}.scrollWidth <= {wrap}.clientWidth"), phone.evaluate(
        f"[{wrap}.scrollWidth, {wrap}.clientWidth]"
    )
    # the bar stays put while the page scrolls to the log
    phone.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert box(phone, "#move-panel")["y"] == pytest.approx(bar["y"], abs=1)
    phone.evaluate("window.scrollTo(0, 0)")

    # zoom: the board grows inside its frame, which scrolls; back to the whole board
    width = box(phone, "#board")["width"]
    phone.click("#zoom-in")
    assert box(phone, "#board")["width"] == pytest.approx(width * 1.5, rel=0.02)
    assert box(phone, "#board-frame")["width"] == pytest.approx(board["width"], abs=1)
    phone.click("#zoom-reset")
    assert box(phone, "#board")["width"] == pytest.approx(width, rel=0.02)

    # four suit colours: diamonds blue and clubs green instead of red and black
    stroke = (
        "(id) => document.querySelector(`#board g.area[data-area='${id}'] .area-disc`)"
        ".getAttribute('stroke')"
    )
    assert phone.evaluate(stroke, "2D") == phone.evaluate(stroke, "2H")
    phone.check("#four-colours")
    assert phone.evaluate(stroke, "2D") != phone.evaluate(stroke, "2H")
    assert phone.evaluate(stroke, "2C") != phone.evaluate(stroke, "2S")
    phone.uncheck("#four-colours")

    # citizens' tags stay on their own area: none overlaps another area's disc, in this game
    # and on a board where every area has 1, 2, 3 or 4 citizens waiting
    assert phone.evaluate(TAGS_ON_OTHER_AREAS) == []
    for crowd in (1, 2, 3, 4):
        assert phone.evaluate(CROWDED_BOARD, crowd) == [], crowd

    DOCS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(DOCS / "game-phone.png"))
    desk = open_game(chromium, table, DESKTOP, problems)
    # unzoomed, the whole board shows: the frame is as tall as the board
    assert box(desk, "#board-frame")["height"] == pytest.approx(
        box(desk, "#board")["height"], abs=1
    )
    desk.click("#actions button[data-type=plan-step]")
    desk.wait_for_selector("#board .plan polyline", state="attached")  # a line may have no width
    desk.screenshot(path=str(DOCS / "game-desktop.png"), full_page=True)
    assert problems == []
