"""The push API (docs/api.md "Push"): the VAPID public key, registering, listing and
deleting a device's subscriptions, the preferences; and a subscription ending with the
credentials it was registered with."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from rest_framework.test import APIClient

from accounts.models import PushSubscription
from accounts.services import token_issue
from tests.push.endpoint import b64url, unb64url

SUBSCRIPTIONS = "/api/v1/me/push-subscriptions"


def _other_device(player, name: str) -> APIClient:
    """The same user signed in on another device: a token of its own."""
    device = APIClient()
    device.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=player.user, device=name)[1]}")
    return device


def test_the_public_key_is_a_p256_point(make_player):
    answer = make_player().get("/api/v1/me/push-public-key")
    assert answer.status_code == 200
    key = unb64url(answer.json()["public_key"])
    assert len(key) == 65 and key[0] == 4  # uncompressed, as applicationServerKey wants
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)


def test_no_key_no_web_push(make_player, endpoint, settings):
    from accounts import vapid

    settings.VAPID_PRIVATE_KEY = ""
    settings.VAPID_DEV_KEYS = False
    vapid.vapid_keys.cache_clear()
    try:
        player = make_player()
        answer = player.get("/api/v1/me/push-public-key")
        assert answer.status_code == 503 and answer.json()["code"] == "service_unavailable"
        registered = player.post(SUBSCRIPTIONS, endpoint.subscription())
        assert registered.status_code == 503
    finally:
        vapid.vapid_keys.cache_clear()


def test_a_configured_key_pair_is_used_and_a_mismatched_public_key_refused(settings):
    from django.core.exceptions import ImproperlyConfigured

    from accounts import vapid

    private = ec.generate_private_key(ec.SECP256R1())
    raw = b64url(private.private_numbers().private_value.to_bytes(32, "big"))
    public = b64url(
        private.public_key().public_numbers().x.to_bytes(32, "big")
        + private.public_key().public_numbers().y.to_bytes(32, "big")
    )
    settings.VAPID_PRIVATE_KEY = raw
    settings.VAPID_PUBLIC_KEY = b64url(b"\x04" + unb64url(public))
    vapid.vapid_keys.cache_clear()
    try:
        assert vapid.vapid_keys().public_key == settings.VAPID_PUBLIC_KEY
        settings.VAPID_PUBLIC_KEY = b64url(b"\x04" + bytes(64))
        vapid.vapid_keys.cache_clear()
        with pytest.raises(ImproperlyConfigured):
            vapid.vapid_keys()
    finally:
        vapid.vapid_keys.cache_clear()


def test_register_is_idempotent_by_endpoint_and_lists_this_device_as_current(make_player, endpoint):
    player = make_player()
    first = player.post(SUBSCRIPTIONS, {**endpoint.subscription(), "device": "Ana's phone"})
    assert first.status_code == 201
    body = first.json()
    assert body["device"] == "Ana's phone" and body["current"] is True
    assert body["endpoint"] == endpoint.subscription()["endpoint"] and body["service"] == "webpush"
    again = player.post(SUBSCRIPTIONS, endpoint.subscription())
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    listed = player.get(SUBSCRIPTIONS).json()
    assert [s["id"] for s in listed] == [body["id"]] and listed[0]["current"] is True
    tablet = _other_device(player, "tablet")
    assert tablet.get(SUBSCRIPTIONS).json()[0]["current"] is False


def test_an_endpoint_registered_by_another_account_moves_to_this_one(make_player, endpoint):
    ana, bob = make_player(), make_player()
    assert ana.post(SUBSCRIPTIONS, endpoint.subscription()).status_code == 201
    assert bob.post(SUBSCRIPTIONS, endpoint.subscription()).status_code == 200
    assert ana.get(SUBSCRIPTIONS).json() == []
    assert PushSubscription.objects.get().user == bob.user


@pytest.mark.parametrize(
    "change, field",
    [
        ({"keys": {"p256dh": b64url(b"\x04" + bytes(64)), "auth": b64url(bytes(16))}}, "p256dh"),
        ({"keys": {"p256dh": "", "auth": ""}}, "keys"),
        ("short auth", "auth"),
        ({"service": "carrier-pigeon"}, "service"),
        ({"endpoint": "not a url"}, "endpoint"),
    ],
)
def test_a_subscription_that_cannot_be_pushed_to_is_refused_with_a_stable_code(
    make_player, endpoint, change, field
):
    data = endpoint.subscription()
    if change == "short auth":
        data["keys"]["auth"] = b64url(bytes(8))
    else:
        data.update(change)
    answer = make_player().post(SUBSCRIPTIONS, data)
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] in {"invalid_push_subscription", "invalid"}
    assert field in body["errors"]
    if field in {"p256dh", "auth", "service"}:
        assert body["code"] == "invalid_push_subscription"
    assert not PushSubscription.objects.exists()


def test_plain_http_endpoints_are_refused_outside_local_work(make_player, endpoint, settings):
    settings.PUSH_INSECURE_ENDPOINTS = False
    answer = make_player().post(SUBSCRIPTIONS, endpoint.subscription())
    assert answer.status_code == 400 and answer.json()["errors"] == {"endpoint": "an https URL"}


def test_delete_one_of_mine_not_anothers(make_player, make_endpoint):
    ana, bob = make_player(), make_player()
    mine = ana.post(SUBSCRIPTIONS, make_endpoint().subscription()).json()["id"]
    theirs = bob.post(SUBSCRIPTIONS, make_endpoint().subscription()).json()["id"]
    assert ana.client.delete(f"{SUBSCRIPTIONS}/{theirs}").json()["code"] == "not_found"
    assert ana.client.delete(f"{SUBSCRIPTIONS}/{mine}").status_code == 204
    assert ana.client.delete(f"{SUBSCRIPTIONS}/{mine}").status_code == 404
    assert list(PushSubscription.objects.values_list("pk", flat=True)) == [theirs]


def test_preferences_default_on_and_change_one_at_a_time(make_player):
    player = make_player()
    url = "/api/v1/me/push-preferences"
    assert player.get(url).json() == {"your_turn": True, "game_ended": True, "chat": True}
    changed = player.client.patch(url, {"chat": False}, format="json")
    assert changed.json() == {"your_turn": True, "game_ended": True, "chat": False}
    assert player.get(url).json()["chat"] is False
    refused = player.client.patch(url, {"chat": "maybe"}, format="json")
    assert refused.status_code == 400 and "chat" in refused.json()["errors"]


def test_signing_a_device_out_removes_its_subscriptions_only(make_player, make_endpoint):
    player = make_player()
    tablet = _other_device(player, "tablet")
    phone_sub = player.post(SUBSCRIPTIONS, make_endpoint().subscription()).json()["id"]
    tablet.post(SUBSCRIPTIONS, make_endpoint().subscription(), format="json")
    tablet_key = next(
        d["token_key"] for d in player.get("/api/v1/me/devices").json() if d["device"] == "tablet"
    )
    assert player.client.delete(f"/api/v1/me/devices/{tablet_key}").status_code == 204
    assert list(PushSubscription.objects.values_list("pk", flat=True)) == [phone_sub]


@pytest.fixture
def password_changes_unlimited(settings):
    """Every test's client is 127.0.0.1, and the address's password-change window (10 an hour)
    lives in this process's cache across tests (the schema fuzz alone sends dozens): these
    tests are about subscriptions, not about that limit (tests/api/test_password_limits.py)."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "password_change": "100000/hour",
        },
    }


