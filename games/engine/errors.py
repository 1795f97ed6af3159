"""Every way the engine refuses something, as stable codes a client can switch on.

Malformed input (not a well-formed action or option set) and illegal actions (well formed, but
the rules forbid it now) are different exception classes, as in python-chess. Each illegal action
names the RULES.md clause it breaks.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    # malformed input
    MALFORMED_ACTION = "malformed_action"
    INVALID_OPTIONS = "invalid_options"
    # setup
    INVALID_PLAYERS = "invalid_players"
    PICKUP_BEFORE_MOVEMENT_REQUIRED = "pickup_before_movement_required"
    UNSUPPORTED_RULES_VERSION = "unsupported_rules_version"
    # illegal actions
    GAME_OVER = "game_over"
    NO_SUCH_SEAT = "no_such_seat"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_ADJACENT = "not_adjacent"
    AREA_OCCUPIED = "area_occupied"
    START_AREA = "start_area"
    ALLOWANCE_EXCEEDED = "allowance_exceeded"
    STEP_REQUIRED = "step_required"
    MOVEMENT_OVER = "movement_over"
    NOTHING_TO_UNDO = "nothing_to_undo"
    UNDO_LIMIT = "undo_limit"
    NO_SUCH_CITIZEN = "no_such_citizen"
    PICKUP_NOT_ALLOWED = "pickup_not_allowed"
    NOT_PICKING_UP = "not_picking_up"
    NOT_BLOCKED = "not_blocked"
    DEADLINE_ALREADY_REACHED = "deadline_already_reached"
    ALREADY_ZOMBIE = "already_zombie"
    NOT_ZOMBIE = "not_zombie"


class EngineError(Exception):
    """Base of every refusal. `code` is stable; `message` is for people."""

    code: Code

    def __init__(self, code: Code, message: str, *, clause: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.clause = clause

    def as_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"code": str(self.code), "message": self.message}
        if self.clause:
            body["clause"] = self.clause
        return body


class MalformedAction(EngineError):
    """The input is not an action at all: unknown type, missing or extra field, wrong type."""

    def __init__(self, message: str, *, errors: dict[str, str] | None = None) -> None:
        super().__init__(Code.MALFORMED_ACTION, message)
        self.errors = errors or {}

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": self.errors}


class InvalidSetup(EngineError):
    """A game cannot be created with these options or this number of players."""


class IllegalAction(EngineError):
    """A well-formed action the rules forbid in this state."""
