"""Shapes of the games API: request validation and documented responses (OpenAPI)."""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from games import registry
from games import schema_digit_code as digit_code
from games.models import BOT_LEVELS, Clock, Game
from games.schema import (
    GameViewSerializer,
    OptionsSerializer,
    PublicUserSerializer,
    ResultSerializer,
    any_game_field,
    logged_action_field,
    named_component,
    notifications_field,
    player_action_union,
    player_actions_field,
    tag_field,
    union_field,
)
from taxi_project import error_codes
from taxi_project.pagination import MAX_COUNT
from taxi_project.strict_fields import JsonTypes, QueryBooleanField

MAX_INT = 2**31 - 1
#: Bahama Taxi's options (its own columns; games/bahama_taxi/kind.py), and the player counts
#: of every game (each table checks its own game's: `invalid_players`)
BAHAMA_TAXI = registry.get("bahama-taxi")
MOVEMENTS = BAHAMA_TAXI.engine.options.MOVEMENTS
BAHAMA_TAXI_OPTIONS = BAHAMA_TAXI.option_columns
MIN_PLAYERS = min(kind.min_players for kind in registry.all())
MAX_PLAYERS = max(kind.max_players for kind in registry.all())


class ErrorSerializer(serializers.Serializer):
    """Every error: a stable `code` to switch on and a `message` for people."""

    code = serializers.ChoiceField(choices=error_codes.codes(), help_text="docs/errors.md")
    message = serializers.CharField()
    errors = serializers.DictField(required=False, help_text="field → problem (400 only)")
    clause = serializers.CharField(required=False, help_text="RULES.md clause an action breaks")
    current_version = serializers.IntegerField(required=False, help_text="with stale_version")
    per = serializers.CharField(required=False, help_text="with too_many_connections")
    limit = serializers.IntegerField(required=False, help_text="with too_many_connections")


# ---------------------------------------------------------------------------------- requests


class TableCreateSerializer(JsonTypes, serializers.Serializer):
    game = serializers.ChoiceField(
        choices=registry.keys(),
        default=registry.DEFAULT,
        help_text="The game played at the table (left out: Bahama Taxi).",
    )
    players = serializers.IntegerField(
        min_value=MIN_PLAYERS,
        max_value=MAX_PLAYERS,
        help_text="Bahama Taxi: 2 to 8; Digit Code: 2 to 4 (`invalid_players` otherwise).",
    )
    shift_change = serializers.BooleanField(default=False, help_text="Bahama Taxi only")
    pickup_before_movement = serializers.BooleanField(default=False, help_text="Bahama Taxi only")
    movement = serializers.ChoiceField(
        choices=MOVEMENTS, default="normal", help_text="Bahama Taxi only"
    )
    options = serializers.DictField(
        required=False,
        help_text="The game's table options as an object (Digit Code has none: `{}`); for "
        "Bahama Taxi, instead of its three fields above.",
    )
    visibility = serializers.ChoiceField(
        choices=Game.Visibility.choices, default=Game.Visibility.PUBLIC
    )
    clock = serializers.ChoiceField(choices=Clock.choices, default=Clock.NONE)
    deadline1_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    deadline2_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    bots = serializers.ListField(
        child=serializers.ChoiceField(choices=BOT_LEVELS),
        max_length=MAX_PLAYERS - 1,
        default=list,
        help_text="Computer opponents' levels, one per seat they take after yours; the game "
        "starts at once if they fill the table. A table with a bot is never rated.",
    )
    rated = serializers.BooleanField(
        default=True, help_text="Whether the game moves its players' ratings (never with bots)."
    )

    def validate(self, attrs):
        if len(attrs.get("bots", ())) >= attrs["players"]:
            raise serializers.ValidationError({"bots": [_("Leave at least one place for you.")]})
        kind = registry.get(attrs["game"])
        levels = kind.bot_levels
        if any(level not in levels for level in attrs.get("bots", ())):
            raise serializers.ValidationError(
                {"bots": [_("This game's computer opponents have no such level.")]}
            )
        given = [name for name in BAHAMA_TAXI_OPTIONS if name in self.initial_data]
        if "options" in attrs:
            if given:
                raise serializers.ValidationError(
                    {"options": [_("Give the options as one object, not also as fields.")]}
                )
            attrs["options"] = kind.options_from_json(attrs["options"])  # or invalid_options
        elif kind.option_columns:
            attrs["options"] = kind.options_from_json(
                {name: attrs[name] for name in kind.option_columns}
            )
        else:
            # the fields of another game's options (Bahama Taxi's) are refused as options
            attrs["options"] = kind.options_from_json({name: attrs[name] for name in given})
        return attrs


