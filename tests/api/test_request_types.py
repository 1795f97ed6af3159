"""Request values have the JSON types the schema gives them (taxi_project/strict_fields.py): a
number where a string is wanted, a string where a number or a boolean is, 0 or "yes" for a
boolean, are a 400 `invalid` naming the field, not converted; a boolean query parameter is
`true` or `false`."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests.players import Player

pytestmark = pytest.mark.usefixtures("no_auth_rate_limit")


@pytest.fixture
def player(db) -> Player:
    return Player("typist")


def assert_invalid(response, field: str) -> None:
    body = response.json()
    assert response.status_code == 400, body
    assert body["code"] == "invalid" and field in body["errors"], body


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": "2"}, "players"),
        ({"players": 2.5}, "players"),
        ({"players": True}, "players"),
        ({"players": 2, "rated": 1}, "rated"),
        ({"players": 2, "shift_change": "yes"}, "shift_change"),
        ({"players": 2, "movement": 1}, "movement"),
        ({"players": 2, "bots": "easy"}, "bots"),
    ],
)
def test_a_table_with_a_value_of_the_wrong_type_is_refused(player, body, field):
    assert_invalid(player.post("/api/v1/tables", body), field)
    assert not player.get("/api/v1/me/games").json()["results"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"display_name": 5}, "display_name"),
        ({"email_on_turn": 1}, "email_on_turn"),
        ({"email_on_turn": "true"}, "email_on_turn"),
        ({"language": 0}, "language"),
    ],
)
def test_a_profile_change_of_the_wrong_type_is_refused(player, body, field):
    assert_invalid(player.client.patch("/api/v1/me", body, format="json"), field)
    user = User.objects.get(pk=player.user.pk)
    assert (user.display_name, user.email_on_turn) == ("", False)


def test_push_preferences_are_booleans(player):
    answer = player.client.patch("/api/v1/me/push-preferences", {"chat": 0}, format="json")

    assert_invalid(answer, "chat")
    assert User.objects.get(pk=player.user.pk).push_chat is True


def test_sign_up_with_a_number_for_a_name_is_refused(db):
    answer = Player("other").client.post(
        "/api/v1/auth/signup", {"username": 12345, "password": "Palm-tree-42"}, format="json"
    )

    assert_invalid(answer, "username")
    assert not User.objects.filter(username="12345").exists()


def test_values_of_the_right_type_are_taken(player):
    created = player.post("/api/v1/tables", {"players": 2, "rated": False, "shift_change": True})

    assert created.status_code == 201, created.json()
    assert created.json()["rated"] is False and created.json()["options"]["shift_change"] is True


@pytest.mark.parametrize("value", ["1", "0", "yes", "null", "", "True"])
def test_a_boolean_query_parameter_is_true_or_false(player, value):
    assert_invalid(player.get("/api/v1/tables", shift_change=value), "shift_change")


def test_a_boolean_query_parameter_filters(player):
    Player().post("/api/v1/tables", {"players": 3, "shift_change": True})

    assert len(player.get("/api/v1/tables", shift_change="true").json()["results"]) == 1
    assert len(player.get("/api/v1/tables", shift_change="false").json()["results"]) == 0
    assert len(player.get("/api/v1/tables").json()["results"]) == 1


def test_a_value_of_the_wrong_type_is_named_beside_the_other_fields_errors(player):
    answer = player.post("/api/v1/tables", {"players": "2", "movement": "warp"})

    assert_invalid(answer, "players")
    assert set(answer.json()["errors"]) == {"players", "movement"}
