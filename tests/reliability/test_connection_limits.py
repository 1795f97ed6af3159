"""What one client may keep open (docs/reliability.md, "Limits": connections): streams and
sockets per account and per client address, refused over the cap (429 `too_many_connections`,
close code 4429), counted across server processes in Redis, lapsing when a process is killed,
given back on every close; and the abuse test: one account trying far more of each than it
may while others play.

The client address is the one the rate limits count: uvicorn's, from `X-Forwarded-For` only
when the peer is a trusted proxy (`FORWARDED_ALLOW_IPS`, 127.0.0.1 for these live servers), so
clients here name their addresses that way, as the proxy would.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import time
import urllib.error
import urllib.request
import uuid

import pytest
from django.conf import settings as django_settings
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from taxi_project import connection_limits
from tests.e2e.server import current_database_url, live_server, request_json
from tests.e2e.test_connection_hold import TokenTableLock
from tests.e2e.test_live import ClientLoop, Socket
from tests.players import Player, autopilot_choice, seat_players, start_game
from tests.reliability.multinode import Node, busy, named, start_together, wait_until
from tests.ws.test_consumers import ORIGIN, application, run, socket

CLOSE_TOO_MANY = 4429
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# ---------------------------------------------------------------------------------- clients


class Stream:
    """An open `GET …/stream`, or the refusal it got (`status`, `body`)."""

    def __init__(self, server, game_id: int, token: str, address: str | None = None):
        headers = {"Authorization": f"Token {token}"}
        if address:
            headers["X-Forwarded-For"] = address
        request = urllib.request.Request(
            server.url(f"/api/v1/games/{game_id}/stream"), headers=headers
        )
        self.response = None
        try:
            self.response = _opener.open(request, timeout=30)
            self.status, self.body = self.response.status, None
            json.loads(self.response.readline())  # the first line: the stream is serving
        except urllib.error.HTTPError as error:
            self.status, self.body = error.code, json.loads(error.read())

    def close(self) -> None:
        if self.response is not None:
            self.response.close()


class AddressedSocket(Socket):
    """A socket whose handshake names its client address, as a trusted proxy would."""

    def __init__(self, *args, address: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.address = address

    async def open(self, token: str | None = None) -> None:
        token = token or (self.person.token if self.person else None)
        headers = [("Authorization", f"Token {token}")] if token else []
        if self.address:
            headers.append(("X-Forwarded-For", self.address))
        self.ws = await connect(
            self.url, origin=self.origin, additional_headers=headers, proxy=None, open_timeout=10
        )
        self.reader = asyncio.get_running_loop().create_task(self._read())


def open_socket(clients: ClientLoop, server, path: str, person=None, *, address=None):
    sock = AddressedSocket(
        clients, server.ws_url(path), person, origin=server.origin, address=address
    )
    clients.run(sock.open())
    clients.sockets.append(sock)
    return sock


def try_open_socket(clients, server, path, person, *, address) -> tuple[str, object]:
    """("hello", the socket), ("4429", None) over a cap, or ("429", None) when the handshake
    itself was refused (too many being opened at once from the address)."""
    try:
        sock = open_socket(clients, server, path, person, address=address)
    except InvalidStatus as error:
        assert error.response.status_code == 429, error
        assert json.loads(error.response.body)["code"] == "too_many_connections"
        return "429", None
    first = sock.wait("hello or a refusal", lambda frames: frames[0] if frames else None)
    if first["type"] == "hello":
        return "hello", sock
    refused_socket(sock)
    return "4429", None


def refused_socket(sock) -> dict:
    """The refusal frame of a socket over its cap, once it is closed with 4429."""
    frame = sock.frame("error")
    assert sock.wait_closed() == CLOSE_TOO_MANY, sock.frames
    assert frame["code"] == "too_many_connections", frame
    return frame


def served_socket(sock) -> None:
    sock.frame("hello")
    assert not sock.closed


def _table():
    people = [Player(), Player()]
    game_id = start_game(people)
    return game_id, seat_players(game_id, people)


# ------------------------------------------------------------------ sockets, in the process


@pytest.fixture
def table(committed_db):
    """A started two-player game (committed: consumers read it from other threads)."""
    return _table()


def _socket_from(path: str, player=None, address: str = "10.0.0.1"):
    ws = socket(path, player)
    ws.scope["client"] = (address, 50000)
    return ws


async def _opened(ws) -> dict:
    connected, _ = await ws.connect(timeout=10)
    assert connected
    return await ws.receive_json_from(timeout=10)


async def _closed_with(ws) -> int:
    output = await ws.receive_output(timeout=10)
    assert output["type"] == "websocket.close", output
    return output["code"]


def test_sockets_per_account_across_game_and_user_sockets(table, settings):
    """An account may hold MAX_SOCKETS_PER_ACCOUNT sockets, game and user sockets together,
    from any addresses; one more is told why (`per`, `limit`) and closed with 4429; closing
    one lets the next in."""
    settings.MAX_SOCKETS_PER_ACCOUNT = 3
    game_id, by_seat = table
    player = by_seat[0]

    async def scenario():
        held = [
            _socket_from(f"/ws/games/{game_id}/", player, "10.0.0.1"),
            _socket_from("/ws/me/", player, "10.0.0.2"),
            _socket_from(f"/ws/games/{game_id}/", player, "10.0.0.3"),
        ]
        for ws in held:
            assert (await _opened(ws))["type"] == "hello"
        over = _socket_from("/ws/me/", player, "10.0.0.4")
        refusal = await _opened(over)
        assert await _closed_with(over) == CLOSE_TOO_MANY
        await held[0].disconnect()
        again = _socket_from(f"/ws/games/{game_id}/", player, "10.0.0.4")
        assert (await _opened(again))["type"] == "hello"
        for ws in (*held[1:], again):
            await ws.disconnect()
        return refusal

    refusal = run(scenario)
    assert refusal["type"] == "error" and refusal["code"] == "too_many_connections"
    assert (refusal["per"], refusal["limit"]) == ("account", 3)
    assert connection_limits.held(connection_limits.SOCKET, user_id=player.user.pk) == 0


def test_sockets_per_address_count_anonymous_spectators_too(table, settings):
    """An address may hold MAX_SOCKETS_PER_ADDRESS sockets, whoever opens them: anonymous
    spectators of a public table count by address alone. Another address is not affected."""
    settings.MAX_SOCKETS_PER_ADDRESS = 3
    game_id, by_seat = table
    path = f"/ws/games/{game_id}/"

    async def scenario():
        held = [
            _socket_from(path, None, "10.9.9.9"),
            _socket_from(path, None, "10.9.9.9"),
            _socket_from(path, by_seat[0], "10.9.9.9"),
        ]
        for ws in held:
            assert (await _opened(ws))["type"] == "hello"
        refusals = []
        for who in (None, by_seat[1]):
            over = _socket_from(path, who, "10.9.9.9")
            refusals.append(await _opened(over))
            assert await _closed_with(over) == CLOSE_TOO_MANY
        elsewhere = _socket_from(path, None, "10.8.8.8")
        assert (await _opened(elsewhere))["type"] == "hello"
        for ws in (*held, elsewhere):
            await ws.disconnect()
        return refusals

    refusals = run(scenario)
    assert [(r["code"], r["per"], r["limit"]) for r in refusals] == [
        ("too_many_connections", "address", 3)
    ] * 2
    assert connection_limits.held(connection_limits.SOCKET, address="10.9.9.9") == 0


def test_a_forged_forwarded_for_does_not_choose_the_address(table, settings):
    """With no proxy configured (NUM_PROXIES=0; under uvicorn the server itself resolves the
    address), a client's own `X-Forwarded-For` is not its address: new ones each time do not
    get it past the address cap."""
    settings.MAX_SOCKETS_PER_ADDRESS = 2
    game_id, _by_seat = table

    async def scenario():
        opened = []
        codes = []
        for n in range(3):
            ws = _socket_from(f"/ws/games/{game_id}/", None, "10.7.7.7")
            ws.scope["headers"].append((b"x-forwarded-for", f"192.0.2.{n}".encode()))
            first = await _opened(ws)
            if first["type"] == "hello":
                opened.append(ws)
            else:
                codes.append(await _closed_with(ws))
        for ws in opened:
            await ws.disconnect()
        return len(opened), codes

    assert run(scenario) == (2, [CLOSE_TOO_MANY])


def test_a_socket_whose_client_vanished_while_it_sent_gives_everything_back(table):
    """The client goes away while the server sends it the entries of its `sync` (sending
    fails): the socket ends with that error, without the `websocket.disconnect` Channels
    would have dispatched, and still gives back its place under the caps and leaves the
    process's heartbeat, as a closed one does."""
    from games.consumers import watch

    game_id, by_seat = table
    player = by_seat[0]
    headers = [ORIGIN, (b"authorization", f"Token {player.token}".encode())]
    scope = {"type": "websocket", "path": f"/ws/games/{game_id}/", "query_string": b"",
             "headers": headers, "subprotocols": [], "client": ("10.3.3.3", 50000)}  # fmt: skip

    async def scenario():
        inbox: asyncio.Queue = asyncio.Queue()
        frames: list[dict] = []

        async def send(message):
            if message["type"] == "websocket.send":
                if frames:  # the hello went out; the sync's first entry cannot
                    raise OSError("the client went away")
                frames.append(json.loads(message["text"]))

        await inbox.put({"type": "websocket.connect"})
        socket_app = asyncio.create_task(application()(scope, inbox.get, send))
        for _ in range(100):
            if frames:
                break
            await asyncio.sleep(0.05)
        assert frames and frames[0]["type"] == "hello", frames
        assert connection_limits.held(connection_limits.SOCKET, user_id=player.user.pk) == 1
        await inbox.put({"type": "websocket.receive", "text": json.dumps({"type": "sync"})})
        with pytest.raises(OSError):
            await asyncio.wait_for(socket_app, 10)

    run(scenario)
    assert connection_limits.held(connection_limits.SOCKET, user_id=player.user.pk) == 0
    assert game_id not in watch.games


