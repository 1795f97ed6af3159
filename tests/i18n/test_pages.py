"""Every page of the web client (and the moderators' admin pages of the project) in each of the
five languages: the page says it is in that language, and no English string of our catalogues
is left on it where the language has its own. Then how the language is chosen: the profile,
else the switcher's cookie or the browser's Accept-Language, else English."""

from __future__ import annotations

import functools
import re
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import NoReverseMatch, reverse
from django.utils import timezone, translation

from accounts.models import User
from tests.i18n.catalogs import LANGUAGES, english_only
from tests.players import Player, finished_game, start_game

TRANSLATED = [language for language in LANGUAGES if language != "en"]
SHORT = 3  # words: a shorter English string counts only as a whole text, not inside one


class _Texts(HTMLParser):
    """What a reader sees or hears: text outside scripts and styles, plus the attributes
    that are read out or shown (aria-label, title, placeholder, alt, button values)."""

    ATTRIBUTES = {"aria-label", "title", "placeholder", "alt"}
    # Not words to translate: code, identifiers (<code>seed</code>, option values), and text
    # marked as another language (the language names of the switcher, an English credit line).
    VERBATIM = {"script", "style", "code", "kbd", "samp"}

    def __init__(self, language: str):
        super().__init__()
        self.language = language
        self.texts: list[str] = []
        self._skip: list[str] = []

    def handle_starttag(self, tag, attrs):
        lang = dict(attrs).get("lang")
        foreign = lang and lang.split("-")[0] != self.language
        if tag in self.VERBATIM or foreign:
            self._skip.append(tag)
        elif self._skip and tag == self._skip[-1]:
            self._skip.append(tag)  # nested alike: count it so the end tag pairs up
        if self._skip:
            return
        for name, value in attrs:
            if value and (
                name in self.ATTRIBUTES
                or (
                    tag == "input"
                    and name == "value"
                    and (dict(attrs).get("type") in ("submit", "button"))
                )
            ):
                self.texts.append(value)

    def handle_endtag(self, tag):
        if self._skip and tag == self._skip[-1]:
            self._skip.pop()

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.texts.append(data)


def visible_texts(html: str, language: str) -> list[str]:
    parser = _Texts(language)
    parser.feed(html)
    return [" ".join(text.split()) for text in parser.texts]


def _first_lower(text: str) -> str:
    return text[:1].lower() + text[1:]


@functools.cache
def _english_patterns(language: str) -> list[tuple[str, bool, re.Pattern[str]]]:
    """Compiled once per language: the catalogues hold more strings than `re` keeps compiled,
    so matching by pattern text compiled them all again for every page."""
    return [
        (english, len(english.split()) < SHORT, re.compile(pattern))
        for english, pattern in english_only(language).items()
    ]


def english_left(html: str, language: str) -> list[str]:
    texts = visible_texts(html, language)
    # The admin shows verbose names with a capital ("Game log steps" for "game log steps").
    texts += [_first_lower(text) for text in texts]
    joined = "\n".join(texts)
    left = []
    for english, short, pattern in _english_patterns(language):
        if short:
            if any(pattern.fullmatch(text) for text in texts):
                left.append(english)
        elif pattern.search(joined):
            left.append(english)
    return left


# ---------------------------------------------------------------------------------- pages


def _rules_path() -> list[str]:
    try:
        return [reverse("web:rules")]
    except NoReverseMatch:  # the rules page comes with its own change; tested once it exists
        return []


def _admin_pages(game_id: int, user) -> list[str]:
    """The admin index, and a change list and a change form of each model the moderators see:
    the sidebar, column titles, filters and field labels are the models' verbose names."""
    from games.models import ChatMessage, GameEntry, ModerationAction, Report

    pages = [
        "/admin/",
        "/admin/accounts/",
        "/admin/games/",
        "/admin/accounts/user/",
        f"/admin/accounts/user/{user.pk}/change/",
        "/admin/games/game/",
        f"/admin/games/game/{game_id}/change/",
    ]
    for model in (GameEntry, ChatMessage, Report, ModerationAction):
        opts = model._meta
        pages.append(f"/admin/{opts.app_label}/{opts.model_name}/")
        first = model.objects.order_by("pk").first()
        if first is not None:
            pages.append(f"/admin/{opts.app_label}/{opts.model_name}/{first.pk}/change/")
    return pages


@pytest.fixture(scope="module")
def _site(module_db):
    with module_db():
        return _make_site()


@pytest.fixture
def site(_site, db):
    """A signed-in player with an open table, a running game and a finished one; a suspended
    player; a moderator: the pages each of them sees. Made once for the module (module_db);
    what a test's requests write is rolled back after it."""
    return _site


