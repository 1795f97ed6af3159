"""The accounts vocabulary of refusals: stable codes a client can switch on.

Every class renders through `taxi_project.api_errors` as `{"code", "message", ...}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers, status

from taxi_project.api_errors import ApiError, Conflict, Forbidden

if TYPE_CHECKING:
    from taxi_project.api_errors import Message

ACCOUNT_BANNED = "account_banned"
ACCOUNT_SUSPENDED = "account_suspended"
# sign-up or log-in posted from another site's page (accounts/origin.py)
CROSS_ORIGIN_REFUSED = "cross_origin_refused"


def iso_datetime(value: datetime) -> str:
    """As every other datetime in the API renders: ISO 8601, "Z" for UTC."""
    return serializers.DateTimeField().to_representation(value)


@dataclass(frozen=True)
class AccessRefusal:
    """Why moderation refuses an account right now. `until` is set for suspensions only."""

    code: str
    message: str
    until: datetime | None = None


class UsernameTaken(Conflict):
    default_code = "username_taken"
    default_detail = _("That username is already taken.")


class DisplayNameTaken(Conflict):
    # Also when the name only looks like one in use ("Аna" with a Cyrillic "А" for "Ana").
    default_code = "display_name_taken"
    default_detail = _("Another player already has this display name, or one that looks the same.")


class DisplayNameReserved(DisplayNameTaken):
    # A computer opponent's name, in any language, numbered or not ("Computer 2 (strong)",
    # "bot:1"): the same code as a taken name, since to a client it is one.
    default_detail = _("This display name belongs to the computer opponents.")


class InvalidCredentials(ApiError):
    # 400 rather than 401: a 401 must carry WWW-Authenticate, and these endpoints take a form,
    # not a credentials scheme. One message for unknown user and wrong password.
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid_credentials"
    default_detail = _("The username or password is wrong.")


class WrongPassword(ApiError):
    default_code = "wrong_password"
    default_detail = _("The current password is wrong.")


class InvalidPushSubscription(ApiError):
    """A push subscription the server cannot push to: not an https endpoint, a `p256dh` that is
    not a P-256 public key, an `auth` secret that is not 16 bytes, or a service this server has
    no backend for. `errors` says which field (accounts/push.py)."""

    default_code = "invalid_push_subscription"
    default_detail = _("This push subscription cannot be used.")


class PushEndpointRefused(ApiError):
    """A Web Push endpoint the server does not send to: its host is not a public address (a
    loopback, private, link-local or other internal one, a special-use name), does not
    resolve, or is not in PUSH_ALLOWED_HOSTS. One answer for every reason, so that
    registering tells nothing about the server's network (accounts/push_targets.py)."""

    default_code = "push_endpoint_refused"
    default_detail = _("This server does not send pushes to this endpoint's host.")


class AccountRefused(Forbidden):
    """A banned or suspended account: 403 with `account_banned` or `account_suspended`."""

    @classmethod
    def from_refusal(cls, refusal: AccessRefusal) -> AccountRefused:
        extra = {"until": iso_datetime(refusal.until)} if refusal.until is not None else {}
        return cls(refusal.message, code=refusal.code, **extra)


CROSS_ORIGIN_MESSAGE = _("Requests from another site are refused here. Use this site's own page.")


class Code(StrEnum):
    ACCOUNT_BANNED = ACCOUNT_BANNED
    ACCOUNT_SUSPENDED = ACCOUNT_SUSPENDED
    CROSS_ORIGIN_REFUSED = CROSS_ORIGIN_REFUSED
    DISPLAY_NAME_TAKEN = "display_name_taken"
    USERNAME_TAKEN = "username_taken"
    INVALID_CREDENTIALS = "invalid_credentials"
    WRONG_PASSWORD = "wrong_password"
    INVALID_PUSH_SUBSCRIPTION = "invalid_push_subscription"
    PUSH_ENDPOINT_REFUSED = "push_endpoint_refused"


def vocabulary() -> dict[str, tuple[int, Message]]:
    """Every code of this app: (HTTP status, default message)."""
    found: dict[str, tuple[int, Message]] = {
        str(cls.default_code): (cls.status_code, cls.default_detail)
        for cls in (
            UsernameTaken,
            DisplayNameTaken,
            InvalidCredentials,
            WrongPassword,
            InvalidPushSubscription,
            PushEndpointRefused,
        )
    }
    found[Code.CROSS_ORIGIN_REFUSED] = (403, CROSS_ORIGIN_MESSAGE)
    found[Code.ACCOUNT_BANNED] = (403, _("This account is banned."))
    found[Code.ACCOUNT_SUSPENDED] = (403, _("This account is suspended until %(until)s."))
    return found
