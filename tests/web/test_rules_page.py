"""The rules page (/rules/): one text per language, written from RULES.md, chosen by the
request's language (Accept-Language, the language cookie, the switcher), English otherwise.
Every language's text carries every clause id of RULES.md as an anchor, the board picture with
a translated description, and the board's CC BY 4.0 attribution."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.web import RULES_LANGUAGES, rules_language
from tests.players import start_game

ATTRIBUTION = "Bahama Taxi board by Bartosz Sułkowski, CC BY 4.0"
LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"

# Every clause id of RULES.md, in its order: setup, drawing a citizen, deadlines, a turn, pickup
# limits, game end, clocks, hidden information. test_the_clause_list_matches_rules_md keeps this
# list honest wherever ../shared/RULES.md is at hand.
CLAUSE_IDS = [
    *("S1", "S2", "S3", "S4", "S5", "S6", "S7", "C1"),
    *("D1", "D2", "D3", "D4"),
    *("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"),
    *("P1", "P2", "P3", "P4"),
    *("G1", "G2", "G3"),
    *("K1", "K2", "K3", "K4"),
    *("H1", "H2"),
]
RULES_MD = Path(settings.BASE_DIR).parent / "shared" / "RULES.md"

# Each language's own words: its title and the game terms of docs/rules-glossary.md
# (draw pile, deadline, passenger, fare, citizen).
OWN_WORDS = {
    "en": ["Bahama Taxi: the rules", "draw pile", "deadline", "passenger", "fare", "citizen"],
    "fr": ["Bahama Taxi : les règles", "pioche", "échéance", "passager", "prix de", "habitant"],
    "pl": ["Bahama Taxi: zasady gry", "stos do dobierania", "termin", "pasażer", "opłat", "mieszk"],
    "ja": ["バハマタクシー ルール", "山札", "締め切り", "乗客", "運賃", "市民"],
    "ko": ["바하마 택시 규칙", "뽑기 더미", "마감", "승객", "요금", "시민"],
}
# English that must not be left in another language's text (outside <code> and the licence).
ENGLISH_WORDS = ["Your turn", "Pickup limits", "End of the game", "passenger", "draw pile", " the "]
OTHER_LANGUAGES = [code for code in RULES_LANGUAGES if code != "en"]


class Page(HTMLParser):
    """What the tests read off the rules page: headings in order, element ids, images, and the
    article's text without <code> and the English licence line."""

    def __init__(self, html: str):
        super().__init__()
        self.headings: list[int] = []
        self.ids: list[str] = []
        self.images: list[dict] = []
        self.html_lang = None
        self.article_lang = None
        self.text: list[str] = []
        self._in_article = False
        self._skip_depth = 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.html_lang = attrs.get("lang")
        if attrs.get("id"):
            self.ids.append(attrs["id"])
        if tag == "article" and attrs.get("id") == "rules":
            self._in_article = True
            self.article_lang = attrs.get("lang")
        if re.fullmatch(r"h[1-6]", tag) and self._in_article:
            self.headings.append(int(tag[1]))
        if tag == "img":
            self.images.append(attrs)
        if self._skip_depth or tag == "code" or attrs.get("lang") == "en" and tag == "span":
            self._skip_depth += 1

    def handle_endtag(self, tag):
        if self._skip_depth:
            self._skip_depth -= 1
        if tag == "article":
            self._in_article = False

    def handle_data(self, data):
        if self._in_article and not self._skip_depth:
            self.text.append(data)

    @property
    def article_text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.text))


def rules_in(client: Client, language: str | None = None) -> tuple[str, Page]:
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    response = client.get("/rules/", **headers)
    assert response.status_code == 200
    html = response.content.decode()
    return html, Page(html)


def assert_written_in(language: str, html: str, page: Page) -> None:
    assert page.html_lang == language
    assert page.article_lang == language
    text = page.article_text
    for words in OWN_WORDS[language]:
        assert words in text, f"{language}: no {words!r}"
    if language != "en":
        for words in ENGLISH_WORDS:
            assert words not in text, f"{language}: English {words!r} left in the text"


# ---------------------------------------------------------------------------------- language


def test_the_rules_page_is_at_web_rules_and_public(client, db):
    assert reverse("web:rules") == "/rules/"
    html, page = rules_in(client)
    assert_written_in("en", html, page)  # no preference: English


@pytest.mark.parametrize("language", RULES_LANGUAGES)
def test_the_rules_follow_accept_language(client, db, language):
    html, page = rules_in(client, f"{language},en;q=0.5")
    assert_written_in(language, html, page)


@pytest.mark.parametrize("language", RULES_LANGUAGES)
def test_the_rules_follow_the_language_cookie(client, db, language):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    html, page = rules_in(client, "en")  # the cookie wins over the browser's header
    assert_written_in(language, html, page)


@pytest.mark.parametrize("language", OTHER_LANGUAGES)
def test_the_rules_follow_the_language_switcher(client, db, language):
    rules_in(client)  # a first visit gives the CSRF cookie the switcher's form posts with
    response = client.post(reverse("set_language"), {"language": language, "next": "/rules/"})
    assert response.status_code == 302
    html, page = rules_in(client)
    assert_written_in(language, html, page)


@pytest.mark.parametrize("header", ["de", "de-DE,es;q=0.8", "xx", "zh-hans"])
def test_a_language_without_rules_reads_the_english(client, db, header):
    html, page = rules_in(client, header)
    assert_written_in("en", html, page)


