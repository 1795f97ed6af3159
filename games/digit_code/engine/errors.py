"""Every way the Digit Code engine refuses something, as stable codes a client can switch on.

The same shape as Bahama Taxi's (games/engine/errors.py): malformed input and illegal actions
are different classes; each illegal action names the RULES-digit-code.md clause it breaks. The
codes shared with Bahama Taxi have the same names. No message ever holds the code or the seed
(G6): a refusal speaks only of what the player sent.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    # malformed input
    MALFORMED_ACTION = "malformed_action"
    INVALID_OPTIONS = "invalid_options"
    # setup
    INVALID_PLAYERS = "invalid_players"
    UNSUPPORTED_RULES_VERSION = "unsupported_rules_version"
    # illegal actions
    GAME_OVER = "game_over"
    NO_SUCH_SEAT = "no_such_seat"
    NOT_YOUR_TURN = "not_your_turn"
    SEAT_ELIMINATED = "seat_eliminated"
    QUESTION_ALREADY_ASKED = "question_already_asked"
    IMPOSSIBLE_CODE = "impossible_code"
    GUESS_REPEATED = "guess_repeated"
    ALREADY_ZOMBIE = "already_zombie"


class EngineError(Exception):
    """Base of every refusal. `code` is stable; `message` is for people."""

    code: Code

    def __init__(self, code: Code, message: str, *, clause: str | None = None):
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

    def __init__(self, message: str, *, errors: dict[str, str] | None = None):
        super().__init__(Code.MALFORMED_ACTION, message)
        self.errors = errors or {}

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": self.errors}


class InvalidSetup(EngineError):
    """A game cannot be created with these options or this number of players."""


class IllegalAction(EngineError):
    """A well-formed action the rules forbid in this state."""
