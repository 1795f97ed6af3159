"""The OpenAPI schema types each game's payloads: Digit Code's (RULES-digit-code.md) beside
Bahama Taxi's.

A table, a summary and a game's detail name their game (`game`): a union discriminated by it
(`AnyGameSummary`, `AnyGameDetail`, `AnyTableCreateRequest`). A move's action, its answer, the
legal actions, a log page, an entry and the export do not: an `anyOf` of each game's own
component (`AnyPlayerActionRequest`, `AnyMoveResponse`, …), each a union discriminated by
`type` (actions, notifications) or `kind` (Digit Code's questions). The components are checked
against the engine (every action, offer, question and notification has its own) and against
what the API really sends for a Digit Code game, as tests/api/test_schema.py does for Bahama
Taxi's."""

from __future__ import annotations

import copy
import random

import pytest

from games import registry, state
from games.models import Game
from tests.api.test_schema import _check, _mapping, _validator
from tests.digit_code.helpers import wrong_code
from tests.digit_code.over_http import autopilot_choice, play_to_the_end
from tests.players import Player, seat_players, start_game

DIGIT_CODE = registry.get("digit-code")
engine = DIGIT_CODE.engine


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def _any_of(schema: dict, union: str) -> list[str]:
    return [m["$ref"].rsplit("/", 1)[1] for m in schema["components"]["schemas"][union]["anyOf"]]


def test_each_game_has_its_own_components_told_apart_by_game(schema):
    components = schema["components"]["schemas"]
    for union, bahama_taxi, digit_code in [
        ("AnyGameSummary", "GameSummary", "DigitCodeGameSummary"),
        ("AnyGameDetail", "GameDetail", "DigitCodeGameDetail"),
    ]:
        component = components[union]
        assert component["discriminator"]["propertyName"] == "game"
        assert component["discriminator"]["mapping"] == {
            "bahama-taxi": f"#/components/schemas/{bahama_taxi}",
            "digit-code": f"#/components/schemas/{digit_code}",
        }
        assert "game" in components[bahama_taxi]["required"]
        assert "game" in components[digit_code]["required"]
    detail = components["DigitCodeGameDetail"]["properties"]["view"]
    assert {"$ref": "#/components/schemas/DigitCodeView"} in detail["oneOf"]


def test_a_table_request_names_its_game_or_leaves_it_out_for_bahama_taxi(schema):
    """`game` may be left out (Bahama Taxi, as the API behaves): the union is an `anyOf`
    with the discriminator, since a `oneOf`'s discriminator must be in every member."""
    components = schema["components"]["schemas"]
    union = components["AnyTableCreateRequest"]
    assert union["discriminator"]["propertyName"] == "game"
    assert _any_of(schema, "AnyTableCreateRequest") == [
        "TableCreateRequest",
        "DigitCodeTableCreateRequest",
    ]
    body = schema["paths"]["/api/v1/tables"]["post"]["requestBody"]
    assert body["required"] is True
    assert body["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/AnyTableCreateRequest"
    }
    assert "game" not in components["TableCreateRequest"]["required"]
    assert components["DigitCodeTableCreateRequest"]["required"] == ["game", "players"]
    validator = _validator(schema, "AnyTableCreateRequest")
    assert validator.is_valid({"players": 2, "movement": "fast"})
    assert validator.is_valid({"game": "digit-code", "players": 3, "bots": ["strong"]})
    assert not validator.is_valid({"game": "digit-code", "players": 5})  # P1: 2 to 4
    assert not validator.is_valid({"game": "digit-code", "players": 2, "options": {"a": 1}})
    assert not validator.is_valid({"game": "digit-code", "players": 2, "bots": ["medium"]})
    assert _validator(schema, "TableCreateRequest").is_valid({"players": 8})


