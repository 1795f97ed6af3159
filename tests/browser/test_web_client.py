"""The web client in a real headless Chromium: two players, one on a desktop screen and one on
a phone-sized one, sign up, open and join a table, and play a whole game to its end through
the pages only (clicks and keys), each seeing the other's moves live; the phone loses its
network mid-game and catches up without a repeated or missing log line; the pages pass axe-core.

The pages need WebSockets, which pytest-django's live_server does not serve, so the server is
a real uvicorn (tests/e2e/server.py) on the test database: one worker with the in-memory channel
layer, two with Redis when REDIS_URL is set. DEBUG is on in that server so that Django serves
the static files (uvicorn serves none).

Moves are chosen from what the page shows (its buttons, the taxis table, the waiting list) by a
greedy policy; the log each page shows is compared line by line with games/wording.py's
sentences for the game's whole log (read through the API), so the client's wording is the
server's. Screenshots: var/screenshots/web-*.png.
"""

from __future__ import annotations

import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from games.engine.board import DISTANCE
from games.wording import describe
from tests.browser.conftest import CHROMIUM, DESKTOP, PHONE, WAIT_MS, sync_api

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
MAX_ACTIONS = 500  # a greedy 2-player "faster" game takes about 150-250

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:
    Axe = None

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(sync_api is None, reason="needs playwright (pip install playwright)"),
    pytest.mark.skipif(Axe is None, reason="needs axe-playwright-python"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"needs {CHROMIUM}"),
]


@pytest.fixture(scope="module")
def server(web_server):
    return web_server


@pytest.fixture
def browser(committed_db, server, chromium):
    """Chromium, launched once the database is written (tests/browser/conftest.py)."""
    return chromium


# ---------------------------------------------------------------------------------- helpers


def new_page(browser, viewport, errors: list[str]):
    context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("pageerror", lambda error: errors.append(f"{viewport['width']}px: {error}"))
    return page


def accessibility_violations(page) -> list[str]:
    """axe-core's WCAG 2 A/AA rules and best practices (labels, roles, contrast…)."""
    results = Axe().run(page).response
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(", ".join(node["target"]) for node in v["nodes"][:5])
        for v in results["violations"]
    ]


def shot(page, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"web-{name}.png"), full_page=True)


def seq(page) -> int:
    return int(page.get_attribute("#game", "data-seq"))


def wait_seq(page, at_least: int) -> None:
    try:
        page.wait_for_function(
            "n => Number(document.getElementById('game').dataset.seq) >= n", arg=at_least
        )
    except sync_api.TimeoutError as error:
        raise AssertionError(f"{describe_page(page)} never reached seq {at_least}") from error


def describe_page(page) -> str:
    """What a page shows of its game, for failure messages."""
    return page.evaluate(
        """() => {
            const game = document.getElementById('game');
            const text = (id) => (document.getElementById(id) || {}).textContent;
            return `${location.pathname} (${innerWidth}px): seq ${game && game.dataset.seq}, `
                + `status ${game && game.dataset.status}, connection "${text('connection')}", `
                + `turn "${text('turn-status')}"`;
        }"""
    )


def wait_live(page) -> None:
    try:
        page.wait_for_function(
            "() => document.getElementById('connection').dataset.state === 'live'"
        )
    except sync_api.TimeoutError as error:
        raise AssertionError(f"{describe_page(page)} never got live") from error


PAGE_STATE = """() => {
  const game = document.getElementById('game');
  const me = document.querySelector('#seats tr:has(.you-badge)');
  const fact = (key) => Number((document.querySelector(`[data-fact="${key}"]`) || {}).textContent);
  return {
    seq: Number(game.dataset.seq),
    status: game.dataset.status,
    mine: game.dataset.myTurn === 'true',
    actions: [...document.querySelectorAll('#actions button')].map((b) => ({
      type: b.dataset.type, to: b.dataset.to || null, destination: b.dataset.destination || null,
    })),
    here: me ? me.dataset.area : null,
    passengers: me ? [...me.querySelectorAll('.passenger')].map((s) => s.dataset.destination) : [],
    waiting: [...document.querySelectorAll('#waiting li[data-origin]')]
      .map((li) => li.dataset.origin),
    pile: fact('pile'),
  };
}"""


