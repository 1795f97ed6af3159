"""The games vocabulary of refusals: every stable code a client can switch on, with its class.

Each class carries its HTTP status, its code and a default message (in the active language);
a raiser may give a more precise message (with the numbers involved). The engine's own codes
(each game's `Code`) are translated here too (`engine_error`): the engines speak English only.
Every code renders through `taxi_project.api_errors` as `{"code", "message", ...}`, over HTTP
and in WebSocket error frames alike; docs/errors.md lists them all.
"""

from __future__ import annotations

from enum import StrEnum

from django.utils import translation
from django.utils.translation import gettext_lazy as _

from games import registry
from games.registry import GameKind
from taxi_project.api_errors import (
    ApiError,
    Conflict,
    Forbidden,
    NotFound,
    TooManyRequests,
    Unprocessable,
    register_conversion,
)


class Code(StrEnum):
    GAME_NOT_FOUND = "game_not_found"
    TABLE_NOT_OPEN = "table_not_open"
    ALREADY_SEATED = "already_seated"
    NOT_SEATED = "not_seated"
    NOT_CREATOR = "not_creator"
    INVALID_DEADLINES = "invalid_deadlines"
    GAME_NOT_STARTED = "game_not_started"
    GAME_NOT_RUNNING = "game_not_running"
    NOT_A_PLAYER = "not_a_player"
    STALE_VERSION = "stale_version"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    SERVER_ACTION = "server_action"
    NOT_YOUR_SEAT = "not_your_seat"
    INVALID_CHAT_MESSAGE = "invalid_chat_message"
    CHAT_RATE_LIMITED = "chat_rate_limited"
    MESSAGE_NOT_FOUND = "message_not_found"
    REASON_REQUIRED = "reason_required"
    USER_NOT_FOUND = "user_not_found"
    PLAYER_NOT_FOUND = "player_not_found"
    INVALID_UNTIL = "invalid_until"
    SUPERUSER = "superuser"
    REPORT_TARGET_REQUIRED = "report_target_required"
    REPORT_SELF = "report_self"
    REPORT_NOT_FOUND = "report_not_found"
    REPORT_CLOSED = "report_closed"
    REPORT_NOT_ALLOWED = "report_not_allowed"
    REPORT_DUPLICATE = "report_duplicate"
    REPORT_RATE_LIMITED = "report_rate_limited"
    TOO_MANY_TABLES = "too_many_tables"
    INVALID_BOT_LEVEL = "invalid_bot_level"
    NOTES_NOT_OFFERED = "notes_not_offered"
    # WebSocket frames
    MALFORMED_FRAME = "malformed_frame"
    UNKNOWN_FRAME = "unknown_frame"
    INVALID_SYNC = "invalid_sync"
    LOGIN_REQUIRED = "not_authenticated"


class GameNotFound(NotFound):
    default_code = Code.GAME_NOT_FOUND
    default_detail = _("No such game.")


class TableNotOpen(Conflict):
    default_code = Code.TABLE_NOT_OPEN
    default_detail = _("This table is no longer open.")


class AlreadySeated(Conflict):
    default_code = Code.ALREADY_SEATED
    default_detail = _("You already sit at this table.")


class NotSeated(Conflict):
    default_code = Code.NOT_SEATED
    default_detail = _("You do not sit at this table.")


class NotCreator(Forbidden):
    default_code = Code.NOT_CREATOR
    default_detail = _("Only the table's creator can cancel it.")


class InvalidDeadlines(ApiError):
    default_code = Code.INVALID_DEADLINES
    default_detail = _("The 2nd deadline cannot come before the 1st.")


class InvalidBotLevel(ApiError):
    """A computer opponent's level that this game's bots do not have (`levels`: theirs)."""

    default_code = Code.INVALID_BOT_LEVEL
    default_detail = _("This game's computer opponents have no such level.")


class GameNotStarted(Conflict):
    default_code = Code.GAME_NOT_STARTED
    default_detail = _("The game has not started.")


class GameNotRunning(Conflict):
    default_code = Code.GAME_NOT_RUNNING
    default_detail = _("The game is not running.")


class NotAPlayer(Forbidden):
    default_code = Code.NOT_A_PLAYER
    default_detail = _("You do not play in this game.")


class NotesNotOffered(NotFound):
    """The game keeps no private notes (its registration has no `notes`)."""

    default_code = Code.NOTES_NOT_OFFERED
    default_detail = _("This game keeps no private notes.")


class StaleVersion(Conflict):
    """Carries `current_version`, the game's version now, when known."""

    default_code = Code.STALE_VERSION
    default_detail = _("Another action was accepted first.")

    @classmethod
    def at(cls, current: int, sent: int) -> StaleVersion:
        message = _("The game is at version %(current)s, not %(sent)s.")
        return cls(message % {"current": current, "sent": sent}, current_version=current)


class IdempotencyKeyReused(Conflict):
    default_code = Code.IDEMPOTENCY_KEY_REUSED
    default_detail = _("This idempotency key was used for another action.")


class ServerActionRefused(Forbidden):
    default_code = Code.SERVER_ACTION
    default_detail = _("Only the server can take this action.")


class NotYourSeat(Forbidden):
    default_code = Code.NOT_YOUR_SEAT
    default_detail = _("You can only act for your own seat.")


class InvalidChatMessage(ApiError):
    default_code = Code.INVALID_CHAT_MESSAGE
    default_detail = _("A message is 1 to %(max)s printable characters.")


