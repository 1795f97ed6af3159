"""Rate limits for the endpoints that take a password.

The client address is DRF's `get_ident`: `REMOTE_ADDR`, or with `NUM_PROXIES` set, the
address that many proxies back in `X-Forwarded-For`. Under uvicorn (the image) the server
itself puts the client's address in `REMOTE_ADDR`, trusting `X-Forwarded-For` only from the
addresses in `FORWARDED_ALLOW_IPS` (README.md, docker/README.md); a client cannot choose it.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle

AUTH_SCOPE = "auth"
PASSWORD_CHANGE_SCOPE = "password_change"
ADMIN_LOGIN_SCOPE = "admin_login"
PUSH_REGISTER_SCOPE = "push_register"
TABLE_CREATE_SCOPE = "table_create"

# Used only when REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] does not name the scope, so the
# endpoints stay limited (instead of failing with ImproperlyConfigured) on any settings.
FALLBACK_RATES = {
    AUTH_SCOPE: "20/min",
    PASSWORD_CHANGE_SCOPE: "10/hour",
    ADMIN_LOGIN_SCOPE: "20/hour",
    PUSH_REGISTER_SCOPE: "30/hour",
}


def _rate(scope: str | None) -> str | None:
    rates = api_settings.DEFAULT_THROTTLE_RATES or {}
    if scope in rates:
        # rates such as "20/min" (DRF's stubs type them as numbers)
        return rates[scope]  # type: ignore[return-value]
    if scope in FALLBACK_RATES:
        return FALLBACK_RATES[scope]
    raise ImproperlyConfigured(f"No throttle rate for scope {scope!r}.")


class AuthRateThrottle(ScopedRateThrottle):
    """`ScopedRateThrottle` counted per client address, whoever the caller says they are:
    password guessing is limited by where it comes from, not by the account it targets.

    The rate is read from the settings on each request rather than once at import (as DRF's
    `THROTTLE_RATES` class attribute does), so tests and deployments can change it."""

    def get_rate(self) -> str | None:
        return _rate(self.scope)

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class _FixedScopeThrottle(SimpleRateThrottle):
    """A throttle for one scope, counted per `ident(request)`; usable outside DRF views too
    (the admin's login form), as it needs only `request.META` and what `ident` reads."""

    scope: str
    kind: str

    def get_rate(self) -> str | None:
        return _rate(self.scope)

    def ident(self, request) -> str | None:
        raise NotImplementedError

    def get_cache_key(self, request, view) -> str | None:
        ident = self.ident(request)
        if ident is None:
            return None
        return self.cache_format % {"scope": f"{self.scope}:{self.kind}", "ident": ident}


class AddressThrottle(_FixedScopeThrottle):
    kind = "address"

    def ident(self, request) -> str | None:
        return self.get_ident(request)


class PasswordChangeAddressThrottle(AddressThrottle):
    """Old-password guesses on `POST /me/password`, per client address..."""

    scope = PASSWORD_CHANGE_SCOPE


class PasswordChangeAccountThrottle(_FixedScopeThrottle):
    """...and per account, so a stolen session cannot guess the password from many addresses."""

    scope = PASSWORD_CHANGE_SCOPE
    kind = "account"

    def ident(self, request) -> str | None:
        return str(request.user.pk) if request.user.is_authenticated else None


class AdminLoginAddressThrottle(AddressThrottle):
    scope = ADMIN_LOGIN_SCOPE


class AdminLoginAccountThrottle(_FixedScopeThrottle):
    """Per username tried (case-insensitive, as usernames are unique regardless of case)."""

    scope = ADMIN_LOGIN_SCOPE
    kind = "account"

    def __init__(self, username: str):
        super().__init__()
        self.username = username

    def ident(self, request) -> str | None:
        if not self.username:
            return None
        # hashed: a username may hold what a cache key must not (spaces, any length)
        return hashlib.sha256(self.username.casefold().encode()).hexdigest()[:32]


class PushRegisterAddressThrottle(AddressThrottle):
    """Push subscriptions registered (each resolves the endpoint's host name), per client
    address..."""

    scope = PUSH_REGISTER_SCOPE


class PushRegisterAccountThrottle(_FixedScopeThrottle):
    """...and per account."""

    scope = PUSH_REGISTER_SCOPE
    kind = "account"

    def ident(self, request) -> str | None:
        return str(request.user.pk) if request.user.is_authenticated else None


class _TableCreateRate:
    """The rate is `settings.TABLE_CREATE_THROTTLE_RATE` (empty: no limit), read per request."""

    def get_rate(self) -> str | None:
        return settings.TABLE_CREATE_THROTTLE_RATE or None


class TableCreateAddressThrottle(_TableCreateRate, AddressThrottle):
    """Tables opened (`POST /api/v1/tables`), per client address..."""

    scope = TABLE_CREATE_SCOPE


class TableCreateAccountThrottle(_TableCreateRate, _FixedScopeThrottle):
    """...and per account."""

    scope = TABLE_CREATE_SCOPE
    kind = "account"

    def ident(self, request) -> str | None:
        return str(request.user.pk) if request.user.is_authenticated else None
