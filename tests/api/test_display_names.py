"""Display names cannot impersonate: another player's name, the same name in
look-alike letters, hidden characters and stacked marks are refused, through the API.

The look of a name is its Unicode TR39 confusable skeleton (accounts/names.py); a unique index
on it makes "one look, one holder" a database fact, whatever the write path.
"""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connections
from rest_framework.test import APIClient

from accounts.models import DeviceToken, User

SIGNUP = "/api/v1/auth/signup"
ME = "/api/v1/me"
PASSWORD_OK = "correct horse battery staple"

ZALGO = "Ana" + "\u0301" * 40  # 40 stacked combining acute accents
CYRILLIC_A = "\u0430"

pytestmark = pytest.mark.usefixtures("no_auth_rate_limit")


@pytest.fixture
def ana(db) -> User:
    return User.objects.create_user(username="ana", password=PASSWORD_OK, display_name="Anna")


@pytest.fixture
def ben(db) -> APIClient:
    user = User.objects.create_user(username="ben", password=PASSWORD_OK, display_name="Ben")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {DeviceToken.objects.create(user=user)[1]}")
    return client


def rename(client: APIClient, display_name: str):
    return client.patch(ME, {"display_name": display_name}, format="json")


def assert_code(response, status: int, code: str) -> dict:
    body = response.json()
    assert response.status_code == status, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"]
    return body


@pytest.mark.parametrize(
    "look_alike",
    [
        "Anna",  # the very name
        "anna",  # another case
        "ANNA",
        f"Ann{CYRILLIC_A}",  # a Cyrillic "а" for the Latin "a"
        f"\u0410nn{CYRILLIC_A}",  # Cyrillic "А" and "а"
        "\uff21\uff4e\uff4e\uff41",  # full-width "Ａｎｎａ"
        "Anna ",  # the same once stripped
    ],
    ids=["same", "lower", "upper", "cyrillic-a", "cyrillic-both", "fullwidth", "trailing-space"],
)
def test_a_name_that_looks_like_another_players_is_refused(ana, ben, look_alike):
    assert_code(rename(ben, look_alike), 409, "display_name_taken")

    assert User.objects.get(username="ben").display_name == "Ben"


def test_confusable_letters_and_digits_count_as_the_same_look(db, ben):
    User.objects.create_user(username="pay", password=PASSWORD_OK, display_name="paypal")

    # a capital I for the l, then the digit 1 for it
    assert_code(rename(ben, "paypaI"), 409, "display_name_taken")
    assert_code(rename(ben, "paypa1"), 409, "display_name_taken")


def test_signup_with_a_look_alike_display_name_is_refused(ana):
    response = APIClient().post(
        SIGNUP,
        {"username": "mallory", "password": PASSWORD_OK, "display_name": f"Ann{CYRILLIC_A}"},
        format="json",
    )

    assert_code(response, 409, "display_name_taken")
    assert not User.objects.filter(username="mallory").exists()


def test_signup_whose_username_looks_like_a_display_name_in_use_is_refused(ana):
    # The display name defaults to the username: "ANNA" would show as Anna's look-alike.
    response = APIClient().post(
        SIGNUP, {"username": "ANNA", "password": PASSWORD_OK}, format="json"
    )

    assert_code(response, 409, "display_name_taken")


def test_a_player_may_keep_or_recase_their_own_name(ana):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {DeviceToken.objects.create(user=ana)[1]}")

    assert rename(client, "Anna").status_code == 200
    assert rename(client, "ANNA").json()["display_name"] == "ANNA"


def test_a_name_given_up_is_free_again(ana, ben):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {DeviceToken.objects.create(user=ana)[1]}")
    assert rename(client, "Ana the Driver").status_code == 200

    assert rename(ben, "Anna").status_code == 200


@pytest.mark.parametrize(
    "hidden",
    [
        "An\u200bna",  # zero-width space
        "An\u200dna",  # zero-width joiner
        "An\u2060na",  # word joiner
        "\ufeffBen2",  # byte-order mark
        "Ben\u00ad2",  # soft hyphen
        "Ben\u3164",  # Hangul filler (a "letter" drawn as nothing)
        "Ben\U000e0041",  # tag character
    ],
    ids=["zwsp", "zwj", "word-joiner", "bom", "soft-hyphen", "hangul-filler", "tag"],
)
def test_invisible_characters_are_refused(db, ben, hidden):
    body = assert_code(rename(ben, hidden), 400, "invalid")

    assert list(body["errors"]) == ["display_name"]
    assert User.objects.get(username="ben").display_name == "Ben"


def test_stacked_combining_marks_are_refused(db, ben):
    body = assert_code(rename(ben, ZALGO), 400, "invalid")

    assert list(body["errors"]) == ["display_name"]


@pytest.mark.parametrize(
    "name",
    ["Nguyễn Thị Ánh", "Zoë 🚕", "ผู้เล่น", "李小龍", "Łukasz", "e\u0301\u0302\u0303x"],
    ids=["vietnamese", "emoji", "thai", "han", "polish", "three-marks"],
)
def test_ordinary_names_with_marks_are_accepted(db, ben, name):
    response = rename(ben, name)

    assert response.status_code == 200, response.json()


