"""Actions: what a player or the server can do, and their JSON encoding.

Every action is a small frozen dataclass with a `type` tag; `encode_action` and `decode_action`
convert to and from the JSON a client sends (`{"type": "step", "seat": 0, "to": "10H"}`).
Decoding checks shape only (types, fields, area ids) and raises MalformedAction; whether the
action is allowed now is the game's business (IllegalAction).

Player actions: step, undo, stop, pickup, decline, pass, turn (a whole turn in one request, T5).
Server actions: timeout (K2), zombify / restore / resign (K3), deadline (D4), abort.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .board import AREA_INDEX
from .errors import MalformedAction

MAX_REASON = 200


@dataclass(frozen=True, slots=True)
class Step:
    type: ClassVar[str] = "step"
    seat: int
    to: str


@dataclass(frozen=True, slots=True)
class Undo:
    type: ClassVar[str] = "undo"
    seat: int


@dataclass(frozen=True, slots=True)
class Stop:
    type: ClassVar[str] = "stop"
    seat: int


@dataclass(frozen=True, slots=True)
class Pickup:
    """Pick up the citizen waiting here who goes to `destination` (T2, T5, P1–P4)."""

    type: ClassVar[str] = "pickup"
    seat: int
    destination: str


@dataclass(frozen=True, slots=True)
class Decline:
    """Pick up no more citizens at this stop; the turn ends (P4)."""

    type: ClassVar[str] = "decline"
    seat: int


@dataclass(frozen=True, slots=True)
class Pass:
    """A blocked taxi passes after its pre-movement pickups (T7)."""

    type: ClassVar[str] = "pass"
    seat: int


@dataclass(frozen=True, slots=True)
class Turn:
    """A whole turn at once (T5 Decision): pre-movement pickups, steps, the stop, pickups.

    All or nothing: if any part is illegal the game is left as it was. Pickups not listed are
    declined. With no steps, the taxi must be blocked (T7) and the turn is passed.
    """

    type: ClassVar[str] = "turn"
    seat: int
    steps: tuple[str, ...]
    pickups: tuple[str, ...] = ()
    pickups_before: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat ran out of time; the autopilot plays its turn (K2)."""

    type: ClassVar[str] = "timeout"
    seat: int


@dataclass(frozen=True, slots=True)
class Zombify:
    """A moderator hands the seat to the autopilot (K3)."""

    type: ClassVar[str] = "zombify"
    seat: int


@dataclass(frozen=True, slots=True)
class Restore:
    """A moderator gives a zombie seat back to its player (K3)."""

    type: ClassVar[str] = "restore"
    seat: int


@dataclass(frozen=True, slots=True)
class Resign:
    """The player leaves; the seat becomes a zombie at once (K3)."""

    type: ClassVar[str] = "resign"
    seat: int


@dataclass(frozen=True, slots=True)
class Deadline:
    """A table's wall-clock deadline passed (D4)."""

    type: ClassVar[str] = "deadline"
    number: int


@dataclass(frozen=True, slots=True)
class Abort:
    """A moderator ends the game with no result."""

    type: ClassVar[str] = "abort"
    reason: str


Action = (
    Step | Undo | Stop | Pickup | Decline | Pass | Turn
    | Timeout | Zombify | Restore | Resign | Deadline | Abort
)  # fmt: skip

ACTION_TYPES: dict[str, type[Action]] = {
    cls.type: cls
    for cls in (
        Step,
        Undo,
        Stop,
        Pickup,
        Decline,
        Pass,
        Turn,
        Timeout,
        Zombify,
        Restore,
        Resign,
        Deadline,
        Abort,
    )
}


PLAYER_ACTIONS = frozenset({"step", "undo", "stop", "pickup", "decline", "pass", "turn"})
SERVER_ACTIONS = frozenset(ACTION_TYPES) - PLAYER_ACTIONS
#: What a player may submit: the player actions, and `resign` (K3: a server action in the log,
#: since the seat's play passes to the autopilot, but the player's own decision).
CLIENT_ACTIONS = PLAYER_ACTIONS | {"resign"}

_AREA_LISTS = {"steps": 7, "pickups": 3, "pickups_before": 3}


# A check returns the value as decoded, and records what is wrong with it in `errors` by field.
# Values are JSON, of any type until checked.


def _check_seat(value: Any, errors: dict[str, str]) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 8:
        errors["seat"] = "a seat number from 0 to 7"
    return value


def _check_area(name: str, value: Any, errors: dict[str, str]) -> Any:
    if not isinstance(value, str) or value not in AREA_INDEX:
        errors[name] = "an area id such as '10H'"
    return value


def _check_areas(name: str, value: Any, errors: dict[str, str]) -> Any:
    most = _AREA_LISTS[name]
    if not isinstance(value, list | tuple) or len(value) > most:
        errors[name] = f"a list of at most {most} area ids"
        return ()
    for item in value:
        if not isinstance(item, str) or item not in AREA_INDEX:
            errors[name] = "a list of area ids such as '10H'"
    return tuple(value)


