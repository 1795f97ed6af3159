"""Senders of push notifications, one per push service; `settings.PUSH_BACKENDS` names the
class for each `service` a subscription may have (`{"webpush": "accounts.push_backends.
WebPushBackend"}` by default).

The interface, for a vendor's backend (APNs, FCM) to implement:

    class ApnsBackend(PushBackend):
        def validate(self, *, endpoint, p256dh, auth) -> dict[str, str]:
            ...  # field -> problem; {} if the subscription can be pushed to
        def check_endpoint(self, endpoint) -> None:
            ...  # raise EndpointRefused if the server must not send there (the default
                 # accepts: a vendor's API host is fixed, only Web Push sends to a client's URL)
        def send(self, subscription, payload: dict, *, ttl: int) -> None:
            ...  # deliver `payload` (the JSON object of docs/api.md, "Push") or raise

`send` raises `SubscriptionGone` when the service says the subscription no longer exists
(Web Push: 404 or 410; APNs: 410 Unregistered; FCM: UNREGISTERED): the subscription is then
deleted; `EndpointRefused` when the endpoint is not somewhere the server sends to (checked
again before each push): it is deleted too, without a connection. A refusal that a retry
would not change raises `PushRejected` (logged, not retried); any other failure `PushFailed`
(`retry_after` in seconds if the service said), and the delivery task retries with backoff. A
backend keeps no state between calls but its configuration and connections; it is built once
per process.
"""

from __future__ import annotations

import base64
import functools
import json
import time
from typing import TYPE_CHECKING

import certifi
import urllib3
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.module_loading import import_string
from pywebpush import WebPusher, WebPushException

from accounts import vapid
from accounts.push_targets import EndpointRefused, EndpointUnresolved, PushTarget, push_target

if TYPE_CHECKING:
    from accounts.models import PushSubscription

VAPID_LIFETIME = 12 * 3600  # seconds a VAPID signature is valid (RFC 8292: at most 24 hours)
ANSWER_READ = 1024  # bytes of a push service's answer read, for the log; the rest is dropped


class SubscriptionGone(Exception):
    """The push service no longer knows this subscription (expired, unsubscribed)."""


class PushFailed(Exception):
    def __init__(self, message: str, *, retry_after: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class PushRejected(Exception):
    """The push service refused this push for good (Web Push: a 4xx other than 404, 410 and
    429, such as 400 malformed, 403 a VAPID key the subscription was not made with, 413 too
    large; or a redirect, which is never followed): sending it again would not help."""


class PushUnavailable(Exception):
    """This server cannot push through this service (no keys configured)."""


class PushBackend:
    def validate(self, *, endpoint: str, p256dh: str, auth: str) -> dict[str, str]:
        raise NotImplementedError

    def check_endpoint(self, endpoint: str) -> None:
        """Raise `EndpointRefused` if the server must not send to `endpoint`."""

    def send(self, subscription: PushSubscription, payload: dict, *, ttl: int) -> None:
        raise NotImplementedError


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class WebPushBackend(PushBackend):
    """The open Web Push protocol (RFC 8030) with VAPID (RFC 8292) and aes128gcm payloads
    (RFC 8291): browsers' push services (Mozilla autopush, FCM for Chrome, Apple's for
    Safari) and the web client's service worker.

    pywebpush encrypts the payload (`WebPusher.encode`) and py-vapid signs the request; the
    request itself is sent here with urllib3, to the address `push_target` checked (the Host
    header, TLS SNI and the certificate check all name the endpoint's host), with no redirect
    followed, no retry inside the request (the task retries) and no proxy from the
    environment, within `PUSH_CONNECT_TIMEOUT_SECONDS` and `PUSH_READ_TIMEOUT_SECONDS`."""

    def __init__(self):
        # one pool per (address, port, host name): keep-alive to the few push services
        self.pools = urllib3.PoolManager(num_pools=32, maxsize=4, retries=False)

    def validate(self, *, endpoint: str, p256dh: str, auth: str) -> dict[str, str]:
        problems = {}
        schemes = ["https", "http"] if settings.PUSH_INSECURE_ENDPOINTS else ["https"]
        try:
            if not endpoint.isascii():
                raise ValidationError("not ASCII")
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

    def check_endpoint(self, endpoint: str) -> None:
        try:
            push_target(endpoint)
        except EndpointUnresolved as error:  # the same answer as a refusal: no DNS oracle
            raise EndpointRefused(str(error)) from error

    def send(self, subscription: PushSubscription, payload: dict, *, ttl: int) -> None:
        keys = vapid.vapid_keys()
        if keys is None:
            raise PushUnavailable("VAPID_PRIVATE_KEY is not set")
        try:
            target = push_target(subscription.endpoint)  # EndpointRefused goes up
        except EndpointUnresolved as error:
            raise PushFailed(str(error)) from error
        data = json.dumps(payload, separators=(",", ":")).encode()
        try:
            pusher = WebPusher(
                {
                    "endpoint": subscription.endpoint,
                    "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
                }
            )
            body = pusher.encode(data, content_encoding="aes128gcm")["body"]
        except (WebPushException, ValueError, TypeError) as error:
            raise PushRejected(f"cannot encrypt for this subscription: {error}") from error
        expires = int(time.time()) + VAPID_LIFETIME
        claims = {"sub": keys.subject, "aud": target.origin, "exp": expires}
        headers = {
            "Host": target.netloc,
            "TTL": str(ttl),
            "Urgency": "normal",
            "Content-Encoding": "aes128gcm",
            **keys.vapid.sign(claims),
        }
        status, retry_after, answer = self._post(target, body, headers)
        if status < 300:
            return
        message = f"push service answered {status}: {answer!r}"
        if status in (404, 410):
            raise SubscriptionGone(message)
        if status == 429 or status >= 500:
            raise PushFailed(message, retry_after=retry_after)
        raise PushRejected(message)  # 3xx (not followed) and the other 4xx

    def _post(
        self, target: PushTarget, body: bytes, headers: dict
    ) -> tuple[int, int | None, bytes]:
        """POST to the checked address: (status, Retry-After in seconds, the answer's start)."""
        tls = {}
        if target.scheme == "https":
            tls = {
                "server_hostname": target.host,
                "assert_hostname": target.host,
                "cert_reqs": "CERT_REQUIRED",
                "ca_certs": settings.PUSH_CA_CERTS or certifi.where(),
            }
        timeout = urllib3.Timeout(
            connect=settings.PUSH_CONNECT_TIMEOUT_SECONDS,
            read=settings.PUSH_READ_TIMEOUT_SECONDS,
        )
        try:
            pool = self.pools.connection_from_host(
                target.address, target.port, target.scheme, pool_kwargs=tls
            )
            response = pool.urlopen(
                "POST",
                target.path,
                body=body,
                headers=headers,
                redirect=False,
                retries=False,
                timeout=timeout,
                preload_content=False,
            )
        except (urllib3.exceptions.HTTPError, OSError) as error:
            raise PushFailed(f"{target.origin} ({target.address}): {error}") from error
        try:
            answer = response.read(ANSWER_READ, decode_content=False)
        except (urllib3.exceptions.HTTPError, OSError):
            answer = b""
        finally:
            if response.length_remaining != 0:  # more to come: drop it rather than read it all
                response.close()
            response.release_conn()
        retry_after = response.headers.get("Retry-After", "")
        return response.status, int(retry_after) if retry_after.isdigit() else None, answer


@functools.cache
def backend_for(service: str) -> PushBackend | None:
    """The backend of `service`, or None if this server has none for it."""
    path = settings.PUSH_BACKENDS.get(service)
    return import_string(path)() if path else None
