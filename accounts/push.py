"""Push subscriptions of a user's devices: register, list, delete, and deliver one payload to
one subscription. What is pushed and when is games/push.py; the senders are
accounts/push_backends.py; where a push may go, accounts/push_targets.py.

A subscription lives as long as the credentials it was registered with (a device token, or a
browser session: accounts/models.py `PushSubscription`): before each push they are checked as
a socket's are, and a subscription whose credentials are gone, or whose account is refused, is
deleted instead of pushed to. So a device that was signed out, or a browser whose user logged
out or changed the password elsewhere, is never told anything.

Bounded: an endpoint must be a public host when it is registered and again before each push
(else it is refused, or deleted unsent); an account keeps at most
`PUSH_SUBSCRIPTIONS_PER_ACCOUNT` subscriptions, registering one more deletes the one least
recently registered (a browser registers again once a session, so the one that goes is the
device unused longest; refusing with 409 instead would leave a user whose old browsers are
gone unable to add a new one without finding and deleting them first).
"""

from __future__ import annotations

import logging
from importlib import import_module

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts.errors import InvalidPushSubscription, PushEndpointRefused
from accounts.models import DeviceToken, PushSubscription, User
from accounts.push_backends import PushRejected, PushUnavailable, SubscriptionGone, backend_for
from accounts.push_targets import EndpointRefused
from accounts.selectors import user_access_refusal
from accounts.vapid import vapid_keys
from taxi_project.api_errors import NotFound, ServiceUnavailable

log = logging.getLogger(__name__)


def push_public_key() -> str:
    """The VAPID public key browsers subscribe with (`applicationServerKey`)."""
    keys = vapid_keys()
    if keys is None:
        raise ServiceUnavailable()
    return keys.public_key


def push_subscription_register(
    *,
    user: User,
    endpoint: str,
    p256dh: str = "",
    auth: str = "",
    service: str = "webpush",
    device: str = "",
    token: DeviceToken | None = None,
    session_key: str = "",
) -> tuple[PushSubscription, bool]:
    """Register (or renew) a device's subscription for `user`, tied to the credentials of
    the request: its device token, else its browser session. Idempotent by endpoint; an
    endpoint registered before by another account (a shared browser) moves to this one.
    Beyond `PUSH_SUBSCRIPTIONS_PER_ACCOUNT`, the account's least recently registered
    subscriptions are deleted. Returns the subscription and whether it is new."""
    backend = backend_for(service)
    if backend is None:
        raise InvalidPushSubscription(
            errors={"service": f"one of {sorted(settings.PUSH_BACKENDS)}"}
        )
    problems = backend.validate(endpoint=endpoint, p256dh=p256dh, auth=auth)
    if problems:
        raise InvalidPushSubscription(errors=problems)
    if service == "webpush" and vapid_keys() is None:
        raise ServiceUnavailable()
    try:
        backend.check_endpoint(endpoint)  # resolves its host: outside the transaction
    except EndpointRefused as refused:
        log.info("push endpoint refused for user %s: %s", user.pk, refused)
        raise PushEndpointRefused() from None
    with transaction.atomic():
        # one registration at a time per account: the cap holds under concurrent ones
        User.objects.select_for_update().filter(pk=user.pk).values_list("pk").first()
        subscription, created = PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "user": user,
                "service": service,
                "p256dh": p256dh,
                "auth": auth,
                "device": device[:100],
                "device_token": token,
                "session_key": "" if token is not None else session_key,
                "registered": timezone.now(),
            },
        )
        beyond = (
            PushSubscription.objects.filter(user=user)
            .order_by("-registered", "-pk")
            .values_list("pk", flat=True)[settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT :]
        )
        PushSubscription.objects.filter(pk__in=list(beyond)).delete()
        return subscription, created


def push_subscriptions_of(*, user: User) -> QuerySet[PushSubscription]:
    return PushSubscription.objects.filter(user=user).order_by("created", "pk")


def push_subscription_delete(*, user: User, subscription_id: int) -> None:
    deleted, _ = PushSubscription.objects.filter(user=user, pk=subscription_id).delete()
    if not deleted:
        raise NotFound()


def push_preferences_update(
    *,
    user: User,
    your_turn: bool | None = None,
    game_ended: bool | None = None,
    chat: bool | None = None,
) -> User:
    """Change the preferences given (None leaves one as it is)."""
    changed = {
        f"push_{name}": value
        for name, value in (("your_turn", your_turn), ("game_ended", game_ended), ("chat", chat))
        if value is not None
    }
    for field, value in changed.items():
        setattr(user, field, value)
    if changed:
        user.save(update_fields=list(changed))
    return user


def push_session_moved(*, old_key: str | None, new_key: str | None) -> None:
    """A browser session got a new key (Django cycles it on a password change): its
    subscriptions follow it."""
    if old_key and new_key and old_key != new_key:
        PushSubscription.objects.filter(session_key=old_key).update(session_key=new_key)


def _credentials_stand(subscription: PushSubscription, user: User) -> bool:
    if not user.is_active or user_access_refusal(user=user, now=timezone.now()) is not None:
        return False
    token = subscription.device_token
    if token is not None:
        return token.expiry is None or token.expiry > timezone.now()
    if not subscription.session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(subscription.session_key)
    return str(store.get(SESSION_KEY)) == str(user.pk) and constant_time_compare(
        store.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()
    )


def push_deliver(*, subscription_id: int, payload: dict) -> str:
    """Push `payload` to one subscription: "sent"; "gone" if it no longer exists (deleted
    meanwhile, or the push service answered 404/410: then it is deleted); "dropped" if its
    credentials are gone (it is deleted); "refused" if its endpoint is not a public host now
    (it is deleted, nothing is sent); "off" if this server cannot push through its service;
    "rejected" if the service refused it for good. Other failures raise `PushFailed`: the
    task retries."""
    subscription = (
        PushSubscription.objects.select_related("user", "device_token")
        .filter(pk=subscription_id)
        .first()
    )
    if subscription is None:
        return "gone"
    if not _credentials_stand(subscription, subscription.user):
        subscription.delete()
        return "dropped"
    backend = backend_for(subscription.service)
    if backend is None:
        return "off"
    try:
        backend.send(subscription, payload, ttl=settings.PUSH_TTL_SECONDS)
    except SubscriptionGone:
        PushSubscription.objects.filter(pk=subscription.pk).delete()
        return "gone"
    except EndpointRefused as refused:
        log.warning("push endpoint of subscription %s refused: %s", subscription.pk, refused)
        PushSubscription.objects.filter(pk=subscription.pk).delete()
        return "refused"
    except PushUnavailable:
        return "off"
    except PushRejected:
        log.warning(
            "push service refused a push to subscription %s", subscription.pk, exc_info=True
        )
        return "rejected"
    PushSubscription.objects.filter(pk=subscription.pk).update(last_pushed=timezone.now())
    return "sent"
