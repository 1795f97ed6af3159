"""The typed OpenAPI contract of the games API: every action, every notification, the game view.

The engine speaks plain JSON objects (`games/engine/actions.py`, `game.py`, `views.py`); these
serializers describe those objects for drf-spectacular only (nothing is validated or rendered
through them), so that a client can be generated from the schema. Each union is a `oneOf` with
a `type` discriminator, one component per type. tests/api/test_schema.py checks them against
the engine (every type is here, and what the server sends matches its component).

`error_responses(...)` lists, for one operation, every error code it can answer with, grouped by
HTTP status, each status with its own enumerated `code`.
"""

from __future__ import annotations

import json
import re

from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema_field,
)
from rest_framework import serializers

from games import registry

#: Bahama Taxi's board and options (its engine, through its registration)
_BAHAMA_TAXI = registry.get("bahama-taxi").engine
AREAS = _BAHAMA_TAXI.AREAS
MOVEMENTS = _BAHAMA_TAXI.options.MOVEMENTS

# ---------------------------------------------------------------------------------- helpers

VIEW_STATUSES = ["playing", "finished", "aborted"]

_AREA = {"type": "string", "enum": list(AREAS), "description": "an area id of the board"}


@extend_schema_field(_AREA)
class AreaField(serializers.CharField):
    pass


def _tag(value: str) -> serializers.Field:
    """The `type` field of one member of a union: a one-value enum (the discriminator)."""
    field_class = extend_schema_field({"type": "string", "enum": [value]})(
        type("TypeTag", (serializers.CharField,), {})
    )
    return field_class()


def _seat(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=7, **kwargs)


def _component(name: str, doc: str, fields: dict) -> type[serializers.Serializer]:
    """A serializer class named `name` (its component name) with `fields` (which may use
    names Python reserves, such as `from`)."""
    return type(name, (serializers.Serializer,), {"__doc__": doc, **fields})


def _union(name: str, members: dict[str, type], *, many: bool = False, **field_kwargs):
    """A field typed as the `oneOf` of `members` (type value → component), discriminated
    by `type`."""
    proxy = PolymorphicProxySerializer(
        component_name=name,
        serializers=members,
        resource_type_field_name="type",
        many=many,
    )
    base = serializers.ListField if many else serializers.DictField
    return extend_schema_field(proxy)(type(f"{name}Field", (base,), {}))(**field_kwargs)


class CitizenSerializer(serializers.Serializer):
    """A citizen: where they wait (or were picked up) and where they go."""

    origin = AreaField()
    destination = AreaField()


class OptionsSerializer(serializers.Serializer):
    """The table's rule options (RULES.md Options)."""

    shift_change = serializers.BooleanField()
    pickup_before_movement = serializers.BooleanField()
    movement = serializers.ChoiceField(choices=MOVEMENTS)


class ResultSerializer(serializers.Serializer):
    """G3: each seat's income, and the ranking (seats per rank, best first; ties share one)."""

    incomes = serializers.ListField(child=serializers.IntegerField())
    ranking = serializers.ListField(child=serializers.ListField(child=_seat()))


class PublicUserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()


# ---------------------------------------------------------------------------------- actions

_SEAT_HELP = "your seat; may be left out when you send it (the server fills in yours)"


def _seat_only(kind: str, name: str, doc: str) -> type:
    return _component(name, doc, {"type": _tag(kind), "seat": _seat(required=False)})


