"""Whether the credentials a WebSocket was opened with are still good.

A socket authenticates once, at its handshake; the token or session it used may be revoked
later (logging out, a password change, a moderator's ban). A socket re-checks before every
move and chat frame, and when its account's group says something changed, so a lost notice
never leaves a socket acting on credentials that are gone.
"""

from __future__ import annotations

from importlib import import_module

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.db import connections, router
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from knox.crypto import hash_token

from accounts.models import DeviceToken, User
from accounts.selectors import user_access_refusal

#: close codes (docs/websocket.md): the credentials are gone; the account is refused
CLOSE_LOGGED_OUT = 4401
CLOSE_REFUSED = 4403


def token_key(scope) -> str | None:
    """The `Authorization: Token <key>` of a handshake, if any."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            header = value.decode("latin1")
            if header.startswith("Token "):
                return header[len("Token ") :].strip()
    return None


def socket_credentials(scope) -> dict:
    """What a socket was opened with: its token, or its session's key."""
    if scope.get("auth") == "token":
        return {"token": token_key(scope), "session_key": None}
    session = scope.get("session")
    return {"token": None, "session_key": session.session_key if session is not None else None}


def socket_refusal(
    *, user_id: int, token: str | None, session_key: str | None
) -> tuple[int, str, str] | None:
    """None if the socket's credentials still stand, else (close code, error code, message).

    A token socket needs its token to exist still; a session socket needs its session to
    exist still, for this user, with the hash of the user's current password (as Django's
    own `get_user` checks); and the account must not be inactive, banned or suspended."""
    if token is not None and connections[router.db_for_read(User)].vendor == "postgresql":
        return _token_refusal(user_id=user_id, token=token)
    return _refusal(user_id=user_id, token=token, session_key=session_key)


def _gone() -> tuple[int, str, str]:
    return CLOSE_LOGGED_OUT, "not_authenticated", _("Your session has ended; log in again.")


def _refusal(
    *, user_id: int, token: str | None, session_key: str | None
) -> tuple[int, str, str] | None:
    """`socket_refusal` through the ORM: the user, then the token or the session."""
    gone = _gone()
    user = User.objects.filter(pk=user_id).first()
    if user is None or not user.is_active:
        return gone
    if token is not None:
        live = DeviceToken.objects.filter(digest=hash_token(token), user_id=user_id)
        if not live.filter(Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())).exists():
            return gone
    else:
        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
        if session_key is None or str(store.get(SESSION_KEY)) != str(user_id):
            return gone
        if not constant_time_compare(store.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()):
            return gone
    refusal = user_access_refusal(user=user, now=timezone.now())
    if refusal is not None:
        return CLOSE_REFUSED, refusal.code, refusal.message
    return None


def _token_refusal(*, user_id: int, token: str) -> tuple[int, str, str] | None:
    """`socket_refusal` of a token socket in one statement (`TOKEN_CHECK_SQL`), as `_refusal`
    decides it: a socket checks before each of its moves, and building the ORM's two queries
    cost more than the move's own load of the game."""
    gone = _gone()
    now = timezone.now()
    with connections[router.db_for_read(User)].cursor() as cursor:
        cursor.execute(TOKEN_CHECK_SQL, [hash_token(token), now, user_id])
        row = cursor.fetchone()
    if row is None:
        return gone
    is_active, banned_at, suspended_until, token_live = row
    if not is_active or not token_live:
        return gone
    user = User(
        pk=user_id, is_active=is_active, banned_at=banned_at, suspended_until=suspended_until
    )
    refusal = user_access_refusal(user=user, now=now)
    if refusal is not None:
        return CLOSE_REFUSED, refusal.code, refusal.message
    return None


TOKEN_CHECK_SQL = """
SELECT u.is_active, u.banned_at, u.suspended_until,
       EXISTS (SELECT 1 FROM accounts_devicetoken t
                WHERE t.digest = %s AND t.user_id = u.id
                  AND (t.expiry IS NULL OR t.expiry > %s))
  FROM accounts_user u
 WHERE u.id = %s
"""
"""The user's standing, and whether the token (by its digest) is theirs and live at the given
time. Parameters: the digest, the time, the user's id. The ORM equivalent (`_refusal`):

    user = User.objects.filter(pk=user_id).first()
    live = DeviceToken.objects.filter(digest=digest, user_id=user_id)
    live.filter(Q(expiry__isnull=True) | Q(expiry__gt=now)).exists()
"""
