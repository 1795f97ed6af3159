"""One name per seat, the same everywhere: computer opponents of one level are told apart by a
number ("Computer 2 (strong)", in the five languages), the one the lobby's form chose them
under, on the game page, the replay page, the admin's replay and in the API's seat data; no
bot account's name ("bot:2") shows; and no person may sign up under any of those names."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import display_name_reserved
from tests.players import played_out

pytestmark = pytest.mark.django_db

EXPECTED = {
    "en": ["Computer 1 (strong)", "Computer 2 (strong)", "Computer 3 (strong)"],
    "fr": ["Ordinateur 1 (fort)", "Ordinateur 2 (fort)", "Ordinateur 3 (fort)"],
    "pl": ["Komputer 1 (silny)", "Komputer 2 (silny)", "Komputer 3 (silny)"],
    "ja": ["コンピューター1（強い）", "コンピューター2（強い）", "コンピューター3（強い）"],
    "ko": ["컴퓨터 1 (강함)", "컴퓨터 2 (강함)", "컴퓨터 3 (강함)"],
}


def bot_table(player, levels, players=None, **body) -> dict:
    created = player.post(
        "/api/v1/tables",
        {"players": players or 1 + len(levels), "movement": "faster", "bots": levels, **body},
    )
    assert created.status_code == 201, created.json()
    return created.json()


def bot_names(player, game_id: int, language: str = "en") -> list[str]:
    """The computer seats' display names in the API, in the order the form gave them."""
    detail = player.client.get(f"/api/v1/games/{game_id}", HTTP_ACCEPT_LANGUAGE=language).json()
    bots = sorted((s for s in detail["seats"] if s["bot"]), key=lambda s: s["join_order"])
    return [s["user"]["display_name"] for s in bots]


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_three_computers_of_one_level_have_three_names_in_every_language(make_player, language):
    ana = make_player()
    game_id = bot_table(ana, ["strong"] * 3)["id"]
    assert bot_names(ana, game_id, language) == EXPECTED[language]
    played_out(game_id)  # the seats were drawn and the game ended: the names stay
    assert bot_names(ana, game_id, language) == EXPECTED[language]


def test_numbers_follow_the_order_the_levels_were_chosen_in(make_player):
    ana = make_player()
    game_id = bot_table(ana, ["strong", "easy", "strong"])["id"]
    assert bot_names(ana, game_id) == [
        "Computer 1 (strong)",
        "Computer 2 (easy)",
        "Computer 3 (strong)",
    ]


def page_client(player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def test_the_replay_and_game_pages_name_seats_as_the_api_does(make_player):
    ana = make_player()
    game_id = bot_table(ana, ["strong"] * 3)["id"]
    played_out(game_id)
    detail = ana.get(f"/api/v1/games/{game_id}").json()
    names = {s["seat"]: s["user"]["display_name"] for s in detail["seats"]}
    client = page_client(ana)

    game_page = client.get(f"/games/{game_id}").content.decode()
    data = json.loads(re.search(r'id="game-data"[^>]*>(.*?)</script>', game_page, re.S)[1])
    assert {s["seat"]: s["name"] for s in data["seats"]} == names
    assert {s["seat"] for s in data["seats"] if s["bot"]} == {
        s["seat"] for s in detail["seats"] if s["bot"]
    }

    replay = client.get(f"/games/{game_id}/replay")
    assert replay.status_code == 200
    html = replay.content.decode()
    assert "bot:" not in html
    seat_rows = re.findall(
        r'<tr data-seat="(\d)"[^>]*>\s*<td>.*?</td>\s*<td>(.*?)</td>', html, re.S
    )
    assert {int(seat): cell.strip() for seat, cell in seat_rows} == names
    ranking = re.search(r'<ol id="ranking">(.*?)</ol>', html, re.S)[1]
    for name in names.values():
        assert name in ranking
    replay_data = json.loads(re.search(r'id="replay-data"[^>]*>(.*?)</script>', html, re.S)[1])
    assert {int(k): v for k, v in replay_data["names"].items()} == names

    # the first entry of a bot names it as the game page does, not as its account
    first = client.get(f"/games/{game_id}/replay", {"seq": 1}).content.decode()
    actor = re.search(r'<span id="replay-actor">(.*?)</span>', first)[1]
    assert actor in names.values()


def test_the_admins_replay_names_computers_as_players_see_them(make_player, admin_user):
    ana = make_player()
    game_id = bot_table(ana, ["medium"] * 3)["id"]
    played_out(game_id)
    client = Client()
    client.force_login(admin_user)
    html = client.get(f"/admin/games/game/{game_id}/replay/").content.decode()
    for number in (1, 2, 3):
        assert f"Computer {number} (medium)" in html


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_no_one_signs_up_as_any_computer_a_table_shows(make_player, language):
    """Every name a table of seven computers shows, at each level, is refused at sign-up."""
    ana = make_player()
    for level in ("easy", "medium", "strong"):
        game_id = bot_table(ana, [level] * 7, pickup_before_movement=True)["id"]
        names = bot_names(ana, game_id, language)
        assert len(set(names)) == 7
        for name in names:
            assert display_name_reserved(name), name
    signup = APIClient().post(
        "/api/v1/auth/signup",
        {
            "username": "mallory",
            "password": "correct horse battery staple",
            "display_name": names[4],
        },
        format="json",
    )
    assert signup.status_code == 409 and signup.json()["code"] == "display_name_taken"
    assert not User.objects.filter(username="mallory").exists()