def test_unions_without_game_are_any_of_each_games_component(schema):
    for union, members in {
        "AnyPlayerActionRequest": ["PlayerActionRequest", "DigitCodePlayerActionRequest"],
        "AnyMoveResponse": ["MoveResponse", "DigitCodeMoveResponse"],
        "AnyLegalActions": ["LegalActions", "DigitCodeLegalActions"],
        "AnyLogPage": ["LogPage", "DigitCodeLogPage"],
        "AnyGameExport": ["GameExport", "DigitCodeGameExport"],
    }.items():
        assert _any_of(schema, union) == members, union


def test_every_digit_code_action_offer_question_and_notification_is_its_own_component(schema):
    assert set(_mapping(schema, "DigitCodePlayerActionRequest")) == engine.CLIENT_ACTIONS
    assert set(_mapping(schema, "DigitCodeLoggedAction")) == set(engine.ACTION_TYPES)
    assert set(_mapping(schema, "DigitCodeOffer")) == {"ask", "guess", "resign"}
    assert set(_mapping(schema, "DigitCodeNotification")) == DIGIT_CODE.notifications
    questions = schema["components"]["schemas"]["DigitCodeQuestion"]
    assert questions["discriminator"]["propertyName"] == "kind"
    assert set(questions["discriminator"]["mapping"]) == {q.kind for q in engine.QUESTIONS}


def test_B7_every_question_validates_and_no_other_does(schema):
    validator = _validator(schema, "DigitCodeQuestion")
    for question in engine.QUESTIONS:
        assert validator.is_valid(question.to_json()), question
    assert not validator.is_valid({"kind": "compare", "position": 1})  # no left neighbour
    assert not validator.is_valid({"kind": "count", "line": "diagonal", "index": 1})
    assert not validator.is_valid({"kind": "led", "position": 1, "segment": "h"})
    assert not validator.is_valid({"kind": "parity", "position": 7})
    actions = _validator(schema, "DigitCodePlayerActionRequest")
    assert actions.is_valid({"type": "ask", "question": {"kind": "parity", "position": 2}})
    assert actions.is_valid({"type": "guess", "code": [0, 1, 0, 1, 2, 3]})
    assert not actions.is_valid({"type": "guess", "code": [0, 1, 0, 1, 2]})  # G1: six digits
    assert not actions.is_valid({"type": "guess", "code": [0, 1, 0, 1, 2, 10]})
    assert not actions.is_valid({"type": "step", "to": "9H"})  # another game's


def _random_game(seed: int, players: int) -> list[dict]:
    """A whole game with questions, wrong and right guesses, timeouts (one to absence), a
    resignation and a moderator's zombify, so that every notification type appears."""
    rng = random.Random(seed)
    game, notes = engine.start(engine.Setup(engine.Options(), players, seed))
    notes = list(notes)
    turn = 0
    while not game.over:
        turn += 1
        seat = game.current_player()
        if turn in (2, 2 + players, 2 + 2 * players) and seat == 1:
            action = engine.Timeout(seat)
        elif turn == 4 and players > 2:
            action = engine.Resign(2)
        elif turn == 5 and players > 3:
            action = engine.Zombify(3)
        elif turn % 5 == 0:
            action = engine.Guess(seat, wrong_code(game))
        elif turn > 30:
            action = engine.Guess(seat, game.secret_code())
        else:
            action = rng.choice(game.legal_actions())
        try:
            notes += game.apply(action)
        except engine.IllegalAction:
            notes += game.apply(engine.autopilot_action(game))
    return notes


