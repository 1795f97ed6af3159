"""The web client's push notifications in Chromium: the profile page's notification
settings save through the API, and the service worker (`/push-worker.js`, scope `/`) shows a
pushed payload as a notification with the game's page to open.

A headless Chromium has no vendor push service to subscribe at, so the push is delivered to
the worker through the DevTools protocol (`ServiceWorker.deliverPushMessage`), as the browser
delivers a decrypted push; tests/push/ covers the path from the server to a push endpoint."""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.browser.conftest import log_in, needs_chromium, watched_page
from tests.players import Player

pytestmark = needs_chromium

SHOWN = """async (tag) => {
    const registration = await navigator.serviceWorker.ready;
    const shown = await registration.getNotifications({tag});
    return shown.map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url}));
}"""


@pytest.fixture
def ana(committed_db, web_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    player = Player(f"ana{uuid.uuid4().hex[:6]}")
    return player.user.username, "pw-" + player.user.username * 2, player.user.pk


def preferences_of(user_id: int) -> tuple[bool, bool, bool]:
    """Read in a thread of its own: this one runs Playwright's loop (no database calls)."""

    def read():
        from django.db import connection

        from accounts.models import User

        try:
            return User.objects.values_list("push_your_turn", "push_game_ended", "push_chat").get(
                pk=user_id
            )
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(read).result()


def test_settings_save_and_the_worker_shows_a_push(ana, web_server, chromium):
    username, password, user_id = ana
    base = web_server.url("")
    problems: list[str] = []
    page = watched_page(chromium, problems)
    page.context.grant_permissions(["notifications"], origin=base)
    log_in(page, base, username, password)
    page.goto(f"{base}/profile")
    page.wait_for_selector("#push-settings:not([hidden])")
    assert page.is_checked("#push-preferences input[name=chat]")
    with page.expect_response(
        lambda r: "push-preferences" in r.url and r.request.method == "PATCH"
    ):
        page.uncheck("#push-preferences input[name=chat]")
    assert preferences_of(user_id) == (True, True, False)
    assert page.inner_text("#push-toggle")  # offered: this browser can take pushes

    cdp = page.context.new_cdp_session(page)
    registrations: list[dict] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    scope = page.evaluate(
        """async (url) => {
            const registration = await navigator.serviceWorker.register(url, {scope: "/"});
            await navigator.serviceWorker.ready;
            return registration.scope;
        }""",
        "/push-worker.js",
    )
    assert scope == f"{base}/"
    registration_id = next(
        r["registrationId"] for r in registrations if r["scopeURL"] == f"{base}/"
    )
    payload = {
        "v": 1,
        "type": "your_turn",
        "game": 42,
        "title": "Your turn in game 42",
        "body": "Ana's taxi moved to 9H.",
        "url": "/games/42",
        "tag": "game-42-your_turn",
        "version": 7,
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": base, "registrationId": registration_id, "data": json.dumps(payload)},
    )
    shown = []
    for _ in range(150):  # the worker shows it once the browser has delivered the push
        shown = page.evaluate(SHOWN, "game-42-your_turn")
        if shown:
            break
        page.wait_for_timeout(100)
    assert shown == [
        {
            "title": "Your turn in game 42",
            "body": "Ana's taxi moved to 9H.",
            "tag": "game-42-your_turn",
            "url": "/games/42",
        }
    ]
    assert problems == []


def subscription_sessions(user_id: int) -> list[str]:
    """The session keys of the user's browser subscriptions (read in a thread of its own)."""

    def read():
        from django.db import connection

        from accounts.models import PushSubscription

        try:
            return list(
                PushSubscription.objects.filter(user_id=user_id).values_list(
                    "session_key", flat=True
                )
            )
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(read).result()


def test_a_new_login_registers_the_browsers_subscription_again(ana, web_server, chromium):
    """A browser subscription lives with its session: after logging out and in again, the first
    page registers it for the new session (push-renew.js), once, not on every page."""
    from base64 import urlsafe_b64encode

    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    def b64(data: bytes) -> str:
        return urlsafe_b64encode(data).rstrip(b"=").decode()

    point = ec.generate_private_key(ec.SECP256R1()).public_key()
    keys = {
        "p256dh": b64(point.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)),
        "auth": b64(uuid.uuid4().bytes),
    }
    # a public address (the server registers public push services only); nothing is pushed
    endpoint = f"https://93.184.215.14/push/{uuid.uuid4().hex}"
    username, password, user_id = ana
    base = web_server.url("")
    problems: list[str] = []
    page = watched_page(chromium, problems)
    # headless Chromium has no push service to subscribe at: this browser "has" a subscription
    page.context.add_init_script(
        "(() => { const sub = " + json.dumps({"endpoint": endpoint, "keys": keys}) + ";"
        "const fake = {endpoint: sub.endpoint, toJSON: () => sub};"
        "navigator.serviceWorker.getRegistration = async () =>"
        " ({pushManager: {getSubscription: async () => fake}}); })()"
    )
    posts: list[str] = []
    page.on(
        "request",
        lambda r: (
            posts.append(r.url)
            if r.method == "POST" and r.url.endswith("/push-subscriptions")
            else None
        ),
    )
    with page.expect_response(lambda r: r.url.endswith("/push-subscriptions")):
        log_in(page, base, username, password)
    first = subscription_sessions(user_id)
    assert len(first) == 1 and first[0]
    page.goto(f"{base}/rules")
    page.goto(f"{base}/")
    page.wait_for_load_state("networkidle")
    assert len(posts) == 1  # once a session, not on every page

    page.click("#logout-button")
    page.wait_for_load_state()
    with page.expect_response(lambda r: r.url.endswith("/push-subscriptions")):
        log_in(page, base, username, password)
    second = subscription_sessions(user_id)
    assert len(second) == 1 and second[0] and second != first
    assert problems == []