StepAction = _component(
    "StepAction",
    "Move the taxi one area (T1, T3).",
    {"type": _tag("step"), "seat": _seat(required=False, help_text=_SEAT_HELP), "to": AreaField()},
)
UndoAction = _seat_only("undo", "UndoAction", "Take the last step back (T4, at most 5 a turn).")
StopAction = _seat_only("stop", "StopAction", "End the movement: drop-offs, then pickups (T5).")
PickupAction = _component(
    "PickupAction",
    "Pick up the citizen waiting here who goes to `destination` (T2, T5, P1–P4).",
    {"type": _tag("pickup"), "seat": _seat(required=False), "destination": AreaField()},
)
DeclineAction = _seat_only("decline", "DeclineAction", "Pick up no one more; the turn ends (P4).")
PassAction = _seat_only("pass", "PassAction", "A blocked taxi passes (T7).")
ResignAction = _seat_only(
    "resign",
    "ResignAction",
    "Leave the game: the autopilot plays the seat from now on (K3). Offered at any time, on "
    "your turn or not, while the seat is yours.",
)
TurnAction = _component(
    "TurnAction",
    "A whole turn in one request (T5), all or nothing: the pickups before movement (only with "
    "that option, T2), the steps, the stop, then the pickups at the stop; pickups not listed "
    "are declined. No steps: the taxi must be blocked and the turn is passed (T7). Example: "
    '`{"type": "turn", "steps": ["9H", "8H"], "pickups": ["3C"]}`.',
    {
        "type": _tag("turn"),
        "seat": _seat(required=False),
        "steps": serializers.ListField(child=AreaField(), max_length=7),
        "pickups": serializers.ListField(child=AreaField(), max_length=3, required=False),
        "pickups_before": serializers.ListField(child=AreaField(), max_length=3, required=False),
    },
)
TimeoutAction = _component(
    "TimeoutAction",
    "Server: the seat ran out of time; the autopilot played its turn (K2).",
    {"type": _tag("timeout"), "seat": _seat()},
)
ZombifyAction = _component(
    "ZombifyAction",
    "Moderator: the autopilot plays the seat from now on (K3).",
    {"type": _tag("zombify"), "seat": _seat()},
)
RestoreAction = _component(
    "RestoreAction",
    "Moderator: the seat is its player's again (K3).",
    {"type": _tag("restore"), "seat": _seat()},
)
DeadlineAction = _component(
    "DeadlineAction",
    "Server: a table's wall-clock deadline passed (D4).",
    {"type": _tag("deadline"), "number": serializers.ChoiceField(choices=[1, 2])},
)
AbortAction = _component(
    "AbortAction",
    "Moderator: the game ends with no result.",
    {"type": _tag("abort"), "reason": serializers.CharField(max_length=200)},
)

#: What a player may send and is offered (`engine.CLIENT_ACTIONS`).
PLAYER_ACTIONS: dict[str, type] = {
    "step": StepAction,
    "undo": UndoAction,
    "stop": StopAction,
    "pickup": PickupAction,
    "decline": DeclineAction,
    "pass": PassAction,
    "turn": TurnAction,
    "resign": ResignAction,
}
#: What the log may hold (`engine.ACTION_TYPES`): the above and the server's own.
LOGGED_ACTIONS: dict[str, type] = {
    **PLAYER_ACTIONS,
    "timeout": TimeoutAction,
    "zombify": ZombifyAction,
    "restore": RestoreAction,
    "deadline": DeadlineAction,
    "abort": AbortAction,
}


def player_action_field(**kwargs):
    return _union("PlayerAction", PLAYER_ACTIONS, **kwargs)


def player_actions_field(**kwargs):
    return _union("PlayerAction", PLAYER_ACTIONS, many=True, **kwargs)


def logged_action_field(**kwargs):
    return _union("LoggedAction", LOGGED_ACTIONS, **kwargs)


# ---------------------------------------------------------------------------------- notifications


def _note(kind: str, doc: str, **fields) -> type:
    name = "".join(part.title() for part in kind.split("_")) + "Notification"
    return _component(name, doc, {"type": _tag(kind), **fields})


_SeatArea = _component(
    "StartingSeat",
    "A seat's taxi at the start (S3); `player`: the join order of its player.",
    {"seat": _seat(), "area": AreaField(), "player": serializers.IntegerField()},
)

