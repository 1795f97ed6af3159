"""The Digit Code page passes axe-core (WCAG 2 A/AA and best practices) in each of the five
languages, running (questions answered, notes open, the picker showing) and finished (the
ranking, the revealed code and seed, the fairness check), and no English string of ours is
left on it in the other four, also in what its scripts wrote."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.browser.conftest import PHONE
from tests.browser.test_accessibility import Axe, violations
from tests.browser.test_digit_code_page import LIVE, game_row, in_thread, open_game, table
from tests.i18n.test_pages import english_left

pytestmark = pytest.mark.skipif(Axe is None, reason="needs axe-playwright-python")

__all__ = ["table"]  # the fixture, used here too

LOCALES = ["en-GB", "fr-FR", "pl-PL", "ja-JP", "ko-KR"]
QUESTIONS = [
    {"kind": "count", "line": "row", "index": 3},
    {"kind": "led", "position": 2, "segment": "b"},
    {"kind": "compare", "position": 3},
    {"kind": "parity", "position": 6},
]


def play(table, action: dict) -> None:
    """The player to move makes `action` over the API."""

    def move():
        game = Game.objects.get(pk=table["game"])
        answer = table["by_seat"][game.active_seat].move(table["game"], action, game.version)
        assert answer.status_code in (200, 201), answer.json()

    in_thread(move)


def checked(page, language: str) -> list[str]:
    found = violations(page)
    if language != "en":
        found += [f"English left: {text!r}" for text in english_left(page.content(), language)]
    return found


@pytest.mark.parametrize("locale", LOCALES)
def test_the_digit_code_page_passes_axe_in_every_language(table, chromium, locale):
    language = locale[:2]
    for question in QUESTIONS:
        play(table, {"type": "ask", "question": question})
    problems: list[str] = []
    found: list[str] = []
    seat = game_row(table).active_seat
    for viewport in (None, PHONE) if language == "en" else (None,):
        options = {"viewport": viewport} if viewport else {}
        page = open_game(chromium, table, seat, problems, locale=locale, **options)
        assert page.get_attribute("html", "lang") == language
        page.wait_for_selector("#answers li[data-key]")
        page.click("#display-2")
        page.click("#ask-kind-led")
        page.wait_for_selector("#notes:not([hidden])")
        found += checked(page, language)
        page.fill("#guess-1", "1")
        page.fill("#guess-2", "1")
        page.click("#guess-button")  # refused on the page (B2): the error is shown
        page.wait_for_selector("#guess-error:not(:empty)")
        found += checked(page, language)

    play(table, {"type": "guess", "code": table["code"]})
    page = open_game(chromium, table, seat, problems, locale=locale)
    page.wait_for_function(LIVE)
    page.wait_for_selector("#fairness[data-state=verified]", timeout=30_000)
    found += checked(page, language)
    assert found == []
    assert problems == []
