"""In Chromium: a person opens the lobby, chooses Digit Code, a turn clock and a strong
computer opponent, and plays the Digit Code page against the bot, played by a real Celery
worker on the bots queue, until the game ends. Needs PostgreSQL and Redis (the worker's broker).

The person asks a question from the picker each turn and never guesses, so the game ends when
the bot finds the code (G2), or, if it ever runs long, after the person resigns (the bot then
plays on alone, G4). Either way the end is the game's own: the test reads it from the log."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import log_in, needs_chromium, settle, watched_page
from tests.e2e.server import request_json

pytestmark = [*needs_chromium, pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]

COMPUTER = "Computer 1 (strong)"  # games/wording.py: computer_name, the lobby's first place
#: The person's turns before resigning: a strong bot helped by the person's answers finds the
#: code well before this (its median, alone against itself, is ~18 turns a seat).
PERSON_TURNS = 30
#: The kinds the person asks, in turn: the counts and LEDs first, which tell the most.
KINDS = ("count", "led", "parity", "compare")

MY_TURN_OR_OVER = """() => {
    if (!document.getElementById('result').hidden) return 'over';
    const game = document.getElementById('game');
    const ask = document.getElementById('ask-button');
    const form = document.getElementById('ask-form');
    return game.dataset.myTurn === 'true' && !form.hidden && !ask.disabled ? 'mine' : false;
}"""


def test_a_digit_code_game_against_the_strong_bot_from_the_lobby_to_the_end(
    server_and_worker, person, chromium
):
    """K1 (C1): the turn clock counts down the person's turns; Q1–Q5: the bot's questions and
    answers appear live in the public list under its name; G2, G5, G6: the end shows the
    winner, the ranking and the revealed code, as the log has them."""
    server, worker = server_and_worker
    since = worker.log_size()
    player, login = person
    problems: list[str] = []
    base = server.url("").rstrip("/")
    page = watched_page(chromium, problems)
    log_in(page, base, *login)
    page.check("#game-choice input[value=digit-code]")
    page.select_option("#id_players", "2")
    page.select_option("#id_clock", "3m")
    page.check("#id_computer")
    page.select_option("#id_bot_level_1", "strong")
    page.click("#create-button")
    page.wait_for_url(re.compile(r".*/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    detail = _game(server, player, game_id)  # (Playwright's thread refuses database calls)
    assert detail["game"] == "digit-code" and detail["clock"] == "3m"
    assert detail["status"] == "playing"
    me = detail["your_seat"]
    bot = 1 - me
    names = {s["seat"]: s["user"]["display_name"] for s in detail["seats"]}
    assert names[bot] == COMPUTER and [s["bot"] for s in detail["seats"] if s["seat"] == bot] == [
        "strong"
    ]
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'live'")
    settle(page)

    turns = 0
    resigned = False
    while (state := page.wait_for_function(MY_TURN_OR_OVER).json_value()) == "mine":
        if turns == PERSON_TURNS:
            resigned = True  # the bot plays on alone to its end (G4)
            page.click("#resign-button")
            page.click("#resign-confirm")
            break
        # the clock counts down the person's own turn (a 3-minute preset: at most 180 s)
        page.wait_for_function(
            "(name) => document.getElementById('clock').textContent.includes(name)",
            arg=names[me],
        )
        left = int(page.get_attribute("#clock", "data-left"))
        assert 0 < left <= 180, left
        assert "Time left for" in page.inner_text("#clock")
        asked = page.locator("#answers li[data-key]").count()
        kind = _offered_kind(page, KINDS[turns % len(KINDS)])
        page.check(f"#ask-kind-{kind}")  # its choices keep their first offer
        page.click("#ask-button")
        page.wait_for_function(
            "(n) => document.querySelectorAll('#answers li[data-key]').length > n", arg=asked
        )
        turns += 1
    page.wait_for_selector("#result:not([hidden])", timeout=60_000)
    assert state == "over" or resigned

    # the bot's questions came to the page as they were asked (it was never reloaded), each
    # under the computer's name
    askers = page.eval_on_selector_all(
        "#answers li[data-key]",
        "items => items.map((li) => [li.dataset.seat, li.querySelector('.dc-asker').textContent])",
    )
    theirs = [name for seat, name in askers if seat == str(bot)]
    assert theirs and set(theirs) == {COMPUTER}, askers
    assert {name for seat, name in askers if seat == str(me)} == {names[me]}
    assert turns > 0

    _status, log = request_json(server.url(f"/api/v1/games/{game_id}/log"), token=player.token)
    ended = [n for e in log["entries"] for n in e["notifications"] if n["type"] == "game_ended"]
    assert len(ended) == 1, ended
    ended = ended[0]
    assert any(e["actor"] == {"kind": "bot", "seat": bot} for e in log["entries"])
    if not resigned:
        assert ended["winner"] == bot  # the person never guesses: only the bot can win
    page.wait_for_selector("#revealed-code")
    assert page.inner_text("#revealed-code") == "".join(map(str, ended["code"]))
    ranking = page.eval_on_selector_all("#ranking li", "items => items.map(li => li.dataset.seat)")
    assert ranking == [str(seat) for group in ended["ranking"] for seat in group]
    winner = page.inner_text("#winner")
    if ended["winner"] is None:
        assert winner == "Nobody found the code."
    else:
        assert winner == f"{names[ended['winner']]} found the code and wins."
    assert page.inner_text("#clock") == ""  # no clock once the game is over
    page.wait_for_selector("#fairness[data-state=verified]", timeout=30_000)
    assert _game(server, player, game_id)["status"] == "finished"
    assert worker.errors(since) == [] and problems == []


def _offered_kind(page, wanted: str) -> str:
    """`wanted` if the picker still offers that kind of question (Q5), else the first it does."""
    offered = page.eval_on_selector_all(
        "#ask-kinds input[type=radio]:not([disabled])", "radios => radios.map((r) => r.value)"
    )
    assert offered, "no question left to ask"
    return wanted if wanted in offered else offered[0]


def _game(server, player, game_id: int) -> dict:
    status, detail = request_json(server.url(f"/api/v1/games/{game_id}"), token=player.token)
    assert status == 200, detail
    return detail
