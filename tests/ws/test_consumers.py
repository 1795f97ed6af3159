"""The WebSocket consumers through the real ASGI application (origin policy, auth, routing),
driven with Channels' WebsocketCommunicator. HTTP moves and socket moves share one path."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.testing.websocket import WebsocketCommunicator
from django.utils import timezone

from games import events
from games.models import ChatMessage, Game
from games.services import chat
from tests.players import autopilot_choice, start_game

ORIGIN = (b"origin", b"http://testserver")


def application():
    from taxi_project.asgi import application

    return application


def socket(path: str, player=None, *, origin=ORIGIN, cookie: str | None = None):
    headers = [origin] if origin else []
    if player is not None:
        headers.append((b"authorization", f"Token {player.token}".encode()))
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application(), path, headers=headers)


def run(coroutine_function):
    """Run an async scenario from a sync test (DB calls come back to this thread)."""
    return async_to_sync(coroutine_function)()


async def frames_until(ws, kind: str, limit: int = 50) -> list[dict]:
    got = []
    for _ in range(limit):
        got.append(await ws.receive_json_from(timeout=5))
        if got[-1]["type"] == kind:
            return got
    raise AssertionError(f"no {kind} frame in {got}")


async def open_game_socket(game_id: int, player, *, synced: bool = False):
    """A game socket past its hello; `synced`: also past the answer to `sync {after: 0}`."""
    ws = socket(f"/ws/games/{game_id}/", player)
    connected, _ = await ws.connect(timeout=10)
    assert connected
    assert (await ws.receive_json_from(timeout=10))["type"] == "hello"
    if synced:
        await ws.send_json_to({"type": "sync", "after": 0})
        await frames_until(ws, "synced")
    return ws


def move_over_http(game_id, by_seat):
    game = Game.objects.get(pk=game_id)
    response = by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), game.version)
    assert response.status_code == 201, response.json()
    return response.json()


def test_hello_then_sync_sends_every_entry_in_order_then_synced(table):
    game_id, by_seat = table
    for _ in range(3):
        move_over_http(game_id, by_seat)

    async def scenario():
        ws = socket(f"/ws/games/{game_id}/", by_seat[0])
        connected, _ = await ws.connect(timeout=10)
        assert connected
        hello = await ws.receive_json_from(timeout=10)
        assert hello["v"] == 1 and hello["type"] == "hello"
        assert (hello["game"], hello["seat"], hello["version"]) == (game_id, 0, 3)
        await ws.send_json_to({"type": "sync", "after": -1})
        frames = await frames_until(ws, "synced")
        await ws.disconnect()
        return frames

    frames = run(scenario)
    entries = [f for f in frames if f["type"] == "entry"]
    assert [f["seq"] for f in entries] == [0, 1, 2, 3]
    assert entries[0]["notifications"][0]["type"] == "game_started"
    assert all(f["view"] is None for f in entries[:-1])
    assert entries[-1]["view"]["you"] == 0
    assert frames[-1]["type"] == "synced" and frames[-1]["version"] == 3
    assert set(frames[-1]["clock"]) == {"turn_started_at", "turn_deadline_at", "deadlines_reached"}


def test_every_client_gets_each_move_once_with_its_own_view(table, make_player):
    game_id, by_seat = table
    watcher = make_player()

    async def scenario():
        sockets = {
            "seat0": socket(f"/ws/games/{game_id}/", by_seat[0]),
            "seat1": socket(f"/ws/games/{game_id}/", by_seat[1]),
            "watcher": socket(f"/ws/games/{game_id}/", watcher),
            "anonymous": socket(f"/ws/games/{game_id}/"),
        }
        for ws in sockets.values():
            assert (await ws.connect(timeout=10))[0]
            await ws.receive_json_from(timeout=10)
            await ws.send_json_to({"type": "sync", "after": 0})
            await frames_until(ws, "synced")
        from channels.db import database_sync_to_async

        bodies = [await database_sync_to_async(move_over_http)(game_id, by_seat) for _ in range(4)]
        received = {}
        for name, ws in sockets.items():
            received[name] = [await ws.receive_json_from(timeout=5) for _ in range(4)]
            assert await ws.receive_nothing(timeout=0.2)
            await ws.disconnect()
        return bodies, received

    bodies, received = run(scenario)
    for frames in received.values():
        assert [f["seq"] for f in frames] == [1, 2, 3, 4]
        assert [f["notifications"] for f in frames] == [b["notifications"] for b in bodies]
    for seat in (0, 1):
        for frame in received[f"seat{seat}"]:
            view = frame["view"]
            assert view["you"] == seat
            playable = [a for a in view["legal_actions"] if a["type"] != "resign"]
            assert bool(playable) == (view["active_seat"] == seat)
            assert {"type": "resign", "seat": seat} in view["legal_actions"]  # K3: at any time
    for name in ("watcher", "anonymous"):
        assert all(
            f["view"]["you"] is None and f["view"]["legal_actions"] == [] for f in received[name]
        )
    # each player's last frame shows exactly what the HTTP API shows that player now
    for seat in (0, 1):
        detail = by_seat[seat].get(f"/api/v1/games/{game_id}").json()
        assert received[f"seat{seat}"][-1]["view"] == detail["view"]


def test_moves_over_the_socket_use_the_same_path_and_codes(table):
    game_id, by_seat = table
    game = Game.objects.get(pk=game_id)
    mover, other = by_seat[game.active_seat], by_seat[1 - game.active_seat]

    async def scenario():
        ws = socket(f"/ws/games/{game_id}/", mover)
        await ws.connect(timeout=10)
        await ws.receive_json_from(timeout=10)
        await ws.send_json_to({"type": "sync", "after": 0})
        await frames_until(ws, "synced")
        other_ws = socket(f"/ws/games/{game_id}/", other)
        await other_ws.connect()
        await other_ws.receive_json_from(timeout=10)
        from channels.db import database_sync_to_async

        action = await database_sync_to_async(autopilot_choice)(game_id)
        key = uuid.uuid4().hex
        move = {"type": "move", "ref": "m1", "action": action, "version": 0, "idempotency_key": key}
        await ws.send_json_to(move)
        first = [await ws.receive_json_from(timeout=5) for _ in range(2)]
        await ws.send_json_to({**move, "ref": "m2"})  # a retry
        retry = await ws.receive_json_from(timeout=5)
        await ws.send_json_to({**move, "ref": "m3", "idempotency_key": "other"})
        stale = await ws.receive_json_from(timeout=5)
        await other_ws.send_json_to({**move, "ref": "o1", "version": 1, "idempotency_key": "x"})
        not_turn = await other_ws.receive_json_from(timeout=5)
        await ws.send_json_to(
            {
                "type": "move",
                "ref": "m4",
                "action": {"type": "fly"},
                "version": 1,
                "idempotency_key": "y",
            }
        )
        malformed = await ws.receive_json_from(timeout=5)
        await ws.send_json_to({"type": "move", "ref": "m5", "version": "x"})
        invalid = await ws.receive_json_from(timeout=5)
        await ws.disconnect()
        await other_ws.disconnect()
        return first, retry, stale, not_turn, malformed, invalid

    first, retry, stale, not_turn, malformed, invalid = run(scenario)
    kinds = {f["type"]: f for f in first}
    assert kinds["move_accepted"] == {
        "v": 1,
        "type": "move_accepted",
        "ref": "m1",
        "seq": 1,
        "replayed": False,
    }
    assert kinds["entry"]["seq"] == 1
    assert retry["type"] == "move_accepted" and retry["replayed"] is True and retry["seq"] == 1
    assert (stale["type"], stale["code"], stale["current_version"]) == ("error", "stale_version", 1)
    assert stale["ref"] == "m3"
    assert (not_turn["code"], not_turn["clause"]) == ("not_your_turn", "T8")
    assert malformed["code"] == "malformed_action" and malformed["errors"]
    assert invalid["code"] == "invalid" and set(invalid["errors"]) >= {"version", "action"}
    assert Game.objects.get(pk=game_id).version == 1


def test_moves_over_the_socket_count_against_the_same_per_user_limit_as_http(table, settings):
    from django.core.cache import cache

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "moves": "4/min",
        },
    }
    cache.clear()
    game_id, by_seat = table
    mover = by_seat[Game.objects.get(pk=game_id).active_seat]
    url = f"/api/v1/games/{game_id}/actions"
    for i in range(2):  # two over HTTP (stale: refused by the service, but counted)
        stale = {"action": {"type": "stop"}, "version": 99, "idempotency_key": f"h{i}"}
        assert mover.post(url, stale).status_code == 409

    async def scenario():
        ws = socket(f"/ws/games/{game_id}/", mover)
        await ws.connect(timeout=10)
        await ws.receive_json_from(timeout=10)
        answers = []
        for i in range(3):  # two more are allowed, the fifth of the minute is not
            await ws.send_json_to(
                {
                    "type": "move",
                    "ref": f"s{i}",
                    "action": {"type": "stop"},
                    "version": 99,
                    "idempotency_key": f"s{i}",
                }  # fmt: skip
            )
            answers.append(await ws.receive_json_from(timeout=10))
        await ws.disconnect()
        return answers

    answers = run(scenario)
    assert [a["code"] for a in answers] == ["stale_version", "stale_version", "throttled"]
    assert answers[2]["type"] == "error" and answers[2]["ref"] == "s2" and answers[2]["message"]
    assert Game.objects.get(pk=game_id).version == 0  # nothing was written
    cache.clear()


def test_reconnect_resyncs_missed_moves_and_buffers_live_ones(table):
    game_id, by_seat = table
    move_over_http(game_id, by_seat)  # seq 1, seen before the disconnect

    async def scenario():
        from channels.db import database_sync_to_async

        ws = socket(f"/ws/games/{game_id}/", by_seat[0])
        await ws.connect(timeout=10)
        await ws.receive_json_from(timeout=10)
        for _ in range(3):  # missed while away
            await database_sync_to_async(move_over_http)(game_id, by_seat)
        # a live move lands after hello and before the client's sync: it waits in the buffer
        await database_sync_to_async(move_over_http)(game_id, by_seat)
        await ws.send_json_to({"type": "sync", "after": 1})
        frames = await frames_until(ws, "synced")
        await database_sync_to_async(move_over_http)(game_id, by_seat)
        frames.append(await ws.receive_json_from(timeout=5))
        await ws.disconnect()
        return frames

    frames = run(scenario)
    assert [f["seq"] for f in frames if f["type"] == "entry"] == [2, 3, 4, 5, 6]


def test_a_dropped_live_entry_is_refetched_so_there_is_no_gap(table):
    game_id, by_seat = table

    async def scenario():
        from channels.db import database_sync_to_async

        ws = socket(f"/ws/games/{game_id}/", by_seat[1])
        await ws.connect(timeout=10)
        await ws.receive_json_from(timeout=10)
        await ws.send_json_to({"type": "sync", "after": 0})
        await frames_until(ws, "synced")
        for _ in range(3):
            await database_sync_to_async(move_over_http)(game_id, by_seat)
        frames = [await ws.receive_json_from(timeout=5) for _ in range(3)]
        # the push of seq 4 is lost; seq 5 arrives: 4 is read from the database first
        original = events.entry_committed

        def lossy(*, message, **kwargs):
            if message["seq"] != 4:
                original(message=message, **kwargs)

        events.entry_committed = lossy
        try:
            for _ in range(2):
                await database_sync_to_async(move_over_http)(game_id, by_seat)
        finally:
            events.entry_committed = original
        frames += [await ws.receive_json_from(timeout=5) for _ in range(2)]
        await ws.disconnect()
        return frames

    frames = run(scenario)
    assert [f["seq"] for f in frames] == [1, 2, 3, 4, 5]
    assert frames[3]["view"] is None and frames[4]["view"] is not None


@pytest.mark.parametrize(
    ("path", "who", "close_code", "code"),
    [
        ("/ws/games/999999/", "player", 4404, "game_not_found"),
        ("/ws/games/{invite}/", "anonymous", 4401, "not_authenticated"),
        ("/ws/games/{invite}/", "outsider", 4404, "game_not_found"),
        ("/ws/me/", "anonymous", 4401, "not_authenticated"),
        ("/ws/games/{public}/", "suspended", 4403, "account_suspended"),
        ("/ws/me/", "banned", 4403, "account_banned"),
    ],
)
def test_refused_sockets_say_why_and_close(make_player, path, who, close_code, code):
    owner, other = make_player(), make_player()
    public = start_game([owner, other])
    invite = owner.post("/api/v1/tables", {"players": 2, "visibility": "invite"}).json()["id"]
    person = None if who == "anonymous" else make_player()
    if who == "suspended":
        person.user.suspended_until = timezone.now() + timedelta(days=1)
        person.user.save()
    if who == "banned":
        person.user.banned_at = timezone.now()
        person.user.save()
    url = path.format(invite=invite, public=public)

    async def scenario():
        ws = socket(url, person)
        connected, _ = await ws.connect(timeout=10)
        assert connected
        error = await ws.receive_json_from(timeout=10)
        closed = await ws.receive_output(timeout=10)
        # The client's side of the close: the consumer ends on its own. Left running, it would
        # be cancelled with every channel-layer task at once when the event loop closes, which
        # with the Redis layer now and then never finished (CI hung here).
        await ws.disconnect()
        return error, closed

    error, closed = run(scenario)
    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert closed == {"type": "websocket.close", "code": close_code}


def test_origins_are_checked(table):
    game_id, by_seat = table
    path = f"/ws/games/{game_id}/"

    async def connects(ws):
        connected, _ = await ws.connect(timeout=10)
        if connected:
            await ws.disconnect()
        return connected

    async def scenario():
        return (
            await connects(socket(path, by_seat[0], origin=(b"origin", b"http://evil.example"))),
            await connects(socket(path, None, origin=None)),  # no origin, no token: refused
            await connects(socket(path, by_seat[0], origin=None)),  # a native app with a token
            await connects(socket(path, by_seat[0])),
        )

    assert run(scenario) == (False, False, True, True)


def test_session_cookie_authenticates_browsers(table, client):
    game_id, by_seat = table
    client.force_login(by_seat[1].user)
    cookie = f"sessionid={client.cookies['sessionid'].value}"

    async def scenario():
        ws = socket(f"/ws/games/{game_id}/", cookie=cookie)
        await ws.connect(timeout=10)
        hello = await ws.receive_json_from(timeout=10)
        await ws.disconnect()
        return hello

    assert run(scenario)["seat"] == 1


def test_malformed_and_unknown_frames_get_error_frames(table):
    game_id, by_seat = table

    async def scenario():
        ws = socket(f"/ws/games/{game_id}/", by_seat[0])
        await ws.connect(timeout=10)
        await ws.receive_json_from(timeout=10)
        answers = []
        for text in (
            "not json",
            "[1, 2]",
            '{"type": "dance"}',
            '{"type": "sync", "after": 99}',
            '{"type": "sync", "after": "x"}',
            "x" * 70000,
        ):
            await ws.send_to(text_data=text)
            answers.append(await ws.receive_json_from(timeout=5))
        await ws.send_to(bytes_data=b"\x00\x01")
        answers.append(await ws.receive_json_from(timeout=5))
        await ws.send_json_to({"type": "ping", "ref": 7})
        answers.append(await ws.receive_json_from(timeout=5))
        await ws.disconnect()
        return answers

    answers = run(scenario)
    assert [a.get("code") for a in answers[:-1]] == [
        "malformed_frame",
        "malformed_frame",
        "unknown_frame",
        "invalid_sync",
        "invalid_sync",
        "malformed_frame",
        "malformed_frame",
    ]
    assert answers[-1] == {"v": 1, "type": "pong", "ref": 7}


def test_chat_reaches_the_table_with_limits_and_hiding(table, make_player):
    game_id, by_seat = table
    watcher = make_player()

    async def scenario():
        from channels.db import database_sync_to_async

        writer = socket(f"/ws/games/{game_id}/", by_seat[0])
        reader = socket(f"/ws/games/{game_id}/", watcher)
        for ws in (writer, reader):
            await ws.connect(timeout=10)
            await ws.receive_json_from(timeout=10)
        await writer.send_json_to({"type": "chat", "text": "  good luck!  "})
        said = [
            await writer.receive_json_from(timeout=5),
            await reader.receive_json_from(timeout=5),
        ]
        await reader.send_json_to({"type": "chat", "text": "hi"})
        spectator = await reader.receive_json_from(timeout=5)
        await writer.send_json_to({"type": "chat", "text": "x" * 501})
        too_long = await writer.receive_json_from(timeout=5)
        await writer.send_json_to({"type": "chat", "text": "bad\x00"})
        control = await writer.receive_json_from(timeout=5)
        for i in range(4):
            await writer.send_json_to({"type": "chat", "text": f"m{i}"})
            await writer.receive_json_from(timeout=5)
        await writer.send_json_to({"type": "chat", "text": "one too many"})
        flood = await writer.receive_json_from(timeout=5)
        await reader.receive_json_from(timeout=5)  # drain m0..m3 from the reader
        for _ in range(3):
            await reader.receive_json_from(timeout=5)
        message_id = said[0]["message"]["id"]
        await database_sync_to_async(chat.chat_hide)(
            message_id=message_id, moderator=watcher.user, reason="test"
        )
        hidden = [
            await writer.receive_json_from(timeout=5),
            await reader.receive_json_from(timeout=5),
        ]
        late = socket(f"/ws/games/{game_id}/", by_seat[1])
        await late.connect()
        hello = await late.receive_json_from(timeout=10)
        for ws in (writer, reader, late):
            await ws.disconnect()
        return said, spectator, too_long, control, flood, hidden, hello

    said, spectator, too_long, control, flood, hidden, hello = run(scenario)
    for frame in said:
        assert frame["type"] == "chat" and frame["message"]["text"] == "good luck!"
        assert frame["message"]["seat"] == 0
    assert spectator["code"] == "not_a_player"
    assert too_long["code"] == control["code"] == "invalid_chat_message"
    assert flood["code"] == "chat_rate_limited"
    assert all(f == {"v": 1, "type": "chat_hidden", "id": said[0]["message"]["id"]} for f in hidden)
    assert "good luck!" not in [m["text"] for m in hello["chat"]]
    assert [m["text"] for m in hello["chat"]] == ["m0", "m1", "m2", "m3"]
    assert ChatMessage.objects.filter(game_id=game_id).count() == 5  # hidden, not deleted
    listed = by_seat[1].get(f"/api/v1/games/{game_id}/chat").json()
    assert [m["text"] for m in listed] == ["m0", "m1", "m2", "m3"]


def test_my_socket_says_your_turn_and_shows_the_lobby(table, make_player):
    game_id, by_seat = table
    game = Game.objects.get(pk=game_id)
    waiting_player = by_seat[1 - game.active_seat]
    host = make_player()

    def play_until_turn_of(seat):
        while Game.objects.get(pk=game_id).active_seat != seat:
            move_over_http(game_id, by_seat)

    async def scenario():
        from channels.db import database_sync_to_async

        ws = socket("/ws/me/", waiting_player)
        await ws.connect(timeout=10)
        hello = await ws.receive_json_from(timeout=10)
        await database_sync_to_async(play_until_turn_of)(1 - game.active_seat)
        your_turn = await ws.receive_json_from(timeout=5)
        await database_sync_to_async(host.post)("/api/v1/tables", {"players": 3})
        table_frame = await ws.receive_json_from(timeout=5)
        await ws.disconnect()
        return hello, your_turn, table_frame

    hello, your_turn, table_frame = run(scenario)
    assert hello["type"] == "hello" and hello["your_turn"] == []
    assert your_turn["type"] == "your_turn" and your_turn["game"] == game_id
    assert table_frame["type"] == "table" and table_frame["table"]["status"] == "open"
    assert table_frame["table"]["players"] == 3


def test_a_suspension_closes_the_players_open_sockets(table, make_player):
    game_id, by_seat = table
    moderator = make_player()

    async def scenario():
        from channels.db import database_sync_to_async

        from games import moderation

        sockets = [socket(f"/ws/games/{game_id}/", by_seat[1]), socket("/ws/me/", by_seat[1])]
        bystander = socket(f"/ws/games/{game_id}/", by_seat[0])
        for ws in (*sockets, bystander):
            await ws.connect(timeout=10)
            await ws.receive_json_from(timeout=10)
        await database_sync_to_async(moderation.user_suspend)(
            moderator=moderator.user,
            user_id=by_seat[1].user.pk,
            until=timezone.now() + timedelta(days=1),
            reason="abuse",
        )
        closed = []
        for ws in sockets:
            frame = await ws.receive_json_from(timeout=5)
            closed.append((frame["code"], await ws.receive_output(timeout=5)))
        quiet = await bystander.receive_nothing(timeout=0.3)
        await bystander.disconnect()
        return closed, quiet

    closed, quiet = run(scenario)
    for code, output in closed:
        assert code == "account_suspended"
        assert output == {"type": "websocket.close", "code": 4403}
    assert quiet  # the other player's socket is not touched (it has not synced: no entries)


def _waiting_table(make_player):
    """A two-player table its host has opened: (host, a guest to join it, its id)."""
    host, guest = make_player(), make_player()
    return host, guest, host.post("/api/v1/tables", {"players": 2}).json()["id"]


async def _hello(game_id: int, player):
    """A game socket past its hello: (the socket, the hello)."""
    ws = socket(f"/ws/games/{game_id}/", player)
    await ws.connect(timeout=10)
    return ws, await ws.receive_json_from(timeout=10)


def test_a_socket_opened_on_a_waiting_table_sees_the_game_start_with_its_seat(make_player):
    host, guest, game_id = _waiting_table(make_player)

    async def scenario():
        from channels.db import database_sync_to_async

        ws, hello = await _hello(game_id, host)
        await ws.send_json_to({"type": "sync", "after": -1})
        synced = await ws.receive_json_from(timeout=5)
        await database_sync_to_async(guest.post)(f"/api/v1/tables/{game_id}/join")
        started = await ws.receive_json_from(timeout=5)
        await ws.disconnect()
        return hello, synced, started

    hello, synced, started = run(scenario)
    assert (hello["status"], hello["version"], hello["seat"]) == ("open", -1, None)
    assert synced["type"] == "synced" and synced["version"] == -1
    assert started["type"] == "entry" and started["seq"] == 0
    host_seat = Game.objects.get(pk=game_id).seats.get(user=host.user).seat
    assert started["view"]["you"] == host_seat
    assert started["notifications"][0]["type"] == "game_started"


def test_the_last_entry_of_a_game_reaches_the_sockets_with_the_seed_as_text(table):
    """Regression: the revealed 128-bit seed broke the Redis layer's msgpack push of the end."""
    game_id, by_seat = table

    async def scenario():
        from channels.db import database_sync_to_async

        ws = socket(f"/ws/games/{game_id}/", by_seat[0])
        await ws.connect(timeout=10)
        await ws.receive_json_from(timeout=10)
        await ws.send_json_to({"type": "sync", "after": 0})
        await frames_until(ws, "synced")
        await database_sync_to_async(by_seat[0].move)(game_id, {"type": "resign"}, 0)
        await database_sync_to_async(by_seat[1].move)(game_id, {"type": "resign"}, 1)
        frames = [await ws.receive_json_from(timeout=10) for _ in range(2)]
        await ws.disconnect()
        return frames

    frames = run(scenario)
    last = frames[-1]
    assert last["notifications"][-1]["type"] == "game_ended"
    assert last["view"]["seed"] == Game.objects.get(pk=game_id).seed


def test_a_socket_that_syncs_after_the_start_without_its_push_gets_its_seats_view(make_player):
    """Opened on a waiting table, the socket's first sync comes after the game started and
    before (or without) the start's push: the sync draws the socket's seat itself, and the
    view is its seat's, not a spectator's."""
    host, guest, game_id = _waiting_table(make_player)

    async def scenario():
        from channels.db import database_sync_to_async

        ws, hello = await _hello(game_id, host)
        original = events.entry_committed
        events.entry_committed = lambda **kwargs: None  # the start's push is lost
        try:
            await database_sync_to_async(guest.post)(f"/api/v1/tables/{game_id}/join")
        finally:
            events.entry_committed = original
        await ws.send_json_to({"type": "sync", "after": -1})
        frames = await frames_until(ws, "synced")
        await ws.disconnect()
        return hello, frames

    hello, frames = run(scenario)
    assert hello["seat"] is None
    started = frames[0]
    assert started["type"] == "entry" and started["seq"] == 0
    host_seat = Game.objects.get(pk=game_id).seats.get(user=host.user).seat
    assert started["view"]["you"] == host_seat
