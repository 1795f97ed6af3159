"""In Chromium: computer opponents of one level are told apart on the game page (taxis table,
log, end line, ranking) and on the replay page, by the same names; no "Report" button next to
a computer; and the lobby's form chooses a level for each computer place and unticks (and
disables) "Rated game" while the computer plays. Every page stays axe-clean."""

from __future__ import annotations

import re
import uuid

import pytest

from tests.browser.conftest import log_in, needs_chromium, settle, watched_page
from tests.browser.test_accessibility import Axe, violations
from tests.e2e.server import request_json
from tests.players import Player, played_out

pytestmark = [
    *needs_chromium,
    pytest.mark.skipif(Axe is None, reason="needs axe-playwright-python"),
]

BOTS = ["Computer 1 (strong)", "Computer 2 (strong)", "Computer 3 (strong)"]


@pytest.fixture
def people(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    tag = uuid.uuid4().hex[:6]
    ana, ben = Player(f"ana{tag}"), Player(f"ben{tag}")
    return {"base": web_server.url("").rstrip("/"), "ana": ana, "ben": ben}


@pytest.fixture
def finished_with_bots(people):
    """Ana, three strong computers and Ben, played to the end."""
    ana, ben = people["ana"], people["ben"]
    created = ana.post(
        "/api/v1/tables",
        {
            "players": 5,
            "bots": ["strong"] * 3,
            "movement": "faster",
            "pickup_before_movement": True,
        },
    )
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    assert ben.post(f"/api/v1/tables/{game_id}/join").status_code == 200
    played_out(game_id)
    seats = ana.get(f"/api/v1/games/{game_id}").json()["seats"]
    return {**people, "game": game_id, "seats": seats}


def login_of(player: Player) -> tuple[str, str]:
    name = player.user.username
    return name, "pw-" + name * 2


def seat_cells(page) -> dict[int, str]:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#seats tbody tr')]
            .map((tr) => [tr.dataset.seat, tr.children[1].innerText]))"""
    )


def test_computers_are_told_apart_on_the_game_and_replay_pages(finished_with_bots, chromium):
    table = finished_with_bots
    names = {s["seat"]: s["user"]["display_name"] for s in table["seats"]}
    bot_seats = {s["seat"] for s in table["seats"] if s["bot"]}
    assert sorted(names[seat] for seat in bot_seats) == BOTS
    ben_seat = next(s["seat"] for s in table["seats"] if s["user"]["id"] == table["ben"].user.pk)
    problems: list[str] = []
    page = watched_page(chromium, problems)
    log_in(page, table["base"], *login_of(table["ana"]))
    page.goto(f"{table['base']}/games/{table['game']}")
    page.wait_for_selector("#result:not([hidden]) #ranking li")
    settle(page)
    page.wait_for_selector("#log-lines li[data-type=game_ended]")

    cells = seat_cells(page)
    for seat, name in names.items():
        assert cells[str(seat)].startswith(name), (seat, cells)
    # a report is for a person: Ben has the button, no computer does
    for seat in names:
        reports = page.locator(f"#seats tbody tr[data-seat='{seat}'] .report-button").count()
        assert reports == (1 if seat == ben_seat else 0), (seat, names[seat])
    ranking = page.locator("#ranking li").all_inner_texts()
    assert sorted(line.rsplit(":", 1)[0].strip() for line in ranking) == sorted(names.values())
    assert page.locator("#ranking li .swatch").count() == len(names)  # the seat's colour
    end_line = page.inner_text("#log-lines li[data-type=game_ended]")
    log = page.inner_text("#log-lines")
    for name in BOTS:
        assert name in end_line and name in log
    legend = page.inner_text("#legend")
    assert all(name in legend for name in BOTS)
    found = violations(page)

    page.click("#replay-link")
    page.wait_for_url(re.compile(r".*/replay$"))
    body = page.inner_text("body")
    assert "bot:" not in body
    assert {int(k): v.strip() for k, v in seat_cells(page).items()} == names
    replay_ranking = page.locator("#ranking li").all_inner_texts()
    assert sorted(line.rsplit(":", 1)[0].strip() for line in replay_ranking) == sorted(
        names.values()
    )
    page.wait_for_function("() => document.querySelectorAll('#legend li').length > 0")
    assert all(name in page.inner_text("#legend") for name in BOTS)
    found += violations(page)
    assert found == [] and problems == []


def test_the_lobby_chooses_a_level_for_each_computer_place(people, chromium):
    problems: list[str] = []
    page = watched_page(chromium, problems)
    log_in(page, people["base"], *login_of(people["ana"]))
    page.select_option("#id_players", "4")
    assert page.is_checked("#id_rated") and page.is_enabled("#id_rated")
    assert not page.is_visible("#id_bot_level_1")

    page.check("#id_computer")
    # a game against the computer is never rated: the box says so before the server does
    assert not page.is_checked("#id_rated") and page.is_disabled("#id_rated")
    shown = [n for n in range(1, 8) if page.is_visible(f"#id_bot_level_{n}")]
    assert shown == [1, 2, 3]  # every place but the creator's
    assert page.inner_text("label[for=id_bot_level_2]") == "Computer 2"
    found = violations(page)  # the lobby with the places open
    page.select_option("#id_players", "3")
    assert [n for n in range(1, 8) if page.is_visible(f"#id_bot_level_{n}")] == [1, 2]
    page.uncheck("#id_computer")
    assert page.is_checked("#id_rated") and page.is_enabled("#id_rated")  # given back
    page.select_option("#id_players", "4")
    page.check("#id_computer")

    for place, level in ((1, "strong"), (2, "easy"), (3, "medium")):
        page.select_option(f"#id_bot_level_{place}", level)
    page.click("#create-button")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    status, detail = request_json(
        f"{people['base']}/api/v1/games/{game_id}", token=people["ana"].token
    )
    assert status == 200 and detail["rated"] is False and detail["status"] == "playing"
    bots = sorted((s for s in detail["seats"] if s["bot"]), key=lambda s: s["join_order"])
    assert [(s["bot"], s["user"]["display_name"]) for s in bots] == [
        ("strong", "Computer 1 (strong)"),
        ("easy", "Computer 2 (easy)"),
        ("medium", "Computer 3 (medium)"),
    ]
    page.wait_for_function(
        "() => document.getElementById('seats').innerText.includes('Computer 3 (medium)')"
    )
    assert page.locator("#seats .report-button").count() == 0  # only computers to report
    found += violations(page)
    assert found == [] and problems == []