def _check_number(value: Any, errors: dict[str, str]) -> Any:
    if type(value) is not int or value not in (1, 2):  # not 1.0, not True
        errors["number"] = "1 or 2"
    return value


def _check_reason(value: Any, errors: dict[str, str]) -> Any:
    if not isinstance(value, str) or not 0 < len(value) <= MAX_REASON:
        errors["reason"] = f"a text of 1 to {MAX_REASON} characters"
    return value


_CHECKS: dict[str, Callable[[str, Any, dict[str, str]], Any]] = {
    "seat": lambda name, value, errors: _check_seat(value, errors),
    "to": _check_area,
    "destination": _check_area,
    "steps": _check_areas,
    "pickups": _check_areas,
    "pickups_before": _check_areas,
    "number": lambda name, value, errors: _check_number(value, errors),
    "reason": lambda name, value, errors: _check_reason(value, errors),
}
#: per type: (required fields, optional fields with defaults)
_SHAPES: dict[str, tuple[tuple[str, ...], dict[str, object]]] = {}
for _name, _cls in ACTION_TYPES.items():
    _required = tuple(f.name for f in fields(_cls) if f.default is f.default_factory)
    _optional = {f.name: f.default for f in fields(_cls) if f.name not in _required}
    _SHAPES[_name] = (_required, _optional)


#: The common actions (seat and at most one area) decoded without the general checks; replay
#: decodes every stored action, so this path sets the replay speed. Each is made once, for every
#: seat and area, and shared (they are frozen): decoding looks one up instead of building it, and
#: a game's history holds no object of its own per such entry, so what a process keeps of a game
#: (games/state.py) and the garbage collector walks does not grow with the game's length.
#: type -> (per seat: the action, or per area the action; the area's field; the keys)
_FAST: dict[str, tuple[list[Any], str | None, frozenset[str]]] = {
    "step": (
        [{a: Step(s, a) for a in AREA_INDEX} for s in range(8)],
        "to",
        frozenset({"type", "seat", "to"}),
    ),
    "pickup": (
        [{a: Pickup(s, a) for a in AREA_INDEX} for s in range(8)],
        "destination",
        frozenset({"type", "seat", "destination"}),
    ),
    "stop": ([Stop(s) for s in range(8)], None, frozenset({"type", "seat"})),
    "undo": ([Undo(s) for s in range(8)], None, frozenset({"type", "seat"})),
    "decline": ([Decline(s) for s in range(8)], None, frozenset({"type", "seat"})),
    "pass": ([Pass(s) for s in range(8)], None, frozenset({"type", "seat"})),
}


def decode_action(data: object) -> Action:
    """JSON object → action. Raises MalformedAction naming each bad field."""
    if type(data) is dict:
        kind = data.get("type")
        if type(kind) is str:
            fast = _FAST.get(kind)
            if fast is not None:
                by_seat, area_field, keys = fast
                seat = data.get("seat")
                if type(seat) is int and 0 <= seat < 8 and data.keys() == keys:
                    if area_field is None:
                        action: Action = by_seat[seat]
                        return action
                    area = data[area_field]
                    if type(area) is str and area in AREA_INDEX:
                        action = by_seat[seat][area]
                        return action
    return _decode_checked(data)


def _decode_checked(data: object) -> Action:
    if not isinstance(data, dict):
        raise MalformedAction(
            "an action is a JSON object with a 'type'",
            errors={"non_field_errors": "expected a JSON object"},
        )
    kind = data.get("type")
    if not isinstance(kind, str) or (shape := _SHAPES.get(kind)) is None:
        raise MalformedAction(
            f"unknown action type {kind!r}",
            # only what a player may send: server-only types are never suggested to clients
            errors={"type": f"one of {', '.join(sorted(CLIENT_ACTIONS))}"},
        )
    required, optional = shape
    errors: dict[str, str] = {}
    values: dict[str, Any] = {}
    for name in required:
        if name in data:
            values[name] = _CHECKS[name](name, data[name], errors)
        else:
            errors[name] = "this field is required"
    for name, default in optional.items():
        values[name] = _CHECKS[name](name, data[name], errors) if name in data else default
    for name in data:
        if name != "type" and name not in values and name not in errors:
            errors[name] = "unknown field"
    if errors:
        raise MalformedAction(f"malformed {kind} action", errors=errors)
    return ACTION_TYPES[kind](**values)


def encode_action(action: Action) -> dict[str, object]:
    """Action → JSON object; decode_action(encode_action(a)) == a."""
    data: dict[str, object] = {"type": action.type}
    for f in fields(action):
        value = getattr(action, f.name)
        data[f.name] = list(value) if isinstance(value, tuple) else value
    return data