def choose(state: dict) -> dict:
    """A greedy driver: pick up whenever offered; deliver the nearest passenger; otherwise head
    for the nearest citizen this taxi may take (P1–P3); stop on arrival."""
    by_type: dict[str, list[dict]] = {}
    for action in state["actions"]:
        by_type.setdefault(action["type"], []).append(action)
    for kind in ("pickup", "decline", "pass"):
        if kind in by_type:
            return by_type[kind][0]
    carrying = len(state["passengers"])
    few_waiting = len(state["waiting"]) <= 4
    may_pick_up = carrying == 0 or not (
        carrying >= 3 or (carrying >= 2 and state["pile"] < 2) or few_waiting
    )
    targets = set(state["passengers"]) | (set(state["waiting"]) if may_pick_up else set())

    def distance(area: str) -> int:
        return min((DISTANCE[area][t] for t in targets), default=0)

    here, stop, steps = state["here"], by_type.get("stop"), by_type.get("step", [])
    if stop and here in targets:
        return stop[0]
    if steps:
        best = min(steps, key=lambda a: distance(a["to"]))
        if stop and distance(best["to"]) >= distance(here):
            return stop[0]
        return best
    return stop[0]


def button(action: dict) -> str:
    if action["type"] == "step":
        return f"#actions button[data-type=step][data-to='{action['to']}']"
    if action["type"] == "pickup":
        return f"#actions button[data-type=pickup][data-destination='{action['destination']}']"
    return f"#actions button[data-type={action['type']}]"


class Driver:
    """Plays the two pages: whoever's page offers moves, moves; every third move by keyboard
    (a board area focused and Enter, or a button focused and Space)."""

    def __init__(self, pages):
        self.pages = pages
        self.actions = 0
        self.by_keyboard = 0

    def states(self):
        return [page.evaluate(PAGE_STATE) for page in self.pages]

    def mover(self):
        """(index, state) of the page whose turn it is, once it offers its moves."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while time.monotonic() < deadline:
            states = self.states()
            if states[0]["status"] != "playing":
                return None, states[0]
            for index, state in enumerate(states):
                if state["mine"] and state["actions"]:
                    return index, state
            time.sleep(0.05)
        raise AssertionError(f"no page offers a move: {self.states()}")

    def act(self, index: int, state: dict, action: dict) -> None:
        page = self.pages[index]
        if self.actions % 3 == 2:
            if action["type"] == "step":
                page.focus(f"#board g.area[data-area='{action['to']}']")
                page.keyboard.press("Enter")
            else:
                page.focus(button(action))
                page.keyboard.press("Space")
            self.by_keyboard += 1
        else:
            page.click(button(action))
        self.actions += 1
        # both pages show the move without a reload: the mover's and the other one, live
        for other in self.pages:
            wait_seq(other, state["seq"] + 1)

    def play(self, *, until=None) -> None:
        while self.actions < MAX_ACTIONS:
            index, state = self.mover()
            if index is None or (until is not None and until(index, state)):
                return
            self.act(index, state, choose(state))
        raise AssertionError(f"the game did not end in {MAX_ACTIONS} actions")


def hide_chat_message(message_id: int) -> None:
    """A moderator hides a message (games.services.chat.chat_hide), from a thread of its own: this
    one runs Playwright's event loop, where Django refuses database calls."""

    def hide():
        from django.db import connection

        from accounts.models import User
        from games.services.chat import chat_hide

        try:
            moderator = User.objects.create_user(username="moderator", is_staff=True)
            chat_hide(message_id=message_id, moderator=moderator, reason="test")
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(hide).result()


def log_lines(page) -> list[str]:
    return page.eval_on_selector_all("#log-lines li", "items => items.map((li) => li.textContent)")


def server_sentences(page, game_id: int) -> list[str]:
    """The game's whole log, read through the API by the page, in games/wording.py's words,
    players named as the game's summary names them."""
    entries, seats = page.evaluate(
        """async (id) => {
            const entries = [];
            let after = -1;
            for (;;) {
                const query = after < 0 ? 'limit=500' : `after=${after}&limit=500`;
                const page = await (await fetch(`/api/v1/games/${id}/log?${query}`)).json();
                entries.push(...page.entries);
                if (page.next_after === null) break;
                after = page.next_after;
            }
            const summary = await (await fetch(`/api/v1/games/${id}`)).json();
            return [entries, summary.seats];
        }""",
        game_id,
    )
    assert [e["seq"] for e in entries] == list(range(len(entries)))
    names = {s["seat"]: s["user"]["display_name"] for s in seats if s["seat"] is not None}
    return [describe(n, names) for entry in entries for n in entry["notifications"]]


# ---------------------------------------------------------------------------------- the test


