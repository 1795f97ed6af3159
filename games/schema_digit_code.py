"""Digit Code's part of the typed OpenAPI contract (RULES-digit-code.md): its questions, actions,
offers, notifications, view and result, described for drf-spectacular only, as games/schema.py
describes Bahama Taxi's. Every component is named `DigitCode…` but those the platform shares
with Bahama Taxi (`ResignAction`, `TimeoutAction`, `ZombifyAction`, `AbortAction`,
`TurnEndedNotification`, `TurnTimedOutNotification`, `SeatZombifiedNotification`): the same
shape in both games' log. tests/api/test_schema_digit_code.py checks them against the engine
and against what the API sends."""

from __future__ import annotations

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from games import registry
from games.schema import (
    LOGGED_ACTIONS,
    NOTIFICATIONS,
    PLAYER_ACTIONS,
    VIEW_STATUSES,
    named_component,
    tag_field,
    union_field,
)

_DIGIT_CODE = registry.get("digit-code")
_QUESTIONS = [question.to_json() for question in _DIGIT_CODE.engine.QUESTIONS]
KEY = _DIGIT_CODE.key
MAX_SEAT = _DIGIT_CODE.max_players - 1


def _dc_seat(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=MAX_SEAT, **kwargs)


def _values(kind: str, name: str) -> list:
    """The values `name` takes in the questions of `kind` (the engine's 64, Q1–Q4)."""
    return sorted({q[name] for q in _QUESTIONS if q["kind"] == kind})


#: the choices of the questions' `line` and `segment` (their enums' names: settings.py)
LINES = _values("count", "line")
SEGMENTS = _values("led", "segment")

_POSITION_HELP = "a position, 1–3 the top row left to right, 4–6 the bottom row (B1)"
_SEAT_HELP = "your seat; may be left out when you send it (the server fills in yours)"


def _digits(**kwargs) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=9), min_length=6, max_length=6,
        **kwargs,
    )  # fmt: skip


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 0, "maximum": 4},
            {"type": "string", "enum": ["odd", "even", "greater", "less", "lit", "unlit"]},
        ],
        "description": "B7: `count` an integer 0–4; `parity` odd or even; `compare` greater or "
        "less; `led` lit or unlit",
    }
)
class AnswerField(serializers.Field):
    pass


# ---------------------------------------------------------------------------------- questions

QUESTION_KINDS: dict[str, type] = {
    "count": named_component(
        "DigitCodeCountQuestion",
        "Q1: how many LEDs of a LED row or column (B5) the code lights.",
        {
            "kind": tag_field("count"),
            "line": serializers.ChoiceField(choices=LINES),
            "index": serializers.ChoiceField(choices=_values("count", "index")),
        },
    ),
    "parity": named_component(
        "DigitCodeParityQuestion",
        "Q2: is the digit at a position odd or even (0 is even).",
        {
            "kind": tag_field("parity"),
            "position": serializers.ChoiceField(
                choices=_values("parity", "position"), help_text=_POSITION_HELP
            ),
        },
    ),
    "compare": named_component(
        "DigitCodeCompareQuestion",
        "Q3: is the digit at a position greater or less than the one to its left.",
        {
            "kind": tag_field("compare"),
            "position": serializers.ChoiceField(
                choices=_values("compare", "position"), help_text="a position with a left neighbour"
            ),
        },
    ),
    "led": named_component(
        "DigitCodeLedQuestion",
        "Q4: is one LED (B4: `a` top … `g` middle) of a position lit.",
        {
            "kind": tag_field("led"),
            "position": serializers.ChoiceField(
                choices=_values("led", "position"), help_text=_POSITION_HELP
            ),
            "segment": serializers.ChoiceField(choices=SEGMENTS),
        },
    ),
}


def question_field(**kwargs):
    return union_field("DigitCodeQuestion", QUESTION_KINDS, by="kind", **kwargs)


# ---------------------------------------------------------------------------------- actions

