"""Rate limits for the endpoints that take a password."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

AUTH_SCOPE = "auth"

# Used only when REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] does not name the scope, so the
# endpoints stay limited (instead of failing with ImproperlyConfigured) on any settings.
FALLBACK_RATES = {AUTH_SCOPE: "20/min"}


class AuthRateThrottle(ScopedRateThrottle):
    """`ScopedRateThrottle` counted per client address, whoever the caller says they are:
    password guessing is limited by where it comes from, not by the account it targets.

    The rate is read from the settings on each request rather than once at import (as DRF's
    `THROTTLE_RATES` class attribute does), so tests and deployments can change it."""

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES or {}
        if self.scope in rates:
            return rates[self.scope]
        if self.scope in FALLBACK_RATES:
            return FALLBACK_RATES[self.scope]
        raise ImproperlyConfigured(f"No throttle rate for scope {self.scope!r}.")

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