# The schema's request bodies of `POST /tables`, one per game (`TableCreateSerializer`
# validates them all): Bahama Taxi's keeps its component name (`TableCreateRequest`).
_BAHAMA_TAXI_TABLE = type(
    "TableCreate",
    (TableCreateSerializer,),
    {
        "__doc__": "A Bahama Taxi table (`game` left out: Bahama Taxi, RULES.md).",
        "game": tag_field(BAHAMA_TAXI.key, required=False, help_text="left out: Bahama Taxi"),
        "players": serializers.IntegerField(
            min_value=BAHAMA_TAXI.min_players, max_value=BAHAMA_TAXI.max_players
        ),
        "options": named_component(
            "TableOptions",
            "Bahama Taxi's options as one object (RULES.md Options); one left out is its default.",
            {
                "shift_change": serializers.BooleanField(default=False),
                "pickup_before_movement": serializers.BooleanField(default=False),
                "movement": serializers.ChoiceField(choices=MOVEMENTS, default="normal"),
            },
        )(required=False, help_text="the options as one object, instead of the three fields"),
        "bots": serializers.ListField(
            child=serializers.ChoiceField(choices=BAHAMA_TAXI.bot_levels),
            max_length=BAHAMA_TAXI.max_players - 1,
            default=list,
            help_text="Computer opponents' levels, one per seat they take after yours; the game "
            "starts at once if they fill the table. A table with a bot is never rated.",
        ),
    },
)
_DIGIT_CODE = registry.get("digit-code")
_DIGIT_CODE_TABLE = type(
    "DigitCodeTableCreate",
    (JsonTypes, serializers.Serializer),
    {
        "__doc__": "A Digit Code table (RULES-digit-code.md): no table options, no wall-clock "
        "deadlines.",
        "game": tag_field(_DIGIT_CODE.key),
        "players": serializers.IntegerField(
            min_value=_DIGIT_CODE.min_players, max_value=_DIGIT_CODE.max_players
        ),
        "options": digit_code.OptionsField(required=False),
        "visibility": serializers.ChoiceField(
            choices=Game.Visibility.choices, default=Game.Visibility.PUBLIC
        ),
        "clock": serializers.ChoiceField(choices=Clock.choices, default=Clock.NONE),
        "bots": serializers.ListField(
            child=serializers.ChoiceField(choices=_DIGIT_CODE.bot_levels),
            max_length=_DIGIT_CODE.max_players - 1,
            default=list,
            help_text="Computer opponents' levels, one per seat they take after yours.",
        ),
        "rated": serializers.BooleanField(
            default=True, help_text="Whether the game moves its players' ratings (never with bots)."
        ),
    },
)
#: `POST /tables`'s body: each game's, told apart by `game` (Bahama Taxi's when it is left out)
TABLE_CREATE = {BAHAMA_TAXI.key: _BAHAMA_TAXI_TABLE, _DIGIT_CODE.key: _DIGIT_CODE_TABLE}


class TableJoinSerializer(JsonTypes, serializers.Serializer):
    invite_code = serializers.CharField(required=False, allow_blank=True, max_length=64)


class TableFilterSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=registry.keys(), required=False)
    players = serializers.IntegerField(required=False, min_value=MIN_PLAYERS, max_value=MAX_PLAYERS)
    movement = serializers.ChoiceField(choices=MOVEMENTS, required=False)
    shift_change = QueryBooleanField(required=False)
    pickup_before_movement = QueryBooleanField(required=False)
    clock = serializers.ChoiceField(choices=Clock.choices, required=False)


IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