def test_a_stream_whose_client_left_while_a_line_was_sent_gives_its_place_back(table):
    """The client goes away while a line is being written to it: Django's handler stops the
    response in the middle of the send, the stream's generator has not reached its end, and
    the stream's place under the caps is still back by the time the handler returns."""
    game_id, by_seat = table
    player = by_seat[0]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": f"/api/v1/games/{game_id}/stream",
             "raw_path": f"/api/v1/games/{game_id}/stream".encode(), "query_string": b"",
             "headers": [(b"host", b"testserver"),
                         (b"authorization", f"Token {player.token}".encode())],
             "client": ("10.4.4.4", 50000), "server": ("testserver", 80)}  # fmt: skip

    async def scenario():
        gone, first_line = asyncio.Event(), asyncio.Event()
        requested = False

        async def receive():
            nonlocal requested
            if not requested:
                requested = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.body" and message.get("body"):
                first_line.set()
                await asyncio.Event().wait()  # the write never completes: the client is gone

        handler = asyncio.create_task(application()(scope, receive, send))
        await asyncio.wait_for(first_line.wait(), 10)
        assert connection_limits.held(connection_limits.STREAM, user_id=player.user.pk) == 1
        gone.set()
        await asyncio.wait_for(handler, 10)
        return connection_limits.held(connection_limits.STREAM, user_id=player.user.pk)

    assert run(scenario) == 0


