"""WebSocket authentication and origin policy.

Browsers authenticate with the session cookie (Channels' AuthMiddlewareStack) and always send an
Origin, which must be one of ALLOWED_HOSTS. The mobile app authenticates with the same header as
the HTTP API, `Authorization: Token <key>`, on the handshake; a native client may send no Origin,
and that is accepted only with a token (a cookie-borne session without Origin is refused, as a
cross-site page could otherwise ride on the cookie).
"""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import AllowedHostsOriginValidator, WebsocketDenier
from django.contrib.auth.models import AnonymousUser

from accounts.credentials import token_key


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin1")
    return None


@database_sync_to_async
def _user_for_token(key: str):
    from rest_framework.exceptions import AuthenticationFailed

    from accounts.authentication import TokenAuthentication

    try:  # the HTTP API's own lookup: a device token, by digest, not expired, active user
        user, _token = TokenAuthentication().authenticate_credentials(key.encode())
    except AuthenticationFailed:
        return AnonymousUser()
    return user


class TokenAuthMiddleware(BaseMiddleware):
    """`Authorization: Token <key>` wins over the session; a bad token is anonymous."""

    async def __call__(self, scope, receive, send):
        key = token_key(scope)
        if key is not None:
            scope = dict(scope, user=await _user_for_token(key), auth="token")
        return await super().__call__(scope, receive, send)


class OriginPolicy:
    def __init__(self, application):
        self.inner = application

    async def __call__(self, scope, receive, send):
        if _header(scope, b"origin") is None:
            if token_key(scope) is not None:
                return await self.inner(scope, receive, send)
            return await WebsocketDenier()(scope, receive, send)
        # built per connection: it reads ALLOWED_HOSTS, which tests and deployments may change
        return await AllowedHostsOriginValidator(self.inner)(scope, receive, send)


def websocket_stack(inner):
    return OriginPolicy(AuthMiddlewareStack(TokenAuthMiddleware(inner)))