NOTIFICATIONS: dict[str, type] = {
    "game_started": _note(
        "game_started",
        "Once, after setup: taxis, their first passengers, the waiting citizens, the pile.",
        seats=_SeatArea(many=True),
        passengers=serializers.ListField(child=CitizenSerializer(many=True)),
        waiting=CitizenSerializer(many=True),
        pile=serializers.IntegerField(),
    ),
    "turn_started": _note(
        "turn_started",
        "Each turn; `allowance`: the steps allowed at its start (T1).",
        seat=_seat(),
        allowance=serializers.IntegerField(),
    ),
    "taxi_moved": _note(
        "taxi_moved", "Each step.", seat=_seat(), **{"from": AreaField(), "to": AreaField()}
    ),
    "move_undone": _note(
        "move_undone",
        "Each undo; `to` is the area the taxi is back on.",
        seat=_seat(),
        **{"from": AreaField(), "to": AreaField()},
    ),
    "passenger_dropped_off": _note(
        "passenger_dropped_off",
        "At the stop (T5, F1).",
        seat=_seat(),
        area=AreaField(),
        origin=AreaField(),
        destination=AreaField(),
        fare=serializers.IntegerField(),
    ),
    "citizen_picked_up": _note(
        "citizen_picked_up",
        "A pickup (T2, T5).",
        seat=_seat(),
        area=AreaField(),
        origin=AreaField(),
        destination=AreaField(),
    ),
    "citizen_added": _note(
        "citizen_added",
        "A citizen is drawn (C1); `pile`: cards left after the draw.",
        origin=AreaField(),
        destination=AreaField(),
        pile=serializers.IntegerField(),
    ),
    "cards_discarded": _note(
        "cards_discarded",
        "Drawn cards discarded (S5 with three players, C1 identical pairs).",
        cards=serializers.ListField(child=AreaField()),
        reason=serializers.ChoiceField(choices=["three_players", "identical_pair"]),
        pile=serializers.IntegerField(),
    ),
    "deadline_reached": _note(
        "deadline_reached",
        "A deadline is reached (D1–D4), by the pile, the waiting citizens or the table's clock.",
        number=serializers.ChoiceField(choices=[1, 2]),
        cause=serializers.ChoiceField(choices=["pile", "waiting", "clock"]),
    ),
    "turn_passed": _note("turn_passed", "A blocked taxi passes (T7).", seat=_seat()),
    "turn_ended": _note("turn_ended", "The end of each turn.", seat=_seat()),
    "game_ended": _note(
        "game_ended",
        "Once, at the end (G1–G3).",
        incomes=serializers.ListField(child=serializers.IntegerField()),
        ranking=serializers.ListField(child=serializers.ListField(child=_seat())),
    ),
    "turn_timed_out": _note(
        "turn_timed_out",
        "The seat ran out of time (K2); `count`: its timeouts in a row.",
        seat=_seat(),
        count=serializers.IntegerField(),
    ),
    "seat_zombified": _note(
        "seat_zombified",
        "The autopilot plays the seat from now on (K3).",
        seat=_seat(),
        reason=serializers.ChoiceField(choices=["timeouts", "moderator", "resigned"]),
    ),
    "seat_restored": _note("seat_restored", "The seat is its player's again (K3).", seat=_seat()),
    "game_aborted": _note(
        "game_aborted", "A moderator ended the game with no result.", reason=serializers.CharField()
    ),
}


def notifications_field(**kwargs):
    return _union("Notification", NOTIFICATIONS, many=True, **kwargs)


# ---------------------------------------------------------------------------------- the view


class ViewSeatSerializer(serializers.Serializer):
    seat = _seat()
    player = serializers.IntegerField(help_text="join order of the seat's player")
    area = AreaField()
    passengers = CitizenSerializer(many=True)
    income = serializers.IntegerField()
    zombie = serializers.BooleanField(help_text="played by the autopilot (K3)")
    timeouts = serializers.IntegerField(help_text="timeouts in a row (K2)")