# ---------------------------------------------------------------- live servers and Redis


@pytest.fixture(scope="module")
def nodes(django_db_setup):
    """Two servers (one process each) on the test database and one Redis: the caps are
    counted across them."""
    import os

    redis_url = os.environ["REDIS_URL"]
    env = {
        "MAX_STREAMS_PER_ACCOUNT": "2",
        "MAX_STREAMS_PER_ADDRESS": "3",
        "MAX_SOCKETS_PER_ACCOUNT": "4",
        "MAX_SOCKETS_PER_ADDRESS": "6",
        # a killed node's leases lapse within 9 s (renewed every 3 s: a live node's survive
        # a stall of 6 s, on a machine the whole suite keeps busy; 6 s was once too short)
        "CONNECTION_LEASE_SECONDS": "9",
    }
    nodes = [
        Node(name, database_url=current_database_url(), redis_url=redis_url, env=env)
        for name in ("A", "B")
    ]
    try:
        start_together(nodes)
        yield nodes
    finally:
        for node in nodes:
            node.stop()


@pytest.fixture
def clients(committed_db):
    loop = ClientLoop()
    yield loop
    loop.close()


@pytest.mark.redis
@pytest.mark.slow
def test_streams_per_account_and_per_address_across_two_servers(nodes, committed_db):
    """Two streams per account on A and B together, the third refused on either with 429
    `too_many_connections` (`per: account`); three per address; closing one frees its place
    at once."""
    a, b = (node.server for node in nodes)
    game_id, _by_seat = _table()
    owner = Player()
    first, second = Stream(a, game_id, owner.token, "10.1.0.1"), Stream(b, game_id, owner.token)
    assert (first.status, second.status) == (200, 200)
    for server in (a, b):
        third = Stream(server, game_id, owner.token, "10.1.0.2")
        assert third.status == 429, third.body
        assert third.body["code"] == "too_many_connections"
        assert (third.body["per"], third.body["limit"]) == ("account", 2)
    first.close()
    wait_until(
        lambda: connection_limits.held(connection_limits.STREAM, user_id=owner.user.pk) == 1,
        timeout=5,
        what="the closed stream's place back",
    )
    again = Stream(a, game_id, owner.token, "10.1.0.1")
    assert again.status == 200
    # per address: three accounts, one address; a fourth account from it is refused
    others = [Player() for _ in range(4)]
    held = [
        Stream(node, game_id, p.token, "10.1.9.9")
        for node, p in zip((a, b, a), others[:3], strict=True)
    ]
    assert [s.status for s in held] == [200, 200, 200]
    fourth = Stream(b, game_id, others[3].token, "10.1.9.9")
    assert fourth.status == 429 and fourth.body["per"] == "address", fourth.body
    assert Stream(b, game_id, others[3].token, "10.1.9.8").status == 200
    for stream in (second, again, *held):
        stream.close()