def test_two_players_play_a_whole_game_in_browsers(server, browser):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    marks: dict[str, float] = {}

    def mark(name: str) -> None:
        marks[name] = time.monotonic() - started

    errors: list[str] = []
    base = server.url("")
    tag = str(time.time_ns())[-7:]
    ana, bob = f"ana{tag}", f"bob{tag}"
    password = f"correct-horse-{tag}"

    desk = new_page(browser, DESKTOP, errors)
    phone = new_page(browser, PHONE, errors)

    # anonymous visitors land on a page about the game, which passes axe, as the login does
    desk.goto(base + "/login")
    assert accessibility_violations(desk) == []
    desk.goto(base + "/")
    desk.wait_for_selector("#landing-signup")
    assert accessibility_violations(desk) == []
    desk.click("#landing-signup")
    desk.wait_for_url(re.compile(r"/signup"))
    assert accessibility_violations(desk) == []
    desk.fill("#id_username", ana)
    desk.fill("#id_display_name", "Ana")
    desk.fill("#id_password", password)
    desk.click("#auth-form button[type=submit]")
    desk.wait_for_url(base + "/")

    # a refused login shows the API's message; then logging out and in again works
    desk.click("#logout-button")
    desk.wait_for_url(re.compile(r"/login$"))
    desk.fill("#id_username", ana)
    desk.fill("#id_password", "wrong-password")
    desk.click("#auth-form button[type=submit]")
    desk.wait_for_selector("#form-error:not(:empty)")
    desk.fill("#id_password", password)
    desk.keyboard.press("Enter")
    desk.wait_for_url(base + "/")
    assert "Signed in as Ana" in desk.inner_text(".site-header")
    # this test plays move by move: the step-by-step mode (the planned turn has its own test)
    desk.evaluate("localStorage.setItem('bahama-taxi:turn-mode', 'steps')")

    phone.goto(base + "/signup")
    phone.fill("#id_username", bob)
    phone.fill("#id_password", password)
    phone.click("#auth-form button[type=submit]")
    phone.wait_for_url(base + "/")
    phone.evaluate("localStorage.setItem('bahama-taxi:turn-mode', 'steps')")
    phone.wait_for_timeout(300)  # the lobby's socket is open: the new table will show live
    shot(phone, "lobby-phone")

    # the lobby: every option of a table; Ana opens one
    for name in ("players", "shift_change", "pickup_before_movement", "visibility", "clock"):
        assert desk.locator(f"#id_{name}").count() == 1
    assert desk.locator("input[name=movement]").count() == 3
    assert desk.locator("#id_clock option").count() == 8
    assert accessibility_violations(desk) == []
    shot(desk, "lobby")
    desk.select_option("#id_players", "2")
    desk.check("input[name=movement][value=faster]")
    desk.select_option("#id_clock", "3m")
    desk.click("#create-button")
    desk.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = int(desk.url.rsplit("/", 1)[1])
    desk.wait_for_selector("#waiting-room:not([hidden])")

    # Bob's lobby shows the table without a reload; he joins; both pages start the game
    phone.click(f"button[data-join='{game_id}']")
    phone.wait_for_url(re.compile(rf"/games/{game_id}$"))
    for page in (desk, phone):
        wait_seq(page, 0)
        wait_live(page)
        page.evaluate("window.__sameDocument = true")  # gone if the page ever reloads
    assert desk.locator("#board g.area").count() == 52
    assert "Bahama Taxi board by Bartosz Sułkowski, CC BY 4.0" in desk.inner_text("#attribution")
    assert desk.locator("#board g.taxi").count() == 2
    assert desk.locator("#board g.citizen").count() == 8
    # the clock names the player to move, not "Seat 1"
    clock = desk.inner_text("#clock")
    assert clock.startswith("Time left for ") and "Seat" not in clock, clock
    assert "Ana" in clock or bob in clock, clock
    # one column on the phone: the board spans the screen, nothing scrolls sideways
    board_box = phone.locator("#board").bounding_box()
    assert board_box["width"] > PHONE["width"] * 0.85
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(desk, "start")
    shot(phone, "start-phone")
    mark("game started")

    # the game page passes axe with its moves on offer (board areas as buttons), on both screens
    driver = Driver([desk, phone])
    index, _state = driver.mover()
    assert driver.pages[index].locator("#board g.area[role=button]").count() >= 1
    assert accessibility_violations(desk) == []
    assert accessibility_violations(phone) == []

    # chat, both ways
    desk.fill("#chat-text", "Good luck, Bob!")
    desk.keyboard.press("Enter")
    phone.wait_for_selector("#chat-messages li:has-text('Good luck, Bob!')")
    phone.fill("#chat-text", "Thanks!")
    phone.click("#chat-form button")
    desk.wait_for_selector("#chat-messages li:has-text('Thanks!')")
    if os.environ.get("REDIS_URL"):  # a moderator's hiding reaches the server through Redis
        thanks = desk.get_attribute("#chat-messages li:has-text('Thanks!')", "data-id")
        hide_chat_message(int(thanks))
        for page in (desk, phone):
            page.wait_for_selector("#chat-messages li:has-text('Thanks!')", state="detached")
        assert desk.locator("#chat-messages li").count() == 1

    # a step taken back: Undo is offered after a step, and both logs say so
    index, state = driver.mover()
    first_step = next(a for a in state["actions"] if a["type"] == "step")
    driver.act(index, state, first_step)
    index, state = driver.mover()
    assert any(a["type"] == "undo" for a in state["actions"])
    driver.act(index, state, {"type": "undo"})
    for page in (desk, phone):
        page.wait_for_selector("#log-lines li[data-type=move_undone]")

    # a while of play, then the phone loses its network on the desk player's turn
    driver.play(until=lambda index, state: driver.actions >= 30 and index == 0)
    phone.context.set_offline(True)
    phone.wait_for_function(
        "() => document.getElementById('connection').dataset.state === 'reconnecting'"
    )
    assert "Reconnecting" in phone.inner_text("#connection")
    offline_seq = seq(phone)
    driver.pages = [desk]  # only the desk plays, until its turn is over
    while True:
        index, state = driver.mover()
        if index is None:
            break
        driver.act(index, state, choose(state))
        if "turn_ended" in desk.eval_on_selector_all(
            f"#log-lines li[data-seq='{seq(desk)}']", "items => items.map((li) => li.dataset.type)"
        ):
            break
    assert seq(desk) > offline_seq
    assert seq(phone) == offline_seq  # nothing reached the phone meanwhile
    back = time.monotonic()
    phone.context.set_offline(False)
    wait_seq(phone, seq(desk))
    wait_live(phone)
    reconnect = time.monotonic() - back
    assert log_lines(phone) == log_lines(desk) == server_sentences(desk, game_id)
    shot(desk, "mid")
    shot(phone, "mid-phone")

    mark("reconnected")

    # on to the end
    driver.pages = [desk, phone]
    driver.play()
    mark("game ended")
    for page in (desk, phone):
        page.wait_for_function(
            "() => document.getElementById('game').dataset.status === 'finished'"
        )
        page.wait_for_selector("#result:not([hidden]) #ranking li")
        page.wait_for_selector("#seed-verdict:not(:empty)")
        assert "matches the commitment" in page.inner_text("#seed-verdict")
        assert page.evaluate("window.__sameDocument === true")
    assert desk.locator("#log-lines li[data-type=game_ended]").count() == 1
    assert log_lines(desk) == log_lines(phone) == server_sentences(desk, game_id)
    assert desk.locator("#ranking li").count() == 2
    # the ranking names the players, not their seats
    ranking = desk.inner_text("#ranking")
    assert "Ana" in ranking and bob in ranking and "Seat" not in ranking, ranking
    # the Turn card has no turn to tell of any more: no allowance, steps or undos
    for fact in ("allowance", "steps-left", "undos-left"):
        assert desk.locator(f"[data-fact={fact}]").count() == 0
    assert desk.locator("[data-fact=pile]").count() == 1
    # nor a "your passenger goes here" mark: nobody rides any more
    assert desk.locator("#board g.mark").count() == 0
    assert accessibility_violations(desk) == []
    shot(desk, "end")
    shot(phone, "end-phone")

    # the replay: the revealed seed, the steps by link and by key
    desk.click("#replay-link")
    desk.wait_for_url(re.compile(rf"/games/{game_id}/replay$"))
    last = int(desk.get_attribute("#replay-seq", "data-seq"))
    assert desk.locator("#board g.area").count() == 52
    assert desk.inner_text("#seed") == phone.inner_text("#seed")
    desk.keyboard.press("Home")
    desk.wait_for_url(re.compile(r"seq=0$"))
    desk.click("#replay-next")
    desk.wait_for_url(re.compile(r"seq=1$"))
    desk.keyboard.press("End")
    desk.wait_for_url(re.compile(rf"seq={last}$"))
    desk.keyboard.press("ArrowLeft")
    desk.wait_for_url(re.compile(rf"seq={last - 1}$"))
    assert accessibility_violations(desk) == []
    shot(desk, "replay")

    assert errors == []
    mark("done")
    print(
        f"web client: {driver.actions} moves ({driver.by_keyboard} by keyboard), "
        f"{seq(phone)} log entries; caught up {reconnect:.2f} s after the network came back; "
        + ", ".join(f"{name} at {at:.1f} s" for name, at in marks.items())
    )


