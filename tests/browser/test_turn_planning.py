"""A turn planned on the board and sent once: the route is chosen area by area, taken
back locally for free, previewed, and confirmed as one `turn` action in one WebSocket frame (no
HTTP POST, no frame per step); the other player's page then draws that turn as a trail, live
and again after a reload."""

from __future__ import annotations

import json
import uuid

import pytest

from games.models import Game
from tests.browser.conftest import log_in, needs_chromium, settle, watched_page
from tests.players import Player, seat_players, start_game

pytestmark = needs_chromium


@pytest.fixture
def table(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    ana, ben = Player(f"ana{tag}"), Player(f"ben{tag}")
    game_id = start_game([ana, ben], movement="fast")  # 2 steps at least per turn
    by_seat = seat_players(game_id, [ana, ben])
    active = Game.objects.get(pk=game_id).active_seat
    mover, other = by_seat[active], by_seat[1 - active]
    return {
        "base": web_server.url(""),
        "game": game_id,
        "seat": active,
        "mover": (mover.user.username, "pw-" + mover.user.username * 2),
        "other": (other.user.username, "pw-" + other.user.username * 2),
    }


def open_game(browser, table, who, problems):
    page = watched_page(browser, problems)
    frames: list[dict] = []
    posts: list[str] = []
    page.on(
        "websocket", lambda ws: ws.on("framesent", lambda data: frames.append(json.loads(data)))
    )
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    log_in(page, table["base"], *table[who])
    page.goto(f"{table['base']}/games/{table['game']}")
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    settle(page)
    posts.clear()  # the login's
    return page, frames, posts


def planned(page) -> list[str]:
    return page.get_attribute("#plan-route", "data-steps").split()


def test_a_turn_planned_on_the_board_is_sent_in_one_request(table, chromium):
    problems: list[str] = []
    mover, frames, posts = open_game(chromium, table, "mover", problems)
    other, _, _ = open_game(chromium, table, "other", problems)
    mover.wait_for_selector("#actions button[data-type=plan-step]")
    assert mover.inner_text("#mode-button") == "Play step by step instead"

    # plan two steps (the first on the board itself), take one back, plan it again
    first = mover.get_attribute("#actions button[data-type=plan-step]", "data-to")
    mover.click(f"#board g.area[data-area='{first}']")
    mover.wait_for_function("() => document.getElementById('plan-route').dataset.steps !== ''")
    second = mover.get_attribute("#actions button[data-type=plan-step]", "data-to")
    mover.click(f"#actions button[data-type=plan-step][data-to='{second}']")
    assert planned(mover) == [first, second]
    assert mover.inner_text("#board-info").startswith("Route: ")  # told to screen readers
    assert mover.locator("#board .plan polyline").count() == 1
    assert mover.locator("#board .plan .plan-stop").count() == 2
    assert mover.locator("#plan-preview li").count() >= 1  # drop-offs, or "nobody gets off"
    mover.click("#plan-undo")
    assert planned(mover) == [first]
    mover.click(f"#actions button[data-type=plan-step][data-to='{second}']")
    assert planned(mover) == [first, second]
    moves = [f for f in frames if f.get("type") == "move"]
    assert moves == []  # planning is local: nothing was sent yet

    mover.click("#confirm-turn")
    mover.wait_for_function("() => document.getElementById('game').dataset.myTurn === 'false'")
    moves = [f for f in frames if f.get("type") == "move"]
    assert len(moves) == 1, moves
    assert moves[0]["action"]["type"] == "turn"
    assert moves[0]["action"]["steps"] == [first, second]
    assert posts == []  # no HTTP request made the move either
    seat = table["seat"]
    moved = mover.locator("#log-lines li[data-type=taxi_moved]").count()
    assert moved == 2
    assert mover.inner_text("#board-info") == ""  # the sent route is no longer announced

    # the other player sees the turn as a trail: live, and again when coming back
    trail = f"#board .recent .recent-move[data-seat='{seat}']"
    other.wait_for_function(f'() => document.querySelectorAll("{trail}").length === 2')
    assert other.locator(f"{trail}[data-to='{second}']").count() == 1
    assert mover.locator("#board .recent .recent-move").count() == 0  # not one's own turn
    other.reload()
    other.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    assert other.locator(trail).count() == 2
    assert problems == []


def test_the_step_by_step_mode_stays(table, chromium):
    problems: list[str] = []
    mover, frames, _ = open_game(chromium, table, "mover", problems)
    mover.click("#mode-button")
    mover.wait_for_selector("#actions button[data-type=step]")
    to = mover.get_attribute("#actions button[data-type=step]", "data-to")
    mover.click(f"#actions button[data-type=step][data-to='{to}']")
    mover.wait_for_selector("#log-lines li[data-type=taxi_moved]")
    moves = [f for f in frames if f.get("type") == "move"]
    assert [(m["action"]["type"], m["action"]["to"]) for m in moves] == [("step", to)]
    mover.reload()  # the choice is remembered
    mover.wait_for_selector("#mode-button[data-mode=steps]")
    assert problems == []


PLAN_CASES = """async () => {
  const { drawMayOffer, preview, turnAction, turnChain } = await import('/static/web/plan.js');
  const citizen = (origin, destination) => ({ origin, destination });
  const view = (passengers, waiting, pile) => ({
    you: 0, pile, waiting, allowance: 3, path: [],
    seats: [{ seat: 0, area: '2S', passengers }],
  });
  const distances = new Proxy({}, { get: () => new Proxy({}, { get: () => 4 }) });
  const plan = (pickups) => ({ steps: ['3S'], pickups });
  const ask = (v, p) => drawMayOffer(v, p, preview(v, p, distances));
  const waiting = [citizen('3S', '9H'), citizen('4S', '2C'), citizen('5S', '2D'),
                   citizen('6S', '2H'), citizen('7S', '3H')];
  return {
    // one pickup planned, room for more, cards to draw: the draw may bring a choice
    room: ask(view([], waiting, 20), plan(['9H'])),
    // no pickup planned: nothing is drawn during the turn
    none: ask(view([], waiting, 20), plan([])),
    // the pickup fills the taxi (two riding already): nothing more can be taken
    full: ask(view([citizen('9S', '2H'), citizen('8S', '4H')], waiting, 20), plan(['9H'])),
    // the pile is exhausted: no replacement is drawn
    dry: ask(view([], waiting, 1), plan(['9H'])),
    dropped: preview(view([citizen('9S', '3S')], waiting, 20), plan([]), distances),
    chain: turnChain({ steps: ['3S', '4S'], pickups: ['2C'] }),
    turn: turnAction({ steps: ['3S', '4S'], pickups: ['2C'] }),
  };
}"""


def test_the_plan_sends_move_by_move_only_when_a_draw_may_offer_a_choice(table, chromium):
    page = chromium.new_page()
    page.goto(table["base"] + "/login")
    found = page.evaluate(PLAN_CASES)
    assert (found["room"], found["none"], found["full"], found["dry"]) == (
        True,
        False,
        False,
        False,
    )
    assert found["dropped"]["dropped"] == [{"origin": "9S", "destination": "3S", "fare": 4}]
    assert found["dropped"]["income"] == 4
    assert found["chain"] == [
        {"type": "step", "to": "3S"},
        {"type": "step", "to": "4S"},
        {"type": "stop"},
        {"type": "pickup", "destination": "2C"},
    ]
    assert found["turn"] == {
        "type": "turn",
        "steps": ["3S", "4S"],
        "pickups": ["2C"],
        "pickups_before": [],
    }