def _make_site():
    ana, bo, cy = Player("ana"), Player("bo"), Player("cy")
    open_table = ana.post("/api/v1/tables", {"players": 3}).json()["id"]
    running = start_game([ana, bo], movement="fast", clock="1m")
    finished = finished_game([ana, cy])
    refused = Player("dee")
    refused.user.suspended_until = timezone.now() + timezone.timedelta(days=1)
    refused.user.save()
    moderator = User.objects.create_user("mod", password="pw-mod-mod", is_staff=True)
    moderator.groups.add(Group.objects.get(name="moderators"))
    entry = finished  # a finished game's replay in the admin
    pages = {
        None: ["/login", "/signup", *_rules_path()],
        ana.user: [
            "/",
            "/lobby/lists",
            "/logout",
            "/profile",
            f"/games/{open_table}",
            f"/games/{running}",
            f"/games/{finished}",
            f"/games/{finished}/replay",
            f"/games/{finished}/replay?seq=1",
            *_rules_path(),
        ],
        refused.user: ["/"],
        moderator: [
            *_admin_pages(running, bo.user),
            f"/admin/games/game/{entry}/replay/",
            f"/admin/games/game/{running}/replay/?seq=1",
            f"/admin/games/game/{running}/moderate/",
            f"/admin/accounts/user/{bo.user.pk}/moderate/",
        ],
    }
    return pages


def _client(user, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_speaks_the_language_asked_for(site, language):
    checked = 0
    for user, paths in site.items():
        client = _client(user, language)
        for path in paths:
            response = client.get(path)
            assert response.status_code in (200, 403), (path, response.status_code)
            html = response.content.decode()
            assert response["Content-Language"] == language, path
            if "<html" in html:
                assert f'<html lang="{language}"' in html or f'lang="{language}"' in html, path
            if language != "en":
                assert english_left(html, language) == [], f"{language} {path}"
            checked += 1
    assert checked >= 27


def test_the_check_finds_an_english_string_left_behind():
    """The detector itself: an untranslated heading or sentence is caught, a name is not."""
    html = (
        '<h2>Mes parties</h2><p aria-label="Waiting citizens">x</p>'
        "<p>Seat 3 moved from 10♥ to J♠.</p><p>Ana</p><script>gettext('My games')</script>"
    )
    assert set(english_left(html, "fr")) == {
        "Waiting citizens",
        "Seat %(number)s",
        "%(seat)s moved from %(from)s to %(to)s.",
    }


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_language_switcher_is_on_every_client_page(site, language):
    for user, paths in site.items():
        if user is not None and user.is_staff:
            continue  # the admin has Django's own chrome
        client = _client(user, language)
        for path in paths:
            html = client.get(path).content.decode()
            if path == "/lobby/lists":
                continue  # a fragment swapped into the lobby
            assert 'id="language-switcher"' in html, path
            assert f'<option value="{language}" lang="{language}" selected>' in html, path


# ---------------------------------------------------------------------------------- choice


def _lobby_language(client: Client) -> str:
    return re.search(r'<html lang="([\w-]+)"', client.get("/").content.decode()).group(1)


def test_english_without_any_preference(make_player):
    client = Client()
    client.force_login(make_player().user)
    assert _lobby_language(client) == "en"
    # a browser asking only for languages we do not have gets English too
    visitor = Client(HTTP_ACCEPT_LANGUAGE="de-DE, sv;q=0.8")
    assert '<html lang="en">' in visitor.get("/login").content.decode()


def test_the_browser_language_then_the_profile(make_player):
    player = make_player()
    client = Client(HTTP_ACCEPT_LANGUAGE="pl-PL,pl;q=0.9,en;q=0.5")
    client.force_login(player.user)
    assert _lobby_language(client) == "pl"
    player.user.language = "ko"
    player.user.save()
    assert _lobby_language(client) == "ko"  # the profile outranks the browser


def test_the_switcher_sets_the_language_and_remembers_it_in_the_profile(make_player):
    player = make_player()
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(player.user)
    response = client.post(reverse("set_language"), {"language": "ja", "next": "/profile"})
    assert response.status_code == 302 and response["Location"] == "/profile"
    assert _lobby_language(client) == "ja"
    player.user.refresh_from_db()
    assert player.user.language == "ja"
    # a visitor's choice lives in the cookie alone
    visitor = Client(HTTP_ACCEPT_LANGUAGE="fr")
    visitor.post(reverse("set_language"), {"language": "ko", "next": "/login"})
    assert 'lang="ko"' in visitor.get("/login").content.decode()


def test_the_profile_api_reads_and_writes_the_language(make_player):
    player = make_player()
    assert player.get("/api/v1/me").json()["language"] == ""
    changed = player.client.patch("/api/v1/me", {"language": "pl"}, format="json")
    assert changed.status_code == 200 and changed.json()["language"] == "pl"
    refused = player.client.patch("/api/v1/me", {"language": "de"}, format="json")
    assert refused.status_code == 400 and "language" in refused.json()["errors"]
    back = player.client.patch("/api/v1/me", {"language": ""}, format="json")
    assert back.json()["language"] == ""  # blank: follow the browser again


def test_the_profile_page_offers_every_language(make_player):
    client = Client(HTTP_ACCEPT_LANGUAGE="ja")
    player = make_player()
    player.user.language = "fr"
    player.user.save()
    client.force_login(player.user)
    html = client.get("/profile").content.decode()
    assert 'data-api="/api/v1/me"' in html
    assert '<option value="fr" lang="fr" selected>Français</option>' in html
    for code in LANGUAGES:
        assert f'<option value="{code}"' in html
    with translation.override("fr"):
        assert translation.gettext("Automatic (the browser's language)") in html