class GameViewSerializer(serializers.Serializer):
    """The engine's view of a running or ended game for you (H1: the pile is a count; the
    seed only once the game is over)."""

    rules_version = serializers.CharField()
    options = OptionsSerializer()
    players = serializers.IntegerField()
    status = serializers.ChoiceField(choices=VIEW_STATUSES)
    seed_commitment = serializers.CharField(
        help_text='H2: hex SHA-256 of the UTF-8 text "bahama-taxi-seed:<seed>" (seed in '
        "decimal); docs/fairness.md"
    )
    turn = serializers.IntegerField(help_text="turns begun so far")
    active_seat = _seat(allow_null=True, help_text="null once over")
    phase = serializers.ChoiceField(choices=["move", "pickup", "over"])
    allowance = serializers.IntegerField(help_text="steps allowed this turn (T1, D2)")
    turn_start = AreaField(help_text="where the active taxi began this turn (T3)")
    path = serializers.ListField(child=AreaField(), help_text="this turn's steps so far")
    undos_left = serializers.IntegerField()
    deadlines_reached = serializers.IntegerField()
    pile = serializers.IntegerField(help_text="cards left in the draw pile")
    pile_exhausted = serializers.BooleanField()
    discarded = serializers.ListField(child=AreaField())
    waiting = CitizenSerializer(many=True)
    seats = ViewSeatSerializer(many=True)
    result = ResultSerializer(allow_null=True)
    abort_reason = serializers.CharField(allow_null=True)
    seed = serializers.CharField(
        required=False, help_text="H2: revealed once the game is over (decimal)"
    )
    you = _seat(allow_null=True, help_text="your seat; null for a spectator")
    legal_actions = player_actions_field(
        help_text="what you may do now: your legal actions on your turn, and `resign` while "
        "your seat is yours (empty for spectators and once over)"
    )


# ---------------------------------------------------------------------------------- the board


class BoardAreaSerializer(serializers.Serializer):
    id = AreaField()
    suit = serializers.ChoiceField(choices=["S", "C", "H", "D"])
    rank = serializers.CharField(help_text="2–10, J, Q, K or A")
    downtown = serializers.BooleanField()
    x = serializers.FloatField(help_text="centre, in a 0..1000 box, y down")
    y = serializers.FloatField()
    r = serializers.FloatField(help_text="radius of the area's circle")


class BoardSerializer(serializers.Serializer):
    """The board's geometry: "Bahama Taxi board by Bartosz Sułkowski", CC BY 4.0 (the
    attribution and licence must be shown wherever the board is)."""

    areas = BoardAreaSerializer(many=True)
    edges = serializers.ListField(
        child=serializers.ListField(child=AreaField(), min_length=2, max_length=2),
        help_text="the roads: pairs of neighbouring areas",
    )
    suit_colours = serializers.DictField(child=serializers.CharField())
    attribution = serializers.CharField()
    license = serializers.CharField()
    license_url = serializers.URLField()


# ---------------------------------------------------------------------------------- errors


def error_responses(operation: str, *codes: str) -> dict[int, OpenApiResponse]:
    """For one operation: each HTTP status it may answer with an error, with the codes that
    status carries there, enumerated (`docs/errors.md` has their meaning)."""
    from taxi_project import error_codes  # the vocabulary imports every app's errors

    vocabulary = error_codes.vocabulary()
    by_status: dict[int, list[str]] = {}
    for code in codes:
        by_status.setdefault(vocabulary[code][0], []).append(code)
    camel = "".join(part.title() for part in re.split(r"[_\W]+", operation) if part)
    responses = {}
    for status, listed in sorted(by_status.items()):
        component = _component(
            f"{camel}Error{status}",
            f"An error of `{operation}` with status {status}.",
            {
                "code": serializers.ChoiceField(choices=sorted(listed)),
                "message": serializers.CharField(help_text="for people, in their language"),
                "errors": serializers.DictField(
                    required=False, help_text="field → problem (`invalid`, `malformed_action`)"
                ),
                "clause": serializers.CharField(required=False, help_text="RULES.md clause"),
                "current_version": serializers.IntegerField(
                    required=False, help_text="with `stale_version`: the game's version now"
                ),
                "until": serializers.DateTimeField(
                    required=False, help_text="with `account_suspended`"
                ),
                "per": serializers.CharField(
                    required=False,
                    help_text="with `too_many_connections`: the cap reached, `account` or "
                    "`address`",
                ),
                "limit": serializers.IntegerField(
                    required=False, help_text="with `too_many_connections`: how many may be open"
                ),
            },
        )
        responses[status] = OpenApiResponse(
            component,
            description=", ".join(f"`{code}`" for code in sorted(listed)),
            examples=[
                OpenApiExample(code, value={"code": code, "message": str(vocabulary[code][1])})
                for code in sorted(listed)
            ],
        )
    return responses