class MoveSerializer(JsonTypes, serializers.Serializer):
    action = any_game_field(
        "AnyPlayerAction",
        [player_action_union(), digit_code.player_action_union()],
        help_text="The action, in the table's game's vocabulary: Bahama Taxi's `PlayerAction` "
        '(as `legal_actions` lists it, e.g. {"type": "step", "to": "9H"}; `turn` plays a '
        "whole turn in one request, see TurnAction) or Digit Code's `DigitCodePlayerAction` "
        '(e.g. {"type": "ask", "question": {"kind": "parity", "position": 2}}); `seat` may be '
        "left out.",
    )
    version = serializers.IntegerField(
        min_value=0, max_value=MAX_INT, help_text="The game version the client saw."
    )
    idempotency_key = serializers.RegexField(
        IDEMPOTENCY_KEY,
        help_text="Unique per move; a retry with the same key gets the first answer.",
    )


MOVE_FIELDS = ("action", "version", "idempotency_key")  # MoveSerializer's, in its order


def move_data(data) -> dict:
    """MoveSerializer's validated data for a move's body. A well-formed body — what clients
    send on every move — is recognised directly (building the serializer, which deep-copies
    its fields, was about 6 % of a move's server CPU); anything else goes through the
    serializer, for its field errors. A body accepted here is one the
    serializer accepts with the same values (tests/api/test_move_body.py)."""
    if isinstance(data, dict):
        action, version, key = (data.get(name) for name in MOVE_FIELDS)
        if (
            type(action) is dict
            and all(type(name) is str for name in action)
            and type(version) is int
            and 0 <= version <= MAX_INT
            and type(key) is str
            and IDEMPOTENCY_KEY.fullmatch(key)
        ):
            return {"action": action, "version": version, "idempotency_key": key}
    serializer = MoveSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class LogQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0,
        max_value=MAX_INT,
        required=False,
        help_text="the last seq you have; left out: the whole log from seq 0 (the setup)",
    )
    limit = serializers.IntegerField(min_value=1, max_value=500, default=100)


class StreamQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0,
        max_value=MAX_INT,
        required=False,
        help_text="the last seq you have; left out: from seq 0 (the setup)",
    )


class ChatQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0,
        max_value=MAX_INT,
        required=False,
        help_text="the last message id you have: only newer messages (left out: the latest)",
    )


class ChatPostSerializer(JsonTypes, serializers.Serializer):
    text = serializers.CharField(help_text="1 to 500 printable characters", trim_whitespace=False)


class NotesSerializer(serializers.Serializer):
    """Your private notes on your seat (component `Notes`; RULES-digit-code.md C2)."""

    game = serializers.IntegerField()
    seat = serializers.IntegerField(help_text="your seat (0-based)")
    notes = serializers.DictField(
        help_text='Digit Code: `{"digits": {"1": [0, 7]}, "leds": {"1": {"a": "lit", "g": '
        '"unlit"}}}`: per position "1"-"6" the digits ruled out, per LED "a"-"g" `lit` or '
        "`unlit` (an unknown LED is left out)"
    )
    updated_at = serializers.DateTimeField(allow_null=True, help_text="null: none written yet")


class NotesPutSerializer(JsonTypes, serializers.Serializer):
    notes = serializers.JSONField(
        help_text="the whole notes (they replace the stored ones), as the game defines them"
    )


# `as`, not `format` (DRF reads that one to choose a renderer); a Python keyword, hence type()
ExportQuerySerializer = type(
    "ExportQuerySerializer",
    (serializers.Serializer,),
    {
        "as": serializers.ChoiceField(
            choices=["json", "ndjson"],
            default="json",
            help_text="json: one object; ndjson: the game on the first line, then an entry a line",
        )
    },
)


class GamesQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Game.Status.choices, required=False)


# ---------------------------------------------------------------------------------- responses


