"""Read paths for accounts: who a set of credentials names, and whether moderation refuses them."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import authenticate
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.request import Request

from accounts.errors import (
    ACCOUNT_BANNED,
    ACCOUNT_SUSPENDED,
    AccessRefusal,
    InvalidCredentials,
    iso_datetime,
)
from accounts.models import DeviceToken, User


def user_access_refusal(*, user: User, now: datetime) -> AccessRefusal | None:
    """None if the account may be used at `now`; else why not. A ban outranks a suspension,
    and a suspension ends at `suspended_until` (a past date no longer refuses)."""
    if user.banned_at is not None:
        return AccessRefusal(code=ACCOUNT_BANNED, message=_("This account is banned."))
    if user.suspended_until is not None and user.suspended_until > now:
        return AccessRefusal(
            code=ACCOUNT_SUSPENDED,
            message=_("This account is suspended until %(until)s.")
            % {"until": iso_datetime(user.suspended_until)},
            until=user.suspended_until,
        )
    return None


def banned_q() -> Q:
    return Q(banned_at__isnull=False)


def suspended_q(*, now: datetime) -> Q:
    """Suspended now and not banned (a ban is the stronger refusal)."""
    return Q(banned_at__isnull=True, suspended_until__gt=now)


def user_from_credentials(
    *, request: HttpRequest | Request | None, username: str, password: str
) -> User:
    """The user these credentials name, through Django's backends (which hash even for an
    unknown username, so timing does not tell the two failures apart). Moderation is not
    checked here: only someone who knows the password learns the account is refused."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise InvalidCredentials()
    return user


def devices_of(*, user) -> QuerySet:
    """The user's device tokens that have not expired, the newest first."""
    live = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    return DeviceToken.objects.filter(live, user=user).order_by("-created")
