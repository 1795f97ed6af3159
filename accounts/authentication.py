"""DRF authentication that refuses suspended and banned accounts with a clear code.

A refused account gets a 403 with `account_banned` or `account_suspended` (plus `until`), not
DRF's 401 `authentication_failed`: the credentials are good, the account may not play. The
refusal is raised as an `ApiError` (a 403), which DRF does not coerce as it does
`AuthenticationFailed`, so the status and the body survive whichever authenticator runs first.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.utils import timezone
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.signals import token_expired
from rest_framework import authentication

from accounts.errors import AccountRefused
from accounts.middleware import activate_user_language
from accounts.models import User
from accounts.selectors import user_access_refusal

if TYPE_CHECKING:
    from rest_framework.request import Request

    class AuthenticatedRequest(Request):
        """A request past `IsAuthenticated` (the API's default permission): a signed-in user."""

        user: User

    # what the mixin below is mixed into
    _Authentication = authentication.BaseAuthentication
else:
    _Authentication = object


def access_refusal(user: User, now: datetime) -> tuple[str, str] | None:
    """None if `user` may use the platform at `now`, else `(code, message)`.

    For callers outside DRF (the WebSocket consumer closes with the code and message)."""
    refusal = user_access_refusal(user=user, now=now)
    return None if refusal is None else (refusal.code, refusal.message)


def ensure_access(user: User, now: datetime | None = None) -> None:
    """Raise `AccountRefused` (403, with the code) if moderation refuses `user`."""
    refusal = user_access_refusal(user=user, now=now or timezone.now())
    if refusal is not None:
        raise AccountRefused.from_refusal(refusal)


class _RefusingRefusedAccounts(_Authentication):
    """Once DRF knows the user: their language from here on, then the moderation check
    (skipped when built with `check_access=False`, for the ways out: logging out, revoking
    the token), so even the refusal speaks their language."""

    def __init__(self, *, check_access: bool = True) -> None:
        self.check_access = check_access

    def authenticate(self, request: Request) -> tuple[User, object] | None:
        result = super().authenticate(request)
        if result is not None:
            activate_user_language(request, result[0])
            if self.check_access:
                ensure_access(result[0])
        return result


class TokenAuthentication(_RefusingRefusedAccounts, KnoxTokenAuthentication):
    """`Authorization: Token <key>`, a device's token (django-rest-knox: looked up by its
    digest, refused once expired); refuses banned and suspended accounts.

    One query a request: the token with its user. Knox's own clean-up also reads every other
    token of the account on every request, to delete those that expired; here a token that
    expired is refused and deleted when it is presented, and the others go at the account's
    next login (`accounts.services.token_issue`), which bounds them anyway."""

    def _cleanup_token(self, auth_token) -> bool:  # knox's hook: True drops the token
        if auth_token.expiry is None or auth_token.expiry >= timezone.now():
            return False
        username = auth_token.user.get_username()
        auth_token.delete()
        token_expired.send(sender=self.__class__, username=username, source="auth_token")
        return True


class SessionAuthentication(_RefusingRefusedAccounts, authentication.SessionAuthentication):
    """The browser's session cookie (CSRF enforced); refuses banned and suspended accounts."""


def leaving_authenticators() -> list[authentication.BaseAuthentication]:
    """Both authenticators without the moderation check: a refused account may still log out
    and revoke its token. The same classes, so the schema names one scheme for each."""
    return [TokenAuthentication(check_access=False), SessionAuthentication(check_access=False)]
