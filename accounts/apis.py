"""The accounts API: one view per operation. Serializers validate, services write.

Refused (banned or suspended) accounts are stopped by the default authenticators on every
view but two: logging out and revoking the token, which a refused account may still do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authentication import get_authorization_header
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import leaving_authenticators
from accounts.models import DeviceToken, User
from accounts.origin import SameOriginOnly
from accounts.push import (
    push_preferences_update,
    push_public_key,
    push_subscription_delete,
    push_subscription_register,
    push_subscriptions_of,
)
from accounts.selectors import devices_of, user_from_credentials
from accounts.serializers import (
    AuthResultSerializer,
    CredentialsSerializer,
    DeviceSerializer,
    PasswordChangeSerializer,
    ProfileSerializer,
    ProfileUpdateSerializer,
    PushPreferencesSerializer,
    PushPublicKeySerializer,
    PushSubscriptionRequestSerializer,
    PushSubscriptionSerializer,
    SignupSerializer,
    TokenSerializer,
)
from accounts.services import (
    device_revoke,
    token_issue,
    token_revoke,
    user_create,
    user_login,
    user_logout,
    user_password_change,
    user_profile_update,
)
from accounts.throttles import (
    AUTH_SCOPE,
    AuthRateThrottle,
    PasswordChangeAccountThrottle,
    PasswordChangeAddressThrottle,
    PushRegisterAccountThrottle,
    PushRegisterAddressThrottle,
)
from games.schema import error_responses

if TYPE_CHECKING:
    from accounts.authentication import AuthenticatedRequest

TAGS = ["accounts"]

# The error codes each operation may answer with, enumerated per status (games/schema.py).
FORM = ("invalid", "parse_error", "request_too_large", "unsupported_media_type",
        "service_unavailable")  # fmt: skip
SIGNED_IN = ("not_authenticated", "authentication_failed", "account_banned",
             "account_suspended", "permission_denied", "service_unavailable")  # fmt: skip
LEAVING = ("not_authenticated", "authentication_failed", "permission_denied",
           "service_unavailable")  # fmt: skip


def errors(operation: str, *codes: str) -> dict:
    return error_responses(operation, *dict.fromkeys(codes))


def _auth_result(*, user: User, token_key: str) -> dict:
    return AuthResultSerializer({"user": user, "token": token_key}).data


class PasswordFormApi(APIView):
    """Anonymous endpoints that take a password: no session (so no CSRF token), rate-limited,
    and refused to a browser posting from another site (login CSRF; accounts/origin.py)."""

    authentication_classes: list = []
    permission_classes = [SameOriginOnly]
    throttle_classes = [AuthRateThrottle]
    throttle_scope = AUTH_SCOPE


class SignupApi(PasswordFormApi):
    @extend_schema(
        operation_id="auth_signup",
        tags=TAGS,
        summary="Create an account",
        description="Returns the new profile and an API token. Browsers then log in for a session.",
        request=SignupSerializer,
        responses={
            201: AuthResultSerializer,
            **errors(
                "auth_signup",
                *FORM,
                "cross_origin_refused",
                "username_taken",
                "display_name_taken",
                "throttled",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = SignupSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        device = data.pop("device", "")
        user = user_create(**data)
        _token, key = token_issue(user=user, device=device)
        return Response(_auth_result(user=user, token_key=key), status.HTTP_201_CREATED)


class LoginApi(PasswordFormApi):
    @extend_schema(
        operation_id="auth_login",
        tags=TAGS,
        summary="Log in",
        description="Starts a session (cookie, for browsers) and returns the API token "
        "(for mobile clients). Needs no CSRF token, but a browser must send it from this "
        "site's own pages (`cross_origin_refused` otherwise).",
        request=CredentialsSerializer,
        responses={
            200: AuthResultSerializer,
            **errors(
                "auth_login",
                *FORM,
                "invalid_credentials",
                "account_banned",
                "account_suspended",
                "cross_origin_refused",
                "throttled",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = CredentialsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        device = data.pop("device", "")
        user = user_from_credentials(request=request, **data)
        _token, key = user_login(request=request, user=user, device=device)
        return Response(_auth_result(user=user, token_key=key))


class LogoutApi(APIView):
    # A refused account may still end its session; logging out twice is not an error.
    permission_classes = [AllowAny]

    def get_authenticators(self):
        return leaving_authenticators()

    @extend_schema(
        operation_id="auth_logout",
        tags=TAGS,
        summary="Log out",
        description="Ends the session; with token authentication, also revokes the token "
        "(of this device only).",
        request=None,
        responses={204: None, **errors("auth_logout", *LEAVING)},
    )
    def post(self, request: Request) -> Response:
        user_logout(request=request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenApi(APIView):
    """POST issues the token from a username and password; DELETE revokes the caller's.

    One path, so one view; what the two methods need differs, so it is chosen per method."""

    throttle_scope = AUTH_SCOPE

    def _revoking(self) -> bool:
        # `self.request` is Django's request while DRF builds its own (None when the schema
        # generator builds it), DRF's afterwards; both carry the method.
        return getattr(self.request, "method", None) == "DELETE"

    def get_authenticators(self):
        if self._revoking():
            return leaving_authenticators()
        return []

    def get_permissions(self):
        return [IsAuthenticated()] if self._revoking() else [AllowAny()]

    def get_throttles(self):
        return [] if self._revoking() else [AuthRateThrottle()]

    @extend_schema(
        operation_id="auth_token_issue",
        tags=TAGS,
        summary="Get the API token",
        description="For mobile clients: the token to send as `Authorization: Token <token>`. "
        "Starts no session.",
        request=CredentialsSerializer,
        responses={
            200: TokenSerializer,
            **errors(
                "auth_token_issue",
                *FORM,
                "invalid_credentials",
                "account_banned",
                "account_suspended",
                "throttled",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = CredentialsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        device = data.pop("device", "")
        user = user_from_credentials(request=request, **data)
        _token, key = token_issue(user=user, device=device)
        return Response(TokenSerializer({"token": key}).data)

    @extend_schema(
        operation_id="auth_token_revoke",
        tags=TAGS,
        summary="Revoke the API token",
        description="Deletes the token of this request (this device only: the others keep "
        "theirs); from a browser session, every token of the account. Allowed to refused "
        "accounts too.",
        request=None,
        responses={204: None, **errors("auth_token_revoke", *LEAVING)},
    )
    def delete(self, request: AuthenticatedRequest) -> Response:
        current = request.auth if isinstance(request.auth, DeviceToken) else None
        token_revoke(user=request.user, token=current)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    @extend_schema(
        operation_id="me_read",
        tags=TAGS,
        summary="My profile",
        responses={200: ProfileSerializer, **errors("me_read", *SIGNED_IN)},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(ProfileSerializer(request.user).data)

    @extend_schema(
        operation_id="me_update",
        tags=TAGS,
        summary="Edit my profile",
        description="Changes only the fields sent. `display_name`: stored in NFKC form, 1–50 "
        "characters after stripping surrounding whitespace, no control or invisible "
        "characters, at most 3 combining marks in a row; refused with `display_name_taken` "
        "when it looks like another player's (same Unicode TR39 confusable skeleton, case "
        "ignored).",
        request=ProfileUpdateSerializer,
        responses={
            200: ProfileSerializer,
            **errors("me_update", *FORM, *SIGNED_IN, "display_name_taken"),
        },
    )
    def patch(self, request: AuthenticatedRequest) -> Response:
        serializer = ProfileUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = user_profile_update(user=request.user, **serializer.validated_data)
        return Response(ProfileSerializer(user).data)


class PasswordChangeApi(APIView):
    # Each try is a guess at the old password: limited per account and per address.
    throttle_classes = [PasswordChangeAccountThrottle, PasswordChangeAddressThrottle]

    @extend_schema(
        operation_id="me_password_change",
        tags=TAGS,
        summary="Change my password",
        description="Answers 200 with the token this device is to use from now on. Every other "
        "device's token is revoked (they must log in again, and their push subscriptions go "
        "with them), and every other browser session is logged out. The caller stays signed "
        "in: a request made with a token keeps that token (`token` is the one it sent); a "
        "request from a browser session keeps its session (under a new session key) and gets "
        "a new token.",
        request=PasswordChangeSerializer,
        responses={
            200: TokenSerializer,
            **errors("me_password_change", *FORM, *SIGNED_IN, "wrong_password", "throttled"),
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        serializer = PasswordChangeSerializer(data=request.data, context={"user": request.user})
        serializer.is_valid(raise_exception=True)
        key = user_password_change(user=request.user, request=request, **serializer.validated_data)
        if key is None:  # a token request keeps its token: the one it sent
            key = get_authorization_header(request).split()[1].decode()
        return Response(TokenSerializer({"token": key}).data)


class DevicesApi(APIView):
    @extend_schema(
        operation_id="me_devices",
        tags=TAGS,
        summary="My devices: one token each",
        responses={200: DeviceSerializer(many=True), **errors("me_devices", *SIGNED_IN)},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        current = request.auth.digest if isinstance(request.auth, DeviceToken) else None
        devices = [
            {
                "token_key": token.token_key,
                "device": token.device,
                "created": token.created,
                "expiry": token.expiry,
                "current": token.digest == current,
            }
            for token in devices_of(user=request.user)
        ]
        return Response(DeviceSerializer(devices, many=True).data)

    @extend_schema(
        operation_id="me_devices_revoke_all",
        tags=TAGS,
        summary="Sign every device out (this one too): every token is revoked",
        request=None,
        responses={204: None, **errors("me_devices_revoke_all", *LEAVING)},
    )
    def delete(self, request: AuthenticatedRequest) -> Response:
        token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def get_authenticators(self):
        if getattr(self.request, "method", None) == "DELETE":
            return leaving_authenticators()  # a refused account may still sign out
        return super().get_authenticators()


class DeviceApi(APIView):
    def get_authenticators(self):
        return leaving_authenticators()  # a refused account may still sign a device out

    @extend_schema(
        operation_id="me_device_revoke",
        tags=TAGS,
        summary="Sign one device out: its token is revoked",
        request=None,
        responses={204: None, **errors("me_device_revoke", *LEAVING, "not_found")},
    )
    def delete(self, request: AuthenticatedRequest, token_key: str) -> Response:
        device_revoke(user=request.user, token_key=token_key)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Push notifications (docs/api.md "Push") ----------------------------------------


class PushPublicKeyApi(APIView):
    @extend_schema(
        operation_id="me_push_public_key",
        tags=TAGS,
        summary="The server's VAPID public key",
        description="Browsers subscribe with it (`pushManager.subscribe({userVisibleOnly: "
        "true, applicationServerKey})`); 503 when this server has no key (Web Push is off).",
        responses={
            200: PushPublicKeySerializer,
            **errors("me_push_public_key", *SIGNED_IN),
        },
    )
    def get(self, request: Request) -> Response:
        return Response(PushPublicKeySerializer({"public_key": push_public_key()}).data)


def _credentials(request: Request) -> dict:
    """The credentials a subscription registered now lives with: the device token of the
    request, else its browser session."""
    if isinstance(request.auth, DeviceToken):
        return {"token": request.auth, "session_key": ""}
    return {"token": None, "session_key": request.session.session_key or ""}


def _subscription_data(subscription, credentials: dict) -> dict:
    token = credentials["token"]
    current = (
        subscription.device_token_id == token.digest
        if token is not None
        else bool(credentials["session_key"])
        and subscription.session_key == credentials["session_key"]
    )
    return {
        "id": subscription.pk,
        "service": subscription.service,
        "endpoint": subscription.endpoint,
        "device": subscription.device,
        "created": subscription.created,
        "last_pushed": subscription.last_pushed,
        "current": current,
    }


class PushSubscriptionsApi(APIView):
    def get_throttles(self):
        if self.request.method == "POST":  # each registration resolves a host name
            return [PushRegisterAccountThrottle(), PushRegisterAddressThrottle()]
        return super().get_throttles()

    @extend_schema(
        operation_id="me_push_subscriptions",
        tags=TAGS,
        summary="My devices' push subscriptions",
        responses={
            200: PushSubscriptionSerializer(many=True),
            **errors("me_push_subscriptions", *SIGNED_IN),
        },
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        credentials = _credentials(request)
        found = [
            _subscription_data(s, credentials) for s in push_subscriptions_of(user=request.user)
        ]
        return Response(PushSubscriptionSerializer(found, many=True).data)

    @extend_schema(
        operation_id="me_push_subscription_register",
        tags=TAGS,
        summary="Register this device's push subscription",
        description="Send a browser's `PushSubscription` as `toJSON()` gives it. The "
        "subscription lives as long as the credentials of this request (this device's token, "
        "or this browser session): revoking the device or logging out ends it. 201 when new, "
        "200 when the endpoint was known (renewed, and now this account's). An account keeps "
        "`PUSH_SUBSCRIPTIONS_PER_ACCOUNT` (10 by default): one more deletes the one least "
        "recently registered. `invalid_push_subscription`: `errors` names the field. "
        "`push_endpoint_refused`: the endpoint's host is not a public push service (it is "
        "internal, does not resolve, or is not in the server's allow-list); one answer for "
        "every reason. `throttled`: too many registrations from this account or address.",
        request=PushSubscriptionRequestSerializer,
        responses={
            200: PushSubscriptionSerializer,
            201: PushSubscriptionSerializer,
            **errors(
                "me_push_subscription_register",
                *FORM,
                *SIGNED_IN,
                "invalid_push_subscription",
                "push_endpoint_refused",
                "throttled",
            ),
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        serializer = PushSubscriptionRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        keys = data.get("keys") or {}
        credentials = _credentials(request)
        subscription, created = push_subscription_register(
            user=request.user,
            endpoint=data["endpoint"],
            p256dh=keys.get("p256dh", ""),
            auth=keys.get("auth", ""),
            service=data["service"],
            device=data.get("device", ""),
            **credentials,
        )
        body = PushSubscriptionSerializer(_subscription_data(subscription, credentials)).data
        return Response(body, status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class PushSubscriptionApi(APIView):
    def get_authenticators(self):
        return leaving_authenticators()  # a refused account may still remove a device

    @extend_schema(
        operation_id="me_push_subscription_delete",
        tags=TAGS,
        summary="Stop pushing to one device",
        request=None,
        responses={204: None, **errors("me_push_subscription_delete", *LEAVING, "not_found")},
    )
    def delete(self, request: AuthenticatedRequest, subscription_id: int) -> Response:
        push_subscription_delete(user=request.user, subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PushPreferencesApi(APIView):
    @extend_schema(
        operation_id="me_push_preferences",
        tags=TAGS,
        summary="What is pushed to my devices",
        responses={200: PushPreferencesSerializer, **errors("me_push_preferences", *SIGNED_IN)},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(PushPreferencesSerializer(request.user).data)

    @extend_schema(
        operation_id="me_push_preferences_update",
        tags=TAGS,
        summary="Choose what is pushed to my devices",
        description="Changes only the fields sent; all are on for a new account.",
        request=PushPreferencesSerializer,
        responses={
            200: PushPreferencesSerializer,
            **errors("me_push_preferences_update", *FORM, *SIGNED_IN),
        },
    )
    def patch(self, request: AuthenticatedRequest) -> Response:
        serializer = PushPreferencesSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        values = {
            name: serializer.validated_data.get(f"push_{name}")
            for name in ("your_turn", "game_ended", "chat")
        }
        user = push_preferences_update(user=request.user, **values)
        return Response(PushPreferencesSerializer(user).data)