NOTIFICATIONS = [
    {"type": "game_started", "seats": [{"seat": 0, "area": "2S"}], "waiting": [], "pile": 1},
    {"type": "game_started", "seats": [], "passengers": [], "waiting": [{}] * 8, "pile": 34},
    {"type": "turn_started", "seat": 0, "allowance": 1},
    {"type": "turn_started", "seat": 7, "allowance": 7},
    {"type": "taxi_moved", "seat": 1, "from": "10H", "to": "AS"},
    {"type": "move_undone", "seat": 2, "from": "QD", "to": "KC"},
    {"type": "passenger_dropped_off", "seat": 0, "area": "JH", "origin": "2C", "fare": 5},
    {"type": "passenger_dropped_off", "seat": 0, "origin": "2C", "destination": "3C", "fare": 1},
    {"type": "citizen_picked_up", "seat": 3, "area": "9S", "origin": "9S", "destination": "4D"},
    {"type": "citizen_added", "origin": "5H", "destination": "6H", "pile": 1},
    {"type": "citizen_added", "origin": "5H", "destination": "6H", "pile": 0},
    {"type": "deadline_reached", "number": 1, "cause": "pile"},
    {"type": "deadline_reached", "number": 2, "cause": "waiting"},
    {"type": "deadline_reached", "number": 2, "cause": "clock"},
    {"type": "deadline_reached", "number": 1},
    {"type": "turn_passed", "seat": 4},
    {"type": "turn_ended", "seat": 5},
    {"type": "cards_discarded", "cards": ["7C"], "reason": "three_players", "pile": 1},
    {"type": "cards_discarded", "cards": ["7C", "7C"], "reason": "identical_pair", "pile": 20},
    {"type": "cards_discarded", "cards": ["2S", "AD"], "pile": 3},
    {"type": "game_ended", "incomes": [3, 9, 9], "ranking": [[1, 2], [0]]},
    {"type": "game_ended", "incomes": [], "ranking": [[0]]},
    {"type": "turn_timed_out", "seat": 0, "count": 2},
    {"type": "turn_timed_out", "seat": 0},
    {"type": "seat_zombified", "seat": 1, "reason": "timeouts"},
    {"type": "seat_zombified", "seat": 1, "reason": "moderator"},
    {"type": "seat_zombified", "seat": 1, "reason": "resigned"},
    {"type": "seat_zombified", "seat": 1},
    {"type": "seat_restored", "seat": 6},
    {"type": "game_aborted", "reason": "cheating detected."},
    {"type": "game_aborted", "reason": "  "},
    {"type": "game_aborted"},
    {"type": "taxi_moved", "seat": 0},  # a field missing: shown as JSON, as on the server
    {"type": "something_new", "b": [1, "é"], "a": {"z": None, "y": True}},
    {"no_type": 1},
]