@pytest.mark.redis
@pytest.mark.slow
def test_a_stream_refused_or_of_a_hidden_game_holds_no_place(nodes, committed_db):
    """A 429 and a 404 leave the counts as they were."""
    a = nodes[0].server
    game_id, _by_seat = _table()
    hidden = Player().post("/api/v1/tables", {"players": 2, "visibility": "invite"}).json()["id"]
    person = Player()
    for _ in range(3):
        status, body = request_json(a.url(f"/api/v1/games/{hidden}/stream"), token=person.token)
        assert status == 404 and body["code"] == "game_not_found"
    assert connection_limits.held(connection_limits.STREAM, user_id=person.user.pk) == 0
    streams = [Stream(a, game_id, person.token) for _ in range(2)]
    assert Stream(a, game_id, person.token).status == 429
    assert connection_limits.held(connection_limits.STREAM, user_id=person.user.pk) == 2
    for stream in streams:
        stream.close()


@pytest.mark.redis
@pytest.mark.slow
def test_sockets_per_account_across_two_servers(nodes, clients, committed_db):
    """Four sockets per account, two on A and two on B: the fifth is refused on either
    (4429); one closed on A lets one more in on B."""
    a, b = (node.server for node in nodes)
    game_id, _by_seat = _table()
    person = Player()
    held = [
        open_socket(clients, server, path, person)
        for server, path in ((a, f"/ws/games/{game_id}/"), (a, "/ws/me/"), (b, "/ws/me/"),
                             (b, f"/ws/games/{game_id}/"))
    ]  # fmt: skip
    for sock in held:
        served_socket(sock)
    for server in (a, b):
        frame = refused_socket(open_socket(clients, server, "/ws/me/", person))
        assert (frame["per"], frame["limit"]) == ("account", 4)
    held[0].close()
    wait_until(
        lambda: connection_limits.held(connection_limits.SOCKET, user_id=person.user.pk) == 3,
        timeout=5,
        what="the closed socket's place back",
    )
    served_socket(open_socket(clients, b, "/ws/me/", person))


