"""One error shape for the whole API: `{"code": str, "message": str, ...details}`.

Errors are classes with `status_code` and `default_code`, as in DRF; `exception_handler` turns
every DRF error, and every engine error that reaches a view, into that shape, so a client can
switch on `code` and show `message`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, TypeAlias

import psycopg
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, status

from taxi_project.dbpool import purge_dead_connections

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

    #: A message: a text, or one translated when it is rendered (gettext_lazy)
    Message: TypeAlias = str | _StrPromise

log = logging.getLogger(__name__)

# Django wraps driver errors in its own classes, except where it closes a server-side cursor
# (QuerySet.iterator) after the connection died: there psycopg's own error comes through.
CONNECTION_ERRORS = (OperationalError, InterfaceError, psycopg.OperationalError,
                     psycopg.InterfaceError)  # fmt: skip


class Code(StrEnum):
    """The platform's own codes, and DRF's that reach our clients (its `default_code`s)."""

    BAD_REQUEST = "bad_request"
    INVALID = "invalid"  # field errors in `errors`
    CONFLICT = "conflict"
    ILLEGAL = "illegal"
    PERMISSION_DENIED = "permission_denied"
    NOT_FOUND = "not_found"
    REQUEST_TOO_LARGE = "request_too_large"
    SERVICE_UNAVAILABLE = "service_unavailable"
    THROTTLED = "throttled"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    NOT_AUTHENTICATED = "not_authenticated"
    AUTHENTICATION_FAILED = "authentication_failed"
    PARSE_ERROR = "parse_error"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"


class ApiError(exceptions.APIException):
    """Base for our errors: a code, a message, optional extra fields for the body."""

    status_code: int = status.HTTP_400_BAD_REQUEST
    default_code: str = Code.BAD_REQUEST
    default_detail: Message = _("The request could not be handled.")

    def __init__(
        self, message: Message | None = None, *, code: str | None = None, **extra: object
    ) -> None:
        super().__init__(message or self.default_detail, code or self.default_code)
        self.code = code or self.default_code
        self.message = str(message or self.default_detail)  # in the language active now
        self.extra = extra


class Conflict(ApiError):
    status_code = status.HTTP_409_CONFLICT
    default_code: str = Code.CONFLICT  # subclasses name their own (accounts/errors.py)
    default_detail = _("The request conflicts with the current state.")


class Unprocessable(ApiError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = Code.ILLEGAL
    default_detail = _("The request is well formed but not allowed now.")


class Forbidden(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    default_code = Code.PERMISSION_DENIED
    default_detail = _("You may not do this.")


class NotFound(ApiError):
    status_code = status.HTTP_404_NOT_FOUND
    default_code = Code.NOT_FOUND
    default_detail = _("Not found.")


class RequestTooLarge(ApiError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = Code.REQUEST_TOO_LARGE
    default_detail = _("The request body is larger than the server accepts.")


class ServiceUnavailable(ApiError):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = Code.SERVICE_UNAVAILABLE
    default_detail = _("The service is briefly unavailable; try again in a moment.")


class TooManyRequests(ApiError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = Code.THROTTLED
    default_detail = _("Too many requests; slow down.")


class TooManyConnections(ApiError):
    """A stream or socket over its account's or address's cap (taxi_project/connection_limits.py):
    `per` says which ("account" or "address"), `limit` how many may be open at once."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = Code.TOO_MANY_CONNECTIONS
    default_detail = _("Too many connections are open; close one first.")


_conversions: list[tuple[type[Exception], Callable[[Exception], ApiError]]] = []


def register_conversion(kind: type[Exception], convert: Callable[[Exception], ApiError]) -> None:
    """Have every error of `kind` answered as `convert(error)`: how an app whose errors are
    not `ApiError`s (the engine's) joins the one shape (`games/errors.py` registers its own
    when its app is ready)."""
    _conversions.append((kind, convert))


def as_api_error(exc: Exception) -> Exception:
    for kind, convert in _conversions:
        if isinstance(exc, kind):
            return convert(exc)
    return exc


def vocabulary() -> dict[str, tuple[int, Message]]:
    """Every platform code: (HTTP status, default message); DRF's in DRF's own words."""
    found: dict[str, tuple[int, Message]] = {
        str(cls.default_code): (cls.status_code, cls.default_detail)
        for cls in (ApiError, Conflict, Unprocessable, Forbidden, NotFound, RequestTooLarge,
                    ServiceUnavailable, TooManyRequests, TooManyConnections)
    }  # fmt: skip
    for cls in (exceptions.NotAuthenticated, exceptions.AuthenticationFailed,
                exceptions.ParseError, exceptions.UnsupportedMediaType,
                exceptions.MethodNotAllowed, exceptions.NotAcceptable):  # fmt: skip
        # texts translated when rendered, as ours (the stubs allow any error detail)
        found[cls.default_code] = (cls.status_code, cls.default_detail)  # type: ignore[assignment]
    found[Code.INVALID] = (400, INVALID_MESSAGE)
    return found


INVALID_MESSAGE = _("Some fields are invalid.")


def _body(exc: exceptions.APIException) -> dict:
    if isinstance(exc, ApiError):
        return {"code": exc.code, "message": exc.message, **exc.extra}
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        return {"code": Code.INVALID, "message": str(INVALID_MESSAGE), "errors": detail}
    # DRF's own codes (not_authenticated, permission_denied, not_found, method_not_allowed,
    # parse_error, unsupported_media_type, throttled …) or the code a raiser chose.
    codes = exc.get_codes()
    return {
        "code": codes if isinstance(codes, str) else exc.default_code,
        "message": str(exc.detail),
    }


def body_for(exc: Exception) -> dict:
    """The error body for any refusal, for callers outside DRF views (WebSocket frames)."""
    # a refusal: a DRF error, or one that a registered conversion turns into an ApiError
    return _body(as_api_error(exc))  # type: ignore[arg-type]


def exception_handler(exc, context):
    # imported here: rest_framework.views loads the authentication classes, which use ApiError
    from rest_framework.views import exception_handler as drf_exception_handler

    exc = as_api_error(exc)
    if isinstance(exc, Http404):
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