AskAction = named_component(
    "DigitCodeAskAction",
    "Ask one question not asked before (Q1–Q5); its answer is public. Example: "
    '`{"type": "ask", "question": {"kind": "parity", "position": 2}}`.',
    {
        "type": tag_field("ask"),
        "seat": _dc_seat(required=False, help_text=_SEAT_HELP),
        "question": question_field(),
    },
)
GuessAction = named_component(
    "DigitCodeGuessAction",
    "Guess the code, all six digits, position 1 first (G1): a right guess wins (G2), a "
    "second wrong one eliminates (G3). Example: "
    '`{"type": "guess", "code": [0, 1, 0, 1, 2, 3]}`.',
    {"type": tag_field("guess"), "seat": _dc_seat(required=False), "code": _digits()},
)

#: What a player may send (the engine's `CLIENT_ACTIONS`).
PLAYER: dict[str, type] = {
    "ask": AskAction,
    "guess": GuessAction,
    "resign": PLAYER_ACTIONS["resign"],
}
#: What the log may hold (the engine's `ACTION_TYPES`): the above and the server's own.
LOGGED: dict[str, type] = {
    **PLAYER,
    "timeout": LOGGED_ACTIONS["timeout"],
    "zombify": LOGGED_ACTIONS["zombify"],
    "abort": LOGGED_ACTIONS["abort"],
}

AskOffer = named_component(
    "DigitCodeAskOffer",
    "On your turn, while any is left: the questions you may ask (send one as an "
    "`ask` action's `question`).",
    {"type": tag_field("ask"), "seat": _dc_seat(), "questions": question_field(many=True)},
)
GuessOffer = named_component(
    "DigitCodeGuessOffer",
    "On your turn: you may guess (send `guess` with `code`, six digits).",
    {"type": tag_field("guess"), "seat": _dc_seat()},
)
#: What a seat is offered (`Game.offered_actions`): offers, not whole actions.
OFFERS: dict[str, type] = {"ask": AskOffer, "guess": GuessOffer, "resign": PLAYER_ACTIONS["resign"]}


def player_action_union() -> PolymorphicProxySerializer:
    return PolymorphicProxySerializer(
        component_name="DigitCodePlayerAction", serializers=PLAYER, resource_type_field_name="type"
    )


def logged_action_field(**kwargs):
    return union_field("DigitCodeLoggedAction", LOGGED, **kwargs)


def offers_field(**kwargs):
    return union_field("DigitCodeOffer", OFFERS, many=True, **kwargs)


# ---------------------------------------------------------------------------------- notifications


def _note(kind: str, doc: str, **fields) -> type:
    name = "DigitCode" + "".join(part.title() for part in kind.split("_")) + "Notification"
    return named_component(name, doc, {"type": tag_field(kind), **fields})


_StartingSeat = named_component(
    "DigitCodeStartingSeat",
    "A seat at the start; `player`: the join order of its player (B6).",
    {"seat": _dc_seat(), "player": serializers.IntegerField()},
)
_RANKING = serializers.ListField(child=serializers.ListField(child=_dc_seat()))

NOTIFICATIONS_OF_DIGIT_CODE: dict[str, type] = {
    "game_started": _note(
        "game_started",
        "Once, after setup (B6): the seats and the seed's commitment.",
        rules_version=serializers.CharField(),
        seats=_StartingSeat(many=True),
        commitment=serializers.CharField(help_text='hex SHA-256 of "digit-code-seed:<seed>"'),
    ),
    "turn_started": _note("turn_started", "Each turn (P2).", seat=_dc_seat()),
    "question_asked": _note(
        "question_asked",
        "A question and its public answer (Q1–Q4).",
        seat=_dc_seat(),
        question=question_field(),
        answer=AnswerField(),
    ),
    "guess_made": _note(
        "guess_made",
        "A guess (G1); `wrong_guesses`: the player's count after it.",
        seat=_dc_seat(),
        code=_digits(),
        correct=serializers.BooleanField(),
        wrong_guesses=serializers.IntegerField(),
    ),
    "player_eliminated": _note(
        "player_eliminated", "The seat is out of the game (G3, or it left).", seat=_dc_seat()
    ),
    "turn_ended": NOTIFICATIONS["turn_ended"],
    "game_ended": _note(
        "game_ended",
        "Once, at the end (G2, G4, G5): the winner (null: none), the ranking, and the code and "
        "seed revealed (G6).",
        winner=_dc_seat(allow_null=True),
        ranking=_RANKING,
        code=_digits(),
        seed=serializers.CharField(help_text="decimal"),
    ),
    "turn_timed_out": NOTIFICATIONS["turn_timed_out"],
    "seat_zombified": NOTIFICATIONS["seat_zombified"],
    "game_aborted": _note(
        "game_aborted",
        "A moderator ended the game with no result; the code and seed are revealed.",
        reason=serializers.CharField(),
        code=_digits(),
        seed=serializers.CharField(help_text="decimal"),
    ),
}