_ERROR_COMPONENT = re.compile(r"^\w+Error\d{3}$")


def name_error_code_enums(result, generator, request, public):
    """drf-spectacular postprocessing hook, before its enum hook: each operation's error codes
    at one status become the component `<Operation>Error<status>Code` (the enum hook would
    name them by a hash, every one of them being a field called `code`)."""
    schemas = result.get("components", {}).get("schemas", {})
    for name, component in list(schemas.items()):
        code = component.get("properties", {}).get("code")
        if _ERROR_COMPONENT.match(name) and code is not None and "enum" in code:
            enum = ResolvedComponent(
                name=f"{name}Code", type=ResolvedComponent.SCHEMA, schema=code, object=name
            )
            generator.registry.register_on_missing(enum)  # the enum hook rebuilds components
            component["properties"]["code"] = enum.ref
    return result


# ---------------------------------------------------------------------------------- generators

NDJSON = "application/x-ndjson"
KEEPALIVE = {
    "type": "object",
    "description": "the stream's line after a while without an entry: the server's time",
    "properties": {"keepalive": {"type": "string", "format": "date-time"}},
    "required": ["keepalive"],
}


def ndjson_body(*, line, first=None, keepalive: bool = False) -> dict:
    """An NDJSON body for the schema: a string whose lines are each a JSON value, described in
    the extensions `x-ndjson-line` (every line, or every line after the first) and
    `x-ndjson-first-line`, by reference to the components of `line` and `first` (serializers);
    `keepalive`: a line may also be `{"keepalive": <time>}`. OpenAPI 3.0 has no item schema
    for a stream of JSON values; `generator_friendly` resolves the references."""
    body: dict = {"type": "string", "x-ndjson-line": line}
    if keepalive:
        body["x-ndjson-keepalive"] = True
    if first is not None:
        body["x-ndjson-first-line"] = first
    return body


def generator_friendly(result, generator, request, public):
    """drf-spectacular postprocessing hook, after the enum hook: what linters (redocly's
    recommended rules) and client generators (openapi-typescript) want and drf-spectacular
    leaves out.

    * `nullable` beside `allOf`/`oneOf` gets the `type` its members share (OpenAPI 3.0 makes
      `nullable` mean something only beside a `type`).
    * An operation no authenticator guards says so: `security: []` (public).
    * An NDJSON body (`ndjson_body`) names its lines' components in its extensions and its
      description (docs/api.md).
    * A field typed as a discriminated union (drf-spectacular: `allOf: [union]`, to carry a
      description) refers to the union itself (or `oneOf` it and null): generators read
      `allOf` of a discriminated schema as inheritance from it and drop the discriminator
      (openapi-typescript: `Omit<…, "type">`).
    * A request field with a default is optional (not `required`), but generators read a
      `default` as "always present" (openapi-typescript makes the field required): in the
      components only requests use, the default is said in the description instead."""
    schemas = result.get("components", {}).get("schemas", {})
    _unions_not_inherited(result, schemas)
    _type_nullable_unions(result, schemas)
    _defaults_in_words(result, schemas)
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            operation.setdefault("security", [])
            for response in operation.get("responses", {}).values():
                media = response.get("content", {}).get(NDJSON)
                if media is not None and "x-ndjson-line" in media.get("schema", {}):
                    # a copy: the declaration's own dict serves every generation
                    media["schema"] = _ndjson_lines(dict(media["schema"]), schemas)
    return result


