"""C2: each player's private notes (per position the digits ruled out, per LED lit, unlit or
unknown), saved on the server for their author only: `GET/PUT /api/v1/games/{id}/notes`.
Never in the log, a view, an export, a stream, a socket frame, a push or the admin."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.core.cache import cache

from games import registry
from games.models import Game, GameEntry, SeatNotes
from games.registry import InvalidNotes
from tests.digit_code.test_platform_api import autopilot_choice, play_to_the_end, table
from tests.players import seat_players, start_game

validate = registry.get("digit-code").notes
NOTES = {"digits": {"3": [9, 0, 4], "1": [7]}, "leds": {"2": {"g": "unlit", "a": "lit"}}}
STORED = {"digits": {"1": [7], "3": [0, 4, 9]}, "leds": {"2": {"a": "lit", "g": "unlit"}}}


def url(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/notes"


def put(player, game_id: int, notes):
    return player.client.put(url(game_id), {"notes": notes}, format="json")


# ------------------------------------------------------------------------------ the validator


def test_C2_the_validator_keeps_digits_ruled_out_and_lit_or_unlit_leds_per_position():
    assert validate({}) == {"digits": {}, "leds": {}}
    assert validate(NOTES) == STORED
    emptied = {"digits": {"4": []}, "leds": {"5": {}}}
    assert validate(emptied) == {"digits": {}, "leds": {}}


@pytest.mark.parametrize(
    ("notes", "wrong"),
    [
        ([], ("non_field_errors",)),
        ({"digits": {}, "guesses": []}, ("guesses",)),
        ({"digits": []}, ("digits",)),
        ({"digits": {"7": [1]}}, ("digits", "7")),
        ({"digits": {"0": [1]}}, ("digits", "0")),
        ({"digits": {"1": [1, 1]}}, ("digits", "1")),
        ({"digits": {"1": [10]}}, ("digits", "1")),
        ({"digits": {"1": [-1]}}, ("digits", "1")),
        ({"digits": {"1": ["1"]}}, ("digits", "1")),
        ({"digits": {"1": [True]}}, ("digits", "1")),
        ({"digits": {"1": [1.0]}}, ("digits", "1")),
        ({"digits": {"1": 1}}, ("digits", "1")),
        ({"leds": {"1": {"h": "lit"}}}, ("leds", "1", "h")),
        ({"leds": {"1": {"ab": "lit"}}}, ("leds", "1", "ab")),
        ({"leds": {"1": {"": "lit"}}}, ("leds", "1", "")),
        ({"leds": {"1": {"a": "unknown"}}}, ("leds", "1", "a")),
        ({"leds": {"1": {"a": None}}}, ("leds", "1", "a")),
        ({"leds": {"1": {"a": ["lit"]}}}, ("leds", "1", "a")),
        ({"leds": {"1": ["a"]}}, ("leds", "1")),
        ({"leds": {"9": {"a": "lit"}}}, ("leds", "9")),
        ({"leds": "abc"}, ("leds",)),
    ],
)
def test_C2_the_validator_refuses_anything_else_naming_each_wrong_field(notes, wrong):
    with pytest.raises(InvalidNotes) as refused:
        validate(notes)
    assert leaves(refused.value.errors) == {wrong}


def leaves(errors, path=()) -> set[tuple]:
    """The path of each wrong field; each one says what is wanted."""
    if isinstance(errors, list):
        assert errors and all(isinstance(message, str) and message for message in errors)
        return {path}
    return {leaf for key, inner in errors.items() for leaf in leaves(inner, (*path, key))}


# ------------------------------------------------------------------------------ the endpoint


@pytest.fixture
def game(make_player):
    players = [make_player(), make_player()]
    game_id = table(players)
    return game_id, seat_players(game_id, players)


def test_C2_a_player_saves_their_notes_and_reads_them_back(game):
    game_id, by_seat = game
    me = by_seat[0]
    first = me.get(url(game_id))
    assert first.status_code == 200
    assert first.json() == {
        "game": game_id, "seat": 0, "notes": {"digits": {}, "leds": {}}, "updated_at": None
    }  # fmt: skip
    saved = put(me, game_id, NOTES)
    assert saved.status_code == 200, saved.json()
    assert saved.json()["notes"] == STORED and saved.json()["updated_at"]
    assert me.get(url(game_id)).json()["notes"] == STORED
    replaced = put(me, game_id, {"leds": {"6": {"d": "lit"}}})
    assert replaced.json()["notes"] == {"digits": {}, "leds": {"6": {"d": "lit"}}}
    assert me.get(url(game_id)).json()["notes"] == replaced.json()["notes"]
    assert SeatNotes.objects.filter(seat__game_id=game_id).count() == 1  # one row per seat


def test_C2_invalid_notes_are_refused_with_400_invalid_and_field_details(game):
    game_id, by_seat = game
    me = by_seat[0]
    assert put(me, game_id, NOTES).status_code == 200
    for body in (
        {"notes": {"digits": {"1": [1, 1]}, "leds": {"2": {"z": "lit"}}}},
        {"notes": "1 2 3"},
        {"notes": None},
        {},
    ):
        refused = me.client.put(url(game_id), body, format="json")
        assert refused.status_code == 400, (body, refused.json())
        assert refused.json()["code"] == "invalid" and refused.json()["errors"], body
    detail = put(me, game_id, {"digits": {"1": [1, 1]}, "leds": {"2": {"z": "lit"}}}).json()
    assert set(detail["errors"]["notes"]) == {"digits", "leds"}
    assert list(detail["errors"]["notes"]["leds"]["2"]) == ["z"]
    assert me.get(url(game_id)).json()["notes"] == STORED  # nothing refused was stored


def test_C2_another_player_reads_only_their_own_notes_and_a_spectator_none(game, make_player):
    game_id, by_seat = game
    me, other = by_seat[0], by_seat[1]
    spectator = make_player()
    assert put(me, game_id, NOTES).status_code == 200
    theirs = other.get(url(game_id)).json()
    assert theirs["seat"] == 1 and theirs["notes"] == {"digits": {}, "leds": {}}
    assert put(other, game_id, {"digits": {"5": [5]}}).status_code == 200
    assert me.get(url(game_id)).json()["notes"] == STORED  # each keeps their own
    for response in (spectator.get(url(game_id)), put(spectator, game_id, NOTES)):
        assert response.status_code == 403 and response.json()["code"] == "not_a_player"
    assert SeatNotes.objects.filter(seat__game_id=game_id).count() == 2
    anonymous = spectator.client.__class__()
    assert anonymous.get(url(game_id)).status_code == 401


def test_C2_an_invite_only_table_s_notes_are_not_found_by_outsiders(make_player):
    players = [make_player(), make_player()]
    created = (
        players[0]
        .post("/api/v1/tables", {"game": "digit-code", "players": 2, "visibility": "invite"})
        .json()
    )
    joined = players[1].post(
        f"/api/v1/tables/{created['id']}/join", {"invite_code": created["invite_code"]}
    )
    assert joined.status_code == 200
    outsider = make_player()
    for response in (outsider.get(url(created["id"])), put(outsider, created["id"], NOTES)):
        assert response.status_code == 404 and response.json()["code"] == "game_not_found"
    assert outsider.get(url(999_999_999)).json()["code"] == "game_not_found"


def test_C2_a_game_without_notes_answers_404_notes_not_offered(make_player):
    players = [make_player(), make_player()]
    game_id = start_game(players)  # Bahama Taxi keeps no notes
    for response in (players[0].get(url(game_id)), put(players[0], game_id, NOTES)):
        assert response.status_code == 404 and response.json()["code"] == "notes_not_offered"
    assert not SeatNotes.objects.exists()


def test_C2_notes_are_written_while_playing_and_after_the_end_not_before_the_start(
    make_player,
):
    players = [make_player(), make_player()]
    waiting = players[0].post("/api/v1/tables", {"game": "digit-code", "players": 2}).json()
    refused = put(players[0], waiting["id"], NOTES)
    assert refused.status_code == 409 and refused.json()["code"] == "game_not_started"
    assert players[0].get(url(waiting["id"])).json()["code"] == "game_not_started"
    assert players[1].post(f"/api/v1/tables/{waiting['id']}/join").status_code == 200
    game_id = waiting["id"]
    by_seat = seat_players(game_id, players)
    assert put(by_seat[0], game_id, NOTES).status_code == 200
    assert play_to_the_end(game_id, by_seat).status == "finished"
    after = put(by_seat[0], game_id, {"digits": {"2": [2]}})
    assert after.status_code == 200 and after.json()["notes"]["digits"] == {"2": [2]}
    assert by_seat[1].get(url(game_id)).status_code == 200


def test_C2_notes_are_size_bounded_by_the_setting(game, settings):
    game_id, by_seat = game
    settings.NOTES_MAX_BYTES = 40
    refused = put(by_seat[0], game_id, NOTES)
    assert refused.status_code == 413
    assert refused.json()["code"] == "request_too_large" and refused.json()["limit"] == 40
    huge = {"digits": {}, "padding": "x" * 100}  # over the limit is refused before validation
    assert put(by_seat[0], game_id, huge).json()["code"] == "request_too_large"
    assert put(by_seat[0], game_id, {"digits": {"1": [1]}}).status_code == 200
    settings.NOTES_MAX_BYTES = 4096
    full = {  # every digit of every position, every LED: what Digit Code's notes can hold
        "digits": {str(p): list(range(10)) for p in range(1, 7)},
        "leds": {str(p): dict.fromkeys("abcdefg", "unlit") for p in range(1, 7)},
    }
    assert put(by_seat[0], game_id, full).status_code == 200


def test_C2_saving_notes_is_rate_limited_per_user_and_reading_is_not(game, settings):
    game_id, by_seat = game
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "notes": "3/min",
        },
    }
    cache.clear()
    me = by_seat[0]
    statuses = [put(me, game_id, NOTES).status_code for _ in range(4)]
    assert statuses[-1] == 429 and statuses.count(200) <= 3
    refused = put(me, game_id, NOTES)
    assert refused.json()["code"] == "throttled" and int(refused["Retry-After"]) > 0
    assert me.get(url(game_id)).status_code == 200  # reads are not counted
    assert put(by_seat[1], game_id, NOTES).status_code == 200  # per user


# ------------------------------------------------------------------------------ nowhere else


def public_bodies(game_id: int, players) -> list[tuple[str, bytes]]:
    found = []
    for who in players:
        for path in ("", "/log", "/actions", "/export", "/export?as=ndjson", "/chat"):
            response = who.get(f"/api/v1/games/{game_id}{path}")
            assert response.status_code == 200, (path, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            found.append((path, body))
        for path in ("/api/v1/me/games", "/api/v1/games/finished", "/api/v1/tables"):
            found.append((path, who.get(path).content))
    return found


def test_C2_notes_are_never_in_the_log_state_views_exports_or_other_users_answers(
    game, make_player
):
    game_id, by_seat = game
    spectator = make_player()
    everyone = [by_seat[0], by_seat[1], spectator]
    by_seat[0].move(game_id, autopilot_choice(game_id), 0)
    before = public_bodies(game_id, everyone)
    version = Game.objects.get(pk=game_id).version
    entries = GameEntry.objects.filter(game_id=game_id).count()
    assert put(by_seat[0], game_id, NOTES).status_code == 200
    assert put(by_seat[1], game_id, {"leds": {"4": {"e": "lit"}}}).status_code == 200
    assert public_bodies(game_id, everyone) == before  # byte for byte, for every reader
    assert Game.objects.get(pk=game_id).version == version
    assert GameEntry.objects.filter(game_id=game_id).count() == entries
    # and once the game is over, still not in anything it shows
    play_to_the_end(game_id, by_seat)
    for path, body in public_bodies(game_id, everyone):
        assert b'"digits"' not in body and b'"leds"' not in body, path


def test_C2_notes_are_not_in_the_admin(game, admin_client):
    game_id, by_seat = game
    assert put(by_seat[0], game_id, {"digits": {"6": [1, 2, 3, 4, 5, 6, 7, 8]}}).status_code == 200
    assert not admin.site.is_registered(SeatNotes)
    for page in (f"/admin/games/game/{game_id}/change/", f"/admin/games/game/{game_id}/replay/"):
        response = admin_client.get(page)
        assert response.status_code == 200, page
        assert b"1, 2, 3, 4, 5, 6, 7, 8" not in response.content
        assert b"[1,2,3,4,5,6,7,8]" not in response.content.replace(b" ", b"")


def test_C2_the_game_page_tells_its_players_where_their_notes_are_kept(game, make_player, rf):
    from games import web

    game_id, by_seat = game
    spectator = make_player()
    taxi = start_game([by_seat[0], by_seat[1]])

    def notes_url(player, game_id):
        request = rf.get(f"/games/{game_id}")
        request.user = player.user
        page = web.game_page(request, game_id)  # its data, before its template renders
        return page.context_data["game_data"]["urls"]["notes"]

    assert notes_url(by_seat[0], game_id) == url(game_id)
    assert notes_url(spectator, game_id) is None
    assert notes_url(by_seat[0], taxi) is None  # Bahama Taxi keeps no notes