def notifications_field(**kwargs):
    return union_field("DigitCodeNotification", NOTIFICATIONS_OF_DIGIT_CODE, many=True, **kwargs)


# ---------------------------------------------------------------------------------- the view


@extend_schema_field(
    {"type": "object", "properties": {}, "maxProperties": 0, "description": "no options: `{}`"}
)
class OptionsField(serializers.DictField):
    """Digit Code has no table options (P1): always `{}`."""


class DigitCodeResultSerializer(serializers.Serializer):
    """G5: the winner (null if every player was eliminated) and the ranking (seats per rank,
    best first)."""

    winner = _dc_seat(allow_null=True)
    ranking = serializers.ListField(child=serializers.ListField(child=_dc_seat()))


class DigitCodeViewSeatSerializer(serializers.Serializer):
    seat = _dc_seat()
    player = serializers.IntegerField(help_text="join order of the seat's player")
    wrong_guesses = serializers.IntegerField()
    eliminated = serializers.BooleanField()
    zombie = serializers.BooleanField(help_text="left the game: resigned or absent")
    timeouts = serializers.IntegerField(help_text="timed-out turns in a row")


class DigitCodeAnsweredSerializer(serializers.Serializer):
    seat = _dc_seat()
    question = question_field()
    answer = AnswerField()


class DigitCodeGuessedSerializer(serializers.Serializer):
    seat = _dc_seat()
    code = _digits()
    correct = serializers.BooleanField()


class DigitCodeViewSerializer(serializers.Serializer):
    """Digit Code's view of a game for you (G6: every question, answer and guess; the code
    and the seed only once the game is over)."""

    rules_version = serializers.CharField()
    options = OptionsField()
    players = serializers.IntegerField()
    status = serializers.ChoiceField(choices=VIEW_STATUSES)
    seed_commitment = serializers.CharField(
        help_text='B6: hex SHA-256 of the UTF-8 text "digit-code-seed:<seed>" (seed in decimal)'
    )
    turn = serializers.IntegerField(help_text="turns begun so far")
    active_seat = _dc_seat(allow_null=True, help_text="null once over")
    seats = DigitCodeViewSeatSerializer(many=True)
    questions = DigitCodeAnsweredSerializer(many=True, help_text="in the order asked")
    questions_left = serializers.IntegerField()
    guesses = DigitCodeGuessedSerializer(many=True, help_text="in the order made")
    eliminations = serializers.ListField(child=_dc_seat(), help_text="seats, in that order")
    result = DigitCodeResultSerializer(allow_null=True)
    abort_reason = serializers.CharField(allow_null=True)
    code = _digits(required=False, help_text="G6: revealed once the game is over")
    seed = serializers.CharField(
        required=False, help_text="G6: revealed once the game is over (decimal)"
    )
    you = _dc_seat(allow_null=True, help_text="your seat; null for a spectator")
    legal_actions = offers_field(
        help_text="what you may do now: on your turn `ask` (the questions left) and `guess`, "
        "and `resign` while your seat has not left (empty for spectators and once over)"
    )
