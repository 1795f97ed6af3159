"""One error shape for the whole API: `{"code": str, "message": str, ...details}`.

Errors are classes with `status_code` and `default_code`, as in DRF; `exception_handler` turns
every DRF error, and every engine error that reaches a view, into that shape, so a client can
switch on `code` and show `message`.
"""

from __future__ import annotations

import logging

import psycopg
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, status

from games.engine import EngineError, IllegalAction, InvalidSetup, MalformedAction
from taxi_project.dbpool import purge_dead_connections

log = logging.getLogger(__name__)

# Django wraps driver errors in its own classes, except where it closes a server-side cursor
# (QuerySet.iterator) after the connection died: there psycopg's own error comes through.
CONNECTION_ERRORS = (OperationalError, InterfaceError, psycopg.OperationalError,
                     psycopg.InterfaceError)  # fmt: skip


class ApiError(exceptions.APIException):
    """Base for our errors: a code, a message, optional extra fields for the body."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "bad_request"
    default_detail = _("The request could not be handled.")

    def __init__(self, message: str | None = None, *, code: str | None = None, **extra):
        super().__init__(message or self.default_detail, code or self.default_code)
        self.code = code or self.default_code
        self.message = str(message or self.default_detail)  # in the language active now
        self.extra = extra


class Conflict(ApiError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = _("The request conflicts with the current state.")


class Unprocessable(ApiError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "illegal"
    default_detail = _("The request is well formed but not allowed now.")


class Forbidden(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "permission_denied"
    default_detail = _("You may not do this.")


class NotFound(ApiError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "not_found"
    default_detail = _("Not found.")


class RequestTooLarge(ApiError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"
    default_detail = "The request body is larger than the server accepts."


class ServiceUnavailable(ApiError):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "service_unavailable"
    default_detail = "The service is briefly unavailable; try again in a moment."


class TooManyRequests(ApiError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "throttled"
    default_detail = _("Too many requests; slow down.")


# The engine speaks English only (it knows no Django): its refusals in other languages are
# these sentences, chosen by code (and, where one code covers several rules, by clause).
ENGINE_MESSAGES = {
    "malformed_action": _("This is not a well-formed action."),
    "invalid_options": _("These table options are not valid."),
    "invalid_players": _("A game has 2 to 8 players."),
    "pickup_before_movement_required": _(
        "5 to 8 players need the option “pickup before movement”."
    ),
    "unsupported_rules_version": _("This version of the rules is not supported."),
    "game_over": _("The game is over."),
    "no_such_seat": _("This game has no such seat."),
    "not_your_turn": _("It is not your turn."),
    "not_adjacent": _("The taxi can only move to a neighbouring area."),
    "area_occupied": _("Another taxi is on that area."),
    "start_area": _("The taxi cannot go back to the area where it began this turn."),
    "allowance_exceeded": _("No steps are left this turn."),
    "step_required": _("The first step of a turn is mandatory."),
    "movement_over": _("The taxi has already stopped this turn."),
    "nothing_to_undo": _("There is no step to take back."),
    "undo_limit": _("At most 5 steps can be taken back per turn."),
    "no_such_citizen": _("No citizen waits here to go there."),
    "pickup_not_allowed": _("This pickup is not allowed now."),
    "not_picking_up": _("There is nothing to decline before the stop."),
    "not_blocked": _("The taxi can move, so it cannot pass."),
    "deadline_already_reached": _("This deadline has already been reached."),
    "already_zombie": _("The autopilot already plays this seat."),
    "not_zombie": _("This seat is not played by the autopilot."),
}
PICKUP_MESSAGES = {
    "P1": _("A taxi carries at most 3 passengers."),
    "P2": _("Once the draw pile is exhausted, a taxi with 2 passengers cannot pick up a third."),
    "P3": _("While at most 4 citizens are waiting, only an empty taxi may pick up."),
    "T2": _("A pickup before movement is no longer possible this turn."),
    "T5": _("Pickups happen at the stop."),
}


def engine_message(error: EngineError) -> str:
    """The refusal in the active language. English keeps the engine's own sentence, which
    names the areas and numbers involved."""
    if (translation.get_language() or "en").split("-")[0] == "en":
        return error.message
    code = str(error.code)
    if code == "pickup_not_allowed" and error.clause in PICKUP_MESSAGES:
        return str(PICKUP_MESSAGES[error.clause])
    return str(ENGINE_MESSAGES.get(code, error.message))


def engine_error(error: EngineError) -> ApiError:
    """Engine refusals: malformed → 400 with field errors, setup → 400, illegal → 422."""
    message = engine_message(error)
    if isinstance(error, MalformedAction):
        return ApiError(message, code=str(error.code), errors=error.errors)
    if isinstance(error, InvalidSetup):
        return ApiError(message, code=str(error.code))
    if isinstance(error, IllegalAction):
        extra = {"clause": error.clause} if error.clause else {}
        return Unprocessable(message, code=str(error.code), **extra)
    return ApiError(message, code=str(error.code))


def _body(exc: exceptions.APIException) -> dict:
    if isinstance(exc, ApiError):
        return {"code": exc.code, "message": exc.message, **exc.extra}
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        return {"code": "invalid", "message": gettext("Some fields are invalid."), "errors": detail}
    # DRF's own codes (not_authenticated, permission_denied, not_found, method_not_allowed,
    # parse_error, unsupported_media_type, throttled …) or the code a raiser chose.
    codes = exc.get_codes()
    return {
        "code": codes if isinstance(codes, str) else exc.default_code,
        "message": str(exc.detail),
    }


def body_for(exc: Exception) -> dict:
    """The error body for any refusal, for callers outside DRF views (WebSocket frames)."""
    if isinstance(exc, EngineError):
        exc = engine_error(exc)
    return _body(exc)


def exception_handler(exc, context):
    # imported here: rest_framework.views loads the authentication classes, which use ApiError
    from rest_framework.views import exception_handler as drf_exception_handler

    if isinstance(exc, EngineError):
        exc = engine_error(exc)
    elif isinstance(exc, Http404):
        exc = NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = Forbidden()
    elif isinstance(exc, RequestDataTooBig):  # over DATA_UPLOAD_MAX_MEMORY_SIZE
        exc = RequestTooLarge()
    elif isinstance(exc, CONNECTION_ERRORS):
        # The database connection failed (a restart, a failover, a dropped connection). If
        # the move was written or not, a retry with the same idempotency key is safe (applied
        # once, or answered with the first answer): say "retry" rather than a bare 500.
        log.warning("database unavailable: %s", exc)
        purge_dead_connections()
        exc = ServiceUnavailable()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    response.data = _body(exc)
    if isinstance(exc, ServiceUnavailable):
        response["Retry-After"] = "1"
    return response