def test_names_are_stored_in_nfkc_form(db, ben):
    # full-width letters and the "ﬁ" ligature: what is shown is what is compared
    response = rename(ben, "\uff22\uff45\uff4e \ufb01ve")

    assert response.json()["display_name"] == "Ben five"
    assert User.objects.get(username="ben").display_name == "Ben five"


def test_the_database_refuses_a_second_holder_of_a_look(ana):
    # The unique index decides races between two renames that both passed the check.
    with pytest.raises(IntegrityError):
        User.objects.create_user(username="eve", password=PASSWORD_OK, display_name="ANNA")


def test_racing_renames_to_one_look_leave_one_holder(committed_db):
    """Ten players rename at once to versions of one name: one gets it, nine get 409."""
    clients = []
    for i in range(10):
        user = User.objects.create_user(username=f"racer{i}", password=PASSWORD_OK)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {DeviceToken.objects.create(user=user)[1]}")
        clients.append(client)
    looks = ["Anna", "ANNA", "anna", f"Ann{CYRILLIC_A}", "\uff21nna"] * 2
    barrier = threading.Barrier(len(clients))
    results: list[tuple[int, str | None]] = []
    lock = threading.Lock()

    def rename_at_once(client, name):
        try:
            barrier.wait()
            response = rename(client, name)
            with lock:
                results.append((response.status_code, response.json().get("code")))
        finally:
            connections.close_all()

    pairs = zip(clients, looks, strict=True)
    threads = [threading.Thread(target=rename_at_once, args=pair) for pair in pairs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(status for status, _ in results) == [200] + [409] * 9, results
    assert {code for status, code in results if status == 409} == {"display_name_taken"}
    assert User.objects.filter(display_name_skeleton="anna").count() == 1


# --- Names kept for the computer opponents --------------------------------------------------

COMPUTER_NAMES = [
    "Computer (strong)",
    "Ordinateur (fort)",
    "Komputer (łatwy)",
    "コンピューター（強い）",
    "컴퓨터 (보통)",
    "Computer 2 (strong)",  # numbered, as seats will be
    "Ordinateur 3 (moyen)",
    "コンピューター 4（やさしい）",
    "컴퓨터7 (강함)",
    "Computer(easy)",  # spaces do not make it another name
    "COMPUTER ( MEDIUM )",
    "ORDINATEUR (facile)",  # capitals: a skeleton keeps "I" apart from "i"
    "Ordinateur (strong)",  # one language's word with another's level
    "C\u043emputer (str\u043eng)",  # Cyrillic "о" for "o"
    "C0mputer l (strong)",  # digit 0 for "o", letter l for the number 1
    "\uff23\uff4f\uff4d\uff50\uff55\uff54\uff45\uff52 (strong)",  # full-width
    "bot:1",
    "bot:12",
    "B0T: 7",
]


@pytest.mark.parametrize("name", COMPUTER_NAMES)
def test_a_computer_opponents_name_cannot_be_taken_by_renaming(db, ben, name):
    body = assert_code(rename(ben, name), 409, "display_name_taken")

    assert "computer" in body["message"]
    assert User.objects.get(username="ben").display_name == "Ben"


@pytest.mark.parametrize("name", ["Computer (strong)", "Ordinateur 2 (fort)", "bot:1"])
def test_a_computer_opponents_name_cannot_be_taken_at_sign_up(db, name):
    response = APIClient().post(
        SIGNUP,
        {"username": "mallory", "password": PASSWORD_OK, "display_name": name},
        format="json",
    )

    assert_code(response, 409, "display_name_taken")
    assert not User.objects.filter(username="mallory").exists()


@pytest.mark.parametrize("language", ["en", "fr", "pl", "ja", "ko"])
def test_the_name_a_bot_seat_is_shown_with_is_refused_in_every_language(ben, language):
    # As the API shows a bot at a table to a reader of that language, numbered or not.
    table = ben.post(
        "/api/v1/tables", {"players": 3, "bots": ["easy", "strong"]}, format="json"
    ).json()
    shown = ben.get(f"/api/v1/games/{table['id']}", HTTP_ACCEPT_LANGUAGE=language).json()
    names = [
        s["user"]["display_name"] for s in shown["seats"] if s["user"]["id"] != table["created_by"]
    ]
    assert len(names) == 2

    for name in names:
        assert_code(rename(ben, name), 409, "display_name_taken")
        assert_code(rename(ben, name.replace("(", "9 (")), 409, "display_name_taken")


def test_the_bot_accounts_names_are_refused(db, ben):
    from games.services.bots import MAX_BOTS, bot_accounts

    for bot in bot_accounts(MAX_BOTS):
        assert_code(rename(ben, str(bot)), 409, "display_name_taken")


def test_a_computer_opponents_name_is_refused_in_the_readers_language(db, ben):
    response = ben.patch(ME, {"display_name": "bot:3"}, format="json", HTTP_ACCEPT_LANGUAGE="fr")

    body = assert_code(response, 409, "display_name_taken")
    assert "ordinateur" in body["message"]


@pytest.mark.parametrize(
    "name",
    ["Computer Science Club", "Strong", "R2D2", "Anna 2", "bot builder", "Comp2uter (strong)"],
)
def test_names_that_only_share_words_with_a_computer_are_accepted(db, ben, name):
    response = rename(ben, name)

    assert response.status_code == 200, response.json()
