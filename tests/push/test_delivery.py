"""Push notifications end to end: moves, chat and the end of a game, made over the
HTTP API, reach a subscribed device through the real sender (pywebpush: VAPID-signed,
aes128gcm-encrypted) at a local push endpoint that checks the signature and decrypts the
payload as a browser would (tests/push/endpoint.py). The tasks run eagerly here; with a
broker and a worker in tests/push/test_live_worker.py."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from unittest import mock

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing.websocket import WebsocketCommunicator

from accounts.models import PushSubscription
from games import presence
from games.models import Game
from taxi_project.cache import shared
from tests.players import finished_game, play_turn, seat_players, start_game
from tests.push.conftest import subscribe

pytestmark = pytest.mark.usefixtures("eager_tasks")


def _waiting_and_active(players, game_id):
    by_seat = seat_players(game_id, players)
    active = Game.objects.get(pk=game_id).active_seat
    return by_seat, by_seat[1 - active], by_seat[active]


def test_your_turn_reaches_the_device_signed_and_encrypted(
    make_player, endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, _ = _waiting_and_active(players, game_id)
    subscribe(waiting, endpoint)
    public_key = waiting.get("/api/v1/me/push-public-key").json()["public_key"]
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    [push] = endpoint.payloads()
    game = Game.objects.get(pk=game_id)
    assert push["type"] == "your_turn" and push["game"] == game_id
    assert push["version"] == game.version and push["url"] == f"/games/{game_id}"
    assert push["title"] == f"Your turn in game {game_id}" and push["body"]
    assert push["tag"] == f"game-{game_id}-your_turn" and push["v"] == 1
    [received] = endpoint.received
    assert received.vapid_key == public_key  # signed with the key browsers subscribe with
    assert received.claims["sub"].startswith(("mailto:", "https:"))
    assert PushSubscription.objects.get(user=waiting.user).last_pushed is not None


def test_the_payload_is_in_the_readers_language(
    make_player, endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, _ = _waiting_and_active(players, game_id)
    waiting.client.patch("/api/v1/me", {"language": "fr"}, format="json")
    subscribe(waiting, endpoint)
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    [push] = endpoint.payloads()
    assert push["title"] == f"À vous de jouer dans la partie {game_id}"


def test_a_chat_message_reaches_the_other_players_not_its_author(
    make_player, make_endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player(), make_player()]
    game_id = start_game(players)
    devices = [make_endpoint() for _ in players]
    for player, device in zip(players, devices, strict=True):
        subscribe(player, device)
    with django_capture_on_commit_callbacks(execute=True):
        sent = players[0].post(f"/api/v1/games/{game_id}/chat", {"text": "Bonne chance !"})
    assert sent.status_code == 201, sent.json()
    assert devices[0].received == []
    for device in devices[1:]:
        [push] = device.payloads()
        assert push["type"] == "chat" and push["game"] == game_id
        assert push["message"]["text"] == "Bonne chance !"
        assert push["message"]["author"]["id"] == players[0].user.pk
        assert "Bonne chance !" in push["body"]


def test_the_end_of_a_game_reaches_every_player(
    make_player, make_endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    devices = [make_endpoint() for _ in players]
    for player, device in zip(players, devices, strict=True):
        subscribe(player, device)
    with django_capture_on_commit_callbacks(execute=True):
        game_id = finished_game(players)
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    for device in devices:
        ended = [p for p in device.payloads() if p["type"] == "game_ended"]
        assert len(ended) == 1
        assert ended[0]["game"] == game_id and ended[0]["version"] == game.version
        assert ended[0]["body"]  # the result, described


def test_a_player_who_turned_a_kind_off_gets_none_of_it(
    make_player, endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, active = _waiting_and_active(players, game_id)
    subscribe(waiting, endpoint)
    answer = waiting.client.patch(
        "/api/v1/me/push-preferences", {"your_turn": False}, format="json"
    )
    assert answer.json() == {"your_turn": False, "game_ended": True, "chat": True}
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
        active.post(f"/api/v1/games/{game_id}/chat", {"text": "hi"})
    assert [p["type"] for p in endpoint.payloads()] == ["chat"]


@pytest.mark.parametrize("gone", [404, 410])
def test_a_subscription_the_push_service_no_longer_knows_is_deleted(
    make_player, make_endpoint, gone, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, _ = _waiting_and_active(players, game_id)
    expired = make_endpoint(status=gone)
    live = make_endpoint()
    subscribe(waiting, expired, device="old phone")
    subscribe(waiting, live, device="new phone")
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    assert [r.answered for r in expired.received] == [gone]
    assert len(live.payloads()) == 1
    assert list(PushSubscription.objects.filter(user=waiting.user).values_list("device")) == [
        ("new phone",)
    ]


def test_a_failing_push_service_is_retried_and_the_subscription_kept(
    make_player, make_endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, _ = _waiting_and_active(players, game_id)
    flaky = make_endpoint(answers=[503, 500])  # then 201
    subscribe(waiting, flaky)
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    assert [r.answered for r in flaky.received] == [503, 500, 201]
    assert flaky.payloads()[0]["type"] == "your_turn"
    assert PushSubscription.objects.filter(user=waiting.user).exists()


def test_a_signed_out_device_is_not_pushed_and_its_subscription_goes(
    make_player, endpoint, django_capture_on_commit_callbacks
):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, _ = _waiting_and_active(players, game_id)
    subscribe(waiting, endpoint)
    assert waiting.post("/api/v1/auth/logout").status_code == 204  # revokes its token
    assert not PushSubscription.objects.filter(user=waiting.user).exists()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    assert endpoint.received == []


def test_a_browser_session_subscription_ends_with_the_session(
    make_player, endpoint, django_capture_on_commit_callbacks
):
    from rest_framework.test import APIClient

    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, _ = _waiting_and_active(players, game_id)
    browser = APIClient(enforce_csrf_checks=False)
    browser.force_login(waiting.user)
    registered = browser.post(
        "/api/v1/me/push-subscriptions", endpoint.subscription(), format="json"
    )
    assert registered.status_code == 201 and registered.json()["current"] is True
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    assert len(endpoint.payloads()) == 1
    browser.logout()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)  # the waiting player's own turn
        play_turn(game_id, by_seat)  # theirs again: the session is gone
    assert len(endpoint.received) == 1
    assert not PushSubscription.objects.filter(user=waiting.user).exists()


# ------------------------------------------------------------------ watching: no push


def _socket(player, game_id: int) -> WebsocketCommunicator:
    from taxi_project.asgi import application

    return WebsocketCommunicator(
        application,
        f"/ws/games/{game_id}/",
        headers=[
            (b"origin", b"http://testserver"),
            (b"authorization", f"Token {player.token}".encode()),
        ],
    )


@pytest.mark.usefixtures("committed_db")
def test_a_player_watching_the_game_is_not_pushed_until_they_leave(make_player, make_endpoint):
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting, active = _waiting_and_active(players, game_id)
    watching_device, other_device = make_endpoint(), make_endpoint()
    subscribe(waiting, watching_device)
    subscribe(active, other_device)

    async def watch_while(action):
        socket = _socket(waiting, game_id)
        connected, _ = await socket.connect(timeout=10)
        assert connected
        assert (await socket.receive_json_from(timeout=10))["type"] == "hello"
        for _ in range(500):  # the socket records itself just after its hello
            if await sync_to_async(presence.watching)(game_id=game_id, user_id=waiting.user.pk):
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the socket never recorded that its user watches the game")
        await sync_to_async(action)()
        await socket.disconnect()
        assert not await sync_to_async(presence.watching)(game_id=game_id, user_id=waiting.user.pk)

    # committed_db: real commits, so the on-commit pushes run as in production
    async_to_sync(watch_while)(lambda: play_turn(game_id, by_seat))
    assert watching_device.received == []  # watched the game: its page showed the turn
    play_turn(game_id, by_seat)  # the waiting player's own turn; the other is now waiting
    play_turn(game_id, by_seat)  # the socket is closed: pushed again
    assert [p["type"] for p in watching_device.payloads()] == ["your_turn"]
    assert [p["type"] for p in other_device.payloads()] == ["your_turn"]


class _Socket:
    """What the heartbeat reads of a game socket (games/consumers.py: GameConsumer)."""

    def __init__(self, game_id: int, user_id: int, channel: str):
        self.game_id, self.channel_name = game_id, channel
        self.user = SimpleNamespace(pk=user_id, is_authenticated=True)


def test_a_heartbeat_renews_every_socket_of_its_process_in_one_read_and_one_write():
    """500 sockets on 50 games, two per user and game: one read and one write of the cache
    for all of them, not a round trip (and a thread) per key."""
    sockets = [_Socket(900_000 + i % 50, 900_000 + i % 250, f"specific.x!{i}") for i in range(500)]
    games: dict[int, set] = {}
    for socket in sockets:
        games.setdefault(socket.game_id, set()).add(socket)
    cache = shared()
    with (
        mock.patch.object(cache, "get_many", wraps=cache.get_many) as reads,
        mock.patch.object(cache, "set_many", wraps=cache.set_many) as writes,
    ):
        async_to_sync(presence.renew)(games)
    assert (reads.call_count, writes.call_count) == (1, 1)
    assert all(
        presence.watching(game_id=900_000 + i % 50, user_id=900_000 + i % 250) for i in range(250)
    )
    async_to_sync(presence.left)(sockets[0])  # its user's other socket on the game remains
    assert presence.watching(game_id=900_000, user_id=900_000)
    async_to_sync(presence.left)(sockets[250])
    assert not presence.watching(game_id=900_000, user_id=900_000)


def test_a_chat_message_hidden_before_its_push_is_not_pushed(
    make_player, endpoint, django_capture_on_commit_callbacks
):
    from accounts.models import User
    from games.models import ChatMessage
    from games.services.chat import chat_hide

    players = [make_player(), make_player()]
    game_id = start_game(players)
    subscribe(players[1], endpoint)
    with django_capture_on_commit_callbacks(execute=False) as pending:
        players[0].post(f"/api/v1/games/{game_id}/chat", {"text": "rude words"})
    moderator = User.objects.create_user(username="moderator", is_staff=True)
    chat_hide(message_id=ChatMessage.objects.get(game_id=game_id).pk, moderator=moderator)
    for callback in pending:
        callback()
    assert endpoint.received == []


def test_a_your_turn_the_game_has_moved_on_from_is_not_pushed(make_player, make_endpoint):
    from games.tasks import push_notify

    players = [make_player(), make_player()]
    game_id = start_game(players)
    _, waiting, active = _waiting_and_active(players, game_id)
    waiting_device, endpoint = make_endpoint(), make_endpoint()
    subscribe(waiting, waiting_device)
    subscribe(active, endpoint)
    game = Game.objects.get(pk=game_id)
    assert push_notify.delay("your_turn", game_id, [active.user.pk], game.version - 1).get() == 0
    assert push_notify.delay("your_turn", game_id, [waiting.user.pk], game.version).get() == 0
    assert push_notify.delay("your_turn", game_id, [active.user.pk], game.version).get() == 1
    assert [p["version"] for p in endpoint.payloads()] == [game.version]
    assert waiting_device.received == []