class ClockStateSerializer(serializers.Serializer):
    turn_started_at = serializers.DateTimeField(allow_null=True)
    turn_deadline_at = serializers.DateTimeField(
        allow_null=True, help_text="when the player to move runs out of time; null: no limit"
    )
    deadlines_reached = serializers.IntegerField(help_text="0, 1 or 2 (D1–D4)")


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True, help_text="play order; null until start")
    join_order = serializers.IntegerField()
    user = PublicUserSerializer()
    bot = serializers.ChoiceField(
        choices=BOT_LEVELS, allow_null=True, help_text="a computer opponent's level; null: a person"
    )


class _TableSerializer(serializers.Serializer):
    """What every game's summary holds (`GameSummarySerializer`, `DigitCodeGameSummary…`)."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    visibility = serializers.ChoiceField(choices=Game.Visibility.choices)
    players = serializers.IntegerField()
    clock = serializers.ChoiceField(choices=Clock.choices)
    rated = serializers.BooleanField(help_text="whether the game moves its players' ratings")
    turn_seconds = serializers.IntegerField(allow_null=True)
    deadline1_at = serializers.DateTimeField(allow_null=True)
    deadline2_at = serializers.DateTimeField(allow_null=True)
    created_by = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    version = serializers.IntegerField()
    active_seat = serializers.IntegerField(allow_null=True)
    clock_state = ClockStateSerializer()
    seats = SeatSerializer(many=True)
    rules_version = serializers.CharField(allow_null=True)
    seed = serializers.CharField(
        required=False, help_text="H2: the seed (decimal), revealed once the game is over"
    )
    your_seat = serializers.IntegerField(allow_null=True, required=False)
    your_turn = serializers.BooleanField(required=False)
    invite_code = serializers.CharField(required=False, help_text="to the creator only")


class GameSummarySerializer(_TableSerializer):
    """A Bahama Taxi table (`game`: `bahama-taxi`)."""

    game = tag_field(BAHAMA_TAXI.key, help_text="the game played at the table (games/registry.py)")
    options = OptionsSerializer()
    seed_commitment = serializers.CharField(
        allow_null=True,
        help_text='H2: hex SHA-256 of the UTF-8 text "bahama-taxi-seed:<seed>", the seed in '
        "decimal; null until the game starts. docs/fairness.md tells how to check the draws.",
    )
    result = ResultSerializer(allow_null=True)


class DigitCodeGameSummarySerializer(_TableSerializer):
    """A Digit Code table (`game`: `digit-code`, RULES-digit-code.md)."""

    game = tag_field(_DIGIT_CODE.key, help_text="the game played at the table (games/registry.py)")
    options = digit_code.OptionsField()
    seed_commitment = serializers.CharField(
        allow_null=True,
        help_text='B6: hex SHA-256 of the UTF-8 text "digit-code-seed:<seed>", the seed in '
        "decimal; null until the game starts (docs/fairness.md).",
    )
    result = digit_code.DigitCodeResultSerializer(allow_null=True)


#: each game's summary, by `game` (the registry's key)
SUMMARIES = {
    BAHAMA_TAXI.key: GameSummarySerializer,
    _DIGIT_CODE.key: DigitCodeGameSummarySerializer,
}


def summaries_field(**kwargs):
    return union_field("AnyGameSummary", SUMMARIES, by="game", **kwargs)


class GameDetailSerializer(GameSummarySerializer):
    view = GameViewSerializer(allow_null=True, help_text="null until the game starts")


class DigitCodeGameDetailSerializer(DigitCodeGameSummarySerializer):
    view = digit_code.DigitCodeViewSerializer(
        allow_null=True, help_text="null until the game starts"
    )


DETAILS = {BAHAMA_TAXI.key: GameDetailSerializer, _DIGIT_CODE.key: DigitCodeGameDetailSerializer}


class PageSerializer(serializers.Serializer):
    """A page of a list (taxi_project/pagination.py): `next` and `previous` carry the cursor of
    the page after and before (null at an end)."""

    next = serializers.URLField(allow_null=True, help_text="the next page; null: the last")
    previous = serializers.URLField(allow_null=True, help_text="the page before; null: the first")
    count = serializers.IntegerField(
        required=False,
        help_text=f"with `?count=true`: the items of the list, counted up to {MAX_COUNT:,}; "
        "with the deprecated `offset`: always, exact",
    )
    count_capped = serializers.BooleanField(
        required=False, help_text=f"with `count`: the list holds more than {MAX_COUNT:,}"
    )


class GameSummaryPageSerializer(PageSerializer):
    results = summaries_field(many=True, help_text="each table's own game's summary (`game`)")


class MoveResponseSerializer(serializers.Serializer):
    """The answer to a Bahama Taxi move."""

    seq = serializers.IntegerField()
    version = serializers.IntegerField()
    notifications = notifications_field()
    view = GameViewSerializer()
    clock_state = ClockStateSerializer()


class DigitCodeMoveResponseSerializer(serializers.Serializer):
    """The answer to a Digit Code move."""

    seq = serializers.IntegerField()
    version = serializers.IntegerField()
    notifications = digit_code.notifications_field()
    view = digit_code.DigitCodeViewSerializer()
    clock_state = ClockStateSerializer()


class LegalActionsSerializer(serializers.Serializer):
    """What you may do now in a Bahama Taxi game."""

    version = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    actions = player_actions_field(
        help_text="your legal actions on your turn, then `resign` while your seat is yours"
    )


class DigitCodeLegalActionsSerializer(serializers.Serializer):
    """What you may do now in a Digit Code game: offers (`ask` with the questions left,
    `guess`), then `resign`."""

    version = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    actions = digit_code.offers_field()


class ActorSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=["player", "bot", "server", "moderator"],
        help_text="player: a person's move; bot: a computer opponent's move; server: the setup, "
        "timeouts, deadlines; moderator: abort, zombify, restore",
    )
    seat = serializers.IntegerField(allow_null=True, help_text="the player's seat")


class EntrySerializer(serializers.Serializer):
    """An entry of a Bahama Taxi game's log."""

    seq = serializers.IntegerField()
    actor = ActorSerializer()
    action = logged_action_field(allow_null=True, help_text="null for seq 0, the setup")
    notifications = notifications_field()
    created_at = serializers.DateTimeField()


