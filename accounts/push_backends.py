"""Senders of push notifications, one per push service; `settings.PUSH_BACKENDS` names the
class for each `service` a subscription may have (`{"webpush": "accounts.push_backends.
WebPushBackend"}` by default).

The interface, for a vendor's backend (APNs, FCM) to implement:

    class ApnsBackend(PushBackend):
        def validate(self, *, endpoint, p256dh, auth) -> dict[str, str]:
            ...  # field -> problem; {} if the subscription can be pushed to
        def send(self, subscription, payload: dict, *, ttl: int) -> None:
            ...  # deliver `payload` (the JSON object of docs/api.md, "Push") or raise

`send` raises `SubscriptionGone` when the service says the subscription no longer exists
(Web Push: 404 or 410; APNs: 410 Unregistered; FCM: UNREGISTERED): the subscription is then
deleted. A refusal that a retry would not change raises `PushRejected` (logged, not retried);
any other failure `PushFailed` (`retry_after` in seconds if the service said), and the delivery
task retries with backoff. A backend keeps no state between calls but its
configuration and connections; it is built once per process.
"""

from __future__ import annotations

import base64
import functools
import json
from typing import TYPE_CHECKING

import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.module_loading import import_string
from pywebpush import WebPushException, webpush

from accounts import vapid

if TYPE_CHECKING:
    from accounts.models import PushSubscription

TIMEOUT = 10  # seconds for one request to a push service


class SubscriptionGone(Exception):
    """The push service no longer knows this subscription (expired, unsubscribed)."""


class PushFailed(Exception):
    def __init__(self, message: str, *, retry_after: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class PushRejected(Exception):
    """The push service refused this push for good (Web Push: a 4xx other than 404, 410 and
    429, such as 400 malformed, 403 a VAPID key the subscription was not made with, 413 too
    large): sending it again would not help."""


class PushUnavailable(Exception):
    """This server cannot push through this service (no keys configured)."""


class PushBackend:
    def validate(self, *, endpoint: str, p256dh: str, auth: str) -> dict[str, str]:
        raise NotImplementedError

    def send(self, subscription: PushSubscription, payload: dict, *, ttl: int) -> None:
        raise NotImplementedError


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class WebPushBackend(PushBackend):
    """The open Web Push protocol (RFC 8030) with VAPID (RFC 8292) and aes128gcm payloads
    (RFC 8291), through pywebpush: browsers' push services (Mozilla autopush, FCM for Chrome,
    Apple's for Safari) and the web client's service worker."""

    def __init__(self):
        self.session = requests.Session()

    def validate(self, *, endpoint: str, p256dh: str, auth: str) -> dict[str, str]:
        problems = {}
        schemes = ["https", "http"] if settings.PUSH_INSECURE_ENDPOINTS else ["https"]
        try:
            URLValidator(schemes=schemes)(endpoint)
        except ValidationError:
            problems["endpoint"] = "an https URL"
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _b64url_decode(p256dh))
        except (ValueError, TypeError):
            problems["p256dh"] = "a P-256 public key, uncompressed, base64url"
        try:
            if len(_b64url_decode(auth)) != 16:
                problems["auth"] = "16 bytes, base64url"
        except (ValueError, TypeError):
            problems["auth"] = "16 bytes, base64url"
        return problems

    def send(self, subscription: PushSubscription, payload: dict, *, ttl: int) -> None:
        keys = vapid.vapid_keys()
        if keys is None:
            raise PushUnavailable("VAPID_PRIVATE_KEY is not set")
        try:
            webpush(
                subscription_info={
                    "endpoint": subscription.endpoint,
                    "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
                },
                data=json.dumps(payload, separators=(",", ":")),
                vapid_private_key=keys.vapid,
                vapid_claims={"sub": keys.subject},
                content_encoding="aes128gcm",
                ttl=ttl,
                timeout=TIMEOUT,
                headers={"Urgency": "normal"},
                requests_session=self.session,
            )
        except WebPushException as error:
            status = error.response.status_code if error.response is not None else None
            if status in (404, 410):
                raise SubscriptionGone(str(error)) from error
            if status is not None and 400 <= status < 500 and status != 429:
                raise PushRejected(str(error)) from error
            retry_after = error.response.headers.get("Retry-After") if status else None
            raise PushFailed(
                str(error), retry_after=int(retry_after) if (retry_after or "").isdigit() else None
            ) from error
        except requests.RequestException as error:
            raise PushFailed(str(error)) from error


@functools.cache
def backend_for(service: str) -> PushBackend | None:
    """The backend of `service`, or None if this server has none for it."""
    path = settings.PUSH_BACKENDS.get(service)
    return import_string(path)() if path else None