def test_the_page_words_every_notification_as_the_server_does(server, browser):
    """games/static/web/wording.js against games/wording.py, type by type, edge by edge."""
    page = browser.new_page()
    page.goto(server.url("/login"))
    sentences = page.evaluate(
        """async (notifications) => {
            const { describe } = await import('/static/web/wording.js');
            return notifications.map(describe);
        }""",
        NOTIFICATIONS,
    )
    assert sentences == [describe(n) for n in NOTIFICATIONS]
    # with players' names, and places tied as in sport (1, 2, 2, 2, 5)
    names = {0: "Ana", 1: "Bob", 2: "Cy", 3: "Dee", 4: "Eve", 5: "Flo", 6: "Gus"}
    tied = {"type": "game_ended", "incomes": [9, 5, 5, 5, 1], "ranking": [[0], [1, 2, 3], [4]]}
    named = page.evaluate(
        """async ([notifications, names]) => {
            const { describe } = await import('/static/web/wording.js');
            const map = new Map(Object.entries(names).map(([k, v]) => [Number(k), v]));
            return notifications.map((n) => describe(n, map));
        }""",
        [[*NOTIFICATIONS, tied], names],
    )
    assert named == [describe(n, names) for n in [*NOTIFICATIONS, tied]]
    assert named[-1] == "The game ended. Ranking: 1. Ana (9); 2. Bob, Cy, Dee (5); 5. Eve (1)."