@pytest.mark.redis
@pytest.mark.slow
def test_the_places_of_a_killed_server_lapse(nodes, clients, committed_db):
    """A server SIGKILLed with its sockets open gives nothing back; its leases lapse within
    CONNECTION_LEASE_SECONDS (9 s here) and the account may open its sockets elsewhere.
    While the servers live, their leases are renewed and do not lapse."""
    node_a, node_b = nodes
    game_id, _by_seat = _table()
    person = Player()
    for _ in range(4):
        served_socket(open_socket(clients, node_a.server, f"/ws/games/{game_id}/", person))
    time.sleep(11)  # longer than a lease: renewed, still counted
    refused_socket(open_socket(clients, node_b.server, "/ws/me/", person))
    node_a.kill()
    try:
        wait_until(
            lambda: connection_limits.held(connection_limits.SOCKET, user_id=person.user.pk) == 0,
            timeout=16,
            what="the killed server's leases to lapse",
        )
        for _ in range(4):
            served_socket(open_socket(clients, node_b.server, "/ws/me/", person))
    finally:
        node_a.start()


@pytest.mark.postgres
@pytest.mark.slow
def test_an_address_opening_more_at_once_is_refused_before_authentication(committed_db):
    """MAX_HANDSHAKES_PER_ADDRESS=2: two streams of one address held up in their
    authentication (the token table locked), a third stream and a socket from that address
    are refused at once with 429 `too_many_connections` (`per: address`), without waiting for
    the lock: nothing was looked up for them. Another address is not held back; once the two
    are open, the address may open more."""
    game_id, _by_seat = _table()
    person, other = Player(), Player()
    app = f"taxi-opening-{uuid.uuid4().hex[:6]}"
    env = {"MAX_HANDSHAKES_PER_ADDRESS": "2"}
    with live_server(database_url=named(current_database_url(), app), env=env) as live:
        clients = ClientLoop()
        lock = TokenTableLock()
        try:
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                slow = [
                    pool.submit(Stream, live, game_id, person.token, "10.5.5.5") for _ in range(2)
                ]
                wait_until(lambda: busy(app) >= 2, timeout=10, what="two lookups held up")
                started = time.monotonic()
                third = Stream(live, game_id, person.token, "10.5.5.5")
                assert third.status == 429 and time.monotonic() - started < 2, third.body
                assert (third.body["code"], third.body["per"], third.body["limit"]) == (
                    "too_many_connections", "address", 2
                )  # fmt: skip
                outcome, _sock = try_open_socket(
                    clients, live, "/ws/me/", person, address="10.5.5.5"
                )
                assert outcome == "429"
                elsewhere = pool.submit(Stream, live, game_id, other.token, "10.6.6.6")
                time.sleep(0.5)
                assert not elsewhere.done()  # it waits for the lock like the first two
                lock.release()
                opened = [future.result() for future in (*slow, elsewhere)]
                assert [stream.status for stream in opened] == [200, 200, 200]
            again = Stream(live, game_id, person.token, "10.5.5.5")
            assert again.status == 200
            for stream in (*opened, again):
                stream.close()
        finally:
            lock.release()
            clients.close()


# ---------------------------------------------------------------------------- the abuse test


