"""What one account can make the server hold or send through push (docs/reliability.md,
"Outbound push"): at most `PUSH_SUBSCRIPTIONS_PER_ACCOUNT` subscriptions (one more replaces
the least recently registered), one notification to at most that many devices, each kind of
notification at most `PUSH_NOTIFICATIONS_PER_HOUR` times an hour, registrations rate-limited
per account and per address, and an endpoint and keys whose size fits what is stored: 400,
never 5xx (PostgreSQL refuses a btree index row over about 2,700 bytes)."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import PushSubscription
from games.models import Game
from tests.players import play_turn, seat_players, start_game
from tests.push.conftest import subscribe
from tests.push.endpoint import b64url

SUBSCRIPTIONS = "/api/v1/me/push-subscriptions"
PUBLIC = "93.184.215.14"

_hours_ahead = itertools.count(3, 3)


@pytest.fixture
def fresh_hour():
    """The clock some hours ahead, other hours for each test that asks: the counts of the
    limits live in the cache, which outlives a test, and users' ids recur after a rollback."""
    ahead = timezone.now() + timedelta(hours=next(_hours_ahead))
    with time_machine.travel(ahead, tick=True):
        yield


def _waiting(players, game_id):
    by_seat = seat_players(game_id, players)
    return by_seat, by_seat[1 - Game.objects.get(pk=game_id).active_seat]


def _names(player) -> list[str]:
    return [s["endpoint"].rsplit("/", 1)[1] for s in player.get(SUBSCRIPTIONS).json()]


def test_an_account_keeps_ten_and_one_more_replaces_the_least_recently_registered(
    make_player, endpoint
):
    player = make_player()
    for n in range(12):
        assert player.post(SUBSCRIPTIONS, endpoint.subscription(f"d{n}")).status_code == 201
    assert sorted(_names(player)) == sorted(f"d{n}" for n in range(2, 12))
    assert player.post(SUBSCRIPTIONS, endpoint.subscription("d2")).status_code == 200  # renewed
    assert player.post(SUBSCRIPTIONS, endpoint.subscription("d12")).status_code == 201
    names = _names(player)
    assert len(names) == 10 and "d2" in names and "d3" not in names
    assert PushSubscription.objects.count() == 10


def test_one_notification_goes_to_at_most_the_cap_the_most_recent_devices(
    make_player, endpoint, settings, eager_tasks, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting = _waiting(players, game_id)
    settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT = 15  # as stored under a larger cap
    for n in range(15):
        registered = waiting.post(SUBSCRIPTIONS, endpoint.subscription(f"d{n}"))
        assert registered.status_code == 201, registered.json()
    settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT = 10
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    reached = sorted(r.path.rsplit("/", 1)[1] for r in endpoint.received)
    assert reached == sorted(f"d{n}" for n in range(5, 15))


@pytest.mark.usefixtures("fresh_hour", "eager_tasks")
def test_each_kind_of_notification_is_pushed_at_most_the_hourly_limit(
    make_player, endpoint, settings, django_capture_on_commit_callbacks
):
    settings.PUSH_NOTIFICATIONS_PER_HOUR = 2
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting = _waiting(players, game_id)
    active = by_seat[Game.objects.get(pk=game_id).active_seat]
    subscribe(waiting, endpoint)
    with django_capture_on_commit_callbacks(execute=True):
        for text in ("one", "two", "three"):
            sent = active.post(f"/api/v1/games/{game_id}/chat", {"text": text})
            assert sent.status_code == 201, sent.json()
    assert [p["message"]["text"] for p in endpoint.payloads()] == ["one", "two"]
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)  # a flood of chat does not silence "your turn"
    assert [p["type"] for p in endpoint.payloads()] == ["chat", "chat", "your_turn"]


@pytest.mark.usefixtures("fresh_hour")
def test_registering_is_limited_per_account_and_per_address(make_player, endpoint, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "push_register": "3/hour",
        },
    }

    def device(player, address: str) -> APIClient:
        client = APIClient(REMOTE_ADDR=address)
        client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
        return client

    def register(client, name: str):
        return client.post(SUBSCRIPTIONS, endpoint.subscription(name), format="json")

    ana, bob, eve = make_player(), make_player(), make_player()
    for n in range(3):
        assert register(device(ana, f"198.51.100.{n + 1}"), f"a{n}").status_code == 201
    refused = register(device(ana, "198.51.100.9"), "a3")  # a new address: the same account
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    assert register(device(ana, "198.51.100.9"), "a3").status_code == 429
    for n in range(2):
        assert register(device(bob, "203.0.113.7"), f"b{n}").status_code == 201
    assert register(device(eve, "203.0.113.7"), "e0").status_code == 201
    by_address = register(device(eve, "203.0.113.7"), "e1")  # another account, the same address
    assert by_address.status_code == 429 and by_address.json()["code"] == "throttled"
    assert ana.get(SUBSCRIPTIONS).status_code == 200  # listing is not counted


def test_an_endpoint_over_its_byte_limit_is_400_not_5xx(make_player, endpoint, dns):
    dns.answers["push.example.com"] = [[PUBLIC]]
    keys = endpoint.subscription()["keys"]
    player = make_player()
    wide = "https://push.example.com/" + "漢" * 1970  # 1,995 characters, 5,935 bytes in UTF-8
    answer = player.post(SUBSCRIPTIONS, {"endpoint": wide, "keys": keys})
    assert answer.status_code == 400, answer.json()
    assert answer.json()["code"] == "invalid" and "endpoint" in answer.json()["errors"]
    longest = "https://push.example.com/" + "a" * (2000 - 25)  # 2,000 bytes: stored, indexed
    answer = player.post(SUBSCRIPTIONS, {"endpoint": longest, "keys": keys})
    assert answer.status_code == 201, answer.json()
    assert PushSubscription.objects.get().endpoint == longest


@pytest.mark.parametrize(
    "field, value",
    [
        ("p256dh", "junk"),  # decoding base64 skips characters outside its alphabet
        ("p256dh", "A" * 101),
        ("auth", "漢" * 22),
        ("auth", b64url(bytes(16)) + "*" * 20),
    ],
)
def test_keys_are_base64url_of_their_size(make_player, endpoint, field, value):
    data = endpoint.subscription()
    data["keys"][field] = data["keys"][field] + "~~~~" if value == "junk" else value
    answer = make_player().post(SUBSCRIPTIONS, data)
    assert answer.status_code == 400, answer.json()
    assert field in answer.json()["errors"].get("keys", answer.json()["errors"])
    assert not PushSubscription.objects.exists()


@pytest.mark.postgres
@pytest.mark.usefixtures("committed_db")
def test_the_cap_holds_when_registrations_race(endpoint):
    """Twelve devices of one account register at once: ten stay (the account's row is locked
    while one registers)."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    from django.db import connection

    from tests.players import Player

    player = Player()
    start = Barrier(12)

    def register(n: int):
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
            start.wait(timeout=30)
            return client.post(SUBSCRIPTIONS, endpoint.subscription(f"r{n}"), format="json")
        finally:
            connection.close()

    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(register, range(12)))
    assert [a.status_code for a in answers] == [201] * 12
    assert PushSubscription.objects.filter(user=player.user).count() == 10