def _ndjson_lines(body: dict, schemas: dict) -> dict:
    def ref(serializer) -> tuple[str, dict]:
        name = serializer.__name__.removesuffix("Serializer")  # drf-spectacular's naming
        if name not in schemas:
            raise KeyError(f"an NDJSON line's component {name} is not in the schema")
        return name, {"$ref": f"#/components/schemas/{name}"}

    line, line_ref = ref(body["x-ndjson-line"])
    words = f"each line: `{line}` (#/components/schemas/{line})"
    body["x-ndjson-line"] = line_ref
    if body.pop("x-ndjson-keepalive", False):
        body["x-ndjson-line"] = {"oneOf": [line_ref, KEEPALIVE]}
        words = f"each line: `{line}` (#/components/schemas/{line}) or a keep-alive, " + (
            '`{"keepalive": "<time>"}`'
        )
    if "x-ndjson-first-line" in body:
        first, first_ref = ref(body["x-ndjson-first-line"])
        body["x-ndjson-first-line"] = first_ref
        words = (
            f"the first line: `{first}` (#/components/schemas/{first}); each line after it: "
            f"`{line}` (#/components/schemas/{line})"
        )
    body["description"] = f"NDJSON (one JSON value a line, each ending in a newline): {words}"
    return body


def _unions_not_inherited(node, schemas: dict) -> None:
    if isinstance(node, list):
        for item in node:
            _unions_not_inherited(item, schemas)
        return
    if not isinstance(node, dict):
        return
    for name, field in (node.get("properties") or {}).items():
        members = field.get("allOf") if isinstance(field, dict) else None
        if not (isinstance(members, list) and len(members) == 1 and "$ref" in members[0]):
            continue
        if field.get("nullable"):  # generators read a typed allOf as never null
            field["oneOf"] = [*field.pop("allOf"), {"enum": [None]}]
        elif "discriminator" not in schemas.get(members[0]["$ref"].rsplit("/", 1)[1], {}):
            continue
        else:  # a $ref alone (OpenAPI 3.0 ignores what is beside it): its words go up
            if "description" in field:
                said = f"`{name}`: {field['description']}"
                node["description"] = (
                    f"{node['description']}\n\n{said}" if node.get("description") else said
                )
            node["properties"][name] = {"$ref": members[0]["$ref"]}
    for value in node.values():
        _unions_not_inherited(value, schemas)


def _defaults_in_words(result: dict, schemas: dict) -> None:
    requests: set[str] = set()
    responses: set[str] = set()
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            _refs(operation.get("requestBody"), schemas, requests)
            _refs(operation.get("responses"), schemas, responses)
            _refs(operation.get("parameters"), schemas, responses)
    for name in sorted(requests - responses):
        for field in schemas[name].get("properties", {}).values():
            if "default" in field:
                default = json.dumps(field.pop("default"))
                field["description"] = (
                    field.get("description", "") + f"\n\nDefault: `{default}`."
                ).lstrip()


def _refs(node, schemas: dict, found: set[str]) -> None:
    """The components `node` refers to, directly or through other components."""
    if isinstance(node, list):
        for item in node:
            _refs(item, schemas, found)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            name = ref.rsplit("/", 1)[1]
            if name not in found:
                found.add(name)
                _refs(schemas.get(name), schemas, found)
        for key, value in node.items():
            if key != "$ref":
                _refs(value, schemas, found)


def _type_nullable_unions(node, schemas: dict) -> None:
    if isinstance(node, list):
        for item in node:
            _type_nullable_unions(item, schemas)
        return
    if not isinstance(node, dict):
        return
    if node.get("nullable") and "type" not in node:
        members = node.get("allOf") or node.get("oneOf") or node.get("anyOf")
        found = _shared_type({"oneOf": members}, schemas) if members else None
        if found is not None:
            node["type"] = found
    for value in node.values():
        _type_nullable_unions(value, schemas)


def _shared_type(node: dict, schemas: dict, seen: frozenset = frozenset()) -> str | None:
    """The JSON type every typed member of `node` has (`NullEnum`, typeless, is left out)."""
    if "type" in node:
        return node["type"]
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        return None if name in seen else _shared_type(schemas[name], schemas, seen | {name})
    members = node.get("allOf") or node.get("oneOf") or node.get("anyOf") or []
    types = {_shared_type(member, schemas, seen) for member in members} - {None}
    return types.pop() if len(types) == 1 else None
