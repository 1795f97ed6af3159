"""The game page on a phone (390 × 844): the board and the action bar are both on the
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
    active = Game.objects.get(pk=game_id).active_seat
    mover, other = by_seat[active], by_seat[1 - active]
    name, watcher = mover.user.username, other.user.username
    return {
        "base": web_server.url(""),
        "game": game_id,
        "login": (name, "pw-" + name * 2),
        "other": (watcher, "pw-" + watcher * 2),
        "mover": mover.user.display_name or name,
    }


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


CROWDED_BOARD = """async ({ crowd, width }) => {
  const { createBoard } = await import('/static/web/board.js');
  const data = JSON.parse(document.getElementById('board-data').textContent);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.id = 'crowded';
  svg.setAttribute('viewBox', '25 25 950 950');
  svg.style.width = `${width}px`;
  document.body.appendChild(svg);
  const waiting = data.areas.flatMap((a) =>
    Array.from({ length: crowd }, () => ({ origin: a.id, destination: '10H' })));
  const view = { seats: [], waiting, active_seat: null, path: [], turn_start: null };
  createBoard(svg, data, { colours: [{ fill: '#000', ink: '#fff' }] }).render(view);
  const found = [];
  const discs = data.areas;
  let tags = 0;
  let citizens = 0;
  for (const tag of svg.querySelectorAll('g.citizen')) {
    tags += 1;
    citizens += +tag.dataset.count;
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
  const heights = [...svg.querySelectorAll('g.citizen rect')]
    .map((r) => r.getBoundingClientRect().height);
  svg.remove();
  return { found, tags, citizens, smallest: Math.min(...heights) };
}"""

# every tag and its text on the screen: its box, its label's font size in CSS pixels, and the
# boxes of the discs of the other areas (all in screen pixels, whatever the zoom)
TAGS_ON_SCREEN = """() => {
  const svg = document.getElementById('board');
  const scale = svg.getScreenCTM().a;
  const discs = [...svg.querySelectorAll('g.area .area-disc')].map((c) => {
    const b = c.getBoundingClientRect();
    return { id: c.parentNode.dataset.area, x: b.x + b.width / 2, y: b.y + b.height / 2,
             r: b.width / 2 };
  });
  return [...svg.querySelectorAll('g.citizen')].map((g) => {
    const b = g.querySelector('rect').getBoundingClientRect();
    const text = g.querySelector('text');
    const covers = discs.filter((d) => d.id !== g.dataset.origin).filter((d) => {
      const nx = Math.max(b.x, Math.min(d.x, b.x + b.width));
      const ny = Math.max(b.y, Math.min(d.y, b.y + b.height));
      return Math.hypot(d.x - nx, d.y - ny) < d.r;
    }).map((d) => d.id);
    return { origin: g.dataset.origin, count: +g.dataset.count, height: b.height,
             width: b.width, font: +text.getAttribute('font-size') * scale,
             text: text.textContent, covers };
  });
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
    for width in (PHONE["width"], DESKTOP["width"] // 2, DESKTOP["width"]):
        for crowd in (1, 2, 3, 4):
            drawn = phone.evaluate(CROWDED_BOARD, {"crowd": crowd, "width": width})
            assert drawn["found"] == [], (width, crowd, drawn["found"])
            assert drawn["citizens"] == crowd * 52
            # merged into one tag an area when one a citizen would be too small to read
            assert drawn["smallest"] >= 11, (width, crowd, drawn)

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


def test_on_a_phone_citizens_tags_are_readable_unzoomed(table, chromium):
    """The tags were 16 × 8 px on a phone. Unzoomed, each area's citizens share one
    tag at least 11 px tall (12 but on the Aces' smaller discs) whose text is at least 9 px;
    zoomed in, every citizen has a tag of its own again; no tag covers another area."""
    problems: list[str] = []
    phone = open_game(chromium, table, PHONE, problems)
    tags = phone.evaluate(TAGS_ON_SCREEN)
    waiting = phone.locator("#waiting li[data-origin]").count()
    assert tags and sum(tag["count"] for tag in tags) == waiting
    assert len(tags) == len({tag["origin"] for tag in tags})  # one tag an area
    for tag in tags:
        assert tag["covers"] == [], tag
        assert tag["height"] >= 11 and tag["font"] >= 9, tag
        if not tag["origin"].startswith("A"):
            assert tag["height"] >= 12, tag
    # a lone citizen's tag names where it goes; a tap tells every destination in words (on an
    # area the taxi may step to, the tap plans that step instead: a citizen elsewhere)
    legal = set(
        phone.eval_on_selector_all("#board g.area.legal", "gs => gs.map(g => g.dataset.area)")
    )
    lone = next(tag for tag in tags if tag["count"] == 1 and tag["origin"] not in legal)
    assert lone["text"] and not lone["text"].startswith("×")
    phone.locator(f"#board g.citizen[data-origin='{lone['origin']}']").tap()
    assert phone.inner_text("#board-info").startswith("A citizen waits at ")

    phone.click("#zoom-in")
    phone.click("#zoom-in")  # × 2: a tag for every citizen, as on a desktop
    phone.wait_for_function(
        "() => [...document.querySelectorAll('#board g.citizen')]"
        ".every((g) => g.dataset.count === '1')"
    )
    zoomed = phone.evaluate(TAGS_ON_SCREEN)
    assert len(zoomed) == waiting
    assert all(tag["covers"] == [] and tag["height"] >= 11 for tag in zoomed), zoomed
    phone.click("#zoom-reset")
    assert problems == []


def pinch(page, cdp, centre: tuple[float, float], start: float, end: float, steps: int = 6):
    """Two fingers on the board, `start` px apart, moved apart (or together) to `end` px, as
    Chromium's touch input (which the page sees as touch pointer events)."""
    x, y = centre

    def points(gap: float) -> list[dict]:
        return [{"x": x - gap / 2, "y": y, "id": 0}, {"x": x + gap / 2, "y": y, "id": 1}]

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": points(start)})
    for step in range(1, steps + 1):
        gap = start + (end - start) * step / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": points(gap)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_pinch_and_ctrl_wheel_zoom_the_board_which_stays_playable(table, chromium):
    """Pinch (two fingers) and Ctrl + wheel (a trackpad's pinch on a desktop) scale the
    board inside its frame, not the page; a zoomed board still takes a planned step."""
    problems: list[str] = []
    phone = open_game(chromium, table, PHONE, problems)
    frame = box(phone, "#board-frame")
    width = box(phone, "#board")["width"]
    centre = (frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2)
    cdp = phone.context.new_cdp_session(phone)
    pinch(phone, cdp, centre, 60, 150)
    zoom = float(phone.get_attribute("#board-frame", "data-zoom"))
    assert zoom == pytest.approx(2.5, abs=0.05)
    assert box(phone, "#board")["width"] == pytest.approx(width * zoom, rel=0.02)
    assert box(phone, "#board-frame")["width"] == pytest.approx(frame["width"], abs=1)
    assert phone.evaluate("visualViewport.scale") == 1  # the page itself did not zoom
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # the zoomed board is still a board to play on: a tap on a legal area plans that step
    target = phone.locator("#board g.area.legal").first
    area = target.get_attribute("data-area")
    target.tap()
    phone.wait_for_selector(f"#board .plan .plan-stop[data-area='{area}']", state="attached")
    assert phone.inner_text("#board-info").startswith("Route: ")
    # fingers together: back towards the whole board, never below it
    pinch(phone, cdp, centre, 200, 40)
    assert phone.get_attribute("#board-frame", "data-zoom") == "1"
    assert box(phone, "#board")["width"] == pytest.approx(width, rel=0.02)

    desk = open_game(chromium, table, DESKTOP, problems)
    width = box(desk, "#board")["width"]
    board = box(desk, "#board-frame")
    desk.mouse.move(board["x"] + board["width"] / 2, board["y"] + board["height"] / 2)
    scrolled = desk.evaluate("scrollY")
    desk.keyboard.down("Control")
    desk.mouse.wheel(0, -100)
    desk.keyboard.up("Control")
    desk.wait_for_function("() => document.getElementById('board-frame').dataset.zoom !== '1'")
    assert float(desk.get_attribute("#board-frame", "data-zoom")) == pytest.approx(1.25)
    assert box(desk, "#board")["width"] == pytest.approx(width * 1.25, rel=0.02)
    assert desk.evaluate("scrollY") == scrolled  # the wheel zoomed the board, not scrolled
    # a plain wheel scrolls as usual and leaves the zoom alone
    desk.mouse.wheel(0, 100)
    assert float(desk.get_attribute("#board-frame", "data-zoom")) == pytest.approx(1.25)
    desk.click("#zoom-reset")
    assert box(desk, "#board")["width"] == pytest.approx(width, rel=0.02)
    assert problems == []


SEAT_WORDS = {"en": "Seat ", "fr": "Place ", "pl": "Miejsce ", "ja": "番席", "ko": "번 자리"}


@pytest.mark.parametrize("language", sorted(SEAT_WORDS))
def test_the_page_names_players_not_seats(table, chromium, language):
    """Not "Time left for Seat 1", "Seat 2's turn": where the page knows who sits there
    it says the name, in every language (the seat numbers stay only in the taxis table and the
    colour key, which tie a name to its taxi's badge)."""
    problems: list[str] = []
    page = watched_page(chromium, problems, locale=language)
    log_in(page, table["base"], *table["other"])
    page.goto(f"{table['base']}/games/{table['game']}")
    assert page.get_attribute("html", "lang") == language
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    settle(page)
    page.wait_for_function("() => /\\d/.test(document.getElementById('clock').textContent)")
    seat = SEAT_WORDS[language]
    texts = {
        "clock": page.inner_text("#clock"),
        "turn": page.inner_text("#turn-status"),
        "log": page.inner_text("#log-lines"),
    }
    for where in ("clock", "turn"):
        assert table["mover"] in texts[where] and seat not in texts[where], (where, texts)
    assert texts["log"] and seat not in texts["log"], texts["log"]
    taxi = page.locator("#board g.taxi title").first.text_content()
    assert seat not in taxi, taxi
    assert problems == []