class DigitCodeEntrySerializer(serializers.Serializer):
    """An entry of a Digit Code game's log."""

    seq = serializers.IntegerField()
    actor = ActorSerializer()
    action = digit_code.logged_action_field(allow_null=True, help_text="null for seq 0, the setup")
    notifications = digit_code.notifications_field()
    created_at = serializers.DateTimeField()


#: each game's log entry: the NDJSON lines and the socket's entries are the game's own
ENTRIES = {BAHAMA_TAXI.key: EntrySerializer, _DIGIT_CODE.key: DigitCodeEntrySerializer}


class LogPageSerializer(serializers.Serializer):
    """A page of a Bahama Taxi game's log."""

    version = serializers.IntegerField()
    entries = EntrySerializer(many=True)
    next_after = serializers.IntegerField(
        allow_null=True, help_text="pass as `after` for the next page; null at the end"
    )


class DigitCodeLogPageSerializer(serializers.Serializer):
    """A page of a Digit Code game's log."""

    version = serializers.IntegerField()
    entries = DigitCodeEntrySerializer(many=True)
    next_after = serializers.IntegerField(
        allow_null=True, help_text="pass as `after` for the next page; null at the end"
    )


class ChatMessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    author = PublicUserSerializer()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class ReportCreateSerializer(JsonTypes, serializers.Serializer):
    reason = serializers.CharField(max_length=1000)
    reported_user = serializers.IntegerField(required=False, min_value=1, max_value=MAX_INT)
    chat_message = serializers.IntegerField(required=False, min_value=1, max_value=MAX_INT)


class ReportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()


class GameExportSerializer(serializers.Serializer):
    """A whole Bahama Taxi game."""

    game = GameSummarySerializer(help_text="with `seed` once the game is over (H2)")
    entries = EntrySerializer(many=True, help_text="the whole log, from seq 0 (the setup)")


class DigitCodeGameExportSerializer(serializers.Serializer):
    """A whole Digit Code game."""

    game = DigitCodeGameSummarySerializer(help_text="with `seed` once the game is over (G6)")
    entries = DigitCodeEntrySerializer(many=True, help_text="the whole log, from seq 0")