@pytest.mark.usefixtures("password_changes_unlimited")
def test_a_password_change_drops_the_other_devices_subscriptions(make_player, make_endpoint):
    player = make_player()
    tablet = _other_device(player, "tablet")
    mine = player.post(SUBSCRIPTIONS, make_endpoint().subscription()).json()["id"]
    tablet.post(SUBSCRIPTIONS, make_endpoint().subscription(), format="json")
    name = player.user.username
    changed = player.post(
        "/api/v1/me/password",
        {"old_password": "pw-" + name * 2, "new_password": "a new secret 42!"},
    )
    assert changed.status_code == 200, changed.json()
    assert list(PushSubscription.objects.values_list("pk", flat=True)) == [mine]


@pytest.mark.usefixtures("password_changes_unlimited")
def test_a_browser_sessions_subscription_follows_its_password_change(make_player, endpoint):
    """Django gives the session a new key on a password change: the subscription follows."""
    player = make_player()
    browser = APIClient()
    browser.force_login(player.user)
    assert browser.post(SUBSCRIPTIONS, endpoint.subscription(), format="json").status_code == 201
    name = player.user.username
    changed = browser.post(
        "/api/v1/me/password",
        {"old_password": "pw-" + name * 2, "new_password": "a new secret 42!"},
        format="json",
    )
    assert changed.status_code == 200, changed.json()
    [subscription] = browser.get(SUBSCRIPTIONS).json()
    assert subscription["current"] is True
    assert PushSubscription.objects.get().session_key == browser.session.session_key


def test_the_service_worker_is_served_from_the_root(client):
    answer = client.get("/push-worker.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert "no-cache" in answer["Cache-Control"]
    text = answer.content.decode()
    assert 'addEventListener("push"' in text and 'addEventListener("notificationclick"' in text
