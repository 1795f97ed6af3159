"""Query parameters are what the schema says they are, or a 400 `invalid` naming them: paging
(`limit` 1–100, `offset` 0–1,000,000, taxi_project/pagination.py) on every list, and each
operation's own parameters, where one sent empty (`?as=`) is refused rather than read as left
out."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.players import Player, start_game

LISTS = ["/api/v1/tables", "/api/v1/me/games", "/api/v1/games/finished", "/api/v1/leaderboard"]
BAD_LIMITS = ["-1", "0", "abc", "2.5", "", "101", "+5", " 5", "5 ", "\u00b2", "\u0665", "1e2"]
BAD_OFFSETS = ["-1", "abc", "2.5", "", "1000001", "+1", "\u00b2"]


@pytest.fixture
def player(db) -> Player:
    return Player()


def assert_invalid(response, field: str) -> None:
    body = response.json()
    assert response.status_code == 400, body
    assert body["code"] == "invalid" and list(body["errors"]) == [field], body


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize("value", BAD_LIMITS)
def test_a_limit_out_of_bounds_or_not_a_whole_number_is_refused(player, url, value):
    assert_invalid(player.get(url, limit=value), "limit")


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize("value", BAD_OFFSETS)
def test_an_offset_out_of_bounds_or_not_a_whole_number_is_refused(player, url, value):
    assert_invalid(player.get(url, offset=value), "offset")


@pytest.mark.parametrize("url", LISTS)
def test_limits_and_offsets_within_the_bounds_are_served(player, url):
    for query in ({}, {"limit": 1}, {"limit": 100, "offset": 0}, {"offset": 1_000_000}):
        response = player.get(url, **query)
        assert response.status_code == 200, response.json()
    assert player.get(url).json()["next"] is None


def test_a_page_has_the_limit_asked_for(player):
    for owner in [Player() for _ in range(3)]:
        assert owner.post("/api/v1/tables", {"players": 3}).status_code == 201

    page = player.get("/api/v1/tables", limit=2, count="true").json()

    assert page["count"] == 3 and len(page["results"]) == 2 and "limit=2" in page["next"]


@pytest.fixture
def game_id(player) -> int:
    return start_game([player, Player()])


@pytest.mark.parametrize(
    ("path", "query", "field"),
    [
        ("/export", {"as": ""}, "as"),
        ("/export", {"as": "xml"}, "as"),
        ("/log", {"after": ""}, "after"),
        ("/log", {"limit": ""}, "limit"),
        ("/log", {"limit": "0"}, "limit"),
        ("/chat", {"after": ""}, "after"),
        ("/stream", {"after": ""}, "after"),
    ],
)
def test_a_games_parameter_sent_empty_or_wrong_is_refused(player, game_id, path, query, field):
    assert_invalid(player.get(f"/api/v1/games/{game_id}{path}", **query), field)


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/tables?players=", "players"),
        ("/api/v1/tables?movement=", "movement"),
        ("/api/v1/me/games?status=", "status"),
        ("/api/v1/leaderboard?players=", "players"),
    ],
)
def test_a_filter_sent_empty_is_refused(player, url, field):
    assert_invalid(player.client.get(url), field)


def test_the_export_is_served_as_asked(player, game_id):
    assert player.get(f"/api/v1/games/{game_id}/export").json()["game"]["id"] == game_id
    ndjson = player.get(f"/api/v1/games/{game_id}/export", **{"as": "ndjson"})
    assert ndjson["Content-Type"] == "application/x-ndjson"


def test_the_schema_states_the_bounds_the_server_keeps(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for url in LISTS:
        parameters = {p["name"]: p for p in schema["paths"][url]["get"]["parameters"]}
        assert (
            parameters["limit"]["schema"]["minimum"],
            parameters["limit"]["schema"]["maximum"],
        ) == (1, 100)
        assert parameters["offset"]["schema"]["minimum"] == 0
        assert parameters["offset"]["schema"]["maximum"] == 1_000_000
