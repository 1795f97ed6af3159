"""What a client generator reads in the schema, stated as it is (games/schema.py:
generator_friendly): the ETag and If-None-Match of the operations that honour them, the NDJSON
bodies' line components, one content type per export operation, request fields with defaults
optional without a `default` a generator would read as "always there", discriminated unions
referred to as themselves, and the paging parameters with `offset` deprecated."""

from __future__ import annotations

import pytest
from rest_framework.fields import empty

from games.serializers import TableCreateSerializer


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from drf_spectacular.generators import SchemaGenerator

    with django_db_blocker.unblock():
        return SchemaGenerator().get_schema(request=None, public=True)


def _get(schema, path):
    return schema["paths"][path]["get"]


@pytest.mark.parametrize("path", ["/api/v1/games/{game_id}", "/api/v1/games/{game_id}/log"])
def test_the_etag_and_if_none_match_are_declared_where_honoured(schema, path):
    operation = _get(schema, path)
    assert "ETag" in operation["responses"]["200"]["headers"]
    assert "ETag" in operation["responses"]["304"]["headers"]
    headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert "If-None-Match" in headers


def test_ndjson_bodies_name_their_lines(schema):
    components = schema["components"]["schemas"]
    stream = _get(schema, "/api/v1/games/{game_id}/stream")["responses"]["200"]["content"]
    line = stream["application/x-ndjson"]["schema"]
    assert line["type"] == "string" and "`Entry`" in line["description"]
    assert "`DigitCodeEntry`" in line["description"]
    entry, digit_code_entry, keepalive = line["x-ndjson-line"]["anyOf"]
    assert entry == {"$ref": "#/components/schemas/Entry"} and "Entry" in components
    assert digit_code_entry == {"$ref": "#/components/schemas/DigitCodeEntry"}
    assert "DigitCodeEntry" in components
    assert keepalive["required"] == ["keepalive"]
    assert line["x-ndjson-line-by-game"] == {"bahama-taxi": entry, "digit-code": digit_code_entry}
    export = _get(schema, "/api/v1/games/{game_id}/export/ndjson")["responses"]["200"]
    body = export["content"]["application/x-ndjson"]["schema"]
    assert body["x-ndjson-first-line"] == {"$ref": "#/components/schemas/AnyGameSummary"}
    assert body["x-ndjson-line"] == {"anyOf": [entry, digit_code_entry]}
    assert components["AnyGameSummary"]["discriminator"]["propertyName"] == "game"


def test_each_export_operation_has_one_content_type(schema):
    json_export = _get(schema, "/api/v1/games/{game_id}/export")["responses"]["200"]
    ndjson_export = _get(schema, "/api/v1/games/{game_id}/export/ndjson")["responses"]["200"]
    assert list(json_export["content"]) == ["application/json"]
    assert list(ndjson_export["content"]) == ["application/x-ndjson"]


def test_request_fields_with_defaults_are_optional_and_carry_no_default(schema):
    component = schema["components"]["schemas"]["TableCreateRequest"]
    defaulted = [
        name for name, field in TableCreateSerializer().fields.items() if field.default is not empty
    ]
    assert {"shift_change", "visibility", "clock", "rated", "bots"} <= set(defaulted)
    assert not set(defaulted) & set(component.get("required", []))
    for name in defaulted:
        assert "default" not in component["properties"][name], name
    assert "Default: `false`" in component["properties"]["shift_change"]["description"]
    assert component["required"] == ["players"]


def test_unions_are_referred_to_as_themselves(schema):
    components = schema["components"]["schemas"]
    move = components["MoveRequest"]["properties"]["action"]
    assert move == {"$ref": "#/components/schemas/AnyPlayerActionRequest"}
    assert components["AnyPlayerActionRequest"]["anyOf"] == [
        {"$ref": "#/components/schemas/PlayerActionRequest"},
        {"$ref": "#/components/schemas/DigitCodePlayerActionRequest"},
    ]
    action = components["Entry"]["properties"]["action"]
    assert action["oneOf"] == [{"$ref": "#/components/schemas/LoggedAction"}, {"enum": [None]}]
    assert action["type"] == "object" and action["nullable"] is True


@pytest.mark.parametrize(
    "path", ["/api/v1/me/games", "/api/v1/games/finished", "/api/v1/tables", "/api/v1/leaderboard"]
)
def test_lists_take_a_cursor_and_deprecate_offset(schema, path):
    parameters = {p["name"]: p for p in _get(schema, path)["parameters"]}
    assert {"cursor", "limit", "count", "offset"} <= set(parameters)
    assert parameters["offset"]["deprecated"] is True
    assert "deprecated" not in parameters["cursor"]
    headers = _get(schema, path)["responses"]["200"]["headers"]
    assert {"Deprecation", "Sunset"} <= set(headers)
