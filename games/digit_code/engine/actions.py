"""Actions: what a player or the server can do, and their JSON encoding.

Player actions (P3): `ask {seat, question}` (Q1–Q4), `guess {seat, code: [6 digits]}` (G1).
Server actions: `timeout {seat}` (C1), `zombify {seat}` (a moderator), `resign {seat}` (the
player's own decision, a server action in the log as for Bahama Taxi), `abort {reason}`.

`decode_action` checks shape only (types, fields, a question that exists, six digits) and raises
MalformedAction naming each bad field; whether the action is allowed now (whose turn, a question
not yet asked, a code that keeps B2 and B3, a guess not made before) is the game's business
(IllegalAction).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .errors import MalformedAction
from .questions import Question, decode_question

MAX_REASON = 200
MAX_SEATS = 4


@dataclass(frozen=True, slots=True)
class Ask:
    """Q1–Q4: ask one question not asked before (Q5)."""

    type: ClassVar[str] = "ask"
    seat: int
    question: Question


@dataclass(frozen=True, slots=True)
class Guess:
    """G1: name all six digits."""

    type: ClassVar[str] = "guess"
    seat: int
    code: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat ran out of time: the autopilot plays its turn (C1), or, on its third timed-out
    turn in a row, the seat is made absent and eliminated."""

    type: ClassVar[str] = "timeout"
    seat: int


@dataclass(frozen=True, slots=True)
class Zombify:
    """A moderator makes the seat absent: it is eliminated at once."""

    type: ClassVar[str] = "zombify"
    seat: int


@dataclass(frozen=True, slots=True)
class Resign:
    """The player leaves: the seat is eliminated at once."""

    type: ClassVar[str] = "resign"
    seat: int


@dataclass(frozen=True, slots=True)
class Abort:
    """A moderator ends the game with no result; the code and seed are revealed."""

    type: ClassVar[str] = "abort"
    reason: str


Action = Ask | Guess | Timeout | Zombify | Resign | Abort
PlayerAction = Ask | Guess

ACTION_TYPES: dict[str, type[Action]] = {
    cls.type: cls for cls in (Ask, Guess, Timeout, Zombify, Resign, Abort)
}
PLAYER_ACTIONS = frozenset({"ask", "guess"})
SERVER_ACTIONS = frozenset(ACTION_TYPES) - PLAYER_ACTIONS
#: What a player may submit: the player actions, and `resign`.
CLIENT_ACTIONS = PLAYER_ACTIONS | {"resign"}

_FIELDS: dict[str, tuple[str, ...]] = {
    "ask": ("seat", "question"),
    "guess": ("seat", "code"),
    "timeout": ("seat",),
    "zombify": ("seat",),
    "resign": ("seat",),
    "abort": ("reason",),
}


def _seat(value: object, errors: dict[str, str]) -> int:
    if type(value) is not int or not 0 <= value < MAX_SEATS:
        errors["seat"] = f"a seat number from 0 to {MAX_SEATS - 1}"
        return 0
    return value


def _code(value: object, errors: dict[str, str]) -> tuple[int, ...]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 6
        or any(type(d) is not int or not 0 <= d <= 9 for d in value)
    ):
        errors["code"] = "a list of six digits, each 0 to 9"
        return ()
    return tuple(value)


def decode_action(data: object) -> Action:
    """JSON object → action. Raises MalformedAction naming each bad field."""
    if type(data) is not dict:
        raise MalformedAction(
            "an action is a JSON object with a 'type'",
            errors={"non_field_errors": "expected a JSON object"},
        )
    kind = data.get("type")
    names = _FIELDS.get(kind) if type(kind) is str else None
    if kind is None or names is None:
        raise MalformedAction(
            f"unknown action type {kind!r}",
            # only what a player may send: server-only types are never suggested to clients
            errors={"type": f"one of {', '.join(sorted(CLIENT_ACTIONS))}"},
        )
    errors: dict[str, str] = {}
    for name in data:
        if name != "type" and name not in names:
            errors[str(name)] = "unknown field"
    for name in names:
        if name not in data:
            errors[name] = "this field is required"
    if errors:
        raise MalformedAction(f"malformed {kind} action", errors=errors)
    action: Action
    if kind == "abort":
        reason = data["reason"]
        if not isinstance(reason, str) or not 0 < len(reason) <= MAX_REASON:
            errors["reason"] = f"a text of 1 to {MAX_REASON} characters"
        action = Abort(reason if isinstance(reason, str) else "")
    else:
        seat = _seat(data["seat"], errors)
        if kind == "ask":
            question = decode_question(data["question"])
            if isinstance(question, str):
                errors["question"] = question
                raise MalformedAction(f"malformed {kind} action", errors=errors)
            action = Ask(seat, question)
        elif kind == "guess":
            action = Guess(seat, _code(data["code"], errors))
        elif kind == "timeout":
            action = Timeout(seat)
        elif kind == "zombify":
            action = Zombify(seat)
        else:
            action = Resign(seat)
    if errors:
        raise MalformedAction(f"malformed {kind} action", errors=errors)
    return action


def encode_action(action: Action) -> dict[str, object]:
    """Action → JSON object; decode_action(encode_action(a)) == a."""
    if isinstance(action, Ask):
        return {"type": "ask", "seat": action.seat, "question": action.question.to_json()}
    if isinstance(action, Guess):
        return {"type": "guess", "seat": action.seat, "code": list(action.code)}
    if isinstance(action, Abort):
        return {"type": "abort", "reason": action.reason}
    return {"type": action.type, "seat": action.seat}
