"""One error shape for the whole API: `{"code": str, "message": str, ...details}`.

Errors are classes with `status_code` and `default_code`, as in DRF; `exception_handler` turns
every DRF error, and every engine error that reaches a view, into that shape, so a client can
switch on `code` and show `message`.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status

from games.engine import EngineError, IllegalAction, InvalidSetup, MalformedAction


class ApiError(exceptions.APIException):
    """Base for our errors: a code, a message, optional extra fields for the body."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "bad_request"
    default_detail = "The request could not be handled."

    def __init__(self, message: str | None = None, *, code: str | None = None, **extra):
        super().__init__(message or self.default_detail, code or self.default_code)
        self.code = code or self.default_code
        self.message = message or str(self.default_detail)
        self.extra = extra


class Conflict(ApiError):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."


class Unprocessable(ApiError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "illegal"
    default_detail = "The request is well formed but not allowed now."


class Forbidden(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = "permission_denied"
    default_detail = "You may not do this."


class NotFound(ApiError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = "not_found"
    default_detail = "Not found."


class RequestTooLarge(ApiError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"
    default_detail = "The request body is larger than the server accepts."


class TooManyRequests(ApiError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "throttled"
    default_detail = "Too many requests; slow down."


def engine_error(error: EngineError) -> ApiError:
    """Engine refusals: malformed → 400 with field errors, setup → 400, illegal → 422."""
    if isinstance(error, MalformedAction):
        return ApiError(error.message, code=str(error.code), errors=error.errors)
    if isinstance(error, InvalidSetup):
        return ApiError(error.message, code=str(error.code))
    if isinstance(error, IllegalAction):
        extra = {"clause": error.clause} if error.clause else {}
        return Unprocessable(error.message, code=str(error.code), **extra)
    return ApiError(error.message, code=str(error.code))


def _body(exc: exceptions.APIException) -> dict:
    if isinstance(exc, ApiError):
        return {"code": exc.code, "message": exc.message, **exc.extra}
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        return {"code": "invalid", "message": "Some fields are invalid.", "errors": detail}
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
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    response.data = _body(exc)
    return response