def test_regional_variants_read_their_language():
    assert rules_language("fr-ca") == "fr"
    assert rules_language("pt-br") == "en"
    assert rules_language("ko_KR") == "ko"
    assert rules_language(None) == "en"
    assert rules_language("") == "en"


# ---------------------------------------------------------------------------------- content


def test_the_clause_list_matches_rules_md():
    if not RULES_MD.exists():
        pytest.skip(f"{RULES_MD} is not at hand")
    ids = re.findall(r"^- ([A-Z]\d+)\. ", RULES_MD.read_text(encoding="utf-8"), flags=re.M)
    assert sorted(ids) == sorted(CLAUSE_IDS)


@pytest.mark.parametrize("language", RULES_LANGUAGES)
def test_every_clause_of_rules_md_has_its_labelled_anchor(client, db, language):
    """S1–S7, C1, D1–D4, T1–T8, P1–P4, G1–G3, K1–K4 and H1–H2, each once, as a link to itself."""
    html, page = rules_in(client, language)
    for clause in CLAUSE_IDS:
        assert page.ids.count(clause) == 1, f"{language}: clause {clause}"
        assert f'<a class="clause-id" href="#{clause}">{clause}</a>' in html
    labelled = re.findall(r'<a class="clause-id" href="#([A-Z]\d+)">', html)
    # none extra, none twice (the page tells the turn before the deadlines, for players)
    assert sorted(labelled) == sorted(CLAUSE_IDS)
    assert len(page.ids) == len(set(page.ids))  # no id twice on the page


def test_every_language_tells_the_same_rules(client, db):
    """The same sections, the same clauses, the same tables in every language: no translation
    left out a part. T1's allowance table (1; 2, 3, 4; 3, 5, 7) is in each."""
    shapes = {}
    for language in RULES_LANGUAGES:
        html, page = rules_in(client, language)
        article = html.split('<article id="rules"', 1)[1].split("</article>", 1)[0]
        t1 = article.split('id="T1"', 1)[1].split("</li>", 1)[0]
        cells = re.findall(r'<td class="num">(\d)</td>', t1)
        assert cells == ["1", "1", "1", "2", "3", "4", "3", "5", "7"], language
        shapes[language] = (
            tuple(page.headings),
            tuple(i for i in page.ids if i.startswith("rules-")),
            article.count("<li"),
            article.count("<tr"),
            article.count('class="decision"'),  # T5 and D4's marked decisions
        )
    assert len(set(shapes.values())) == 1, shapes


@pytest.mark.parametrize("language", RULES_LANGUAGES)
def test_the_headings_are_in_order(client, db, language):
    _, page = rules_in(client, language)
    assert page.headings[0] == 1 and page.headings.count(1) == 1
    for before, after in zip(page.headings, page.headings[1:], strict=False):
        assert after <= before + 1, page.headings


# ---------------------------------------------------------------------------------- the board


def test_the_board_picture_is_shipped_as_a_static_file():
    found = finders.find("web/board.png")
    assert found
    assert Path(found).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("language", RULES_LANGUAGES)
def test_the_board_picture_and_its_attribution_in_every_language(client, db, language):
    html, page = rules_in(client, language)
    (board,) = [img for img in page.images if img.get("src", "").endswith("/web/board.png")]
    assert board["src"] == "/static/web/board.png"
    assert len(board["alt"]) > 80  # it describes the board, in this language
    assert board["width"] == board["height"] == "1000"
    caption = html.split('<figcaption id="board-caption">', 1)[1].split("</figcaption>", 1)[0]
    # the credit line in the page's language, with the author and the licence
    with translation.override(language):
        credit = translation.gettext("Bahama Taxi board by Bartosz Sułkowski")
    assert f"{credit}, CC BY 4.0" in caption
    assert "Bartosz Sułkowski" in credit or "Bartosza Sułkowskiego" in credit
    assert (credit == ATTRIBUTION.removesuffix(", CC BY 4.0")) == (language == "en")
    assert f'<a href="{LICENSE_URL}" rel="license">' in caption
    assert "github.com/bsulkowski/bahama-taxi" in caption  # the source, and that it was changed


def test_the_board_description_is_translated(client, db):
    alts = {}
    for language in RULES_LANGUAGES:
        _, page = rules_in(client, language)
        (board,) = [img for img in page.images if img.get("id") == "board-image"]
        alts[language] = board["alt"]
    assert len(set(alts.values())) == len(RULES_LANGUAGES)
    assert "♠" not in alts["en"] and "spade" in alts["en"]  # suits read aloud as words
    assert "pique" in alts["fr"] and "pików" in alts["pl"]
    assert "スペード" in alts["ja"] and "스페이드" in alts["ko"]


# ---------------------------------------------------------------------------------- links


def test_every_page_links_to_the_rules(client, db, make_player):
    login = client.get("/login").content.decode()
    assert '<a href="/rules/" id="rules-link">' in login

    players = [make_player(), make_player()]
    game_id = start_game(players)
    browser = Client()
    browser.force_login(players[0].user)
    game = browser.get(f"/games/{game_id}").content.decode()
    assert '<a href="/rules/" id="rules-link">' in game
    assert '<a href="/rules/" id="game-rules-link">' in game
