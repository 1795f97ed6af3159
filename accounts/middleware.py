"""The signed-in user's language, when they chose one, outranks the browser's.

Django's LocaleMiddleware (just before this one) has already activated the switcher's cookie or
the Accept-Language choice, else LANGUAGE_CODE. Session users are known here; API clients that
send a token are known only once DRF authenticates them, so `activate_user_language` is also
called from DRF's side (accounts.authentication) with the same rule.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation import trans_real


def user_language(user) -> str | None:
    """The user's chosen language code, or None for "follow the browser"."""
    code = getattr(user, "language", "") or ""
    return code if code in dict(settings.LANGUAGES) else None


def activate_user_language(request, user) -> None:
    code = user_language(user)
    if code is not None and code != translation.get_language():
        translation.activate(code)
        # DRF's Request wraps Django's: templates and LocaleMiddleware read Django's
        getattr(request, "_request", request).LANGUAGE_CODE = code


class UserLanguageMiddleware:
    # synchronous only, on purpose: see its place in settings.MIDDLEWARE
    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            activate_user_language(request, user)
        return self.get_response(request)


def scope_language(scope) -> str:
    """The same rule for a WebSocket, which no Django middleware sees: the user's choice, else
    the switcher's cookie, else the handshake's Accept-Language, else LANGUAGE_CODE."""
    chosen = user_language(scope.get("user"))
    if chosen is not None:
        return chosen
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    candidates = [cookie] if cookie else []
    for key, value in scope.get("headers", []):
        if key == b"accept-language":
            header = value.decode("latin1")
            candidates += [code for code, _q in trans_real.parse_accept_lang_header(header)]
    for candidate in candidates:
        if candidate == "*":
            break
        try:
            return translation.get_supported_language_variant(candidate)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