@pytest.mark.redis
@pytest.mark.slow
def test_one_account_trying_hundreds_of_streams_and_sockets_starves_nobody(committed_db):
    """One account, from one address, opens 60 streams and 150 sockets at once (the default
    caps: 10 streams and 32 sockets per account, 4 being opened at once per address) while
    three pairs of others play over HTTP, each player with its game socket open: every try is
    accepted or refused with `too_many_connections` (429, or 4429 for a socket over its
    account's cap), the attacker never holds more than its caps, and trying one at a time it
    gets exactly those; the others' moves are all accepted and reach their sockets, their
    sockets and streams open, /healthz answers 200 throughout, and once the attacker lets go
    every count is back to zero within 5 s."""
    streams_cap = django_settings.MAX_STREAMS_PER_ACCOUNT
    sockets_cap = django_settings.MAX_SOCKETS_PER_ACCOUNT
    tables = [_table() for _ in range(3)]
    attacker = Player()
    env = {"DB_POOL_MAX_SIZE": "4"}
    with live_server(
        database_url=current_database_url(), redis_url=os.environ["REDIS_URL"], env=env
    ) as live:
        clients = ClientLoop()
        health: list[int] = []
        stop = False

        def watch_health():
            while not stop:
                health.append(request_json(live.url("/healthz"), timeout=10)[0])
                time.sleep(0.2)

        def held(kind):
            return connection_limits.held(kind, user_id=attacker.user.pk)

        target = tables[0][0]

        def try_socket(n):
            path = "/ws/me/" if n % 2 else f"/ws/games/{target}/"
            return try_open_socket(clients, live, path, attacker, address="10.66.6.6")

        try:
            with concurrent.futures.ThreadPoolExecutor(64) as pool:
                watcher = pool.submit(watch_health)
                streams = list(
                    pool.map(lambda _: Stream(live, target, attacker.token, "10.66.6.6"), range(60))
                )
                sockets = list(pool.map(try_socket, range(150)))
                assert {s.status for s in streams} <= {200, 429}
                assert {s.body["code"] for s in streams if s.status == 429} == {
                    "too_many_connections"
                }
                assert 1 <= sum(s.status == 200 for s in streams) <= streams_cap
                assert {outcome for outcome, _ in sockets} <= {"hello", "4429", "429"}
                assert 1 <= sum(outcome == "hello" for outcome, _ in sockets) <= sockets_cap
                assert held(connection_limits.STREAM) <= streams_cap
                assert held(connection_limits.SOCKET) <= sockets_cap
                # one at a time it gets exactly its caps, and no more
                while held(connection_limits.STREAM) < streams_cap:
                    streams.append(Stream(live, target, attacker.token, "10.66.6.6"))
                    assert streams[-1].status == 200, streams[-1].body
                over = Stream(live, target, attacker.token, "10.66.6.6")
                assert (over.status, over.body["per"]) == (429, "account"), over.body
                while held(connection_limits.SOCKET) < sockets_cap:
                    sockets.append(try_socket(len(sockets)))
                    assert sockets[-1][0] == "hello", sockets[-1]
                assert try_socket(0)[0] == "4429"
                # meanwhile the others play, each watching its game
                for n, (game_id, by_seat) in enumerate(tables):
                    path = f"/ws/games/{game_id}/"
                    own = [
                        open_socket(clients, live, path, p, address=f"10.0.{n}.{seat}")
                        for seat, p in by_seat.items()
                    ]
                    for sock in own:
                        served_socket(sock)
                        sock.sync(-1)
                    follower = Stream(live, game_id, by_seat[0].token, f"10.0.{n}.9")
                    assert follower.status == 200
                    for _ in range(4):
                        seq = _move(live, game_id, by_seat)
                        for sock in own:
                            sock.wait_entry(seq)
                    follower.close()
                for stream in streams:
                    stream.close()
                for _outcome, sock in sockets:
                    if sock is not None:
                        sock.close()
                stop_at = time.monotonic()
                wait_until(
                    lambda: all(
                        connection_limits.held(kind, user_id=attacker.user.pk) == 0
                        and connection_limits.held(kind, address="10.66.6.6") == 0
                        for kind in (connection_limits.STREAM, connection_limits.SOCKET)
                    ),
                    timeout=5,
                    what="the attacker's counts back to zero",
                )
                recovered = time.monotonic() - stop_at
                stop = True
                watcher.result()
        finally:
            stop = True
            clients.close()
        assert health and set(health) == {200}, health
        assert recovered < 5
        status, body = request_json(live.url("/healthz"))
        assert status == 200 and body["database_pool"]["waiting"] == 0, body


def _move(live, game_id: int, by_seat) -> int:
    from games.models import Game

    game = Game.objects.get(pk=game_id)
    status, body = request_json(
        live.url(f"/api/v1/games/{game_id}/actions"),
        {
            "action": autopilot_choice(game_id),
            "version": game.version,
            "idempotency_key": uuid.uuid4().hex,
        },
        token=by_seat[game.active_seat].token,
    )
    assert status == 201, body
    return body["seq"]
