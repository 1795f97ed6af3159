"""Login CSRF: a page on another site must not sign a visitor in, or up, through our forms.

Sign-up and log-in take no CSRF token (mobile clients have no cookie to pair one with), so a
foreign page could post a form to them: the visitor's browser would then hold a session for
the attacker's account. Browsers say where a request comes from: every cross-origin
POST carries `Origin` (and `Sec-Fetch-Site` in current browsers), which a page cannot forge.
A request whose `Origin` is neither this site nor in CSRF_TRUSTED_ORIGINS, or that the
browser marks as cross-site, is refused, the same rule as Django's CSRF origin check. Mobile
clients send neither header and are not affected.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.utils.http import is_same_domain
from rest_framework.permissions import BasePermission

from accounts.errors import CROSS_ORIGIN_MESSAGE, CROSS_ORIGIN_REFUSED


def _trusted(origin: str) -> bool:
    """In CSRF_TRUSTED_ORIGINS, exactly or by a `scheme://*.domain` wildcard."""
    parsed = urlsplit(origin)
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        if origin == trusted:
            return True
        wildcard = urlsplit(trusted)
        if wildcard.netloc.startswith("*") and wildcard.scheme == parsed.scheme:
            if is_same_domain(parsed.netloc, wildcard.netloc[1:]):
                return True
    return False


def request_is_cross_origin(request) -> bool:
    origin = request.META.get("HTTP_ORIGIN")
    if origin is None:
        # Browsers send Origin with every cross-origin POST; one without it is a client's
        # (mobile, scripts), unless the browser still says cross-site (Origin stripped).
        return request.META.get("HTTP_SEC_FETCH_SITE") == "cross-site"
    try:
        own = f"{'https' if request.is_secure() else 'http'}://{request.get_host()}"
    except DisallowedHost:
        return True
    # a trusted origin may be another site (Sec-Fetch-Site: cross-site) and still be allowed
    return origin != own and not _trusted(origin)


class SameOriginOnly(BasePermission):
    """Refuses a browser's request sent from another site: 403 `cross_origin_refused`."""

    code = CROSS_ORIGIN_REFUSED
    message = CROSS_ORIGIN_MESSAGE

    def has_permission(self, request, view) -> bool:
        return not request_is_cross_origin(request)
