"""The OpenAPI schema is a contract a client can be generated from.

Valid OpenAPI 3 (openapi-spec-validator); every action and notification the engine knows is
its own component in a `oneOf` discriminated by `type`; what the server really sends validates
against the documented components; every operation lists its error codes by status."""

from __future__ import annotations

import random

import pytest
from jsonschema import Draft7Validator
from openapi_spec_validator import validate

from games import engine, registry
from games.engine import Options, Setup, autopilot_action, start
from games.engine.game import PICKUP
from taxi_project import error_codes
from tests.engine.test_turn import SIX_WAITING, blocked_game
from tests.players import Player, autopilot_choice, seat_players, start_game


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def _json_schema(node):
    """OpenAPI 3.0 → JSON Schema: `nullable: true` beside `allOf: [$ref]` (the 3.0 idiom for a
    nullable component, which OAS30Validator reads as not nullable) becomes `anyOf` with null."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _json_schema(value) for key, value in node.items()}
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def _validator(schema: dict, component: str) -> Draft7Validator:
    components = _json_schema(schema["components"])
    document = {"$ref": f"#/components/schemas/{component}", "components": components}
    return Draft7Validator(document)


def _check(schema: dict, component: str, instance) -> None:
    errors = [(e.json_path, e.message) for e in _validator(schema, component).iter_errors(instance)]
    assert errors == [], (component, instance)


def test_the_schema_is_valid_openapi_3(schema):
    validate(schema)  # raises on any violation of the OpenAPI 3.0 specification


def test_the_served_schema_is_the_generated_one(schema, db):
    served = Player().get("/api/schema/", format="json")
    assert served.status_code == 200
    assert served.json()["components"]["schemas"].keys() == schema["components"]["schemas"].keys()


def _mapping(schema: dict, union: str) -> dict[str, str]:
    component = schema["components"]["schemas"][union]
    assert component["discriminator"]["propertyName"] == "type"
    refs = [member["$ref"] for member in component["oneOf"]]
    mapping = component["discriminator"]["mapping"]
    assert sorted(refs) == sorted(mapping.values())
    return mapping


def test_every_action_is_its_own_component_in_a_discriminated_union(schema):
    assert set(_mapping(schema, "PlayerAction")) == engine.CLIENT_ACTIONS
    assert set(_mapping(schema, "LoggedAction")) == set(engine.ACTION_TYPES)
    for kind, ref in _mapping(schema, "LoggedAction").items():
        component = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        tag = component["properties"]["type"]
        tag = (
            schema["components"]["schemas"][tag["$ref"].rsplit("/", 1)[1]] if "$ref" in tag else tag
        )
        assert tag["enum"] == [kind]


def _random_game(seed: int, **options) -> tuple[engine.Game, list[dict]]:
    """A whole game, with a random player (steps, undos, `turn`), timeouts, a resignation,
    a restored zombie and a deadline, so that every notification type appears."""
    rng = random.Random(seed)
    players = rng.choice([5, 6, 7, 8] if options.get("pickup_before_movement") else [2, 3, 4])
    game, notes = start(Setup(Options(**options), players=players, seed=seed))
    notes = list(notes)
    turn = 0
    while not game.over:
        turn += 1
        seat = game.current_player()
        if turn == 3:
            action = engine.Timeout(seat)
        elif turn == 5:
            resigned = (seat + 1) % game.players
            action = engine.Resign(resigned)
        elif turn == 6:
            action = engine.Restore(resigned)
        elif turn == 9 and not game.deadline:
            action = engine.Deadline(1)
        elif turn % 4 == 0 and game.phase != PICKUP:
            action = autopilot_action(game)
        else:
            action = rng.choice(game.legal_actions())
        try:
            notes += game.apply(action)
        except engine.IllegalAction:
            notes += game.apply(autopilot_action(game))
    return game, notes


def test_every_notification_the_engine_emits_validates_against_its_component(schema):
    mapping = _mapping(schema, "Notification")
    validator = _validator(schema, "Notification")
    emitted = []
    variants = [{}, {"shift_change": True}, {"pickup_before_movement": True}, {"movement": "fast"}]
    for seed, options in enumerate(variants):
        emitted += _random_game(seed, **options)[1]
    aborted, notes = start(Setup(Options(), players=3, seed=99))
    emitted += notes + aborted.apply(engine.Abort("a test"))
    blocked = blocked_game(
        waiting=SIX_WAITING, passengers=[["3C>5D"], [], [], [], []], pile_size=10
    )
    blocked.apply(engine.Step(4, "9H"))
    emitted += blocked.apply(engine.Stop(4))  # T7: seat 0 is boxed in and passes
    checked: dict[str, int] = {}
    for note in emitted:
        assert note["type"] in mapping, note
        checked[note["type"]] = checked.get(note["type"], 0) + 1
        if checked[note["type"]] <= 40:  # enough of each type (validating is slow)
            assert [e.message for e in validator.iter_errors(note)] == [], note
    assert {note["type"] for note in emitted} == set(mapping)  # every documented type met


def test_a_notification_of_the_wrong_shape_is_refused_by_the_schema(schema):
    validator = _validator(schema, "Notification")
    assert not validator.is_valid({"type": "taxi_moved", "seat": 0, "to": "9H"})  # no `from`
    assert not validator.is_valid({"type": "taxi_moved", "seat": 0, "from": "9H", "to": "ZZ"})
    assert not validator.is_valid({"type": "no_such_notification"})


def test_what_the_api_sends_validates_against_the_documented_components(schema, db):
    players = [Player(), Player()]
    game_id = start_game(players)
    by_seat = seat_players(game_id, players)
    version = 0
    for _ in range(12):  # a few turns: steps, stops, pickups
        detail = players[0].get(f"/api/v1/games/{game_id}").json()
        if detail["status"] != "playing":
            break
        mover = by_seat[detail["active_seat"]]
        legal = mover.get(f"/api/v1/games/{game_id}/actions").json()
        _check(schema, "LegalActions", legal)
        moved = mover.move(game_id, autopilot_choice(game_id), version)
        assert moved.status_code == 201, moved.json()
        _check(schema, "MoveResponse", moved.json())
        version = moved.json()["version"]
    resigned = by_seat[1].move(game_id, {"type": "resign"}, version)
    assert resigned.status_code == 201, resigned.json()
    _check(schema, "MoveResponse", resigned.json())
    for player in players:
        _check(schema, "GameDetail", player.get(f"/api/v1/games/{game_id}").json())
    _check(schema, "LogPage", players[0].get(f"/api/v1/games/{game_id}/log").json())
    _check(schema, "GameSummaryPage", players[0].get("/api/v1/me/games").json())
    board = players[0].client.get("/api/v1/board")
    _check(schema, "Board", board.json())


def _errors_of(schema: dict, path: str, method: str) -> dict[int, set[str]]:
    responses = schema["paths"][path][method]["responses"]
    found = {}
    for status, response in responses.items():
        if status.isdigit() and int(status) >= 400:
            ref = response["content"]["application/json"]["schema"]["$ref"]
            component = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
            code = component["properties"]["code"]["$ref"].rsplit("/", 1)[1]
            found[int(status)] = set(schema["components"]["schemas"][code]["enum"])
    return found


def test_every_error_of_the_move_endpoint_is_listed_with_its_status(schema):
    listed = _errors_of(schema, "/api/v1/games/{game_id}/actions", "post")
    vocabulary = error_codes.vocabulary()
    for status, codes in listed.items():
        assert all(vocabulary[code][0] == status for code in codes), status
    every_engines = {str(code) for kind in registry.all() for code in kind.engine.Code}
    illegal = every_engines - {
        "malformed_action", "invalid_options", "invalid_players",
        "pickup_before_movement_required", "unsupported_rules_version",
    }  # fmt: skip
    assert listed[422] == illegal
    assert listed[429] == {"throttled"}
    assert {"stale_version", "idempotency_key_reused"} <= listed[409]
    assert {"malformed_action", "invalid"} <= listed[400]
    assert {"not_a_player", "not_your_seat", "server_action"} <= listed[403]
    assert listed[401] == {"not_authenticated", "authentication_failed"}


def test_every_operation_lists_its_errors_and_a_default(schema):
    for path, operations in schema["paths"].items():
        if not path.startswith("/api/v1/") or path.startswith("/api/v1/auth"):
            continue
        for method, operation in operations.items():
            if path == "/api/v1/board" or path.startswith("/api/v1/me") and "games" not in path:
                continue
            assert "default" in operation["responses"], (path, method)
            assert 401 in _errors_of(schema, path, method), (path, method)


def test_the_seed_commitment_is_described_exactly(schema):
    text = schema["components"]["schemas"]["GameSummary"]["properties"]["seed_commitment"]
    assert '"bahama-taxi-seed:<seed>"' in text["description"]
    assert (
        engine.seed_commitment(7) == __import__("hashlib").sha256(b"bahama-taxi-seed:7").hexdigest()
    )


def test_turn_is_documented_with_an_example(schema):
    turn = schema["components"]["schemas"]["TurnAction"]
    assert '{"type": "turn"' in turn["description"]


def test_the_board_is_under_the_api_with_its_attribution(db):
    board = Player().client.get("/api/v1/board")
    assert board.status_code == 200
    assert "Bartosz Sułkowski" in board.json()["attribution"]
    assert board.json()["license"] == "CC BY 4.0"
    assert len(board.json()["areas"]) == len(engine.AREAS)
    from rest_framework.test import APIClient

    assert APIClient().get("/api/v1/board").status_code == 200  # no account needed