class ChatRateLimited(TooManyRequests):
    default_code = Code.CHAT_RATE_LIMITED
    default_detail = _("Too many messages; wait a few seconds.")


class MessageNotFound(NotFound):
    default_code = Code.MESSAGE_NOT_FOUND
    default_detail = _("No such message.")


class ReasonRequired(ApiError):
    default_code = Code.REASON_REQUIRED
    default_detail = _("Give a reason of 1 to %(max)s characters.")


class UserNotFound(NotFound):
    default_code = Code.USER_NOT_FOUND
    default_detail = _("No such user.")


class PlayerNotFound(NotFound):
    default_code = Code.PLAYER_NOT_FOUND
    default_detail = _("No such player in this game.")


class InvalidUntil(ApiError):
    default_code = Code.INVALID_UNTIL
    default_detail = _("A suspension ends in the future.")


class SuperuserNotModerated(Forbidden):
    default_code = Code.SUPERUSER
    default_detail = _("Superusers are not moderated here.")


class ReportTargetRequired(ApiError):
    default_code = Code.REPORT_TARGET_REQUIRED
    default_detail = _("Say whom or which message you report.")


class ReportSelf(ApiError):
    default_code = Code.REPORT_SELF
    default_detail = _("You cannot report yourself.")


class ReportNotFound(NotFound):
    default_code = Code.REPORT_NOT_FOUND
    default_detail = _("No such report.")


class ReportClosed(Conflict):
    default_code = Code.REPORT_CLOSED
    default_detail = _("This report is already closed.")


class ReportNotAllowed(Forbidden):
    default_code = Code.REPORT_NOT_ALLOWED
    default_detail = _("Only the players and spectators of a game can report from it.")


class ReportDuplicate(Conflict):
    default_code = Code.REPORT_DUPLICATE
    default_detail = _("You have already reported this.")


class ReportRateLimited(TooManyRequests):
    default_code = Code.REPORT_RATE_LIMITED
    default_detail = _("Too many reports; try again later.")


class TooManyTables(Conflict):
    """The account's cap on tables (`limit`, and `of`: `open`, the tables it opened that
    wait for players, or `unfinished`, every table it sits at that has not ended)."""

    default_code = Code.TOO_MANY_TABLES
    default_detail = _("You are at too many tables; finish, leave or cancel one first.")


class MalformedFrame(ApiError):
    default_code = Code.MALFORMED_FRAME
    default_detail = _("A frame is an object with a type.")


class UnknownFrame(ApiError):
    default_code = Code.UNKNOWN_FRAME
    default_detail = _("Unknown frame type %(type)s.")


class InvalidSync(ApiError):
    default_code = Code.INVALID_SYNC
    default_detail = _("`after` is the last seq you have, or -1 for all.")


class LoginRequired(ApiError):
    """A spectator's socket asked to play or chat."""

    status_code = 401
    default_code = Code.LOGIN_REQUIRED
    default_detail = _("Log in to play.")


# The engines speak English only (they know no Django): their refusals in other languages are
# the sentences of each game's registration (`GameKind.error_messages`), chosen by code (and,
# where one code covers several rules, by clause: `GameKind.clause_messages`).


def _kind_of(error: Exception) -> GameKind:
    """The game whose engine raised `error`."""
    return next(kind for kind in registry.all() if isinstance(error, kind.engine.EngineError))


def engine_message(error) -> str:
    """The refusal in the active language. English keeps the engine's own sentence, which
    names the areas and numbers involved."""
    if (translation.get_language() or "en").split("-")[0] == "en":
        return error.message
    kind = _kind_of(error)
    by_clause = kind.clause_messages.get((str(error.code), error.clause or ""))
    if by_clause is not None:
        return str(by_clause)
    return str(kind.error_messages.get(str(error.code), error.message))


def engine_error(error) -> ApiError:
    """Engine refusals: malformed → 400 with field errors, setup → 400, illegal → 422."""
    message = engine_message(error)
    engine = _kind_of(error).engine
    if isinstance(error, engine.MalformedAction):
        return ApiError(message, code=str(error.code), errors=error.errors)
    if isinstance(error, engine.InvalidSetup):
        return ApiError(message, code=str(error.code))
    if isinstance(error, engine.IllegalAction):
        extra = {"clause": error.clause} if error.clause else {}
        return Unprocessable(message, code=str(error.code), **extra)
    return ApiError(message, code=str(error.code))


for _game in registry.all():
    register_conversion(_game.engine.EngineError, engine_error)


def engine_codes() -> dict[str, tuple[int, str]]:
    """Every engine's codes (the first game's message where two share a code): (HTTP status,
    default message)."""
    found: dict[str, tuple[int, str]] = {}
    for kind in registry.all():
        for code, message in kind.error_messages.items():
            status = 400 if code in SETUP_OR_MALFORMED else 422
            found.setdefault(str(code), (status, message))
    return found


SETUP_OR_MALFORMED = frozenset(
    {"malformed_action", "invalid_options", "invalid_players", "pickup_before_movement_required",
     "unsupported_rules_version"}
)  # fmt: skip


def vocabulary() -> dict[str, tuple[int, str]]:
    """Every code of this app and of the engine: (HTTP status, default message)."""
    found = {
        str(cls.default_code): (cls.status_code, cls.default_detail)
        for cls in _subclasses(ApiError)
        if cls.__module__ == __name__
    }
    for code, found_here in engine_codes().items():
        found.setdefault(code, found_here)
    return found


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)