def test_every_notification_the_digit_code_engine_emits_validates_against_its_component(schema):
    mapping = _mapping(schema, "DigitCodeNotification")
    validator = _validator(schema, "DigitCodeNotification")
    emitted = []
    for seed, players in enumerate([2, 3, 4, 4, 2]):
        emitted += _random_game(seed, players)
    aborted, notes = engine.start(engine.Setup(engine.Options(), 3, 99))
    emitted += notes + aborted.apply(engine.Abort("a test"))
    for note in emitted:
        assert note["type"] in mapping, note
        assert [e.message for e in validator.iter_errors(note)] == [], note
    assert {note["type"] for note in emitted} == set(mapping)  # every documented type met
    bahama_taxi = _validator(schema, "Notification")
    assert not bahama_taxi.is_valid({"type": "question_asked", "seat": 0})
    assert not validator.is_valid({"type": "taxi_moved", "seat": 0, "from": "9H", "to": "8H"})
    assert not validator.is_valid({"type": "guess_made", "seat": 0, "code": [1], "correct": False})


def test_what_the_api_sends_for_digit_code_validates_against_its_components(schema, db):
    players = [Player(), Player(), Player()]
    spectator = Player()
    game_id = start_game(players, game="digit-code")
    by_seat = seat_players(game_id, players)
    taxi = start_game([players[0], Player()])
    version = 0
    for turn in range(6):  # questions, a wrong guess, a resignation
        detail = players[0].get(f"/api/v1/games/{game_id}").json()
        mover = by_seat[detail["active_seat"]]
        legal = mover.get(f"/api/v1/games/{game_id}/actions").json()
        _check(schema, "DigitCodeLegalActions", legal)
        _check(schema, "AnyLegalActions", legal)
        action = autopilot_choice(game_id)
        if turn == 3:
            running = state.state_for(Game.objects.get(pk=game_id))
            action = {"type": "guess", "code": list(wrong_code(running))}
        moved = mover.move(game_id, action, version)
        assert moved.status_code == 201, moved.json()
        _check(schema, "DigitCodeMoveResponse", moved.json())
        _check(schema, "AnyMoveResponse", moved.json())
        version = moved.json()["version"]
    active = Game.objects.get(pk=game_id).active_seat
    leaver = next(seat for seat in by_seat if seat != active)
    resigned = by_seat[leaver].move(game_id, {"type": "resign"}, version)
    assert resigned.status_code == 201, resigned.json()
    _check(schema, "DigitCodeMoveResponse", resigned.json())
    eliminated = by_seat[leaver].get(f"/api/v1/games/{game_id}/actions").json()
    _check(schema, "AnyLegalActions", eliminated)
    for who in (*players, spectator):
        detail = who.get(f"/api/v1/games/{game_id}").json()
        _check(schema, "DigitCodeGameDetail", detail)
        _check(schema, "AnyGameDetail", detail)
        assert not _validator(schema, "GameDetail").is_valid(detail)  # not Bahama Taxi's
    broken = copy.deepcopy(detail)
    broken["view"]["seats"][0]["eliminated"] = "no"
    assert not _validator(schema, "AnyGameDetail").is_valid(broken)
    log = players[0].get(f"/api/v1/games/{game_id}/log").json()
    _check(schema, "DigitCodeLogPage", log)
    _check(schema, "AnyLogPage", log)
    play_to_the_end(game_id, by_seat)
    finished = players[1].get(f"/api/v1/games/{game_id}").json()
    assert finished["status"] == "finished" and "code" in finished["view"]
    _check(schema, "AnyGameDetail", finished)
    _check(schema, "AnyLogPage", players[0].get(f"/api/v1/games/{game_id}/log").json())
    _check(schema, "AnyGameExport", players[0].get(f"/api/v1/games/{game_id}/export").json())
    _check(schema, "DigitCodeGameExport", players[0].get(f"/api/v1/games/{game_id}/export").json())
    mine = players[0].get("/api/v1/me/games").json()
    assert {g["game"] for g in mine["results"]} == {"bahama-taxi", "digit-code"}, taxi
    _check(schema, "GameSummaryPage", mine)
    open_table = players[0].post("/api/v1/tables", {"game": "digit-code", "players": 4})
    assert open_table.status_code == 201, open_table.json()
    _check(schema, "AnyGameSummary", open_table.json())
    _check(schema, "DigitCodeGameSummary", open_table.json())
